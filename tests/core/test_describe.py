"""Every event a built-in game emits has a readable one-line description
(the CLI's live display and `sandbox view` show these lines)."""

from __future__ import annotations

import asyncio

import pytest

from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.games.four_factions import events as fev
from sandbox.games.killer import events as kev
from sandbox.games.registry import get_variant
from sandbox.session.runner import Runner


@pytest.mark.parametrize("name", ["four_factions", "killer", "werewolf"])
def test_every_emitted_event_has_its_own_wording(name: str) -> None:
    variant = get_variant(name)
    seen: dict[str, str] = {}
    for seed in range(8):
        game = Game.new(variant, variant.parse_config({}), seed)
        asyncio.run(Runner(game, {s: RandomAgent(s) for s in game.seats}).run())
        for event in game.events:
            if not event.kind.startswith("core."):
                seen[event.kind] = variant.describe_event(event)
    assert len(seen) >= 10
    generic = {k: line for k, line in seen.items() if line.startswith(f"{k}:")}
    assert generic == {}


def test_killer_votes_are_counted_as_people_count_them() -> None:
    killer = get_variant("killer")
    first = kev.PhaseStarted(2, "vote", "vote", 0, (), (1, 3, 4))
    revote = kev.PhaseStarted(2, "vote", "revote", 1, (), (3, 4))
    assert killer.describe_event(first) == "The vote among seats 1, 3, 4."
    assert killer.describe_event(revote) == "Revote 1 among seats 3, 4."
    assert "round 0" not in killer.describe_event(kev.Ballots(2, 0, {"1": 3}, {"3": 1}))
    assert "revote 2" in killer.describe_event(kev.Tied(2, 2, (3, 4)))


def test_a_police_check_chosen_by_draw_says_so_like_the_kill() -> None:
    killer = get_variant("killer")
    drawn = killer.describe_event(kev.CheckResult(1, 5, "civilian", True, (2, 3)))
    agreed = killer.describe_event(kev.CheckResult(1, 5, "civilian", False, (2, 3)))
    assert "seeded draw" in drawn and "seeded draw" not in agreed
    assert "seeded draw" in killer.describe_event(kev.KillChosen(1, 5, True, (4,)))


def test_four_factions_summary_starts_with_a_capital() -> None:
    variant = get_variant("four_factions")
    for seed in range(3):
        game = Game.new(variant, variant.parse_config({"day_limit": 2}), seed)
        asyncio.run(Runner(game, {s: RandomAgent(s) for s in game.seats}).run())
        outcome = game.outcome()
        assert outcome is not None and outcome.summary[0].isupper(), outcome.summary


def test_a_log_line_is_the_english_sentence_and_keeps_its_facts() -> None:
    """Issue 36: every event is put into words once per language; the log line
    is the English sentence (a speech quoted after it), and it still says what
    the hand-written log lines said: FF-29's missing statement and its stage,
    the dead of a dawn, the revote's number and the seeded draw (KG-3, KG-10)."""
    ff, killer = get_variant("four_factions"), get_variant("killer")
    assert ff.describe_event(fev.NoStatement(7, "accusation")) == (
        "Seat 7 gave no valid accusation statement (FF-29)."
    )
    assert (
        ff.describe_event(fev.DawnReport(3, (2, 4), {})) == "Dawn after night 2: seats 2, 4 died."
    )
    assert ff.describe_event(fev.Spoke(5, "hi")) == 'Seat 5 says: "hi"'
    assert (
        killer.describe_event(kev.Tied(2, 2, (3, 4))) == "Tie between seats 3, 4: revote 2 follows."
    )
    assert killer.describe_event(kev.KillChosen(1, 5, True, (4,))) == (
        "The killers choose seat 5 (by a seeded draw)."
    )
