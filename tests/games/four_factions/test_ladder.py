"""Four Factions' reference ladder (issue 37 item 4, ``four_factions.tactics`` v4):
each level's mistakes and tactics, and the frozen tag its own version names."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from sandbox.core.seat import decide_now
from sandbox.deduction.mind import VERSION, Mind
from sandbox.games.four_factions.bot import BaselineBot
from sandbox.games.four_factions.config import FACTIONS, rival_of
from sandbox.games.four_factions.evidence import (
    COVER,
    TABLE,
    Reading,
    covering,
    groups,
    read_table,
)
from sandbox.games.four_factions.tactics import LADDER, TACTICS, Sight, attack_values
from sandbox.games.four_factions.tactics import VERSION as FOUR_FACTIONS_VERSION
from tests.games.four_factions.helpers import new, play_until
from tests.testing.driver import context

UNIFORM = dict.fromkeys(FACTIONS, 0.25)


def test_the_ladder_grades_its_mistakes_and_adds_a_tactic_a_level() -> None:
    assert sorted(LADDER) == sorted(TACTICS) == [1, 2, 3, 4]
    slips = [LADDER[n].blunder for n in (1, 2, 3, 4)]
    assert slips == sorted(slips, reverse=True) and slips[-1] == 0 and len(set(slips)) == 4
    assert not LADDER[1].words and all(LADDER[n].words for n in (2, 3, 4))
    assert all(v.noise == 0 for v in LADDER.values())  # slips, not a softmax spread
    # Every level reads the protections and fights by the duel odds; each above
    # the first adds tactics: 2 hides its elite; 3 claims its rival's faction and
    # finishes its rival; 4 tells its mates what it saw, its elite names the
    # rival's regulars, and it reads a table that hides as one and one that covers.
    assert all(t.groups and t.duels for t in TACTICS.values())
    pinned = [
        (t.hides, t.cover, t.finish, t.tells, t.names, t.sees_hiding, t.sees_cover, t.attack_at)
        for _, t in sorted(TACTICS.items())
    ]
    assert pinned == [
        (False, False, 0.0, False, False, False, False, 0.0),
        (True, False, 0.0, False, False, False, False, 0.0),
        (True, True, 3.0, False, False, False, False, 0.0),
        (True, True, 3.0, True, True, True, True, 0.0),
    ]


def test_the_frozen_tag_carries_four_factions_own_version() -> None:
    # Four Factions' ladder moved on alone (v5: level 4 reads a covering table);
    # the deducing Mind's default stays v3.
    assert FOUR_FACTIONS_VERSION == 5 and VERSION == 3
    bot = BaselineBot(5)
    for level in LADDER:
        bot.at_level(level)
        assert bot.describe()["reference"] == f"four_factions/level-{level}/v5"
    assert Mind(TABLE, 3, seed=1).describe("baseline", "x")["reference"] == "x/level-3/v3"


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_slip_attacks_a_seat_even_when_none_is_worth_it(level: int) -> None:
    # At a level's slip rate the bot attacks any seat, worth it or not (a rash
    # attack); without slips it stays home when nothing is worth the risk.
    rash = {True: 0, False: 0}
    for slips in (True, False):
        game = new(seed=4, day_limit=6)
        bots = {s: BaselineBot(100 + s) for s in game.seats}
        for bot in bots.values():
            bot.at_level(level)
        play_until(game, bots, 4, "first_half")
        for req in game.pending():
            bot = bots[req.seat]
            assert bot.mind is not None
            rate = 1.0 if slips else 0.0
            bot.mind.level = dataclasses.replace(bot.mind.level, blunder=rate)
            bot.tactics = dataclasses.replace(bot.tactics, attack_at=1e9)  # nothing is worth it
            answer = decide_now(bot, context(game, req.id))
            assert answer.payload is not None
            rash[slips] += answer.payload["target"] is not None
    assert rash[True] > 0 and rash[False] == 0


def test_a_hiding_faction_backs_no_seat_of_its_own_on_day_three() -> None:
    # At level 1 a faction backs its elite, which the protections then show (a
    # hub, FF-15); from level 2 it backs the likeliest rival seat instead.
    for level, hides in ((1, False), (2, True)):
        for seed in (1, 2):
            game = new(seed=seed, day_limit=6)
            wolves = {s for s in game.seats if game.state.faction[s] == "wolves"}
            bots = {s: BaselineBot(100 + s) for s in game.seats}
            for s in wolves:
                bots[s].at_level(level)
            play_until(game, bots, 4, "loadout")
            pub = game.view(1).public
            backed = [p["target"] for p in pub["protections"] if p["seat"] in wolves]
            elite = next(s for s in wolves if game.state.elite[s])
            hubs = {g.hub for g in groups(pub["protections"])}
            if hides:
                assert backed and not set(backed) & wolves and elite not in hubs
            else:
                assert set(backed) <= wolves and elite in hubs


def test_finishing_weighs_the_kill_that_likely_wipes_the_rival_out() -> None:
    # A regular of the wolves (seat 1) at a table where seat 2 is likely of the
    # justice and no other living seat is: killing 2 decides the pair (FF-26).
    rival = rival_of("wolves")
    factions = {s: {f: float(f == "spies") for f in FACTIONS} for s in range(1, 17)}
    factions[1] = {f: float(f == "wolves") for f in FACTIONS}
    factions[2] = {f: 0.8 if f == rival else 0.2 if f == "spies" else 0.0 for f in FACTIONS}
    me = {"seat": 1, "faction": "wolves", "elite": False, "hp": 5, "duels": []}
    read = Reading(factions, dict.fromkeys(range(1, 17), 0.0))
    living = frozenset({1, 2, 4, 6})
    values = {
        finish: attack_values(
            Sight(me, read, {}, frozenset(), living, finish), [2, 4], ("rock", "rock")
        )
        for finish in (0.0, 3.0)
    }
    assert values[0.0][2] < 0 < values[3.0][2]  # worth the risk only when it finishes
    assert values[0.0][4] == values[3.0][4]  # a seat of the other pair: no change
    factions[4] = {f: float(f == rival) for f in FACTIONS}  # a second rival: 2 is not the last
    again = attack_values(Sight(me, read, {}, frozenset(), living, 3.0), [2], ("rock", "rock"))
    assert again[2] == pytest.approx(values[0.0][2])


def test_a_level_four_elite_names_its_rivals_and_its_regulars_take_its_word() -> None:
    # FF-9: the elite knows every regular's faction; on its first open day it names
    # the rival's living regulars, and its regulars (FF-10: they know its seat)
    # hold those seats' factions as certain. Without the tactic they only weigh it.
    for names in (True, False):
        game = new(seed=3, day_limit=6)
        wolves = {s for s in game.seats if game.state.faction[s] == "wolves"}
        elite = next(s for s in wolves if game.state.elite[s])
        bots = {s: BaselineBot(100 + s) for s in game.seats}
        for s in wolves:
            bots[s].at_level(4)
            bots[s].tactics = dataclasses.replace(bots[s].tactics, names=names)
        play_until(game, bots, 5, "open")
        said = " ".join(
            i.speech or ""
            for i in game.view(1).history
            if i.kind == "ff.speech" and i.speaker == elite
        )
        rivals = {s for s in game.seats if game.state.faction[s] == rival_of("wolves")}
        named = {s for s in rivals if f"Seat {s} " in said}
        regular = next(s for s in wolves if s != elite)
        mind = bots[regular].mind
        assert mind is not None
        sure = {s for s in rivals if s in mind.known}
        if names:
            assert named and named <= rivals and named <= sure
        else:
            assert not named and not sure


def test_a_table_that_backs_our_seats_is_read_as_one_that_hides_its_elites() -> None:
    # Seats 3 and 5 back seat 1 (a wolf, the reader) and seat 7 backs 3: a group
    # around seat 1 at a table that backs its elites. A reader that knows seat 1
    # is its own (``mates``) reads it as a table that hides them (Tactics.hides):
    # 3 and 5 back the seat they take for their rival, so they are likely justice.
    odds = {s: dict(UNIFORM) for s in range(1, 17)}
    odds[1] = {f: float(f == "wolves") for f in FACTIONS}
    said = [(3, 1), (5, 1), (7, 3)]
    pub: dict[str, Any] = {
        "protections": [{"seat": s, "target": t} for s, t in said],
        "living": list(range(1, 17)),
    }
    elites = dict.fromkeys(range(1, 17), 0.25)
    plain = read_table(odds, elites, pub)
    seen = read_table(odds, elites, pub, frozenset({1}))
    assert plain.factions[3]["wolves"] > 0.7 and plain.elite[1] > 0.9  # a group of 1's
    for s in (3, 5):  # BACKS_RIVAL = 3 over even odds: 3 / (3 + 1 + 1 + 1)
        assert seen.factions[s]["justice"] == pytest.approx(0.5)
        assert max(FACTIONS, key=seen.factions[s].__getitem__) == "justice"
    assert seen.factions[3]["wolves"] < 0.2 and seen.elite[1] == 0.25  # no group
    # A table where no seat outside the reader's backed one of its own: as before.
    assert read_table(odds, elites, pub, frozenset({2})) == plain
    # A regular (seat 2) whose elite is seat 1 watches only itself: 1's other
    # regulars, unknown to it, back 1 at a table that backs its elites (FF-10).
    assert read_table(odds, elites, pub, frozenset({1, 2}), frozenset({2})) == plain


def test_a_table_that_claims_its_rivals_faction_is_read_as_one_that_covers() -> None:
    # The reader (seat 1, wolves) knows seats 2 and 3 are justice; both claimed
    # wolves on day 1, their rival's faction (FF-13, Tactics.cover): the table covers.
    odds = {s: dict(UNIFORM) for s in range(1, 17)}
    odds[1] = {f: float(f == "wolves") for f in FACTIONS}
    for s in (2, 3):
        odds[s] = {f: float(f == "justice") for f in FACTIONS}
    claims = {"2": "wolves", "3": "wolves", "9": "spies"}
    pub: dict[str, Any] = {
        "claims": claims,
        "accusations": [{"seat": 9, "target": 10, "faction": "justice"}],
        "living": list(range(1, 17)),
    }
    assert covering(odds, "wolves", pub)
    # Truthful claims, or a single known seat, are no covering table.
    assert not covering(odds, "wolves", {**pub, "claims": {**claims, "2": "justice"}})
    assert not covering({1: odds[1], 2: odds[2]}, "wolves", pub)
    elites = dict.fromkeys(range(1, 17), 0.25)
    plain = read_table(odds, elites, pub)
    covered = read_table(odds, elites, pub, covers=True)
    # Seat 9 claimed spies: it points at the spies' rival. Over even odds: army
    # C, spies 1/C; the accusation (below) takes wolves and justice down by C.
    c = COVER
    assert covered.factions[9]["army"] == pytest.approx(c / (c + 3 / c))
    assert covered.factions[9]["spies"] == pytest.approx(1 / c / (c + 3 / c))
    # Read plainly, the accuser names its own rival's faction: seat 9 a wolf.
    assert plain.factions[9]["wolves"] == pytest.approx(0.5)
    # Seat 9 named seat 10 justice: a mate of its own, of the other pair, so
    # neither wolves nor justice: spies and army share 2 / (2 + 2/C).
    assert covered.factions[10]["spies"] == pytest.approx(1 / (2 + 2 / c))
    assert covered.factions[10]["justice"] == pytest.approx(1 / c / (2 + 2 / c))
    assert covered.factions[2] == odds[2]  # what the reader knows stays
