"""The deducing Four Factions bot (issue 37): what it reads from the day-3
protections and its own duels (``four_factions.evidence``), and level 4's play."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.core.seat import decide_now
from sandbox.core.variant import HistoryItem
from sandbox.games.four_factions.bot import BaselineBot
from sandbox.games.four_factions.config import FACTIONS, WEAPONS, rival_of
from sandbox.games.four_factions.evidence import Reading, groups, read_table
from sandbox.games.four_factions.tactics import beater, duel_odds, told_weapons, weapon_odds
from tests.games.four_factions.helpers import new, play_until
from tests.testing.driver import context

UNIFORM = dict.fromkeys(FACTIONS, 0.25)


def _bots(game: Game, level: int, seats: set[int] | None = None) -> dict[int, BaselineBot]:
    bots = {s: BaselineBot(100 + s) for s in game.seats}
    for s, bot in bots.items():
        if seats is None or s in seats:
            bot.at_level(level)
    return bots


def test_groups_are_the_protected_seats_with_their_protectors() -> None:
    # FF-15: seats 3, 8, 12 back seat 2; 4, 5 back 15; seat 2 backs 3; 7 backs 9 alone.
    said = [(3, 2), (8, 2), (12, 2), (4, 15), (5, 15), (2, 3), (7, 9)]
    found = groups([{"seat": s, "target": t} for s, t in said])
    assert [(g.hub, sorted(g.members)) for g in found] == [(2, [3, 8, 12]), (15, [4, 5])]


def test_groups_take_distinct_factions_and_a_member_follows_its_group() -> None:
    # A regular of the wolves (seat 1) whose elite is seat 2; seats 3, 4, 5 backed
    # seat 6, whose backed seat 3 claimed justice (the elite backs an honest mate).
    odds = {s: dict(UNIFORM) for s in range(1, 17)}
    odds[1] = odds[2] = {f: float(f == "wolves") for f in FACTIONS}
    said = [(1, 2), (7, 2), (8, 2), (3, 6), (4, 6), (5, 6), (6, 3)]
    pub: dict[str, Any] = {
        "protections": [{"seat": s, "target": t} for s, t in said],
        "claims": {"3": "justice"},
        "living": list(range(1, 17)),
    }
    read = read_table(odds, dict.fromkeys(range(1, 17), 0.25), pub)
    assert read.factions[7]["wolves"] > 0.85 and read.factions[8]["wolves"] > 0.85
    assert read.factions[6]["justice"] > 0.7 and read.factions[6]["wolves"] == 0.0
    assert min(read.factions[s]["justice"] for s in (3, 4, 5)) > 0.6
    assert read.elite[6] > 0.9 and read.elite[3] < 0.1
    # Without the protections the same odds say nothing of seats 3..8.
    plain = read_table(odds, dict.fromkeys(range(1, 17), 0.25), {"living": pub["living"]})
    assert plain.factions[7] == UNIFORM and plain.factions[6] == UNIFORM


def test_a_wiped_faction_is_ruled_out_for_the_living() -> None:
    odds = {s: dict(UNIFORM) for s in range(1, 17)}
    pub = {"living": [1, 2], "decided_pairs": {"spies/army": {"spies": "lose", "army": "win"}}}
    read = read_table(odds, {}, pub)
    assert read.factions[1]["spies"] == 0.0 and read.factions[3] == UNIFORM  # 3 is dead


def test_a_weapon_struck_back_with_is_known_and_narrows_its_mates() -> None:
    factions = {s: {f: float(f == "army") for f in FACTIONS} for s in (4, 6, 8)}
    read = Reading(factions, {4: 0.0, 6: 0.0, 8: 0.0})
    seen = {4: "rock"}
    assert weapon_odds(4, seen, read) == {"rock": 1.0, "scissors": 0.0, "paper": 0.0}
    assert weapon_odds(6, seen, read) == {"rock": 0.0, "scissors": 0.5, "paper": 0.5}


@pytest.mark.parametrize("weapon", WEAPONS)
def test_an_elite_guarding_against_what_beats_its_weapon_never_dies_attacking_a_regular(
    weapon: str,
) -> None:
    # FF-21/22: against a regular of unknown weapon the strike kills one time in
    # three and the strike back cannot kill through that shield.
    theirs = dict.fromkeys(WEAPONS, 1 / 3)
    kill, die = duel_odds(weapon, beater(weapon), 5, theirs, elite=0.0)
    assert kill == pytest.approx(1 / 3) and die == 0.0
    # A regular has no such shield (FF-6): it dies as often as it kills.
    kill, die = duel_odds(weapon, weapon, 5, theirs, elite=0.0)
    assert kill == pytest.approx(1 / 3) and die == pytest.approx(1 / 3)


def test_a_level_four_faction_claims_its_rival_accuses_its_own_and_backs_a_rival() -> None:
    game = new(seed=2, day_limit=6)
    wolves = {s for s in game.seats if game.state.faction[s] == "wolves"}
    bots = _bots(game, 4, wolves)
    play_until(game, bots, 4, "loadout")
    pub = game.view(1).public
    for s in wolves:
        assert pub["claims"][str(s)] == rival_of("wolves")  # FF-13
    for entry in pub["accusations"]:
        if entry["seat"] in wolves:
            assert entry["target"] in wolves  # FF-14: no other seat is named
    for entry in pub["protections"]:
        if entry["seat"] in wolves:  # FF-15: v4 hides its elite (ladder.Tactics.hides)
            assert entry["target"] not in wolves


def test_a_level_four_seat_reads_the_table_from_the_protections() -> None:
    # A table of baseline bots backs its elites on day 3: after it, a level-4
    # regular knows nearly every seat's faction, which claims alone never give.
    for seed in (1, 5):
        game = new(seed=seed, day_limit=6)
        regular = next(s for s in game.seats if not game.state.elite[s])
        bots = _bots(game, 4, {regular})
        play_until(game, bots, 4, "loadout")
        mind = bots[regular].mind
        assert mind is not None
        read = bots[regular]._read(game.view(regular).private, game.view(regular).public)
        right = sum(
            max(FACTIONS, key=read.factions[s].__getitem__) == game.state.faction[s]
            for s in game.seats
        )
        assert right >= 14


def test_level_four_stays_home_once_its_pair_is_decided() -> None:
    game = new(seed=3)
    bots = _bots(game, 4)
    while not game.over:
        for req in game.pending():
            view = game.view(req.seat)
            answer = decide_now(bots[req.seat], context(game, req.id))
            assert answer.payload is not None
            faction = view.private["faction"]
            decided = any(faction in r for r in view.public["decided_pairs"].values())
            if req.decision == "attack" and decided:
                assert answer.payload["target"] is None
            game.submit(req.id, answer.payload)


def test_a_weapon_told_by_a_likely_mate_is_heard_in_both_languages() -> None:
    said = [
        HistoryItem(1, "ff.speech", 5, "day", speaker=3, speech="Seat 6 fights with rock."),
        HistoryItem(2, "ff.speech", 5, "day", speaker=4, speech="Seat 8 fights with paper."),
        HistoryItem(3, "ff.speech", 6, "day", speaker=3, speech="10号用的是剪刀。"),
    ]
    assert told_weapons(said, lambda s: s == 3) == {6: "rock", 10: "scissors"}


def test_level_four_tells_the_weapon_a_survivor_struck_back_with() -> None:
    # FF-12: an attacker learns the weapon it was struck back with; at level 4 it
    # says so on the next open day (FF-17), for its faction-mates.
    told = 0
    for seed in range(4):
        game = new(seed=seed, day_limit=8)
        bots = _bots(game, 4)
        while not game.over:
            for req in game.pending():
                answer = decide_now(bots[req.seat], context(game, req.id))
                assert answer.payload is not None
                if req.decision == "speak" and "fights with" in answer.payload["speech"]:
                    seen = game.view(req.seat).private["duels"]
                    seat = int(answer.payload["speech"].split()[1])
                    assert any(d["opponent"] == seat for d in seen)
                    told += 1
                game.submit(req.id, answer.payload)
    assert told > 0
