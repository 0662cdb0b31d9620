"""The open-day machinery (sandbox.core.discussion), rule by rule: the budget
(OD-4), ask rounds and the seeded draw (OD-5), the end of the phase (OD-6),
fallbacks (OD-8), refusals (OD-9) and determinism (OD-10); hand-built rounds
first, then whole open days through the real referee (tests/core/open_toy.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from sandbox.agents.simple import RandomAgent
from sandbox.core import discussion
from sandbox.core.discussion import Budget, DayEnd, OpenDay, OpenDayRulings
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import (
    DecisionMade,
    Event,
    MessagesCut,
    OpenDayEnded,
    OpenDayStarted,
    OrderDrawn,
    RoundAnswers,
    RoundClosed,
    event_from_json,
)
from sandbox.core.game import Game
from sandbox.core.requests import Payload, Text, check_shape
from sandbox.core.visibility import PUBLIC, REFEREE
from sandbox.session.runner import Runner
from tests.core.open_toy import Message, OpenToy, OpenToyConfig

SEATS = (1, 2, 3, 4)
POST: Payload = {"speak": True, "text": "hello"}
WAIT: Payload = {"speak": False}
TOY = OpenToy()


def a_day(
    *rounds: Sequence[int],
    per_seat: int = 3,
    per_day: int | None = None,
    quiet: int = 1,
    seats: Sequence[int] = SEATS,
) -> OpenDay:
    """Day 2's open day folded from its opening and the closed ``rounds`` (each
    the seats whose message was accepted)."""
    rulings = OpenDayRulings(
        messages_per_seat=per_seat, messages_per_day=per_day, quiet_rounds=quiet
    )
    day = OpenDay()
    day.apply(discussion.open_day(2, seats, rulings))
    for number, accepted in enumerate(rounds, start=1):
        day.apply(RoundClosed(2, number, tuple(accepted)))
    return day


def said(seat: int, payload: Payload) -> list[Event]:
    return [Message(seat, str(payload["text"]))]


def close(
    day: OpenDay, answers: Mapping[int, Payload], seed: int = 7, living: Sequence[int] = SEATS
) -> list[Event]:
    return discussion.close_round(day, living, answers, random.Random(seed), said)


def of(events: Sequence[Event], cls: type[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


# ------------------------------------------------------------------ OD-2


def test_od2_the_dead_are_never_asked_and_an_accepted_message_is_the_variant_s_public_event() -> (
    None
):
    day = a_day()
    assert discussion.asked_seats(day, (1, 2, 4)) == (1, 2, 4)  # seat 3 has died
    with pytest.raises(IllegalDecision, match="not asked"):
        discussion.check_answer(day, 3, POST, (1, 2, 4))
    given: list[tuple[int, Payload]] = []

    def message(seat: int, payload: Payload) -> list[Event]:
        given.append((seat, payload))
        return said(seat, payload)

    answers = {1: WAIT, 2: {"speak": True, "text": "I saw seat 4"}, 4: WAIT}
    events = discussion.close_round(day, (1, 2, 4), answers, random.Random(1), message)
    assert given == [(2, answers[2])]  # the variant's event gets the answer as given
    assert of(events, Message) == [Message(2, "I saw seat 4")]
    # a variant whose message event were not public would break the ruling
    hidden = [RoundAnswers(2, 1, (), (), ())]  # any event seen by the referee alone
    with pytest.raises(ValueError, match="public"):
        discussion.close_round(day, (1, 2, 4), answers, random.Random(1), lambda s, p: hidden)
    with pytest.raises(ValueError, match="public"):
        discussion.close_round(day, (1, 2, 4), answers, random.Random(1), lambda s, p: [])


# ------------------------------------------------------------------ OD-4


def test_od4_budget_defaults_and_the_day_cap_counts_the_living_at_the_start() -> None:
    assert OpenDayRulings().budget(5) == Budget(3, 15, 1)
    # the default day cap is 3 × the living, whatever messages_per_seat is
    assert OpenDayRulings(messages_per_seat=1).budget(5) == Budget(1, 15, 1)
    assert OpenDayRulings(messages_per_day=4, quiet_rounds=2).budget(5) == Budget(3, 4, 2)
    opened = discussion.open_day(3, (5, 1, 4), OpenDayRulings())
    assert opened == OpenDayStarted(3, (1, 4, 5), 3, 9, 1)


@pytest.mark.parametrize("key", ["messages_per_seat", "messages_per_day", "quiet_rounds"])
@pytest.mark.parametrize("value", [0, -1, 2.0, True, "3"])
def test_od4_budget_rulings_are_integers_of_at_least_one(key: str, value: object) -> None:
    with pytest.raises(ValidationError, match=key):
        OpenDayRulings.model_validate({key: value})


def test_od4_a_variant_config_includes_the_rulings_by_subclassing() -> None:
    config = OpenToyConfig.model_validate({"seats": 5, "messages_per_day": 6})
    assert config.budget(5) == Budget(3, 6, 1)
    with pytest.raises(ValidationError, match="messages_per_hour"):
        OpenToyConfig.model_validate({"messages_per_hour": 2})


def test_od4_only_accepted_messages_use_the_budget() -> None:
    day = a_day()
    events = close(day, {1: POST, 2: WAIT, 3: discussion.fallback(), 4: WAIT})
    for event in events:
        day.apply(event)
    assert day.spoken == {1: 1} and day.total == 1
    assert [day.left(s) for s in SEATS] == [2, 3, 3, 3]


# ------------------------------------------------------------------ OD-5


def test_od5_every_living_seat_with_budget_left_is_asked() -> None:
    day = a_day([1, 2], [1], per_seat=2, per_day=5)
    # seat 1 has spent its two; seat 3 is dead; room under the cap (2) is fewer
    # than the seats asked (3), and they are asked all the same
    assert discussion.asked_seats(day, (1, 2, 4)) == (2, 4)
    assert discussion.asked_seats(a_day(), (4, 2, 1, 3)) == SEATS
    assert discussion.asked_seats(OpenDay(), SEATS) == ()  # no open day under way


def test_od5_an_ask_posts_or_waits_and_a_wait_needs_no_message() -> None:
    requests = discussion.ask_requests(
        a_day([3]), SEATS, 9, "post", lambda s: f"seat {s}", lambda s: (Text("text", "t"),)
    )
    assert [r.seat for r in requests] == [1, 2, 3, 4]
    first = requests[0]
    assert (first.id, first.rule, first.instruction) == ("9.1.post", "OD-5", "seat 1")
    assert [f.name for f in first.fields] == ["speak", "text"]
    assert check_shape(first, {"speak": False}) == {"speak": False}
    assert discussion.posts(check_shape(first, {"speak": True, "text": "hi"}))


def test_od5_two_posts_are_drawn_and_accepted_in_the_drawn_order() -> None:
    events = close(a_day(), {1: POST, 2: WAIT, 3: POST, 4: POST})
    drawn = of(events, OrderDrawn)
    assert len(drawn) == 1 and sorted(drawn[0].order) == [1, 3, 4]
    assert [m.seat for m in of(events, Message)] == list(drawn[0].order)
    assert of(events, RoundClosed) == [RoundClosed(2, 1, drawn[0].order)]
    # the round's answers first (in seat order), then the draw, the messages, the close
    assert events[0] == RoundAnswers(2, 1, (1, 3, 4), (2,), ())
    assert [type(e) for e in events[1:]] == [OrderDrawn, Message, Message, Message, RoundClosed]


def test_od5_one_message_needs_no_draw() -> None:
    events = close(a_day(), {1: WAIT, 2: POST, 3: WAIT, 4: WAIT})
    assert of(events, OrderDrawn) == []
    assert events[1:] == [Message(2, "hello"), RoundClosed(2, 1, (2,))]


def test_od5_messages_past_the_day_cap_are_cut() -> None:
    day = a_day([1, 2], [3], per_day=4)  # three accepted, room for one
    events = close(day, {1: POST, 2: POST, 3: POST, 4: WAIT})
    drawn = discussion.draw_order((1, 2, 3), random.Random(7))
    assert of(events, OrderDrawn) == [OrderDrawn(2, 3, drawn[:1])]
    assert of(events, Message) == [Message(drawn[0], "hello")]
    assert of(events, MessagesCut) == [MessagesCut(2, 3, drawn[1:])]
    assert of(events, RoundClosed) == [RoundClosed(2, 3, drawn[:1])]
    assert events[-1] == OpenDayEnded(2, 3, "day_cap")


def test_od5_waits_fallbacks_and_cuts_are_seen_by_the_referee_alone() -> None:
    events = close(a_day(per_day=1), {1: POST, 2: POST, 3: WAIT, 4: discussion.fallback()})
    shown = {type(e): e.visibility() for e in events}
    assert shown[RoundAnswers] == REFEREE and shown[MessagesCut] == REFEREE
    assert shown[OrderDrawn] == PUBLIC and shown[Message] == PUBLIC
    assert shown[RoundClosed] == PUBLIC and shown[OpenDayEnded] == PUBLIC
    assert events[0] == RoundAnswers(2, 1, (1, 2), (3,), (4,))


@given(st.lists(st.integers(1, 9), min_size=2, max_size=9, unique=True), st.integers(0, 2**32))
def test_od5_the_draw_is_a_pure_function_of_the_seed_and_the_posting_seats(
    posted: list[int], seed: int
) -> None:
    order = discussion.draw_order(posted, random.Random(seed))
    assert sorted(order) == sorted(posted)
    assert discussion.draw_order(reversed(posted), random.Random(seed)) == order


def test_od5_the_draw_changes_with_the_seed() -> None:
    orders = {discussion.draw_order(SEATS, random.Random(seed)) for seed in range(40)}
    assert len(orders) > 10


# ------------------------------------------------------------------ OD-6


def test_od6_a_the_day_ends_once_the_cap_is_reached() -> None:
    events = close(a_day(per_day=2), {1: POST, 2: POST, 3: WAIT, 4: WAIT})
    assert of(events, MessagesCut) == []
    assert events[-1] == OpenDayEnded(2, 1, "day_cap")


def test_od6_a_the_cap_is_tried_before_the_other_ends() -> None:
    # every seat spends its last message and the cap is reached in the same round
    events = close(a_day(per_seat=1, per_day=4), dict.fromkeys(SEATS, POST))
    assert events[-1] == OpenDayEnded(2, 1, "day_cap")


def test_od6_b_the_day_ends_after_quiet_rounds_in_a_row_and_a_fallback_is_a_wait() -> None:
    day = a_day([1], quiet=2)  # round 1 had a message
    quiet = {1: WAIT, 2: discussion.fallback(), 3: WAIT, 4: discussion.fallback()}
    events = close(day, quiet)
    assert events == [RoundAnswers(2, 2, (), (1, 3), (2, 4)), RoundClosed(2, 2, ())]
    day.apply(events[-1])
    assert close(day, quiet)[-1] == OpenDayEnded(2, 3, "quiet")


def test_od6_b_an_accepted_message_breaks_the_quiet_run() -> None:
    day = a_day([], [2], quiet=2)
    assert day.quiet_run == 0
    assert not of(close(day, {1: WAIT, 2: WAIT, 3: WAIT, 4: WAIT}), OpenDayEnded)


def test_od6_c_the_day_ends_when_no_living_seat_has_budget_left() -> None:
    day = a_day([1, 2], per_seat=1)  # seats 3 and 4 are asked; seat 4 is dead by now
    events = close(day, {3: POST}, living=(1, 2, 3))
    assert events[-1] == OpenDayEnded(2, 2, "no_budget")
    assert discussion.end_reason(a_day([1, 2], per_seat=1), (1, 2)) == DayEnd.NO_BUDGET


def test_od6_the_fold_follows_the_end() -> None:
    day = a_day(per_day=1)
    for event in close(day, {1: POST, 2: WAIT, 3: WAIT, 4: WAIT}):
        day.apply(event)
    assert day.ended == DayEnd.DAY_CAP and not day.open
    assert discussion.asked_seats(day, SEATS) == ()


# ------------------------------------------------------------------ OD-8


def test_od8_a_seat_that_gives_no_answer_waits_recorded_as_a_fallback() -> None:
    game = Game.new(TOY, OpenToyConfig(seats=3), 1)
    first, second, third = game.pending()
    game.submit(first.id, {"speak": True, "text": "hi"})
    game.submit_fallback(second.id, "timeout")
    game.submit(third.id, {"speak": False})
    fell = [e for e in game.events if isinstance(e, DecisionMade) and e.fallback]
    assert [(e.seat, e.fallback_reason, dict(e.payload)) for e in fell] == [
        (2, "timeout", {"speak": False, "fell_back": True})
    ]
    assert of(game.events, RoundAnswers) == [RoundAnswers(1, 1, (1,), (3,), (2,))]
    with pytest.raises(IllegalDecision, match="fell_back"):  # a seat cannot claim one
        game.validate(game.pending()[0].id, {"speak": False, "fell_back": True})


# ------------------------------------------------------------------ OD-9


def test_od9_an_answer_after_the_phase_ended_is_refused() -> None:
    day = a_day(per_day=1)
    day.apply(OpenDayEnded(2, 1, "day_cap"))
    with pytest.raises(IllegalDecision, match="is over") as refused:
        discussion.check_answer(day, 1, WAIT, SEATS)
    assert refused.value.rule == "OD-9"
    with pytest.raises(IllegalDecision, match=r"^\[OD-9\]"):
        close(day, {1: POST})


def test_od9_a_second_answer_in_a_round_is_refused() -> None:
    with pytest.raises(IllegalDecision, match=r"^\[OD-9\].*already answered"):
        discussion.check_answer(a_day(), 2, POST, SEATS, answered=(2,))


def test_od9_a_post_beyond_the_seat_budget_is_refused() -> None:
    day = a_day([1], per_seat=1)
    with pytest.raises(IllegalDecision, match=r"^\[OD-9\].*only wait") as refused:
        discussion.check_answer(day, 1, POST, SEATS)
    assert refused.value.legal == {"speak": [False]}


def test_od9_an_answer_from_a_seat_not_asked_is_refused() -> None:
    day = a_day([1], per_seat=1)
    for seat, living in ((1, SEATS), (4, (1, 2, 3))):  # out of budget; dead
        with pytest.raises(IllegalDecision, match=r"^\[OD-9\].*not asked"):
            discussion.check_answer(day, seat, WAIT, living)
    with pytest.raises(IllegalDecision, match=r"^\[OD-9\].*\[4\] are not asked"):
        close(day, {2: WAIT, 3: WAIT, 4: POST}, living=(1, 2, 3))


def test_od9_a_refusal_changes_nothing_and_the_message_check_is_the_variant_s() -> None:
    checked: list[Payload] = []
    day = a_day([1])
    before = day.copy()
    discussion.check_answer(day, 2, WAIT, SEATS, check_message=checked.append)
    discussion.check_answer(day, 2, POST, SEATS, check_message=checked.append)
    assert checked == [POST]  # a wait's message fields are not checked
    with pytest.raises(IllegalDecision, match="already answered"):
        discussion.check_answer(day, 2, POST, SEATS, answered=(2,))
    assert day == before
    game = Game.new(TOY, OpenToyConfig(), 3)
    with pytest.raises(IllegalDecision, match=r"^\[T-9\]"):
        game.submit(game.pending()[0].id, {"speak": True, "text": "  "})
    assert len(game.events) == 1 and len(game.pending()) == 4


# ------------------------------------------------------------------ OD-10


ANSWER = st.sampled_from(["post", "wait", "fallback"])


def as_payload(kind: str, seat: int) -> Payload:
    if kind == "post":
        return {"speak": True, "text": f"seat {seat}"}
    return discussion.fallback() if kind == "fallback" else {"speak": False}


@settings(max_examples=200)
@given(
    st.lists(ANSWER, min_size=4, max_size=4),
    st.permutations(SEATS),
    st.integers(0, 2**32),
    st.integers(1, 12),
)
def test_od10_a_round_does_not_depend_on_the_order_its_answers_arrived_in(
    kinds: list[str], arrival: list[int], seed: int, per_day: int
) -> None:
    answers = {seat: as_payload(kind, seat) for seat, kind in zip(SEATS, kinds, strict=True)}
    arrived = {seat: answers[seat] for seat in arrival}
    assert close(a_day(per_day=per_day), arrived, seed) == close(
        a_day(per_day=per_day), answers, seed
    )


def play(seed: int, config: OpenToyConfig) -> Game:
    game = Game.new(TOY, config, seed)
    agents = {s: RandomAgent(seed * 10 + s) for s in game.seats}
    asyncio.run(Runner(game, agents, abort_share=None).run())
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_od10_an_open_day_is_a_function_of_the_seed_and_the_answers(seed: int) -> None:
    config = OpenToyConfig(seats=5, messages_per_seat=2, quiet_rounds=2)
    game = play(seed, config)
    assert game.over and game.state.day.ended is not None
    assert play(seed, config).events == game.events
    # replaying the recorded answers (decisions resubmitted) gives the same events
    again = Game.new(TOY, config, seed)
    for event in game.events:
        if isinstance(event, DecisionMade):
            if event.fallback:
                again.submit_fallback(event.request_id, event.fallback_reason)
            else:
                again.submit(event.request_id, dict(event.payload))
    assert again.events == game.events
    rebuilt = Game.from_events(TOY, config, seed, game.events)
    assert rebuilt.state == game.state


# ------------------------------------------------------------------ JSON


def test_od5_od6_the_open_day_events_round_trip_through_json() -> None:
    samples: list[Event] = [
        OpenDayStarted(2, (1, 3, 4), 3, 9, 1),
        RoundAnswers(2, 1, (1, 4), (3,), ()),
        OrderDrawn(2, 1, (4, 1)),
        MessagesCut(2, 1, (3,)),
        RoundClosed(2, 1, ()),
        OpenDayEnded(2, 1, "quiet"),
    ]
    for event in samples:
        raw = event.to_json()
        assert event_from_json(raw) == event
        assert raw["kind"].startswith("discussion.")
    game = play(4, OpenToyConfig())
    assert [event_from_json(e.to_json()) for e in game.events] == game.events


def test_od5_a_seat_view_folds_the_open_day_from_public_events_alone() -> None:
    game = play(5, OpenToyConfig(messages_per_seat=1))
    for seat in game.seats:
        view = game.view(seat)
        assert view.public["over"] is True
        spent = sum(1 for e in game.events if isinstance(e, Message) and e.seat == seat)
        assert view.public["left"] == 1 - spent
        kinds = {item.kind for item in view.history}
        assert not kinds & {"discussion.answers", "discussion.cut"}


def test_od4_each_open_day_has_a_budget_of_its_own() -> None:
    day = a_day([1, 2], [1], per_day=5)
    day.apply(OpenDayEnded(2, 2, "quiet"))
    day.apply(discussion.open_day(3, (1, 2), OpenDayRulings()))
    assert (day.day, day.total, day.spoken, day.round, day.ended) == (3, 0, {}, 1, None)
    assert day.budget == Budget(3, 6, 1) and day.open
