"""Werewolf's open day (WW-12 with ``discussion = "open"``; the ruling OD-1..OD-10,
docs/rules-open-discussion.md): the ruling and its announcement, scripted days
that end on each budget, the refusals, a whole game with baseline bots, and the
conformance kit (no-leak audit, replay) in open mode. The standard table of
helpers.py: werewolves 1 and 2, the seer 3, the doctor 4, villagers 5-8."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import DecisionContext
from sandbox.games.werewolf.bot import BaselineBot
from sandbox.testing import check_variant
from tests.games.werewolf.helpers import (
    WW,
    answer_step,
    new_game,
    night,
    of_kind,
    play_bots,
    request_of,
)

WAIT = {"speak": False}


def post(text: str = "", **claims: Any) -> dict[str, Any]:
    return {"speak": True, "speech": text, **claims}


def open_game(**rules: Any) -> Game:
    """An open game past night 1 (seat 8 killed): seats 1-7 living, day 1 asked."""
    game = new_game(discussion="open", **rules)
    night(game, kill=8)
    return game


def round_of(game: Game, answers: Mapping[int, Mapping[str, Any] | None]) -> list[Event]:
    """Answer one ask round: each seat as ``answers`` says (absent: wait; None:
    the fallback)."""
    assert {r.decision for r in game.pending()} == {"message"}
    return answer_step(game, lambda r: answers.get(r.seat, WAIT))


def closed(events: list[Event]) -> str | None:
    ends = of_kind(events, "discussion.closed")
    return ends[0].reason if ends else None


# ------------------------------------------------------------------ the ruling


def test_od1_ww12_open_discussion_is_a_third_value_of_the_discussion_key() -> None:
    assert WW.parse_config({}).discussion == "round_robin"
    assert WW.parse_config({"discussion": "open"}).discussion == "open"
    with pytest.raises(ValueError, match="discussion"):
        WW.parse_config({"discussion": "chat"})
    game = open_game()
    opened = of_kind(game.events, "discussion.opened")
    assert [(o.day, o.seats) for o in opened] == [(1, (1, 2, 3, 4, 5, 6, 7))]
    # OD-4's defaults: 3 a seat, 3 × the 7 living, 1 quiet round
    assert (opened[0].messages_per_seat, opened[0].messages_per_day) == (3, 21)
    assert opened[0].quiet_rounds == 1
    assert not of_kind(game.events, "werewolf.speaking_order")
    assert game.view(5).public["open_day"] == {
        "day": 1,
        "round": 1,
        "left": 3,
        "left_today": 21,
        "over": False,
    }


def test_ww4_od4_a_default_game_announces_no_ruling_it_did_not_have_before() -> None:
    """Old transcripts replay: the rulings added later (the OD-4 budget,
    small_table, first_night) are announced only when set away from their default."""
    later = {"messages_per_seat", "messages_per_day", "quiet_rounds", "small_table", "first_night"}
    announced = Game.new(WW, WW.parse_config({}), 1).events[0].to_json()["data"]["rulings"]
    assert not later & set(announced)
    assert "open_day" not in Game.new(WW, WW.parse_config({}), 1).view(1).public
    rules = {"discussion": "open", "messages_per_seat": 2, "quiet_rounds": 2}
    announced = Game.new(WW, WW.parse_config(rules), 1).events[0].to_json()["data"]["rulings"]
    assert {k: announced[k] for k in rules} == rules and "messages_per_day" not in announced


@pytest.mark.parametrize("language", ["en", "zh"])
def test_ww12_od1_the_rules_text_states_the_open_day_and_its_budget(language: str) -> None:
    default = WW.rules_text(WW.parse_config({}), language)
    text = WW.rules_text(WW.parse_config({"discussion": "open", "messages_per_day": 5}), language)
    ww12 = next(line for line in text.splitlines() if line.startswith("WW-12"))
    marker = {"en": "Open discussion", "zh": "自由讨论"}[language]
    assert marker in ww12 and marker not in default
    assert "5" in ww12 and "3" in ww12  # the day's cap as set, the seat's as default


# ------------------------------------------------------------------ the rounds


def test_od2_od5_ww12_messages_are_speeches_in_the_drawn_order_each_softened() -> None:
    game = open_game()
    events = round_of(game, {2: post("kill seat 5"), 5: post("", accuse=[2]), 6: post("hm")})
    order = of_kind(events, "discussion.order")[0].order
    speeches = of_kind(events, "werewolf.speech")
    assert [s.seat for s in speeches] == list(order) and sorted(order) == [2, 5, 6]
    assert [s.turn for s in speeches] == [1, 2, 3]  # numbered on through the day
    wolf = next(s for s in speeches if s.seat == 2)
    assert wolf.shown == "eliminate seat 5"  # WW-13 still applies to a message
    assert next(s for s in speeches if s.seat == 5).accuse == (2,)
    assert of_kind(events, "discussion.round")[0].accepted == order
    assert game.view(2).public["open_day"]["left"] == 2


def test_od6_b_a_round_without_a_message_ends_the_day_and_the_vote_opens() -> None:
    game = open_game()
    events = round_of(game, {3: post("seat 1 is a werewolf", claim="seer", accuse=[1])})
    assert closed(events) is None
    events = round_of(game, {})  # everybody waits
    assert closed(events) == "quiet"
    opened = of_kind(events, "werewolf.vote_opened")
    assert len(opened) == 1 and opened[0].candidates == (1, 2, 3, 4, 5, 6, 7)
    assert {r.decision for r in game.pending()} == {"vote"}
    assert game.view(4).public["open_day"]["over"] is True


def test_od6_a_the_day_ends_at_its_cap_and_the_rest_are_cut() -> None:
    game = open_game(messages_per_day=2)
    events = round_of(game, {s: post(f"seat {s} speaks") for s in (1, 3, 5)})
    assert len(of_kind(events, "werewolf.speech")) == 2
    assert len(of_kind(events, "discussion.cut")[0].seats) == 1
    assert closed(events) == "day_cap"
    assert {r.decision for r in game.pending()} == {"vote"}


def test_od6_c_the_day_ends_when_no_living_seat_has_messages_left() -> None:
    game = open_game(messages_per_seat=1, quiet_rounds=3)
    events = round_of(game, {s: post(f"seat {s} speaks") for s in range(1, 8)})
    assert len(of_kind(events, "werewolf.speech")) == 7
    assert closed(events) == "no_budget"


def test_od8_a_seat_that_gives_no_answer_waits_and_the_record_says_so() -> None:
    game = open_game(quiet_rounds=2)
    events = round_of(game, {1: None, 2: post("I am a villager", claim="villager")})
    answers = of_kind(events, "discussion.answers")[0]
    assert answers.fell_back == (1,) and answers.posted == (2,)
    assert answers.visibility().scope == "referee"
    made = [e for e in game.events if e.kind == "core.decision" and e.seat == 1][-1]
    assert made.fallback and made.payload == {"speak": False, "fell_back": True}


def test_od9_ww12_refusals_change_nothing() -> None:
    game = open_game(messages_per_seat=1, quiet_rounds=3)
    before = len(game.events)
    request = request_of(game, 5)
    with pytest.raises(IllegalDecision) as empty:  # OD-2: waiting is the way to pass
        game.submit(request.id, post("  "))
    assert empty.value.rule == "OD-2"
    with pytest.raises(IllegalDecision) as both:  # WW-12's check holds for a message
        game.submit(request.id, post("x", accuse=[1], vouch=[1]))
    assert both.value.rule == "WW-12"
    assert 8 not in {r.seat for r in game.pending()}  # OD-2: the dead are never asked
    with pytest.raises(IllegalDecision) as dead:
        WW.rules.check(game.state, ask(8), post("boo"))
    assert dead.value.rule == "WW-16"
    assert len(game.events) == before
    round_of(game, {5: post("seat 5 speaks")})
    assert 5 not in {r.seat for r in game.pending()}  # no budget left: not asked again
    with pytest.raises(IllegalDecision) as spent:  # OD-9: past the seat's budget
        WW.rules.check(game.state, ask(5), post("again"))
    assert spent.value.rule == "OD-9"
    round_of(game, {})
    round_of(game, {})
    round_of(game, {})  # three quiet rounds: the day is over
    with pytest.raises(IllegalDecision) as late:  # OD-9: after the phase ended
        WW.rules.check(game.state, ask(6), post("late"))
    assert late.value.rule == "OD-9"


def ask(seat: int) -> DecisionRequest:
    """An ask of ``seat``, to put an answer to the referee's check directly (the
    core refuses it earlier, as a request that is not open)."""
    return DecisionRequest(f"0.{seat}.message", seat, "message", "WW-12, OD-5", "", ())


# ------------------------------------------------------------------ whole games


class OpenBot(BaselineBot):
    """The baseline bot with the smallest rule for an open day (until bot.py
    answers the message decision itself): in the day's first round it posts
    what its speech would say; later it waits."""

    def _choose(self, ctx: DecisionContext) -> dict[str, Any]:
        if ctx.request.decision != "message":
            return super()._choose(ctx)
        if ctx.view.public["open_day"]["round"] > 1:
            return {"speak": False}
        return {"speak": True, **super()._choose(ctx)}


def test_od2_od5_od6_whole_open_games_with_baseline_bots() -> None:
    endings = set()
    for seed in range(8):
        game = Game.new(WW, WW.parse_config({"discussion": "open"}), seed)
        answers = play_bots(game, seed, OpenBot)
        decisions = {d for _, d, _ in answers}
        assert "message" in decisions and not decisions & {"speech", "bid"}
        posted = [p for _, d, p in answers if d == "message" and p["speak"]]
        assert len(posted) == len(of_kind(game.events, "werewolf.speech"))
        days = of_kind(game.events, "discussion.opened")
        assert len(of_kind(game.events, "discussion.closed")) == len(days) >= 1
        endings.add(game.outcome().reason)  # type: ignore[union-attr]
    assert endings <= {"werewolves_eliminated", "werewolf_parity", "day_limit"}


@pytest.mark.parametrize(
    "rules",
    [
        {"discussion": "open"},
        {"discussion": "open", "messages_per_day": 4, "quiet_rounds": 2, "last_words": True},
    ],
)
def test_od2_od10_the_conformance_kit_and_no_leak_audit_pass_in_open_mode(
    rules: dict[str, Any],
) -> None:
    """The kit's checks: terminates, answers, determinism (OD-10: the same seed
    and answers give the same game), visibility, the view fold, replay from
    JSON, and the no-leak audit of views and prompts (en and zh)."""
    report = check_variant("werewolf", rules, games=3, seed=31, languages=("en", "zh"))
    assert report.games == 3 and report.texts_audited > 0
    assert set(report.endings) <= {"werewolves_eliminated", "werewolf_parity", "day_limit"}


OPEN_GAME = """variant = "werewolf"
name = "open-day"
[rules]
discussion = "open"
quiet_rounds = 2
[default_agent]
kind = "random"
[[agent]]
seats = [7, 8]
kind = "baseline"
[run]
out = "{out}"
"""


def test_od10_ww2_sandbox_replay_reproduces_an_open_game(tmp_path: Path) -> None:
    """A game run from a game file (random seats, and baseline bots, whose
    unanswered asks fall back to a wait, OD-8) is re-refereed event for event."""
    config = tmp_path / "game.toml"
    config.write_text(OPEN_GAME.format(out=tmp_path / "out"), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(config), "--seed", "4", "--json"])
    assert result.exit_code == 0, result.stderr
    path = Path(json.loads(result.stdout)["transcript"])
    kinds = [json.loads(line).get("kind") for line in path.read_text("utf-8").splitlines()]
    assert "discussion.opened" in kinds and "discussion.closed" in kinds
    replayed = runner.invoke(app, ["replay", str(path)])
    assert replayed.exit_code == 0, replayed.stdout
    assert "identical" in replayed.stdout
