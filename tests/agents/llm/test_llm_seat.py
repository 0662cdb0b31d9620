"""LLM seats end to end against the fake provider: answers, repairs, retries,
faults, fallbacks, concurrency, privacy of keys and reasoning."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import warnings
from pathlib import Path
from typing import Any

import pytest

from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import FALLBACK_INVALID, FALLBACK_PROVIDER, AgentAnswer, AgentSetupError
from sandbox.games.registry import get_variant
from sandbox.models.client import CallSettings, ModelClient, ProviderFailure, RetryPolicy
from sandbox.models.endpoints import Endpoint
from sandbox.models.fake import FakeLLMServer
from sandbox.models.fake.answers import POLICIES
from sandbox.session.agent_specs import AgentSpec, LLMSpec, RandomSpec
from sandbox.session.gamefile import GameFile, LoadedConfig
from sandbox.session.runner import ABORTED
from sandbox.transcript import TranscriptWriter, iter_lines
from tests.agents.llm.conftest import (
    FAST_RETRY,
    TOY,
    Validator,
    context,
    decide_once,
    llm_spec,
    make_llm_agent,
    play_toy,
    toy_loaded,
)
from tests.prompts.harness import legal_answer

VALID = '{"reasoning": "two looks safe", "pick": 2}'


def call_lines(path: Path) -> list[dict[str, Any]]:
    """The transcript's call lines (the toy variant is not registered, so no load())."""
    return [obj for _, obj in iter_lines(path) if obj is not None and obj["type"] == "call"]


# ---------------------------------------------------------------- valid answers
async def test_toy_game_played_to_the_end_with_every_call_recorded(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    loaded = toy_loaded(llm_spec(fake, "legal-random"))
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path) as writer:
        writer.header({"variant": "toy", "seed": 1})
        game, runner = await play_toy(loaded, writer=writer)
        outcome = game.outcome()
        assert outcome is not None
        writer.outcome({"reason": outcome.reason})
    assert outcome.reason == "last_standing"
    assert runner.stats.fallback_count() == 0
    calls = call_lines(path)
    assert len(calls) == runner.stats.calls == fake.chat_requests
    assert runner.stats.decisions == fake.chat_requests  # one call per decision
    for call in calls:
        assert call["parsed"] is not None and call["error"] is None
        assert call["tokens_in"] > 0 and call["tokens_out"] > 0 and call["cost"] == 0.0
        assert call["messages"][0]["role"] == "system" and call["latency_ms"] >= 0
    # Local/fake models get the llama.cpp form of structured output.
    sent = fake.requests[0]["response_format"]
    assert sent["type"] == "json_object" and "pick" in sent["schema"]["properties"]


async def test_fenced_answer_is_accepted(fake: FakeLLMServer) -> None:
    answer = await decide_once(llm_spec(fake, "legal-fenced"))
    assert answer.payload is not None and answer.repairs == 0
    assert answer.calls[0]["raw"].startswith("Here is my answer")


async def test_reasoning_becomes_the_private_note_not_the_payload(fake: FakeLLMServer) -> None:
    fake.script(VALID)
    answer = await decide_once(llm_spec(fake, "scripted"))
    assert answer.payload == {"pick": 2}
    assert answer.note == "two looks safe"


# ------------------------------------------------------------------ repair loop
async def test_garbage_then_valid_is_repaired_in_the_same_conversation(
    fake: FakeLLMServer,
) -> None:
    fake.script("I pick two, obviously", VALID)
    answer = await decide_once(llm_spec(fake, "scripted"))
    assert answer.payload == {"pick": 2} and answer.repairs == 1
    assert fake.chat_requests == 2
    second = fake.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "I pick two, obviously"}
    assert second[-1]["role"] == "user" and "not valid JSON" in second[-1]["content"]
    assert [c["repair"] for c in answer.calls] == [0, 1]
    assert answer.calls[0]["error"].startswith("invalid:") and answer.calls[0]["parsed"] is None


async def test_illegal_choice_then_valid_is_repaired(fake: FakeLLMServer) -> None:
    fake.script('{"reasoning": "x", "pick": 7}', VALID)
    answer = await decide_once(llm_spec(fake, "scripted"))
    assert answer.payload == {"pick": 2} and answer.repairs == 1
    repair_text = fake.requests[1]["messages"][-1]["content"]
    assert "pick" in repair_text and "https://" not in repair_text  # compact, URL-free


async def test_referee_check_always_runs_after_the_schema(fake: FakeLLMServer) -> None:
    """A schema-valid answer the referee rejects (a rule beyond the shape) is repaired."""

    def no_twos(validate: Validator) -> Validator:
        def check(payload: object) -> dict[str, Any]:
            out = validate(payload)
            if out["pick"] == 2:
                raise IllegalDecision("T-9", "Two is forbidden today.", {"pick": [1, 3]})
            return out

        return check

    fake.script(VALID, '{"reasoning": "fine", "pick": 3}')
    answer = await decide_once(llm_spec(fake, "scripted"), check=no_twos)
    assert answer.payload == {"pick": 3} and answer.repairs == 1
    assert "[T-9] Two is forbidden today." in fake.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("policy", ["garbage", "illegal"])
async def test_always_invalid_falls_back_after_max_repairs(
    fake: FakeLLMServer, policy: str
) -> None:
    answer = await decide_once(llm_spec(fake, policy, max_repairs=2))
    assert answer.payload is None and answer.fallback_reason == FALLBACK_INVALID
    assert answer.repairs == 2 and fake.chat_requests == 3 and len(answer.calls) == 3


async def test_invalid_fallbacks_are_counted_per_seat_in_a_game(fake: FakeLLMServer) -> None:
    loaded = toy_loaded(llm_spec(fake, "illegal", max_repairs=0))
    game, runner = await play_toy(loaded)
    assert game.over
    fell_back = runner.stats.fallbacks
    assert set(fell_back) == set(game.seats)  # every seat was asked in the first step
    assert runner.stats.fallback_count(FALLBACK_INVALID) == runner.stats.decisions


# ------------------------------------------------------------ retries and faults
@pytest.mark.parametrize(
    ("faults", "requests"), [(("429",), 2), (("429", "429"), 3), (("500",), 2)]
)
async def test_transient_errors_are_retried_once_each(
    fake: FakeLLMServer, faults: tuple[str, ...], requests: int
) -> None:
    fake.inject(*faults)
    fake.script(VALID)
    answer = await decide_once(llm_spec(fake, "scripted"))
    assert answer.payload == {"pick": 2}
    # Exactly one HTTP request per attempt: no hidden SDK or litellm retries.
    assert fake.chat_requests == requests
    assert [c["attempt"] for c in answer.calls] == list(range(1, requests + 1))
    assert all(c["error"] for c in answer.calls[:-1]) and answer.calls[-1]["error"] is None


async def test_hang_past_the_timeout_is_retried(fake: FakeLLMServer) -> None:
    fake.inject("hang")
    fake.script(VALID)
    answer = await decide_once(llm_spec(fake, "scripted", timeout_s=0.3))
    assert answer.payload == {"pick": 2} and fake.chat_requests == 2
    assert "Timeout" in answer.calls[0]["error"]


async def test_malformed_response_body_is_retried(fake: FakeLLMServer) -> None:
    fake.inject("malformed")
    fake.script(VALID)
    answer = await decide_once(llm_spec(fake, "scripted"))
    assert answer.payload == {"pick": 2} and fake.chat_requests == 2


async def test_auth_error_is_not_retried_and_never_leaks_the_key(
    fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = "sk-test-" + os.urandom(12).hex()
    monkeypatch.setenv("SANDBOX_TEST_PROVIDER_KEY", key)
    fake.inject("auth_echo")
    spec = llm_spec(fake, "x").model_copy(
        update={"model": "openai/fake-legal-random", "api_key_env": "SANDBOX_TEST_PROVIDER_KEY"}
    )
    answer = await decide_once(spec)
    assert answer.fallback_reason == FALLBACK_PROVIDER and fake.chat_requests == 1
    assert "AuthenticationError" in answer.calls[0]["error"]
    assert "[redacted]" in answer.calls[0]["error"]  # the provider did echo it
    dumped = json.dumps({"calls": answer.calls, "note": answer.note})
    assert key not in dumped and key[8:] not in dumped


async def test_remote_style_model_without_structured_output_gets_schema_in_prompt(
    fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SANDBOX_TEST_PROVIDER_KEY", "sk-test-0123456789abcdef")
    spec = llm_spec(fake, "x").model_copy(
        update={"model": "openai/fake-legal-random", "api_key_env": "SANDBOX_TEST_PROVIDER_KEY"}
    )
    answer = await decide_once(spec)
    assert answer.payload is not None
    assert "response_format" not in fake.requests[0]
    assert '"properties"' in fake.requests[0]["messages"][-1]["content"]


def test_missing_key_variable_is_a_setup_error_naming_seat_and_variable(
    fake: FakeLLMServer,
) -> None:
    spec = llm_spec(fake, "x").model_copy(
        update={"model": "openai/fake-legal-random", "api_key_env": "SANDBOX_NO_SUCH_VAR"}
    )
    with pytest.raises(AgentSetupError, match=r"^seat 2: .*SANDBOX_NO_SUCH_VAR"):
        make_llm_agent(toy_loaded(spec), spec, 2, 1)
    assert fake.chat_requests == 0


async def test_key_variable_removed_after_setup_is_a_provider_fallback(
    fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SANDBOX_TEST_PROVIDER_KEY", "sk-test-0123456789abcdef")
    spec = llm_spec(fake, "x").model_copy(
        update={"model": "openai/fake-legal-random", "api_key_env": "SANDBOX_TEST_PROVIDER_KEY"}
    )
    loaded = toy_loaded(spec)
    game = Game.new(TOY, loaded.game_config, 1)
    request = game.pending()[0]
    agent = make_llm_agent(loaded, spec, request.seat, 1)
    monkeypatch.delenv("SANDBOX_TEST_PROVIDER_KEY")
    answer = await agent.decide(context(game, request))
    assert answer.fallback_reason == FALLBACK_PROVIDER and fake.chat_requests == 0
    assert "SANDBOX_TEST_PROVIDER_KEY" in answer.calls[0]["error"]


async def test_provider_down_uses_bounded_attempts_then_provider_fallback(
    fake: FakeLLMServer,
) -> None:
    answer = await decide_once(llm_spec(fake, "down"), retry_attempts=3)
    assert answer.payload is None and answer.fallback_reason == FALLBACK_PROVIDER
    assert fake.chat_requests == 3 and len(answer.calls) == 3


async def test_provider_down_aborts_the_game(fake: FakeLLMServer, tmp_path: Path) -> None:
    loaded = toy_loaded(llm_spec(fake, "down"), seats=5, retry_attempts=2)
    path = tmp_path / "aborted.jsonl"
    with TranscriptWriter(path) as writer:
        writer.header({"variant": "toy", "seed": 1})
        game, runner = await play_toy(loaded, writer=writer, abort_share=0.25)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == ABORTED
    assert runner.stats.fallback_count(FALLBACK_PROVIDER) == runner.stats.decisions >= 8
    assert len(call_lines(path)) == 2 * runner.stats.decisions  # every attempt recorded


# ------------------------------------------------------------------ concurrency
@pytest.mark.parametrize(("limit", "expected"), [(2, 2), (8, 6)])
async def test_per_model_concurrency_limit_is_shared_by_seats(limit: int, expected: int) -> None:
    """Six seats with the same model decide one sealed step at once."""
    with FakeLLMServer(latency_s=0.15) as server:
        spec = llm_spec(server, "legal-random", concurrency=limit)
        loaded = toy_loaded(spec, seats=6)
        game = Game.new(TOY, loaded.game_config, 1)
        requests = game.pending()
        answers = await asyncio.gather(
            *(
                make_llm_agent(loaded, spec, r.seat, r.seat).decide(context(game, r))
                for r in requests
            )
        )
    assert len(requests) == 6 and all(a.payload is not None for a in answers)
    assert server.max_in_flight == expected


# ---------------------------------------------------------------------- privacy
async def test_private_reasoning_never_reaches_another_seat(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    loaded = toy_loaded(llm_spec(fake, "legal-random"), seats=4)
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path) as writer:
        writer.header({"variant": "toy", "seed": 3})
        game, _ = await play_toy(loaded, seed=3, writer=writer)
    notes = {
        (e.seat, e.note)  # type: ignore[attr-defined]
        for e in game.events
        if e.kind == "core.decision" and e.note  # type: ignore[attr-defined]
    }
    assert notes, "the fake writes a unique note into every reasoning"
    for call in call_lines(path):
        prompt = json.dumps(call["messages"])
        for seat, note in notes:
            if seat != call["seat"]:
                assert note not in prompt


# ---------------------------------------------------------------- belief probe
def killer_vote(spec: AgentSpec | None = None) -> tuple[LoadedConfig, Game, DecisionRequest]:
    """Seat 1's day-1 vote in a seeded 12-seat Killer game (one seat dead by then)."""
    variant = get_variant("killer")
    file = GameFile(
        variant="killer",
        default_agent=spec or RandomSpec(kind="random"),
        llm=LLMSettings(**FAST_RETRY, belief_probe=True),
    )
    loaded = LoadedConfig(file, variant, variant.parse_config({}))
    game = Game.new(variant, loaded.game_config, 7)
    rng = random.Random(7)
    while not game.over:
        request = game.pending()[0]
        if request.decision == "vote":
            return loaded, game, request
        answer = legal_answer(game, request, rng, None)
        game.submit(request.id, answer) if answer else game.submit_fallback(request.id, "x")
    raise AssertionError("the seeded game never voted")


async def probed_decision(fake: FakeLLMServer, policy: str) -> tuple[AgentAnswer, str]:
    spec = llm_spec(fake, policy, belief_probe=True)
    loaded, game, request = killer_vote(spec)
    agent = make_llm_agent(loaded, spec, request.seat, 1)
    answer = await agent.decide(context(game, request))
    return answer, answer.calls[0]["messages"][1]["content"]


async def test_belief_probe_asks_prompt_and_schema_the_same_seats_and_labels(
    fake: FakeLLMServer,
) -> None:
    """B2: the fake answers from the schema; the recorded beliefs must use the
    keys and labels the prompt names, for exactly the living non-teammates."""
    answer, prompt = await probed_decision(fake, "legal-random")
    assert answer.payload is not None and "beliefs" not in answer.payload
    _, game, request = killer_vote()
    view = game.view(request.seat)
    mates = set(view.private["fellow_police"])
    living = set(view.public["living"])
    expected = {str(s) for s in living - mates - {request.seat}}
    beliefs = answer.calls[-1]["beliefs"]
    assert set(beliefs) == expected and "beliefs_error" not in answer.calls[-1]
    for spread in beliefs.values():  # a distribution over the three roles, normalised
        assert set(spread) == {"killer", "police", "civilian"}
        assert sum(spread.values()) == pytest.approx(1.0, abs=1e-5)
    listed = json.loads(prompt.split("each of the seats ", 1)[1].split("]", 1)[0] + "]")
    assert {str(s) for s in listed} == expected


async def test_an_answer_that_follows_the_prompt_is_accepted_without_repair(
    fake: FakeLLMServer,
) -> None:
    """B2: the keys the prompt shows ("2") and its labels validate first time;
    a sum within the tolerance (0.99) is normalised."""
    _, game, _ = killer_vote()
    seats = sorted(set(game.view(1).public["living"]) - {1, 4, 10})
    even = {"killer": 0.33, "police": 0.33, "civilian": 0.33}
    sure = {"killer": 1.0, "police": 0.0, "civilian": 0.0}
    beliefs = {str(s): even for s in seats} | {str(seats[0]): sure}
    fake.script(json.dumps({"reasoning": "r", "target": 12, "beliefs": beliefs}))
    answer, _ = await probed_decision(fake, "scripted")
    assert answer.payload == {"target": 12} and answer.repairs == 0
    third = round(1 / 3, 6)
    expected = {str(s): dict.fromkeys(even, third) for s in seats} | {str(seats[0]): sure}
    assert answer.calls[-1]["beliefs"] == expected


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "all killers",
        {"2": "mafia"},
        {"seat_99": "killer"},
        {"2": "killer"},
        {"2": {"killer": 0.9, "police": 0.9, "civilian": 0.9}},
        {"2": {"killer": 1.5, "police": -0.5, "civilian": 0.0}},
    ],
    ids=[
        "missing",
        "not-an-object",
        "bad-label-and-missing-seats",
        "unknown-seat",
        "a-label-not-a-distribution",
        "sum-off",
        "out-of-range",
    ],
)
async def test_bad_beliefs_never_cost_the_decision(fake: FakeLLMServer, bad: Any) -> None:
    """B2: the decision stands, the beliefs are dropped with their reason, no repair."""
    raw: dict[str, Any] = {"reasoning": "r", "target": 12}
    if bad is not None:
        raw["beliefs"] = bad
    fake.script(json.dumps(raw))
    answer, _ = await probed_decision(fake, "scripted")
    assert answer.payload == {"target": 12} and answer.fallback_reason is None
    assert answer.repairs == 0 and len(answer.calls) == 1
    assert "beliefs" not in answer.calls[-1] and answer.calls[-1]["beliefs_error"]


# ---------------------------------------------------------------- setup checks
@pytest.mark.parametrize("model", ["fake/nonsense", "fake/legal-randon", "fake/"])
def test_unknown_fake_policy_is_a_setup_error_listing_the_policies(model: str) -> None:
    """B4: a typo must not silently play legal-random."""
    spec = LLMSpec(kind="llm", model=model)
    with pytest.raises(AgentSetupError) as caught:
        make_llm_agent(toy_loaded(spec), spec, 2, 1)
    message = str(caught.value)
    assert message.startswith("seat 2: ") and "\n" not in message
    assert all(policy in message for policy in POLICIES)


def test_every_known_fake_policy_builds() -> None:
    for policy in POLICIES:
        spec = LLMSpec(kind="llm", model=f"fake/{policy}")
        make_llm_agent(toy_loaded(spec), spec, 2, 1)


def test_remote_model_without_its_provider_key_is_a_setup_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """B5: the provider's standard variable is named before the game starts."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = LLMSpec(kind="llm", model="openai/gpt-4o-mini")
    with pytest.raises(AgentSetupError, match=r"^seat 3: .*OPENAI_API_KEY"):
        make_llm_agent(toy_loaded(spec), spec, 3, 1)
    secret = "sk-test-" + os.urandom(8).hex()
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    assert make_llm_agent(toy_loaded(spec), spec, 3, 1) is not None


async def test_missing_credentials_are_not_retried(
    fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B5: litellm reports a missing key as an InternalServerError; one attempt only."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    endpoint = Endpoint("openai/fake-legal-random", fake.base_url, None, "litellm")
    client = ModelClient(endpoint, CallSettings(timeout_s=2.0), RetryPolicy(4, 0.01, 5.0), 2, [])
    calls: list[dict[str, Any]] = []
    with pytest.raises(ProviderFailure, match=r"(?i)credentials"):
        await client.complete([{"role": "user", "content": "hi"}], 0, calls)
    assert len(calls) == 1 and fake.chat_requests == 0


def test_cancelled_calls_leave_no_unawaited_coroutine_warning(fake: FakeLLMServer) -> None:
    """U9: Ctrl-C mid-call. A call cancelled while litellm still prepares it in
    its worker thread orphans a coroutine, which warned at shutdown."""
    endpoint = Endpoint("openai/fake-legal-random", fake.base_url, "k", "fake")
    client = ModelClient(endpoint, CallSettings(timeout_s=5.0), RetryPolicy(1, 0.01, 5.0), 2, [])

    async def cancelled_at_once() -> None:
        tasks = [
            asyncio.create_task(client.complete([{"role": "user", "content": "hi"}], 0, []))
            for _ in range(2)
        ]
        await asyncio.sleep(0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(cancelled_at_once())  # its shutdown joins litellm's worker thread
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]
