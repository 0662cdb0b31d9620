"""Killer with ``discussion = "open"`` (docs/rules-open-discussion.md, OD-1 … OD-10
wired into KG-8's day): the key and its default, open days ending on each budget,
refusals, whole games with baseline bots and fake LLM seats, the conformance kit
and the no-leak audit, replay and forks in the middle of an open day."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from sandbox.agents import open_talk
from sandbox.agents.baseline import BaselineAgent
from sandbox.cli.main import app
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import (
    DecisionMade,
    Event,
    MessagesCut,
    OpenDayEnded,
    OpenDayStarted,
    RoundAnswers,
    event_from_json,
)
from sandbox.core.game import Game, fork_points
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Seating
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.games.killer import requests
from sandbox.games.killer.events import GameStarted, PhaseStarted, Speech
from sandbox.session.runner import Runner
from sandbox.testing import check_variant, play_random, replay
from sandbox.transcript import read_transcript
from tests.games.killer.helpers import (
    KILLER,
    answer_step,
    new_game,
    night,
    of_kind,
    pending,
    vote,
)
from tests.prompts.audit import ZH, role_facts

OPEN: dict[str, Any] = {"discussion": "open"}
WAIT: dict[str, Any] = {"speak": False}


def post(text: str = "I suspect seat 1.", **claims: Any) -> dict[str, Any]:
    return {"speak": True, "speech": text, **claims}


def to_open_day(game: Game) -> list[Event]:
    """Night 1 kills civilian 7 (no check); seat 7 passes its last words: day 1's
    open discussion is under way."""
    events = night(game, 7)
    events += answer_step(game, lambda r: {"speech": ""})  # KG-7: last words, in turn
    return events


def round_of(game: Game, answers: Mapping[int, Mapping[str, Any]]) -> list[Event]:
    """Answer every ask of the round: the listed seats as given, the rest wait."""
    return answer_step(game, lambda r: answers.get(r.seat, WAIT))


def ended(events: list[Event]) -> OpenDayEnded:
    (end,) = [e for e in events if isinstance(e, OpenDayEnded)]
    return end


# ------------------------------------------------------------------ OD-1


def test_od1_left_out_the_day_is_kg8_turns() -> None:
    """Without the key a Killer day is KG-8's speeches in turn (today's protocol)."""
    game = new_game(seed=1)
    assert KILLER.parse_config({"players": 12}).discussion == "turns"  # type: ignore[attr-defined]
    to_open_day(game)
    (request,) = pending(game)
    assert request.decision == "speech" and not of_kind(game.events, "discussion.opened")


def test_od1_open_discussion_is_chosen_in_rules_and_other_values_are_refused() -> None:
    game = new_game(seed=1, **OPEN)
    events = to_open_day(game)
    (phase,) = [e for e in of_kind(events, "killer.phase") if e.phase == "speeches"]
    assert phase.context == "open"
    (opened,) = of_kind(events, "discussion.opened")
    assert opened.seats == tuple(s for s in range(1, 13) if s != 7)  # OD-4: the living
    assert opened.messages_per_day == 3 * 11
    asks = pending(game)
    assert {r.decision for r in asks} == {"message"} and len(asks) == 11
    with pytest.raises(ValidationError):
        KILLER.parse_config({"players": 12, "discussion": "round_robin"})


def test_od1_a_transcript_written_before_open_days_loads_as_turns() -> None:
    """A game-started line without the four keys (written before them) loads
    with today's protocol and OD-4's defaults."""
    old = {
        "kind": "killer.game_started",
        "data": {
            "players": 12,
            "killers": 3,
            "police": 3,
            "last_words_quota": 3,
            "day_limit": 30,
            "check_answer": "identity",
            "reveal_role_on_death": False,
            "barred_first_victim": None,
        },
    }
    event = event_from_json(old)
    assert isinstance(event, GameStarted)
    assert (event.discussion, event.messages_per_seat, event.quiet_rounds) == ("turns", 3, 1)


def test_od1_a_game_in_turns_writes_its_first_line_as_before_an_open_one_states_its_budget() -> (
    None
):
    """Transcripts and views of games in turns stay as they were (no open-day
    keys); an open game's line states the protocol and the budget and reads back."""
    turns = new_game(seed=1).events[0].to_json()["data"]
    assert not {"discussion", "messages_per_seat", "messages_per_day", "quiet_rounds"} & set(turns)
    line = new_game(seed=1, **OPEN, quiet_rounds=2).events[0].to_json()
    assert (line["data"]["discussion"], line["data"]["quiet_rounds"]) == ("open", 2)
    again = event_from_json(line)
    assert isinstance(again, GameStarted) and again.to_json() == line


def test_od1_last_words_and_kg10_tie_speeches_stay_in_turns() -> None:
    """OD-1: an open day stands in for KG-8's speeches alone: last words (KG-7)
    come before it in turn, and a tie's speeches (KG-10) follow KG-8's circle."""
    game = new_game(seed=2, **OPEN)
    night(game, 7)
    (last,) = pending(game)
    assert last.decision == "last_words"  # KG-7, in turn
    answer_step(game, lambda r: {"speech": ""})
    round_of(game, {})  # OD-6 (b): a quiet round ends the day
    events = vote(game, {1: 2, 2: 1, 3: 2, 4: 1})  # KG-10: 2 against 2
    (tie_phase,) = [e for e in events if isinstance(e, PhaseStarted)]
    assert (tie_phase.context, tie_phase.order) == ("tie_tied", (1, 2))  # KG-8's circle from 8
    (request,) = pending(game)
    assert (request.decision, request.seat) == ("speech", 1)


# ------------------------------------------------------------------ OD-2, OD-5


def test_od2_an_accepted_message_is_a_public_speech_with_its_claims() -> None:
    game = new_game(seed=3, **OPEN)
    to_open_day(game)
    events = round_of(game, {9: post("Seat 2 lies.", claim="police", accuse=[2], vouch=[8])})
    (speech,) = of_kind(events, "killer.speech")
    assert (speech.seat, speech.context, speech.claim) == (9, "open", "police")
    assert (speech.accuse, speech.vouch) == ((2,), (8,))
    assert all(any(e is speech for _, e in game.visible_events(s)) for s in range(1, 13))


def test_od5_the_round_after_a_message_asks_again_and_the_view_counts_the_budget() -> None:
    game = new_game(seed=3, **OPEN, messages_per_seat=2)
    to_open_day(game)
    round_of(game, {9: post(), 10: post()})
    asks = pending(game)
    assert len(asks) == 11 and all(r.rule == "KG-8, OD-5" for r in asks)
    view = game.view(9).public["open_day"]
    assert (view["round"], view["left"], view["open"]) == (2, 1, True)
    assert view["messages_left_today"] == 3 * 11 - 2  # OD-4: whatever messages_per_seat is
    assert "open_day" not in new_game(seed=3).view(9).public  # turns: views unchanged


# ------------------------------------------------------------------ OD-6


def test_od6_a_the_day_ends_at_the_day_cap_and_the_vote_opens() -> None:
    game = new_game(seed=4, **OPEN, messages_per_day=2)
    to_open_day(game)
    events = round_of(game, {8: post(), 9: post(), 10: post()})
    assert len(of_kind(events, "killer.speech")) == 2
    (cut,) = [e for e in events if isinstance(e, MessagesCut)]
    assert len(cut.seats) == 1
    assert ended(events).reason == "day_cap"
    assert {r.decision for r in pending(game)} == {"vote"}


def test_od6_b_the_day_ends_after_quiet_rounds_in_a_row() -> None:
    game = new_game(seed=4, **OPEN, quiet_rounds=2)
    to_open_day(game)
    assert not of_kind(round_of(game, {8: post()}), "discussion.closed")
    assert not of_kind(round_of(game, {}), "discussion.closed")  # one quiet round
    events = round_of(game, {})
    assert ended(events).reason == "quiet" and ended(events).round == 3
    assert {r.decision for r in pending(game)} == {"vote"}


def test_od6_b_a_fallback_counts_as_a_wait() -> None:
    game = new_game(seed=4, **OPEN)
    to_open_day(game)
    events = answer_step(game, None)  # every seat falls back (OD-8)
    (answers,) = [e for e in events if isinstance(e, RoundAnswers)]
    assert len(answers.fell_back) == 11 and not answers.posted
    assert ended(events).reason == "quiet"


def test_od6_c_the_day_ends_when_no_living_seat_has_budget_left() -> None:
    game = new_game(seed=4, **OPEN, messages_per_seat=1)
    to_open_day(game)
    living = [r.seat for r in pending(game)]
    events = round_of(game, {s: post() for s in living})
    assert len(of_kind(events, "killer.speech")) == 11
    assert ended(events).reason == "no_budget"


# ------------------------------------------------------------------ OD-9


def _ask(game: Game, seat: int) -> DecisionRequest:
    (request,) = [r for r in pending(game) if r.seat == seat]
    return request


def test_od9_a_post_past_the_seat_budget_is_refused() -> None:
    game = new_game(seed=5, **OPEN, messages_per_seat=1)
    to_open_day(game)
    stale = _ask(game, 9)
    round_of(game, {9: post()})
    assert all(r.seat != 9 for r in pending(game))  # no budget: not asked again
    with pytest.raises(IllegalDecision) as refused:
        requests.check(game.state, stale, post())
    assert refused.value.rule == "OD-9" and "may only wait" in str(refused.value)


def test_od9_an_answer_from_a_seat_not_asked_or_after_the_day_is_refused() -> None:
    game = new_game(seed=5, **OPEN, messages_per_seat=1)
    to_open_day(game)
    stale = _ask(game, 9)
    round_of(game, {9: post()})
    with pytest.raises(IllegalDecision, match="not asked") as refused:
        requests.check(game.state, stale, WAIT)
    assert refused.value.rule == "OD-9"
    round_of(game, {})  # quiet: the day is over
    other = stale.__class__(stale.id, 10, stale.decision, stale.rule, "", stale.fields)
    with pytest.raises(IllegalDecision, match="over") as late:
        requests.check(game.state, other, WAIT)
    assert late.value.rule == "OD-9"


def test_od9_a_second_answer_in_a_round_is_refused() -> None:
    game = new_game(seed=5, **OPEN)
    to_open_day(game)
    ask = _ask(game, 9)
    game.submit(ask.id, WAIT)
    with pytest.raises(Exception, match="already answered"):
        game.submit(ask.id, post())


def test_od2_a_message_passes_a_speech_s_checks_and_must_say_something() -> None:
    game = new_game(seed=5, **OPEN)
    to_open_day(game)
    ask = _ask(game, 9)
    with pytest.raises(IllegalDecision) as empty:
        game.validate(ask.id, post(""))
    assert empty.value.rule == "OD-2"
    with pytest.raises(IllegalDecision) as both:
        game.validate(ask.id, post("x", accuse=[2], vouch=[2]))
    assert both.value.rule == "KG-14"
    with pytest.raises(IllegalDecision) as dead:
        game.validate(ask.id, post("x", accuse=[7]))  # seat 7 died (no such option)
    assert dead.value.rule in ("KG-8, OD-5", "KG-14")
    assert game.validate(ask.id, post("", accuse=[2]))["accuse"] == (2,)  # claims alone do


def test_kg13_a_message_may_concede_only_where_kg13_allows() -> None:
    game = new_game(seed=5, **OPEN)
    to_open_day(game)
    assert all("concede" not in {f.name for f in r.fields} for r in pending(game))
    with pytest.raises(IllegalDecision):
        game.validate(_ask(game, 1).id, post("We give up.", concede=True))


# ------------------------------------------------------------------ whole games


def play_bots(seed: int, **rules: Any) -> Game:
    config = KILLER.parse_config({"players": 12, **OPEN, **rules})
    game = Game.new(KILLER, config, seed)
    agents = {s: BaselineAgent() for s in game.seats}
    for seat, agent in agents.items():
        agent.attach(Seating(seat, seed, KILLER))
    asyncio.run(Runner(game, agents, abort_share=None).run())
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_od5_baseline_bots_play_whole_open_games(seed: int) -> None:
    """OD-2, OD-5, OD-6: every day's discussion is open and ends on a budget; the
    bots post when they have something to say (first words, replies) and wait
    otherwise, so the day ends on a quiet round."""
    game = play_bots(seed)
    assert game.over and game.outcome() is not None
    opened = of_kind(game.events, "discussion.opened")
    closes = of_kind(game.events, "discussion.closed")
    assert opened and len(closes) >= len(opened) - 1  # the last day may end the game
    speeches = [e for e in game.events if isinstance(e, Speech)]
    assert speeches and all(e.context in ("open", "tie_tied", "tie_others") for e in speeches)
    per_day: dict[tuple[int, int], int] = {}
    for e in speeches:
        per_day[(e.day, e.seat)] = per_day.get((e.day, e.seat), 0) + 1
    assert max(per_day.values()) >= 2  # somebody spoke again the same day (a reply)
    waits = [e for e in game.events if isinstance(e, RoundAnswers) and e.waited]
    assert waits  # and somebody waited
    assert not any(e.fell_back for e in of_kind(game.events, "discussion.answers"))


def test_a_bot_waits_when_it_has_nothing_new_and_replies_when_named() -> None:
    seat = 4

    def item(seq: int, kind: str, speaker: int | None = None, **facts: Any) -> HistoryItem:
        return HistoryItem(seq, kind, 1, "speeches", speaker, "x" if speaker else None, facts)

    def view(*items: HistoryItem) -> SeatView:
        return SeatView(KILLER, seat, {}, {}, (item(1, "discussion.opened"), *items))

    said = {"speech": "Seat 2 is a killer.", "accuse": [2]}
    mine = item(2, "killer.speech", seat, claim="none", accuse=[2], vouch=[])
    assert open_talk.worth_posting(view(), seat, said)  # first words of the day
    assert not open_talk.worth_posting(view(), seat, {"speech": " "})  # nothing to say
    assert not open_talk.worth_posting(view(mine), seat, said)  # said already
    named = item(3, "killer.speech", 2, claim="none", accuse=[seat], vouch=[])
    assert open_talk.worth_posting(view(mine, named), seat, said)  # a reply
    assert open_talk.worth_posting(view(mine), seat, {"speech": "and 3", "accuse": [2, 3]})


def test_od10_an_open_game_replays_and_rebuilds_from_its_events() -> None:
    config = KILLER.parse_config({"players": 12, **OPEN})
    for seed in range(3):
        game, log = play_random(KILLER, config, seed)
        assert of_kind(game.events, "discussion.opened")
        again = replay(KILLER, config, seed, log)
        assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
        rebuilt = Game.from_events(
            KILLER, config, seed, [event_from_json(e.to_json()) for e in game.events]
        )
        assert rebuilt.outcome() == game.outcome()
        assert all(rebuilt.view(s) == game.view(s) for s in game.seats)


def test_od10_a_fork_in_the_middle_of_an_open_day_continues_the_same_game() -> None:
    """Forked after an open day's first round (a step boundary), the game goes on from
    there: the same answers give the same events, other answers another branch."""
    game = new_game(seed=6, **OPEN, quiet_rounds=2)
    to_open_day(game)
    round_of(game, {9: post("first"), 10: post("second")})
    at = len(game.events)
    assert at in fork_points([*game.events, DecisionMade("x", 1, "message", {})])
    round_of(game, {})
    round_of(game, {})
    original = [e.to_json() for e in game.events]
    fork = Game.from_events(KILLER, game.config, game.seed, game.events[:at])
    assert fork.state.open.round == 2 and fork.state.open.total == 2
    assert fork.view(9).public["open_day"]["left"] == 2
    round_of(fork, {})
    round_of(fork, {})
    assert [e.to_json() for e in fork.events] == original
    branch = Game.from_events(KILLER, game.config, game.seed, game.events[:at])
    events = round_of(branch, {11: post("a branch")})
    assert of_kind(events, "killer.speech")[0].seat == 11
    assert branch.state.open.ended is None


# ------------------------------------------------------------------ kit and audit


def test_od2_the_conformance_kit_passes_in_open_mode() -> None:
    report = check_variant("killer", OPEN, games=2, seed=3, languages=("en", "zh"), fold_every=1)
    assert report.decisions > 0 and report.folds_compared == report.decisions
    assert report.texts_audited > report.games


def test_od2_no_view_or_prompt_leaks_a_role_in_open_mode() -> None:
    """The exact no-leak audit (tests/prompts/audit.py's reading of Killer's
    events): an open day's messages and waits show no seat's role."""
    rules = {**OPEN, "reveal_role_on_death": True}
    report = check_variant(
        "killer", rules, games=2, seed=5, facts=role_facts, aliases=ZH, languages=("en", "zh")
    )
    assert report.texts_audited > 0


def test_od4_open_day_started_is_public_with_the_living_and_the_budget() -> None:
    game = new_game(seed=7, **OPEN, messages_per_seat=2, messages_per_day=5, quiet_rounds=3)
    events = to_open_day(game)
    (opened,) = [e for e in events if isinstance(e, OpenDayStarted)]
    assert (opened.messages_per_seat, opened.messages_per_day, opened.quiet_rounds) == (2, 5, 3)
    assert all(any(e is opened for _, e in game.visible_events(s)) for s in range(1, 13))


# ------------------------------------------------------------------ fake LLM seats, the CLI

FAKE_OPEN = """variant = "killer"
seed = 1
[rules]
players = 11
discussion = "open"
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[llm]
max_repairs = 1
[run]
out = "{out}"
"""


def test_od10_fake_llm_seats_play_an_open_game_that_replays_and_forks_mid_day(
    tmp_path: Path,
) -> None:
    """LLM seats (the fake provider) answer the ask through the structured-output
    path; ``sandbox replay`` reproduces the game; ``sandbox fork`` right after an
    open day's first round goes on from there and replays too."""
    game_file = tmp_path / "open.toml"
    game_file.write_text(FAKE_OPEN.format(out=tmp_path / "out"), encoding="utf-8")
    ran = CliRunner().invoke(app, ["run", str(game_file), "--json"])
    assert ran.exit_code == 0, ran.stderr
    transcript = Path(json.loads(ran.stdout)["transcript"])
    recorded = read_transcript(transcript)
    asks = [e for e in recorded.events if isinstance(e, DecisionMade) and e.decision == "message"]
    assert asks and any(e.payload.get("speak") is True for e in asks)
    assert any(e.payload.get("speak") is False for e in asks)
    assert CliRunner().invoke(app, ["replay", str(transcript)]).exit_code == 0
    kinds = [e.kind for e in recorded.events]
    first_round = kinds.index("discussion.round")
    at = first_round + 2  # the round's close, then its core.step: a step boundary
    assert kinds[at - 1] == "core.step" and kinds.index("discussion.closed") > at
    forked = CliRunner().invoke(
        app, ["fork", str(transcript), "--at", str(at), "--out", str(tmp_path / "forks"), "--quiet"]
    )
    assert forked.exit_code == 0, forked.stderr
    (branch,) = (tmp_path / "forks").glob("*.jsonl")
    assert [e.to_json() for e in read_transcript(branch).events[:at]] == [
        e.to_json() for e in recorded.events[:at]
    ]
    assert CliRunner().invoke(app, ["replay", str(branch)]).exit_code == 0
