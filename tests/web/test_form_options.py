"""The question's options are only those the referee accepts (issue 38 item 3):
each option is tried in the referee's dry run before the form is shown, and one
refused on its own is left out; the rest of the form is as before."""

from __future__ import annotations

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.web.form import refused_options, render_form
from tests.web.helpers import read_form

QUESTION = DecisionRequest(
    "r1",
    2,
    "speech",
    "T-1",
    "Speak.",
    (
        Text("speech", "your words"),
        Choice("side", ("red", "blue", "green"), "the side you join"),
        MultiChoice("accuse", (1, 2, 3, 4), "seats you accuse", 2),
        MultiChoice("pair", (1, 2), "two seats together", 2),
    ),
)


def referee(answer: object) -> object:
    """Refuses one's own seat (2) to accuse, the green side, and a pair of one."""
    assert isinstance(answer, dict)
    if 2 in answer.get("accuse", ()):
        raise IllegalDecision("T-2", "you may not accuse yourself")
    if answer.get("side") == "green":
        raise IllegalDecision("T-3", "green is full")
    if len(answer.get("pair", ())) == 1:
        raise IllegalDecision("T-4", "a pair is two seats or none")
    return answer


def test_options_refused_on_their_own_are_left_out() -> None:
    refused = refused_options(QUESTION, referee)
    assert refused == {"side": frozenset({'"green"'}), "accuse": frozenset({"2"})}
    fields = read_form(render_form(QUESTION, "en", refused=refused)).fields
    assert fields["side"] == ("choice", ["red", "blue"])
    assert fields["accuse"] == ("multi", [1, 3, 4])
    # legal only together: every option refused alone, so none is left out
    assert fields["pair"] == ("multi", [1, 2])


def test_a_first_option_refused_is_not_the_simplest_answer() -> None:
    def strict(answer: object) -> object:
        assert isinstance(answer, dict)
        if answer.get("side") == "red":
            raise IllegalDecision("T-5", "red is closed")
        return referee(answer)

    assert refused_options(QUESTION, strict)["side"] == frozenset({'"red"', '"green"'})


def test_without_a_legal_simplest_answer_nothing_is_left_out() -> None:
    def nothing(answer: object) -> object:
        raise IllegalDecision("T-6", "not now")

    assert refused_options(QUESTION, nothing) == {}
    assert read_form(render_form(QUESTION, "en")).fields["side"] == (
        "choice",
        ["red", "blue", "green"],
    )
