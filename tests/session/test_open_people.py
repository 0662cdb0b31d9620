"""OD-7: a person at an open-discussion table. Hand-built rounds closed by an
interjection first (sandbox.core.discussion), then whole open days through the
wall-clock round (sandbox.session.open_clock) with fake people and AI seats that
wait on conditions, never on time, so every outcome here is decided by who
answered before whom, as the rule says."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from sandbox.core import discussion
from sandbox.core.discussion import DayEnd, OpenDay, OpenDayRulings
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import (
    AsksWithdrawn,
    DecisionMade,
    Event,
    OrderDrawn,
    RoundAnswers,
    RoundClosed,
    RoundInterjected,
    event_from_json,
)
from sandbox.core.game import Game, fork_points
from sandbox.core.requests import Payload
from sandbox.core.seat import (
    FALLBACK_PROVIDER,
    FALLBACK_TIMEOUT,
    Agent,
    AgentAnswer,
    DecisionContext,
)
from sandbox.core.visibility import PUBLIC, REFEREE
from sandbox.games.killer.bot import BaselineBot
from sandbox.session import open_clock
from sandbox.session.api import new_game, play_sync
from sandbox.session.replay import rebuild, replay
from sandbox.session.runner import Runner
from sandbox.transcript import read_transcript
from tests.core.open_toy import Message, OpenToy, OpenToyConfig

SEATS = (1, 2, 3, 4)
TOY = OpenToy()


def a_day(per_day: int | None = None) -> OpenDay:
    day = OpenDay()
    rulings = OpenDayRulings(messages_per_day=per_day)
    day.apply(discussion.open_day(2, SEATS, rulings))
    return day


def said(seat: int, payload: Payload) -> list[Event]:
    return [Message(seat, str(payload["text"]))]


def post(seat: int) -> dict[str, Any]:
    return {"speak": True, "text": f"seat {seat}"}


def close(day: OpenDay, answers: Mapping[int, Payload], seed: int = 7) -> list[Event]:
    return discussion.close_round(day, SEATS, answers, random.Random(seed), said)


def spoken(events: Sequence[Event]) -> list[int]:
    return [e.seat for e in events if isinstance(e, Message)]


# ------------------------------------------------------------ hand-built rounds


@pytest.mark.parametrize("seed", range(12))
def test_od7_a_person_s_message_is_first_and_the_ai_posts_follow_in_drawn_order(
    seed: int,
) -> None:
    answers = {
        1: post(1),
        2: discussion.withdrawn(),
        3: discussion.interjection(post(3)),
        4: post(4),
    }
    events = close(a_day(), answers, seed)
    assert spoken(events)[0] == 3  # whatever the draw
    assert sorted(spoken(events)[1:]) == [1, 4]
    # the AI messages keep the order the seed draws for them alone (OD-5)
    assert tuple(spoken(events)[1:]) == discussion.draw_order((1, 4), random.Random(seed))
    assert [type(e) for e in events[:3]] == [RoundAnswers, AsksWithdrawn, RoundInterjected]
    assert events[0] == RoundAnswers(2, 1, (1, 3, 4), (), ())
    assert events[1] == AsksWithdrawn(2, 1, (2,))
    assert events[2] == RoundInterjected(2, 1, 3)
    drawn = [e for e in events if isinstance(e, OrderDrawn)]
    assert drawn and drawn[0].order == tuple(spoken(events))
    assert events[-1] == RoundClosed(2, 1, tuple(spoken(events)))


def test_od7_the_withdrawn_ask_spends_no_budget_and_is_asked_again() -> None:
    day = a_day()
    answers = {
        1: {"speak": False},
        2: discussion.withdrawn(),
        3: discussion.interjection(post(3)),
        4: discussion.withdrawn(),
    }
    events = close(day, answers)
    for event in events:
        day.apply(event)
    assert events[0] == RoundAnswers(2, 1, (3,), (1,), ())  # the wait stands
    assert day.left(2) == day.left(4) == day.left(1) == 3 and day.left(3) == 2
    assert discussion.asked_seats(day, SEATS) == SEATS  # the new round asks them again
    assert day.open and day.round == 2


def test_od7_the_cap_cuts_the_ai_posts_after_the_person_s() -> None:
    day = a_day(per_day=2)
    answers = {1: post(1), 2: post(2), 3: discussion.interjection(post(3)), 4: post(4)}
    events = close(day, answers, seed=3)
    assert spoken(events)[0] == 3 and len(spoken(events)) == 2
    cut = [e for e in events if e.kind == "discussion.cut"]
    assert cut and len(cut[0].seats) == 2 and 3 not in cut[0].seats


def test_od7_interjection_events_public_withdrawals_referee_only_and_round_trip() -> None:
    interjected, withdrawn = RoundInterjected(2, 1, 3), AsksWithdrawn(2, 1, (2, 4))
    assert interjected.visibility() == PUBLIC and withdrawn.visibility() == REFEREE
    for event in (interjected, withdrawn):
        assert event_from_json(event.to_json()) == event


def test_od7_a_record_not_played_this_way_is_refused() -> None:
    two = {1: {"speak": False}, 2: {"speak": False}}
    two |= {3: discussion.interjection(post(3)), 4: discussion.interjection(post(4))}
    with pytest.raises(IllegalDecision, match="OD-7"):
        close(a_day(), two)
    alone = {1: post(1), 2: discussion.withdrawn(), 3: {"speak": False}, 4: post(4)}
    with pytest.raises(IllegalDecision, match="OD-7"):
        close(a_day(), alone)
    with pytest.raises(IllegalDecision, match="OD-7"):
        discussion.interjection({"speak": False})  # a wait answers the ask


def test_od7_the_referee_takes_an_interjection_once_and_checks_it() -> None:
    game = Game.new(TOY, OpenToyConfig(), 1)
    with pytest.raises(IllegalDecision, match="T-9"):  # the variant's message check
        game.interject("0.3.post", {"speak": True, "text": " "})
    game.submit("0.1.post", post(1))
    game.interject("0.3.post", post(3))
    with pytest.raises(IllegalDecision, match="OD-7"):
        game.interject("0.4.post", post(4))
    game.withdraw("0.2.post")
    game.submit("0.4.post", {"speak": False})
    assert next(e.seat for e in game.events if isinstance(e, Message)) == 3
    made = [e for e in game.events if isinstance(e, DecisionMade)]
    assert [m.fallback_reason for m in made] == ["", "", "withdrawn", ""]
    again = Game.new(TOY, OpenToyConfig(), 1)
    for decision in made:
        again.redo(decision)
    assert again.events == game.events


# ------------------------------------------------------------ the wall clock


class Table:
    """What the fake seats of one game wait on: conditions, set by answers."""

    def __init__(self) -> None:
        self.answered: dict[int, asyncio.Event] = {}
        self.never = asyncio.Event()  # set by nobody: an ask that only ends withdrawn

    def mark(self, seat: int) -> None:
        self.answered.setdefault(seat, asyncio.Event()).set()

    async def until(self, seat: int) -> None:
        await self.answered.setdefault(seat, asyncio.Event()).wait()


Plan = Callable[[int], Any]  # round number -> what the seat does in that round


class FakeSeat(Agent):
    """A seat that acts by plan per round: "post", "wait", "hang" (answers only
    when cancelled), or ("after", seat) — post once ``seat`` has answered."""

    kind = "scripted"

    def __init__(self, seat: int, table: Table, plan: Plan) -> None:
        self.seat, self.table, self.plan = seat, table, plan

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        what = self.plan(int(ctx.view.public["round"]))
        if what == "hang":
            await self.table.never.wait()
        if isinstance(what, tuple):
            await self.table.until(what[1])
            what = "post"
        self.table.mark(self.seat)
        if what == "post":
            return AgentAnswer({"speak": True, "text": f"seat {self.seat} speaks"})
        if what == "fail":
            return AgentAnswer(None, fallback_reason=FALLBACK_PROVIDER)
        return AgentAnswer({"speak": False})


class FakePerson(FakeSeat):
    kind = "human"  # what a terminal or browser seat describes itself as


def run_table(plans: Mapping[int, Plan], people: Sequence[int], **kwargs: Any) -> Runner:
    async def go() -> Runner:
        table = Table()
        game = Game.new(TOY, OpenToyConfig(seats=len(plans), messages_per_seat=2), 5)
        agents = {s: (FakePerson if s in people else FakeSeat)(s, table, plans[s]) for s in plans}
        runner = Runner(game, agents, **{"abort_share": None, **kwargs})
        await runner.run()
        return runner

    return asyncio.run(go())


def rounds(game: Game) -> list[tuple[int, ...]]:
    return [e.accepted for e in game.events if isinstance(e, RoundClosed)]


def test_od7_a_person_posting_closes_the_round_at_once() -> None:
    # round 1: seat 2 (AI) posts and seat 4 (AI) waits at once; seat 3 (AI) is still
    # thinking when seat 1 (a person) posts, after seat 2's answer is in
    plans: dict[int, Plan] = {
        1: lambda r: ("after", 4) if r == 1 else "wait",
        2: lambda r: "post" if r == 1 else "wait",
        3: lambda r: "hang" if r == 1 else "wait",
        4: lambda r: "wait",
    }
    runner = run_table(plans, people=[1])
    game = runner.game
    assert rounds(game) == [(1, 2), ()]  # the person first, then the AI post given
    first = next(e for e in game.events if isinstance(e, RoundAnswers))
    assert first == RoundAnswers(1, 1, (1, 2), (4,), ())
    assert AsksWithdrawn(1, 1, (3,)) in game.events
    assert RoundInterjected(1, 1, 1) in game.events
    # seat 3 is asked again in round 2 (the withdrawn ask spent nothing)
    asked_again = [e for e in game.events if isinstance(e, DecisionMade) and e.seat == 3]
    assert [m.request_id for m in asked_again] == ["0.3.post", "1.3.post"]
    assert runner.stats.fallback_count() == 0  # a withdrawn ask is no fallback
    # the record alone rebuilds the game: no clock in the replay
    again = Game.new(TOY, game.config, game.seed)
    for made in (e for e in game.events if isinstance(e, DecisionMade)):
        again.redo(made)
    assert again.events == game.events


def test_od7_a_person_s_wait_lets_the_round_close_when_all_have_answered() -> None:
    plans: dict[int, Plan] = {
        1: lambda r: "wait",
        2: lambda r: ("after", 1) if r == 1 else "wait",
        3: lambda r: ("after", 1) if r == 1 else "wait",
    }
    game = run_table(plans, people=[1]).game
    assert len(rounds(game)[0]) == 2 and 1 not in rounds(game)[0]
    assert not [e for e in game.events if isinstance(e, RoundInterjected | AsksWithdrawn)]


def test_od7_a_silent_person_waits_past_the_pace_and_that_is_no_provider_failure() -> None:
    plans: dict[int, Plan] = {1: lambda r: "hang", 2: lambda r: "wait", 3: lambda r: "wait"}
    runner = run_table(plans, people=[1], open_pace_s=0.05, abort_share=0.0)
    made = [e for e in runner.game.events if isinstance(e, DecisionMade) and e.seat == 1]
    assert [m.fallback_reason for m in made] == [FALLBACK_TIMEOUT]
    assert runner.game.state.day.ended == DayEnd.QUIET
    assert runner.stats.fallback_count(FALLBACK_PROVIDER) == 0


def test_od10_od7_without_a_person_the_round_stays_sealed() -> None:
    asks = Game.new(TOY, OpenToyConfig(seats=2), 1).pending()
    assert open_clock.is_ask_round(asks)
    assert not open_clock.with_people(
        asks, {1: FakeSeat(1, Table(), str), 2: FakeSeat(2, Table(), str)}
    )
    plans: dict[int, Plan] = {
        1: lambda r: ("after", 2) if r == 1 else "wait",
        2: lambda r: "post" if r == 1 else "wait",
    }
    game = run_table(plans, people=[]).game
    assert not [e for e in game.events if isinstance(e, RoundInterjected)]
    assert len(rounds(game)[0]) == 2


class Talker(Agent):
    """A person (as the runner sees one) who posts at once in the first round
    each day it is asked, waits in every other, and leaves the rest to a bot."""

    kind = "human"

    def __init__(self, seat: int) -> None:
        self.bot, self.days = BaselineBot(seat), set[int]()

    def attach(self, seating: Any) -> None:
        self.bot.attach(seating)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if ctx.request.decision != "message":
            return await self.bot.decide(ctx)
        day = int(ctx.view.public["open_day"]["day"])
        if day in self.days:
            return AgentAnswer({"speak": False})
        self.days.add(day)
        return AgentAnswer({"speak": True, "speech": "I am a civilian; listen to me."})


def test_od7_replay_and_fork_follow_the_recorded_interjections(tmp_path: Path) -> None:
    game = new_game("killer", seed=4, players=11, discussion="open")
    seats = {s: Talker(s) if s == 3 else BaselineBot(s) for s in game.seats}
    played = play_sync(game, seats, transcript=tmp_path)
    assert played.transcript_path is not None
    events = read_transcript(played.transcript_path).events
    assert any(isinstance(e, RoundInterjected) and e.seat == 3 for e in events)
    assert replay(played.transcript_path) is None  # no clock: the record alone
    # a fork at any step rebuilds the same prefix from the recorded decisions
    for point in fork_points(events)[::7]:
        rebuilt = Game.from_events(game.variant, game.config, game.seed, events[:point])
        assert rebuilt.events == list(events[:point])


class Counting(Agent):
    """A replayable seat that notes each question it is asked (resume's warm-up)."""

    kind = "scripted"
    replayable = True

    def __init__(self, asked: list[str]) -> None:
        self.asked = asked

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        self.asked.append(ctx.request.id)
        return AgentAnswer({"speak": False})


def test_od7_resume_warms_no_seat_with_an_ask_it_never_answered() -> None:
    plans: dict[int, Plan] = {
        1: lambda r: ("after", 2) if r == 1 else "wait",
        2: lambda r: "post" if r == 1 else "wait",
        3: lambda r: "hang" if r == 1 else "wait",
    }
    game = run_table(plans, people=[1]).game
    asked: list[str] = []
    agents = {seat: Counting(asked) for seat in game.seats}
    rebuilt = asyncio.run(rebuild(TOY, game.config, game.seed, game.events, agents))
    assert rebuilt.divergence is None
    assert "0.3.post" not in asked and "1.3.post" in asked  # withdrawn, then asked again
