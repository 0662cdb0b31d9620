"""The inspect adapter's parts, on hand-built cases with known answers: who the
model plays in each sample, the opponent pool, the scores and their metrics,
the registration, and the seat's calls through inspect."""

from __future__ import annotations

import math
import random
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import LimitExceededError, registry_info, token_limit

import sandbox.core.seat as contract
from sandbox.adapters.inspect_ai.agent import InspectAgent, chat_messages, response_schema
from sandbox.adapters.inspect_ai.mock import MOCK_MODEL, legal_outputs
from sandbox.adapters.inspect_ai.opponents import Seating, check_pool, parse_pool
from sandbox.adapters.inspect_ai.samples import Casting, GamePlan, cast_all
from sandbox.adapters.inspect_ai.scoring import (
    behaviour_items,
    pooled,
    score_game,
    score_keys,
    wilson95,
    win_value,
)
from sandbox.adapters.inspect_ai.tasks import TASKS
from sandbox.agents.llm import answer_format
from sandbox.agents.llm.agent import LLMAgent
from sandbox.agents.llm.beliefs import probe_for
from sandbox.agents.llm.settings import LIMITS, LLMSettings
from sandbox.analysis.intervals import BOOTSTRAP_SEED, wilson
from sandbox.analysis.metrics import figure
from sandbox.core.errors import ConfigError
from sandbox.core.metrics import MetricItem
from sandbox.core.rng import derived_seed
from sandbox.core.seat import DecisionContext
from sandbox.games.registry import get_variant, variant_names
from sandbox.models.client import attempt_seed
from sandbox.session.api import new_game
from sandbox.transcript import EventRow, Transcript
from tests.prompts.harness import new_game as harness_game
from tests.prompts.harness import play

# ------------------------------------------------------------------ casting


def test_without_a_casting_the_seat_rotates_over_new_seeds() -> None:
    casts = cast_all(GamePlan("killer", 14, seed=7))
    assert [c.seed for c in casts] == list(range(7, 21))
    assert [c.seats for c in casts] == [((i % 12) + 1,) for i in range(14)]
    for cast in casts:
        roles = new_game("killer", cast.seed).roles()
        assert cast.roles == {cast.seats[0]: roles[cast.seats[0]]}


def test_a_role_picks_the_seats_dealt_it_in_turn() -> None:
    casts = cast_all(GamePlan("killer", 4, casting=Casting(role="police")))
    for i, cast in enumerate(casts):
        roles = new_game("killer", cast.seed).roles()
        police = [s for s in sorted(roles) if roles[s] == "police"]
        assert cast.seats == (police[i % len(police)],)
        assert cast.side == "police"


def test_a_side_is_every_seat_on_it_and_each_takes_the_sides_in_turn() -> None:
    [cast] = cast_all(GamePlan("killer", 1, seed=2, casting=Casting(side="police")))
    roles = new_game("killer", 2).roles()
    # Killer's civilians are seated with the police (VariantInfo.seated_with).
    assert cast.seats == tuple(s for s in sorted(roles) if roles[s] in ("police", "civilian"))
    casts = cast_all(GamePlan("killer", 4, seed=2, casting=Casting(side="each")))
    assert [(c.seed, c.side) for c in casts] == [
        (2, "killer"),
        (2, "police"),
        (3, "killer"),
        (3, "police"),
    ]


@pytest.mark.parametrize(
    ("casting", "games", "message"),
    [
        (Casting(side="nobody"), 1, "side: 'nobody' is not a side; known: killer, police, each"),
        (Casting(seat=13), 1, "seat: 13 is not a seat here (seats 1-12)"),
        (Casting(role="doctor"), 1, "role: no seat is dealt 'doctor'"),
        (Casting(), 0, "games: at least 1 (got 0)"),
    ],
)
def test_a_casting_the_game_cannot_give_is_a_config_error(
    casting: Casting, games: int, message: str
) -> None:
    with pytest.raises(ConfigError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        cast_all(GamePlan("killer", games, casting=casting))


def test_two_castings_at_once_are_refused() -> None:
    with pytest.raises(ConfigError, match="at most one of side, role, seat"):
        Casting(side="police", seat=2)


# ---------------------------------------------------------------- opponents


def test_the_pool_is_dealt_round_robin_in_seat_order() -> None:
    pool = parse_pool(["baseline", "random"])
    assert parse_pool("baseline, random") == pool
    assert [o.entry for o in parse_pool(None)] == ["baseline"]
    seating = Seating(pool)
    assert seating.labels([4, 2, 3]) == {2: "baseline", 3: "random", 4: "baseline"}
    agents = seating.agents([2, 3, 4], 0, LLMSettings())
    assert {s: a.kind for s, a in agents.items()} == {2: "baseline", 3: "random", 4: "baseline"}


def test_fake_and_model_strings_are_llm_seats() -> None:
    [fake, other] = parse_pool("fake,fake/illegal")
    built = fake.build(1, 0, LLMSettings())
    assert isinstance(built, LLMAgent) and built.target.model == "fake/legal-random"
    assert other.build(1, 0, LLMSettings()).describe()["model"] == "fake/illegal"
    [through_inspect] = parse_pool(f"inspect:{MOCK_MODEL}")
    seat = through_inspect.build(1, 0, LLMSettings())
    assert isinstance(seat, InspectAgent) and seat.describe()["model"] == MOCK_MODEL


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("baseline,,random", "opponents: an empty entry"),
        ("inspect:", "opponents: 'inspect:' needs a model"),
        ("fake/nosuch", "opponents: fake/nosuch: unknown fake policy 'nosuch'"),
        ("openai/gpt-4o", "opponents: openai/gpt-4o: .*OPENAI_API_KEY"),
    ],
)
def test_a_bad_pool_is_refused_before_any_game(
    raw: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=message):
        check_pool(parse_pool(raw), LLMSettings(), "killer")


# ------------------------------------------------------------------ scoring


def killer_game(events: list[dict[str, Any]]) -> Transcript[EventRow]:
    roles = {1: "killer", 2: "police", 3: "civilian", 4: "civilian"}
    header = {"variant": "killer", "roles": {str(s): r for s, r in roles.items()}}
    return Transcript(Path("hand-built.jsonl"), header, events, outcome={"reason": "x"})


def test_behaviour_items_are_the_evaluated_seats_only() -> None:
    speeches = [
        {"seq": 1, "kind": "killer.speech", "seat": 1, "claim": "police"},  # a lie
        {"seq": 2, "kind": "killer.speech", "seat": 2, "claim": "police"},  # the truth
        {"seq": 3, "kind": "killer.speech", "seat": 3, "claim": "none"},  # no claim
        {"seq": 4, "kind": "killer.speech", "seat": 4, "claim": "civilian"},  # the truth
    ]
    assert behaviour_items(killer_game(speeches), [1], False)["claim_honesty"] == [0.0]
    assert behaviour_items(killer_game(speeches), [2], False)["claim_honesty"] == [1.0]
    assert behaviour_items(killer_game(speeches), [3], False)["claim_honesty"] == []
    assert behaviour_items(killer_game(speeches), [1, 2, 4], False)["claim_honesty"] == [
        0.0,
        1.0,
        1.0,
    ]


def test_the_belief_probe_gives_accuracy_and_brier_of_the_evaluated_seat() -> None:
    game = killer_game([])
    # Seat 2 (police) on seat 1 (a killer): 0.8 killer; on seat 3 (a civilian): 0.6 killer.
    game.calls = [
        {"seat": 2, "probe": True, "seq": 0, "beliefs": {"1": {"killer": 0.8, "police": 0.1,
         "civilian": 0.1}, "3": {"killer": 0.6, "police": 0.0, "civilian": 0.4}}},
        {"seat": 1, "probe": True, "seq": 0, "beliefs": {"2": {"killer": 1.0, "police": 0.0,
         "civilian": 0.0}}},
    ]  # fmt: skip
    items = behaviour_items(game, [2], True)
    assert items["belief_accuracy"] == [1.0, 0.0]
    # Brier = sum over labels of (p - [label is true])^2.
    expected = [0.2**2 + 0.1**2 + 0.1**2, 0.6**2 + 0.0**2 + 0.6**2]
    assert items["belief_brier"] == pytest.approx(expected)


def test_the_win_is_every_evaluated_seat_winning() -> None:
    results = {"1": "win", "2": "win", "3": "lose", "4": "draw"}
    assert win_value(results, [1, 2]) == 1.0
    assert win_value(results, [1, 3]) == 0.0
    assert win_value(results, [4]) == 0.0  # a draw is not a win


def test_an_unfinished_game_scores_nan_for_every_key() -> None:
    keys = score_keys("killer", beliefs=False)
    score = score_game({"outcome": "aborted", "seats": [1]}, keys, False)
    assert isinstance(score.value, dict) and list(score.value) == keys
    assert all(math.isnan(float(v)) for v in score.value.values())  # type: ignore[arg-type]
    assert score.answer == "aborted"


def sample_score(game: str, items: list[float]) -> SampleScore:
    value = sum(items) / len(items) if items else float("nan")
    score = Score(value=value, metadata={"items": {"k": items}, "game": game})
    return SampleScore(score=score, sample_id=game)


def test_pooled_is_the_mean_over_items_not_over_games() -> None:
    scores = [sample_score("a", [1.0, 1.0, 0.0]), sample_score("b", [0.0])]
    got = pooled("k")(scores)
    assert isinstance(got, dict)
    # 2 hits of 4 items; the mean of the games' means would be (2/3 + 0) / 2.
    assert got["mean"] == 0.5 and got["items"] == 4.0
    items = [MetricItem("a", "x", 1.0), MetricItem("a", "x", 1.0), MetricItem("a", "x", 0.0)]
    items.append(MetricItem("b", "x", 0.0))
    ci = figure(items, random.Random(BOOTSTRAP_SEED))["ci95"]
    assert [got["ci95_low"], got["ci95_high"]] == ci
    assert pooled("k")([sample_score("a", [])]) == {}


def test_wilson95_is_the_wilson_interval_of_the_wins() -> None:
    scores = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate([1, 1, 0, 1])]
    low, high = wilson(3, 4) or (0.0, 0.0)
    assert wilson95()(scores) == {"ci95_low": round(low, 4), "ci95_high": round(high, 4)}


# ------------------------------------------------------------- registration


def test_every_variant_is_an_inspect_task_on_the_entry_point() -> None:
    [point] = [p for p in entry_points(group="inspect_ai") if p.name == "sandbox"]
    assert point.value == "sandbox.adapters.inspect_ai.tasks"
    assert set(TASKS) == set(variant_names())
    for name, factory in TASKS.items():
        assert registry_info(factory).name == f"sandbox/{name}"


def test_a_bad_task_argument_is_one_error_line() -> None:
    from inspect_ai._util.error import PrerequisiteError

    with pytest.raises(PrerequisiteError) as raised:
        TASKS["killer"](max_repairs=9)
    assert str(raised.value.message).startswith("error: max_repairs: ")
    assert "\n" not in str(raised.value.message)


# -------------------------------------------------------- the inspect seat


def first_context(variant: str = "killer", seed: int = 0) -> DecisionContext:
    game = new_game(variant, seed)
    return DecisionContext.for_request(game, game.pending()[0])


@pytest.mark.parametrize("variant", ["killer", "four_factions", "werewolf"])
def test_the_answer_schema_goes_as_inspect_response_schema(variant: str) -> None:
    """Every request shape of a seeded game, with and without the belief probe."""
    captured = play(harness_game(variant, 4), random.Random(4), pick=lambda g, r: True)
    checked = 0
    for c in captured[::4]:
        for probe in (None, probe_for(c.view)):
            fmt = answer_format.for_decision(c.request, probe, LIMITS["full"], "json_schema", "en")
            schema = response_schema(fmt.response_format)
            assert schema is not None and schema.name == "decision" and schema.strict is True
            wire = fmt.response_format["json_schema"]["schema"]  # type: ignore[index]
            # Every constraint goes along; only pydantic's titles (labels, no
            # constraint) have no place in inspect's JSONSchema.
            assert schema.json_schema.model_dump(exclude_none=True) == without_titles(wire)
            checked += 1
    assert checked > 20
    request = captured[0].request
    json_object = answer_format.for_decision(request, None, LIMITS["full"], "json_object", "en")
    assert response_schema(json_object.response_format) is None
    assert response_schema(None) is None


def without_titles(schema: Any) -> Any:
    if isinstance(schema, list):
        return [without_titles(s) for s in schema]
    if isinstance(schema, dict):
        return {k: without_titles(v) for k, v in schema.items() if k != "title"}
    return schema


def test_the_conversation_keeps_its_roles() -> None:
    said = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": "answer"},
    ]
    assert [(m.role, m.text) for m in chat_messages(said)] == [
        ("system", "rules"),
        ("user", "question"),
        ("assistant", "answer"),
    ]


@pytest.mark.parametrize(
    ("asked", "sent"), [("auto", "json_schema"), ("json_object", "json_schema"), ("none", "none")]
)
def test_the_inspect_seat_sends_one_schema_form(asked: str, sent: str) -> None:
    agent = InspectAgent(get_model(MOCK_MODEL), structured=asked)
    assert agent.settings.structured == sent
    assert agent.describe()["kind"] == "inspect"


async def test_invalid_answers_are_repaired_then_fall_back() -> None:
    agent = InspectAgent(get_model(MOCK_MODEL, memoize=False), max_repairs=1)
    agent.attach(contract.Seating(1, 0, get_variant("killer")))
    answer = await agent.decide(first_context())
    assert answer.payload is None and answer.fallback_reason == "invalid"
    assert [c["repair"] for c in answer.calls] == [0, 1] and answer.repairs == 1
    assert all(c["raw"] == "Default output from mockllm/model" for c in answer.calls)


@pytest.mark.parametrize("structured", ["auto", "none"])
async def test_a_legal_answer_is_accepted_in_one_call(structured: str) -> None:
    model = get_model(MOCK_MODEL, custom_outputs=legal_outputs(seed=2), memoize=False)
    agent = InspectAgent(model, structured=structured)
    ctx = first_context()
    agent.attach(contract.Seating(ctx.seat, 0, get_variant("killer")))
    answer = await agent.decide(ctx)
    assert answer.fallback_reason is None and answer.payload is not None
    assert len(answer.calls) == 1 and answer.calls[0]["parsed"] == answer.payload
    assert ctx.validate(dict(answer.payload)) == answer.payload


def failing(
    messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice, config: GenerateConfig
) -> ModelOutput:
    raise RuntimeError("the provider is down")


async def test_a_failing_provider_is_the_provider_fallback() -> None:
    agent = InspectAgent(get_model(MOCK_MODEL, custom_outputs=failing, memoize=False))
    agent.attach(contract.Seating(1, 0, get_variant("killer")))
    answer = await agent.decide(first_context())
    assert answer.payload is None and answer.fallback_reason == "provider"
    assert answer.calls[-1]["error"] == "RuntimeError: the provider is down"


async def test_an_inspect_limit_is_not_swallowed() -> None:
    agent = InspectAgent(get_model(MOCK_MODEL, memoize=False))
    agent.attach(contract.Seating(1, 0, get_variant("killer")))
    with pytest.raises(LimitExceededError), token_limit(10):
        await agent.decide(first_context())


@pytest.mark.parametrize("branch_seed", [None, 123])
async def test_a_what_if_seed_goes_as_the_inspect_seed(branch_seed: int | None) -> None:
    """A what-if branch's seat (sample_with) sends each call's seed as inspect's
    GenerateConfig.seed, drawn as the llm seat's client draws it."""
    seen: list[int | None] = []
    legal = legal_outputs(seed=4)

    def capture(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        seen.append(config.seed)
        return legal(messages, tools, choice, config)

    agent = InspectAgent(get_model(MOCK_MODEL, custom_outputs=capture, memoize=False))
    ctx = first_context()
    agent.attach(contract.Seating(ctx.seat, 0, get_variant("killer")))
    if branch_seed is not None:
        agent.sample_with(branch_seed)
    answer = await agent.decide(ctx)
    if branch_seed is None:
        assert seen == [None] and "seed" not in answer.calls[0]
    else:
        decision_seed = derived_seed(branch_seed, "call", ctx.request.id) & 0x7FFFFFFF
        assert seen == [answer.calls[0]["seed"]] == [attempt_seed(decision_seed, 0, 1)]


def test_a_seat_that_fell_back_too_often_or_on_the_provider_is_not_scored() -> None:
    from sandbox.adapters.validity import SeatTally, invalid_reason, tallies_from

    decisions = [
        {"seat": 1, "fallback": False},
        {"seat": 1, "fallback": True, "fallback_reason": "invalid"},
        {"seat": 1, "fallback": False},
        {"seat": 1, "fallback": False},
        {"seat": 2, "fallback": True, "fallback_reason": "provider"},
        {"seat": 2, "fallback": False},
        {"seat": 2, "fallback": False},
        {"seat": 2, "fallback": False},
        {"seat": 2, "fallback": False},
    ]
    calls = [
        {"seat": 1, "attempt": 1, "repair": 0, "error": "invalid: no"},
        {"seat": 1, "attempt": 1, "repair": 1, "parsed": {}},
        {"seat": 2, "attempt": 1, "repair": 0, "error": "EndpointError: down"},
        {"seat": 2, "attempt": 2, "repair": 0, "parsed": {}},  # a retry: no new answer
    ]
    found = tallies_from(decisions, calls)
    assert invalid_reason(found[1]) is None  # 1 of 4 is 25 %: not more than the share
    assert found[1].valid_answer_rate == 0.5 and found[1].repairs == 1
    assert invalid_reason(found[1], max_share=0.2) is not None
    provider = invalid_reason(found[2])
    assert provider is not None and "provider" in provider  # any provider failure
    assert found[2].answers == 0 and found[2].valid_answer_rate == 0.0
    assert invalid_reason(SeatTally()) is None  # no decision at all: nothing to hold against it


def test_a_won_game_whose_seat_hit_provider_failures_scores_invalid(tmp_path: Path) -> None:
    """Issue 41: every call of the evaluated seat failed (say, its tokenizer
    could not load), its decisions fell back, and its side won without it:
    the sample is invalid, not a win."""
    from tests.analysis.builders import KILLER_ROLES, KILLER_WHO, write_transcript

    decisions = [
        (
            "core.decision",
            {
                "seat": 1,
                "request_id": f"{day}.1.vote",
                "decision": "vote",
                "payload": {"target": None},
                "fallback": True,
                "fallback_reason": "provider",
            },
        )
        for day in range(1, 4)
    ]
    calls = [
        {
            "seat": 1,
            "request_id": f"{d}.1.vote",
            "attempt": 1,
            "repair": 0,
            "error": "EndpointError",
        }
        for d in range(1, 4)
    ]
    results = {s: ("win" if r == "killer" else "lose") for s, r in KILLER_ROLES.items()}
    path = write_transcript(
        tmp_path / "g.jsonl", "killer", KILLER_ROLES, KILLER_WHO, decisions, results, calls=calls
    )
    keys = score_keys("killer", beliefs=False)
    meta = {
        "transcript": str(path),
        "results": {str(s): r for s, r in results.items()},
        "finished": True,
        "seats": [1],
        "result": "win",
    }
    score = score_game(meta, keys, False)
    assert isinstance(score.value, dict)
    assert score.answer == "invalid" and "provider" in str(score.explanation)
    assert math.isnan(float(score.value["win"])) and score.value["invalid"] == 1.0
    assert score.value["fallbacks"] == 3.0 and score.value["valid_answer_rate"] == 0.0
    # the same game with the seat's own answers is a win
    won = score_game(meta | {"seats": [2]}, keys, False)
    assert isinstance(won.value, dict) and won.value["win"] == 1.0 and won.value["invalid"] == 0.0


def test_an_aborted_game_keeps_its_validity_keys(tmp_path: Path) -> None:
    """Aborted by provider failures: no win to score, but the evaluated seat's
    fallbacks are still counted (and say why)."""
    from tests.analysis.builders import KILLER_ROLES, KILLER_WHO, write_transcript

    made = {
        "seat": 3,
        "request_id": "1.3.vote",
        "decision": "vote",
        "payload": {"target": None},
        "fallback": True,
        "fallback_reason": "provider",
    }
    path = write_transcript(
        tmp_path / "a.jsonl", "killer", KILLER_ROLES, KILLER_WHO, [("core.decision", made)], None
    )
    keys = score_keys("killer", beliefs=False)
    meta = {"transcript": str(path), "finished": False, "outcome": "aborted", "seats": [3]}
    score = score_game(meta, keys, False)
    assert isinstance(score.value, dict) and score.answer == "aborted"
    assert math.isnan(float(score.value["win"]))
    assert score.value["invalid"] == 1.0 and score.value["fallbacks"] == 1.0
    assert "provider" in str(score.explanation)
