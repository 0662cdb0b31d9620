"""Table talk in Killer (issue 38 item 7), two rulings off by default: the
killers' night messages before their opinions (``killer_chat``, a KG-3 ruling)
and the graveyard's talk (``graveyard_chat``, a KG-14 ruling). Their events and
audiences, the words and templates, the bots' and LLM seats' answers, and the
leak audit: a non-killer never reads the killers' talk, a living seat never
reads the graveyard's."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.agents.baseline import BaselineAgent
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.cli.main import app
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import DecisionMade, GraveyardMessage, TeamMessage, event_from_json
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Seating
from sandbox.core.talk import TALK_CHARS
from sandbox.games.killer.events import Dawn, GameStarted, Opinions, VotedOut
from sandbox.session.runner import Runner
from sandbox.testing import check_variant
from sandbox.transcript import read_transcript
from sandbox.words import words_for
from tests.games.killer.helpers import KILLER, answer_step, new_game, night, pending, vote
from tests.prompts.audit import ZH, role_facts
from tests.prompts.harness import full_text, play

TALK: dict[str, Any] = {"killer_chat": True, "graveyard_chat": True}


def say(text: str) -> dict[str, Any]:
    return {"message": text}


def chat_night(game: Game, kill: int | None, check: int | None = None) -> None:
    """Each killer in turn tells the team its pick, then the night as usual."""
    while pending(game, "team_message"):
        answer_step(
            game,
            lambda r: say(f"seat {kill}") if r.decision == "team_message" else say(""),
        )
    answer_step(game, lambda r: {"target": kill} if r.decision == "kill_opinion" else say(""))
    answer_step(game, lambda r: {"suspect": check})


def pass_day(game: Game) -> None:
    while not game.over and game.pending()[0].decision in ("speech", "last_words"):
        answer_step(game, lambda r: {"speech": ""})


# ------------------------------------------------------------------ off by default


def test_kg3_kg14_table_talk_is_off_by_default_and_the_first_line_is_as_before() -> None:
    game = new_game(seed=1)
    assert {r.decision for r in game.pending()} == {"kill_opinion"}
    line = game.events[0].to_json()
    assert "killer_chat" not in line["data"] and "graveyard_chat" not in line["data"]
    assert "killer_chat" not in game.view(1).public["rules"]
    night(game, 7)  # seat 7 dies; days and nights go on with no graveyard ask
    pass_day(game)
    vote(game, {})
    assert all(r.decision == "kill_opinion" for r in game.pending())
    # an older transcript's line (no keys) loads with both rulings off
    started = event_from_json(line)
    assert isinstance(started, GameStarted) and not started.killer_chat


def test_kg3_kg14_the_rulings_are_written_in_the_first_line_and_the_views_when_on() -> None:
    game = new_game(seed=1, **TALK)
    line = game.events[0].to_json()
    assert line["data"]["killer_chat"] is True and line["data"]["graveyard_chat"] is True
    assert event_from_json(line) == game.events[0]
    rules = game.view(9).public["rules"]
    assert rules["killer_chat"] is True and rules["graveyard_chat"] is True


# ------------------------------------------------------------------ KG-3 ruling


def test_kg3_killers_talk_in_seat_order_before_their_opinions_seen_by_the_living_killers() -> None:
    game = new_game(seed=2, **TALK)
    for seat in (1, 2, 3):
        (request,) = game.pending()
        assert (request.seat, request.decision, request.rule) == (seat, "team_message", "KG-3")
        if seat > 1:  # the messages before this one are in the seat's record
            said = [i.speech for i in game.view(seat).history if i.kind == "talk.team"]
            assert said == [f"from {s}" for s in range(1, seat)]
        game.submit(request.id, say(f"from {seat}"))
    assert {r.decision for r in game.pending()} == {"kill_opinion"}
    messages = [e for e in game.events if isinstance(e, TeamMessage)]
    assert [m.seat for m in messages] == [1, 2, 3]
    assert all(m.audience == (1, 2, 3) and m.team == "killer" for m in messages)
    for seat in range(4, 13):
        assert not [e for _, e in game.visible_events(seat) if isinstance(e, TeamMessage)]
        assert not [i for i in game.view(seat).history if i.kind == "talk.team"]
    answer_step(game, lambda r: {"target": 8})
    assert next(e for e in game.events if isinstance(e, Opinions)).audience == (1, 2, 3)


def test_kg3_a_message_too_long_is_refused_an_empty_one_passes_and_a_dead_killer_is_not_asked() -> (
    None
):
    game = new_game(seed=3, **TALK)
    (request,) = game.pending()
    with pytest.raises(IllegalDecision):
        game.submit(request.id, say("x" * (TALK_CHARS + 1)))
    game.submit(request.id, say(""))  # a pass: recorded, said as "tells the team nothing"
    passed = [e for e in game.events if isinstance(e, TeamMessage)][-1]
    assert (
        passed.text == ""
        and "nothing" in words_for(KILLER, passed.kind, passed.to_json()["data"]).sentence
    )
    while pending(game, "team_message"):
        answer_step(game, lambda r: say(""))
    answer_step(game, lambda r: {"target": 1})  # the killers kill killer 1
    answer_step(game, lambda r: {"suspect": None})
    pass_day(game)
    vote(game, {})
    assert [r.seat for r in pending(game, "team_message")] == [2]  # seat 1 is dead


def test_kg3_a_fallback_is_a_pass() -> None:
    game = new_game(seed=4, **TALK)
    (request,) = game.pending()
    game.submit_fallback(request.id, "timeout")
    assert [e for e in game.events if isinstance(e, TeamMessage)][-1].text == ""


# ------------------------------------------------------------------ KG-14 ruling


def to_night_two(game: Game) -> None:
    """Night 1 kills civilian 7; the day votes out civilian 8 (both dead by night 2)."""
    chat_night(game, 7)
    pass_day(game)
    vote(game, {s: 8 for s in range(1, 13) if s not in (7, 8)})
    pass_day(game)  # seat 8's last words


def test_kg14_the_dead_are_asked_with_each_night_s_first_step_and_only_the_dead_read_them() -> None:
    game = new_game(seed=5, **TALK)
    assert not pending(game, "graveyard_message")  # nobody dead on night 1
    to_night_two(game)
    asked = pending(game, "graveyard_message")
    assert [r.seat for r in asked] == [7, 8] and all(r.rule == "KG-14" for r in asked)
    assert [r.decision for r in pending(game, "team_message")] == ["team_message"]
    answer_step(game, lambda r: say(f"boo from {r.seat}" if r.seat == 7 else ""))
    graves = [e for e in game.events if isinstance(e, GraveyardMessage)]
    assert [(g.seat, g.text, g.audience) for g in graves] == [
        (7, "boo from 7", (7, 8)),
        (8, "", (7, 8)),
    ]
    assert not pending(game, "graveyard_message")  # once a night
    for seat in (7, 8):
        heard = [i for i in game.view(seat).history if i.kind == "talk.graveyard"]
        assert [i.speech for i in heard] == ["boo from 7", ""]
    for seat in (1, 2, 3, 4, 5, 6, 9, 10, 11, 12):
        assert not [i for i in game.view(seat).history if i.kind == "talk.graveyard"]


def test_kg14_a_graveyard_message_is_no_act_and_the_living_resolve_as_if_it_were_not_asked() -> (
    None
):
    game = new_game(seed=6, graveyard_chat=True)
    night(game, 7)
    pass_day(game)
    vote(game, {})
    (dead,) = pending(game, "graveyard_message")
    game.submit(dead.id, say("it was seat 2"))  # KG-14 would refuse any other act
    answer_step(game, lambda r: {"target": 9})
    opinions = [e for e in game.events if isinstance(e, Opinions)][-1]
    assert set(opinions.opinions) == {"1", "2", "3"}
    with pytest.raises(IllegalDecision, match="KG-14"):
        KILLER.rules.check(game.state, _as(dead, "vote"), {"target": 9})


def _as(request: DecisionRequest, decision: str) -> DecisionRequest:
    return DecisionRequest(request.id, request.seat, decision, "KG-9", "", request.fields)


# ------------------------------------------------------------------ the leak audit


SECRET = "zqx"  # every message's text carries it, with its seat, night and kind


def _speak(request: DecisionRequest) -> str | None:
    if request.decision in ("team_message", "graveyard_message"):
        return f"{SECRET}-{request.decision}-{request.seat}-{request.id}"
    return None


def _secrets(game: Game, upto: int, seat: int) -> list[str]:
    """Texts of talk ``seat`` may not read among the first ``upto`` events."""
    return [
        e.text
        for e in game.events[:upto]
        if isinstance(e, TeamMessage | GraveyardMessage)
        and e.text
        and not e.visibility().visible_to(seat)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_kg3_kg14_no_view_or_prompt_of_a_seat_shows_talk_it_may_not_read(seed: int) -> None:
    """Random games with both rulings: at every decision, the seat's view and
    its prompts (full and compact, English and Chinese) hold no killers' message
    unless the seat is a living killer when it is said, and no graveyard
    message unless the seat is dead when it is said; both kinds are seen by
    those allowed (so the audit has something to find)."""
    game = Game.new(KILLER, KILLER.parse_config({"players": 11 + seed % 6, **TALK}), seed)
    captured = play(game, random.Random(seed), pick=lambda g, r: True, speak=_speak)
    read = {"talk.team": 0, "talk.graveyard": 0}
    for c in captured:
        hidden = _secrets(game, c.events_before, c.seat)
        view_text = json.dumps(c.view.to_json(), ensure_ascii=False)
        texts = [view_text]
        if c.step % 5 == 0 or c.request.decision in ("team_message", "graveyard_message"):
            for language in ("en", "zh"):
                for style in ("full", "compact"):
                    prompt = render_prompt(c.view, c.request, language=language, style=style)
                    texts.append(full_text(prompt))
        for text in texts:
            assert not [h for h in hidden if h in text], (c.seat, c.request.decision)
        _count(game, c.seat, c.view.history, read)
    for seat in game.seats:  # the seats' last views, the game over
        view = game.view(seat)
        hidden = _secrets(game, len(game.events), seat)
        assert not [h for h in hidden if h in json.dumps(view.to_json(), ensure_ascii=False)]
        _count(game, seat, view.history, read)
    assert read["talk.team"] and read["talk.graveyard"], read


def _count(game: Game, seat: int, history: Any, read: dict[str, int]) -> None:
    """Count the talk a seat reads; a graveyard message only ever by a seat dead
    when it was said (the living never read the graveyard)."""
    for item in history:
        if item.kind in read:
            read[item.kind] += 1
            if item.kind == "talk.graveyard":
                assert seat not in _living_at(game, item.seq)


def test_kg3_kg14_the_talk_audit_catches_a_view_that_ignores_the_audience() -> None:
    """The check bites: a view folded from every event (the referee's) shows a
    civilian the killers' talk and a living seat the graveyard's."""
    game = Game.new(KILLER, KILLER.parse_config({"players": 12, **TALK}), 0)
    play(game, random.Random(0), speak=_speak)
    everything = game.visible_events(None)
    living = [s for s in game.seats if s in game.state.alive and game.roles()[s] != "killer"]
    assert living
    for seat in living:
        view = KILLER.build_view(seat, everything)
        shown = json.dumps(view.to_json(), ensure_ascii=False)
        assert [h for h in _secrets(game, len(game.events), seat) if h in shown]


def _living_at(game: Game, seq: int) -> set[int]:
    """The living seats when event ``seq`` was said: every seat but those the
    events before it announced dead (KG-6, KG-9)."""
    dead = {e.victim for e in game.events[:seq] if isinstance(e, Dawn)}
    dead |= {e.seat for e in game.events[:seq] if isinstance(e, VotedOut)}
    return set(game.seats) - dead


def test_kg3_kg14_the_conformance_kit_and_the_role_audit_pass_with_table_talk() -> None:
    """Visibility, folds, replay and the no-leak role audit of the kit, with both rulings."""
    report = check_variant(
        "killer", TALK, games=2, seed=4, facts=role_facts, aliases=ZH, languages=("en", "zh")
    )
    assert report.decisions > 0 and report.texts_audited > 0


# ------------------------------------------------------------------ seats


def play_bots(seed: int) -> Game:
    game = Game.new(KILLER, KILLER.parse_config({"players": 12, **TALK}), seed)
    agents = {s: BaselineAgent() for s in game.seats}
    for seat, agent in agents.items():
        agent.attach(Seating(seat, seed, KILLER))
    asyncio.run(Runner(game, agents, abort_share=None).run())
    return game


@pytest.mark.parametrize("seed", [1, 2])
def test_kg3_baseline_bots_tell_the_team_their_pick_and_pass_in_the_graveyard(seed: int) -> None:
    game = play_bots(seed)
    assert game.over
    team = [e for e in game.events if isinstance(e, TeamMessage)]
    assert team and all("seat" in e.text for e in team)
    graves = [e for e in game.events if isinstance(e, GraveyardMessage)]
    assert graves and all(e.text == "" for e in graves)
    assert not [e for e in game.events if isinstance(e, DecisionMade) and e.fallback]


FAKE_TALK = """variant = "killer"
seed = 2
[rules]
players = 11
killer_chat = true
graveyard_chat = true
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[llm]
max_repairs = 1
[run]
out = "{out}"
"""


def test_kg3_kg14_llm_seats_answer_both_asks_and_the_transcript_replays(tmp_path: Path) -> None:
    """LLM seats (the fake provider) answer the two new decisions through the
    request and template path; the transcript records each message with its
    audience and ``sandbox replay`` reproduces the game."""
    game_file = tmp_path / "talk.toml"
    game_file.write_text(FAKE_TALK.format(out=tmp_path / "out"), encoding="utf-8")
    ran = CliRunner().invoke(app, ["run", str(game_file), "--json"])
    assert ran.exit_code == 0, ran.stderr
    transcript = Path(json.loads(ran.stdout)["transcript"])
    recorded = read_transcript(transcript)
    answered = {e.decision for e in recorded.events if isinstance(e, DecisionMade)}
    assert {"team_message", "graveyard_message"} <= answered
    lines = [json.loads(line) for line in transcript.read_text("utf-8").splitlines()]
    talk = [line for line in lines if str(line.get("kind", "")).startswith("talk.")]
    assert talk and all(line["vis"] == line["data"]["audience"] for line in talk)
    assert CliRunner().invoke(app, ["replay", str(transcript)]).exit_code == 0
