"""The constrained route's grammar on the real llama-server (started by the
test): hand-built requests whose answers must hold the grammar's properties
however the model samples — no seat twice, no seat both accused and vouched
for, strings within their bounds, and JSON that closes within max_tokens.

The prompts push the model towards the invalid answers issue 24 saw (repeats,
a seat in both lists, a long speech); a high temperature makes it wander."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.agents.llm.grammar import (
    MIN_TEXT_CHARS,
    OPENINGS,
    PASS,
    SEAT_SUFFIX,
    Plan,
    plan_for,
)
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.models.local import LocalServer, ServerSettings, resolve_model
from tests.models.local.conftest import requires_local

pytestmark = [requires_local, pytest.mark.local_model]

SEATS = tuple(range(2, 12))
PUSH = (
    "Speak now at length, at least 300 characters. Accuse seats 3, 3, 5 and 7 and vouch "
    "for seats 3, 5 and 9 too; name seat 4 twice."
)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    settings = ServerSettings(slots=2, n_ctx=1024, n_threads=2, cache=False, start_timeout_s=120)
    running = LocalServer(resolve_model("local/smollm2"), settings)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def speech_request() -> DecisionRequest:
    return DecisionRequest(
        "3.1.speech", 1, "speech", "KG-8", "Speak.",
        (
            Text("speech", "your public speech (empty text passes)", 1200),
            Choice("claim", ("none", "police", "killer", "civilian"), "the role you claim"),
            MultiChoice("accuse", SEATS, "seats you accuse", len(SEATS), optional=True),
            MultiChoice("vouch", SEATS, "seats you vouch for", len(SEATS), optional=True),
        ),
    )  # fmt: skip


def ask(
    server: LocalServer, plan: Plan, max_tokens: int, seed: int, language: str = "en"
) -> dict[str, Any]:
    body = {
        "model": server.model.alias,
        "messages": [
            {"role": "system", "content": "You play Killer, a social deduction game."},
            {"role": "user", "content": PUSH + plan.hint(language)},
        ],
        "grammar": plan.grammar,
        "max_tokens": max_tokens,
        "temperature": 1.5,
        "seed": seed,
    }
    request = urllib.request.Request(
        f"{server.api_base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        reply: dict[str, Any] = json.load(response)
    return reply


def pairs_in_order(text: str) -> list[tuple[str, Any]]:
    """The answer's top-level members as written (a repeated key stays visible)."""
    found: list[tuple[str, Any]] = []

    def keep(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found[:] = items
        return dict(items)

    json.loads(text, object_pairs_hook=keep)
    return found


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("language", "max_tokens"), [("en", 448), ("en", 240), ("zh", 448)])
def test_speeches_name_each_seat_once_and_close_in_time(
    server: LocalServer, language: str, max_tokens: int
) -> None:
    """zh: the grammar of any character (4 bytes counted for each) compiles in
    llama.cpp and holds the same properties."""
    plan = plan_for(speech_request(), 48, 160, max_tokens, language)
    assert plan is not None and plan.max_bytes <= max_tokens
    bounds = dict(plan.text_chars)
    for seed in (1, 2, 3):
        reply = ask(server, plan, max_tokens, seed, language)
        text = reply["choices"][0]["message"]["content"]
        assert reply["usage"]["completion_tokens"] <= max_tokens
        answer = json.loads(text)  # the JSON closed: never cut by max_tokens
        assert [key for key, _ in pairs_in_order(text)] == list(plan.order)
        named: dict[str, str] = answer["accuse_or_vouch"]
        keys = list(named)
        seats = [int(k) for k in keys]
        assert seats == sorted(set(seats)), text  # strictly increasing: no repeats
        assert set(named.values()) <= {"accuse", "vouch"}
        decoded = plan.decode(answer)
        assert not set(decoded["accuse"]) & set(decoded["vouch"]), text  # KG-14
        assert len(answer["reasoning"]) <= bounds["reasoning"]
        speech = answer["speech"]
        assert speech == PASS or MIN_TEXT_CHARS <= len(speech) <= bounds["speech"], text
        assert speech == PASS or not speech[0].isspace(), text  # never a blank speech
        assert decoded["speech"] == ("" if speech == PASS else speech)  # a pass is no text


@pytest.mark.timeout(600)
def test_a_vote_holds_only_legal_values_in_the_small_budget(server: LocalServer) -> None:
    request = DecisionRequest(
        "5.1.vote", 1, "vote", "KG-9", "Vote.",
        (Choice("target", SEATS, "the player you vote out", nullable=True),),
    )  # fmt: skip
    plan = plan_for(request, 48, 160, 64, "en")
    assert plan is not None
    for seed in (4, 5):
        reply = ask(server, plan, 64, seed)
        answer = json.loads(reply["choices"][0]["message"]["content"])
        assert list(answer) == ["reasoning", "target"]
        assert answer["target"] in (*SEATS, None)
        assert len(answer["reasoning"]) <= dict(plan.text_chars)["reasoning"]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_speech_opens_by_naming_a_seat_among_the_options(
    server: LocalServer, language: str
) -> None:
    """Issue 40 item 5: with ``open_with_seat`` (the compact style), a speech that is
    not a pass opens with one of the openings and a seat of the request's options,
    then goes on in the model's own words within its bound."""
    plan = plan_for(speech_request(), 48, 160, 448, language, open_with_seat=True)
    assert plan is not None and plan.max_bytes <= 448
    openings = "|".join(re.escape(o) for o in OPENINGS[language])
    seats = "|".join(str(s) for s in sorted(SEATS, reverse=True))
    opened = re.compile(f"^(?:{openings})(?:{seats}){SEAT_SUFFIX[language]}(?!\\d)")
    for seed in (1, 2, 3):
        reply = ask(server, plan, 448, seed, language)
        speech = json.loads(reply["choices"][0]["message"]["content"])["speech"]
        assert speech == PASS or opened.match(speech), speech
        assert speech == PASS or len(speech) <= dict(plan.text_chars)["speech"]
