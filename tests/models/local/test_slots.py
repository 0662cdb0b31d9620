"""One slot per seat (sandbox/models/local/slots.py): which slot a seat's
calls are pinned to, and the settings that turn pinning and the grammar off."""

from __future__ import annotations

import pytest

from sandbox.agents.llm.agent import LLMAgent
from sandbox.agents.llm.answer_format import AnswerFormat
from sandbox.core.seat import Seating
from sandbox.games.registry import get_variant
from sandbox.models.local import ServerSettings
from sandbox.models.local.slots import request_fields, slot_of, takes_grammar


def test_each_seat_of_an_eleven_seat_table_has_its_own_slot() -> None:
    settings = ServerSettings(n_threads=1, pin_slots=True)
    assert settings.slots >= 11
    slots = [slot_of(seat, settings.slots) for seat in range(1, 12)]
    assert slots == list(range(11))
    assert request_fields(3, settings) == {"id_slot": 2, "cache_prompt": True}


def test_more_seats_than_slots_wrap_around() -> None:
    assert [slot_of(seat, 4) for seat in (1, 4, 5, 9)] == [0, 3, 0, 0]


def test_pinning_and_grammar_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert request_fields(3, ServerSettings(n_threads=1)) == {}  # pinning is off by default
    monkeypatch.setenv("SANDBOX_LOCAL_PIN_SLOTS", "1")
    assert request_fields(3) == {"id_slot": 2, "cache_prompt": True}
    monkeypatch.setenv("SANDBOX_LOCAL_PIN_SLOTS", "0")
    monkeypatch.setenv("SANDBOX_LOCAL_GRAMMAR", "0")
    assert request_fields(3) == {}
    assert takes_grammar() is False
    monkeypatch.setenv("SANDBOX_LOCAL_GRAMMAR", "1")
    assert takes_grammar() is True
    assert request_fields(None, ServerSettings(n_threads=1)) == {}  # a seat not seated yet


def test_local_calls_carry_the_grammar_and_the_seats_slot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SANDBOX_LOCAL_PIN_SLOTS", "1")
    agent = LLMAgent("local/smollm2")
    agent.attach(Seating(5, 1, get_variant("killer")))
    fake = LLMAgent("fake/legal-random", api_base="http://127.0.0.1:1/v1")
    fake.attach(Seating(5, 1, get_variant("killer")))
    fmt = AnswerFormat(object, None, None, extra_body={"grammar": 'root ::= "{}"'})  # type: ignore[arg-type]
    body = agent._extra_body(fmt)
    assert body == {"grammar": 'root ::= "{}"', "id_slot": 4, "cache_prompt": True}
    assert fake._extra_body(fmt) == {"grammar": 'root ::= "{}"'}
