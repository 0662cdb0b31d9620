"""An open day's ask on the page (OD-5): a message box with Send and Wait, not
a yes/no field; Send posts (the page adds ``speak: true``), Wait answers
``{"speak": false}`` at once; the options are tried as a post in the dry run."""

from __future__ import annotations

import re

from sandbox.core import discussion
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import DecisionRequest, MultiChoice, Text
from sandbox.web.form import refused_options, render_form
from tests.web.helpers import read_form

ASK = DecisionRequest(
    "4.2.message",
    2,
    "message",
    "KG-8, OD-5",
    "Post a message now, or wait.",
    discussion.ask_fields(
        (Text("speech", "your public message"), MultiChoice("accuse", (1, 2, 3), "seats", 3))
    ),
)


def referee(answer: object) -> object:
    """Refuses an empty post (OD-2) and accusing oneself (seat 2); a wait passes."""
    assert isinstance(answer, dict)
    if answer.get("speak") is not True:
        return answer
    if not str(answer.get("speech", "")).strip() and not answer.get("accuse"):
        raise IllegalDecision("OD-2", "say something, or wait")
    if 2 in answer.get("accuse", ()):
        raise IllegalDecision("T-2", "not yourself")
    return answer


def test_od5_an_ask_is_a_message_box_with_send_and_wait() -> None:
    for language, send, wait in (("en", "Send", "Wait"), ("zh", "发送", "等待")):
        html = render_form(ASK, language)
        form = read_form(html)
        assert set(form.fields) == {"speech", "accuse"}  # no yes/no "speak" field
        assert form.fields["speech"][0] == "text"
        assert 'data-speak="1"' in html
        assert re.search(rf'<button type="submit" id="send">{send}</button>', html)
        assert re.search(rf'<button type="button" id="wait">{wait}</button>', html)


def test_a_question_without_speak_keeps_its_one_send_button() -> None:
    speech = DecisionRequest("1.2.speech", 2, "speech", "KG-8", "Speak.", (Text("speech", "x"),))
    html = render_form(speech, "en")
    assert 'id="wait"' not in html and "data-speak" not in html
    assert '<button type="submit" id="send">Send answer</button>' in html


def test_od5_the_dry_run_tries_options_as_a_post() -> None:
    """Accusing oneself is left out as it would be in a speech, though a wait
    would accept it (the post's words are only the dry run's)."""
    refused = refused_options(ASK, referee)
    assert refused == {"accuse": frozenset({"2"})}
    html = render_form(ASK, "en", refused=refused)
    assert read_form(html).fields["accuse"][1] == [1, 3]
