"""Four Factions in an open day (`discussion = "open"`, OD-1): the statements of
days 1-3 ride on messages (OD-3), the phase ends on each budget (OD-6), whole
games with baseline bots replay, and the conformance kit holds in open mode."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from sandbox.agents.baseline import baseline_bot_or_none
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.cli.main import app
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.games.four_factions.bot import BaselineBot
from sandbox.session.runner import Runner
from sandbox.testing import check_variant, play_random, replay
from tests.games.four_factions.helpers import VARIANT, config, kinds, new

OPEN_CONFIG = Path(__file__).parents[3] / "configs" / "four_factions_open.toml"
WAIT: dict[str, Any] = {"speak": False}


def open_game(seed: int = 1, **rules: Any) -> Game:
    return new(seed=seed, discussion="open", **rules)


def round_of(game: Game, answers: Mapping[int, Mapping[str, Any]]) -> None:
    """Answer every ask of the round under way: listed seats as given, the rest wait."""
    for request in game.pending():
        assert request.decision == "message", request
        game.submit(request.id, dict(answers.get(request.seat, WAIT)))


def quiet_round(game: Game) -> None:
    round_of(game, {})


# ------------------------------------------------------------------ OD-1


def test_od1_discussion_defaults_to_turns_and_takes_open() -> None:
    assert config().discussion == "turns"
    assert config(discussion="open").discussion == "open"
    with pytest.raises(ValidationError):
        config(discussion="bidding")
    turns = new()
    assert not kinds(turns, "discussion.opened")  # FF-18's turns, as before
    assert [r.decision for r in turns.pending()] == ["proofs"]
    opened = open_game()
    assert len(kinds(opened, "discussion.opened")) == 1
    asks = opened.pending()
    assert [r.seat for r in asks] == list(range(1, 17))  # OD-5: every living seat
    assert {r.decision for r in asks} == {"message"}
    assert [f.name for f in asks[0].fields] == ["speak", "speech", "am"]


def test_od1_the_rules_text_states_the_protocol_in_english_and_chinese() -> None:
    for language in ("en", "zh"):
        turns = VARIANT.rules_text(config(), language)
        opened = VARIANT.rules_text(config(discussion="open", messages_per_seat=2), language)
        assert turns != opened
        assert "OD-" not in turns and "OD-" in opened
    english = VARIANT.rules_text(config(discussion="open", messages_per_seat=2), "en")
    assert "2 messages" in english


def test_od1_a_whole_open_game_with_baseline_bots_ends() -> None:
    game = open_game(seed=3, day_limit=8)
    agents = {s: BaselineBot(s) for s in game.seats}
    outcome = asyncio.run(Runner(game, agents, abort_share=None).run())
    assert outcome.reason in ("pairs_decided", "day_limit")
    # each day opened an open discussion, and each ended before its night (OD-6)
    assert len(kinds(game, "discussion.opened")) == game.state.day
    assert len(kinds(game, "discussion.closed")) == game.state.day
    assert not kinds(game, "ff.pass")  # no turns were taken (FF-18 is not in play)
    # every seat's day-1 statement was given once, or recorded as none (OD-3, FF-29)
    given = [e.seat for e in kinds(game, "ff.proofs")]
    none = [e.seat for e in kinds(game, "ff.no_statement") if e.stage == "proofs"]
    assert sorted(given + none) == list(range(1, 17))


def test_od1_sandbox_replay_reproduces_an_open_game(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)  # the shipped open game file, its transcript written here
    played = CliRunner().invoke(app, ["run", str(OPEN_CONFIG), "--json"])
    assert played.exit_code == 0, played.output
    (transcript,) = (tmp_path / "transcripts").glob("*.jsonl")
    assert '"discussion.order"' in transcript.read_text(encoding="utf-8")
    done = CliRunner().invoke(app, ["replay", str(transcript)])
    assert done.exit_code == 0 and "OK: every event is identical" in done.output


def test_od1_random_open_games_replay_from_seed_and_decisions() -> None:
    cfg = config(discussion="open", day_limit=6)
    for seed in range(2):
        game, log = play_random(VARIANT, cfg, seed)
        again = replay(VARIANT, cfg, seed, log)
        assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]


def test_od2_the_conformance_kit_and_no_leak_audit_hold_in_open_mode() -> None:
    report = check_variant(
        VARIANT,
        {"discussion": "open", "day_limit": 5},
        games=1,
        seed=4,
        fold_every=25,
        languages=("en", "zh"),
    )
    assert report.games == 1 and report.texts_audited > 0 and report.folds_compared > 0


# ------------------------------------------------------------------ OD-3


def test_od3_a_statement_is_given_by_the_first_message_carrying_it() -> None:
    game = open_game()
    round_of(game, {3: {"speak": True, "am": "wolves"}, 4: {"speak": True, "speech": "hello"}})
    proofs = kinds(game, "ff.proofs")
    assert [(e.seat, e.am, e.speech) for e in proofs] == [(3, "wolves", "")]
    assert [(e.seat, e.speech) for e in kinds(game, "ff.speech")] == [(4, "hello")]
    assert 3 not in game.state.owed and 4 in game.state.owed
    assert game.view(9).public["claims"] == {"3": "wolves"}  # public at once
    # seat 4 spoke first; its statement comes with a later message
    round_of(game, {4: {"speak": True, "am": "army", "speech": "I am army"}})
    assert [(e.seat, e.am) for e in kinds(game, "ff.proofs")] == [(3, "wolves"), (4, "army")]


def test_od3_a_second_statement_is_refused_and_speech_still_allowed() -> None:
    game = open_game()
    round_of(game, {3: {"speak": True, "am": "wolves"}})
    ask = next(r for r in game.pending() if r.seat == 3)
    with pytest.raises(IllegalDecision) as refused:
        game.submit(ask.id, {"speak": True, "am": "spies", "speech": "I changed my mind"})
    assert refused.value.rule == "OD-3"
    game.submit(ask.id, {"speak": True, "speech": "still wolves"})
    assert game.state.claims[3] == "wolves"


def test_od3_a_seat_owing_none_is_refused() -> None:
    # Day 3: seat 1 alone gave proofs on day 1, so seat 1 has nobody to protect.
    game = open_game()
    round_of(game, {1: {"speak": True, "am": "wolves"}})
    quiet_round(game)  # day 1 ends quiet; day 2 too
    quiet_round(game)
    assert game.state.stage == "protection"
    asks = {r.seat: r for r in game.pending()}
    assert "target" not in [f.name for f in asks[1].fields]  # FF-15
    with pytest.raises(IllegalDecision):
        game.submit(asks[1].id, {"speak": True, "target": 2})
    round_of(game, {2: {"speak": True, "target": 1}})
    # seat 2 has protected: it now owes none, and a statement is refused (OD-3)
    ask = next(r for r in game.pending() if r.seat == 2)
    with pytest.raises(IllegalDecision) as refused:
        game.submit(ask.id, {"speak": True, "target": 1, "speech": "again"})
    assert refused.value.rule == "OD-3"
    # from day 4 no statement is owed, and none can be asked for
    quiet_round(game)
    while game.state.stage != "open":
        game.submit_fallback(game.pending()[0].id, "exhausted")
    assert game.state.owed == set()
    ask = game.pending()[0]
    assert [f.name for f in ask.fields] == ["speak", "speech"]
    with pytest.raises(IllegalDecision):
        game.submit(ask.id, {"speak": True, "am": "wolves", "speech": "hi"})


def test_od3_the_seats_still_owing_give_none_in_seat_order_when_the_day_ends() -> None:
    game = open_game()
    round_of(game, {5: {"speak": True, "am": "army"}, 9: {"speak": True, "speech": "hm"}})
    quiet_round(game)  # OD-6 (b): the day ends after one quiet round
    closed = kinds(game, "discussion.closed")
    assert [e.reason for e in closed] == ["quiet"]
    after = game.events[game.events.index(closed[0]) :]
    fallbacks = [e for e in after if e.kind == "ff.no_statement"]
    assert [e.seat for e in fallbacks] == [s for s in range(1, 17) if s != 5]  # FF-29
    assert {e.stage for e in fallbacks} == {"proofs"}
    first_night = next(e for e in after if e.kind == "ff.phase")
    assert first_night.phase == "night" and after.index(first_night) > after.index(fallbacks[-1])
    assert game.view(1).public["no_statement"]["proofs"] == [s for s in range(1, 17) if s != 5]


def test_od3_a_cut_message_gives_no_statement() -> None:
    game = open_game(messages_per_day=1)
    round_of(game, {2: {"speak": True, "am": "spies"}, 7: {"speak": True, "am": "army"}})
    (cut,) = kinds(game, "discussion.cut")
    (order,) = kinds(game, "discussion.order")
    (loser,), (winner,) = cut.seats, order.order
    assert {winner, loser} == {2, 7}
    assert [e.seat for e in kinds(game, "ff.proofs")] == [winner]
    assert loser in [e.seat for e in kinds(game, "ff.no_statement")]  # FF-29, not invented
    assert [e.reason for e in kinds(game, "discussion.closed")] == ["day_cap"]


def test_od3_an_accusation_in_a_message_keeps_ff14() -> None:
    game = open_game()
    round_of(game, {4: {"speak": True, "am": "wolves"}})
    quiet_round(game)  # day 1 ends; night 1 is quiet
    assert game.state.stage == "accusation"
    ask = next(r for r in game.pending() if r.seat == 1)
    with pytest.raises(IllegalDecision) as denied:
        game.submit(ask.id, {"speak": True, "target": 4, "faction": "wolves"})
    assert denied.value.rule == "FF-14"
    with pytest.raises(IllegalDecision) as half:
        game.submit(ask.id, {"speak": True, "target": 4})
    assert half.value.rule == "FF-14"
    game.submit(ask.id, {"speak": True, "target": 4, "faction": "spies", "speech": "liar"})
    quiet_round(game)
    (made,) = kinds(game, "ff.accusation")
    assert (made.seat, made.target, made.faction, made.speech) == (1, 4, "spies", "liar")


def test_od2_an_empty_message_is_refused_wait_instead() -> None:
    game = open_game()
    ask = game.pending()[0]
    with pytest.raises(IllegalDecision) as refused:
        game.submit(ask.id, {"speak": True, "speech": "  "})
    assert refused.value.rule == "OD-2"


# ------------------------------------------------------------------ OD-6


def test_od6_the_day_ends_on_each_budget() -> None:
    everyone = {s: {"speak": True, "speech": f"seat {s} here"} for s in range(1, 17)}
    capped = open_game(messages_per_day=5)
    round_of(capped, everyone)
    assert [e.reason for e in kinds(capped, "discussion.closed")] == ["day_cap"]
    assert len(kinds(capped, "ff.speech")) == 5

    quiet = open_game(quiet_rounds=2)
    quiet_round(quiet)
    assert not kinds(quiet, "discussion.closed")  # one quiet round is not two
    quiet_round(quiet)
    assert [e.reason for e in kinds(quiet, "discussion.closed")] == ["quiet"]

    spent = open_game(messages_per_seat=1)
    round_of(spent, everyone)
    assert [e.reason for e in kinds(spent, "discussion.closed")] == ["no_budget"]
    assert len(kinds(spent, "ff.speech")) == 16
    for game in (capped, quiet, spent):  # night 1 is quiet (FF-16): day 2 has opened
        assert game.state.day == 2 and game.state.stage == "accusation"
        assert len(kinds(game, "discussion.opened")) == 2


def test_od4_a_seat_view_shows_what_is_left_of_the_open_day() -> None:
    assert "open_day" not in new().view(1).public  # turns: the view is as before
    game = open_game(messages_per_seat=2, messages_per_day=10)
    assert game.view(1).public["open_day"] == {
        "day": 1,
        "round": 1,
        "left": 2,
        "left_today": 10,
        "over": False,
    }
    round_of(game, {1: {"speak": True, "speech": "hello"}, 2: {"speak": True, "am": "army"}})
    seen = game.view(1).public["open_day"]
    assert (seen["round"], seen["left"], seen["left_today"]) == (2, 1, 8)
    assert game.view(3).public["open_day"]["left"] == 2


def test_od3_the_message_prompt_names_the_statement_owed_today() -> None:
    game = open_game()
    ask = game.pending()[0]
    for language, owed in (("en", '"am" to one of your messages'), ("zh", '加上 "am"')):
        prompt = render_prompt(game.view(ask.seat), ask, language=language)
        text = "\n".join(m["content"] for m in prompt.messages)
        assert owed in text and "OD-3" in text
    round_of(game, {})  # day 1 ends quiet
    round_of(game, {})  # day 2
    round_of(game, {})  # day 3; day 4 is an open day (FF-17) with no statement
    assert game.state.stage == "open"
    ask = game.pending()[0]
    prompt = render_prompt(game.view(ask.seat), ask, language="en")
    text = "\n".join(m["content"] for m in prompt.messages)
    assert "open discussion" in text and "OD-3" not in text.split("# Your decision")[-1]


def test_od3_the_baseline_bot_gives_its_statement_first_and_then_waits_or_speaks_once() -> None:
    """The bot in an open day: the statement it owes in its first message, never a
    second one; on other days at most one speech a day; no answer drawn at random."""
    game = open_game(seed=3, day_limit=6)
    agents = {s: baseline_bot_or_none(VARIANT, s) for s in game.seats}  # as a game file seats it
    asyncio.run(Runner(game, agents, abort_share=None).run())  # type: ignore[arg-type]
    decisions = kinds(game, "core.decision")
    assert decisions and not [d for d in decisions if d.fallback]
    for stage in ("proofs", "accusation", "protection"):
        none = [e.seat for e in kinds(game, "ff.no_statement") if e.stage == stage]
        assert not none or stage == "protection", (stage, none)  # day 3: nobody to protect
    most, today = 0, dict[int, int]()
    for event in game.events:
        if event.kind == "discussion.opened":
            today = {}  # a new open day
        elif event.kind == "ff.speech":
            today[event.seat] = today.get(event.seat, 0) + 1  # type: ignore[attr-defined]
            most = max(most, today[event.seat])  # type: ignore[attr-defined]
    assert most == 1  # some spoke, none twice a day
