"""Four Factions' reference ladder (issue 37 item 4) and how a deducing seat
fights: each level is a :class:`~sandbox.deduction.mind.Level` (what its belief
reads, how sharply it picks; handed to its :class:`~sandbox.deduction.mind.Mind`)
and a :class:`Tactics` (what the bot lays over the belief: the day-3 protections
read as faction groups, the duel odds, the cover claim, the weapons told to
mates, how much an attack must be worth); below them, the worth of each attack
by the reading of the table and the duel odds (FF-21, FF-22), the elite's arms,
and the weapons it tells its mates (FF-12, FF-17); last, the duels: what a seat
learns from its own (FF-12: the weapon each opponent it attacked struck back
with; a faction's regulars hold one weapon each, FF-8 balanced, so a known
weapon narrows its mates') and the chance that a strike kills and that the
strike back kills (FF-21, FF-22). What it reads of the table is
:mod:`.evidence`'s. The bench's ``--set LEVEL FIELD VALUE`` changes a rung's
Level or Tactics for a trial run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.core.variant import HistoryItem
from sandbox.deduction.mind import Level
from sandbox.games.four_factions.config import FACTIONS, WEAPONS, rival_of
from sandbox.games.four_factions.evidence import PHRASES, Odds, Reading
from sandbox.games.four_factions.resolve import BEATS, STRIKE_TABLE

DEATH_COST = 0.9  # a regular's own death, against one rival killed
DEATH_COST_ELITE = 1.5  # an elite's (it knows every regular, FF-9, and picks its arms)
MATE_COST = 3.0  # killing a faction-mate (FF-24 allows it)
OTHER = 0.1  # killing a seat of the other pair: one attacker fewer
ELITE_BONUS = 0.5  # a rival elite is worth more than a regular
TRUST = 0.9  # a seat this likely a faction-mate is believed on a weapon it saw
SURE = 0.8  # odds at which a seat counts as of a faction when narrowing weapons


@dataclass(frozen=True)
class Tactics:
    """What a level's bot does over its belief (games/four_factions/evidence.py)."""

    groups: bool  # its attacks read the day-3 protections as faction groups (FF-15)
    duels: bool  # the duel odds pick the elite's arms and every target (FF-21, FF-22)
    cover: bool  # claims its rival's faction, accuses and backs its own (FF-13..FF-15)
    tells: bool  # tells its mates the weapons its duels showed (FF-12, FF-17)
    # An attack worth no more than this (evidence.attack_values) stays home.
    attack_at: float = 0.0
    # A rival's death is worth this much more when it likely wipes the rival out
    # (the pair won, FF-26); 0: every rival the same.
    finish: float = 0.0
    # Backs the likeliest rival seat on day 3, not its elite, so no group of
    # protectors shows its elite and its regulars (FF-15; as its cover claims).
    hides: bool = False
    # Its elite names the rival's regulars on its first open day (FF-9, FF-17)
    # and its regulars take their elite's word for it (FF-10).
    names: bool = False
    # Reads a table whose seats back seats of its own faction as one that hides
    # its elites: a protector backs its rival, no group is formed (evidence.read_table).
    sees_hiding: bool = False
    # Reads a table whose seats claim their rival's faction as one that covers:
    # a claim of X points at X's rival (evidence.reading).
    sees_cover: bool = False


# v4 (issue 37 item 4): one engine with graded mistakes over every level's reading
# (the protections and the duel odds); a slip is a pick drawn uniformly (an
# accusation, a loadout, an attack on any seat not known a mate, worth it or not).
# v5: level 4 also reads a covering table (levels 1-3 play as in v4).
VERSION = 5
LADDER: dict[int, Level] = {
    1: Level(1, words=False, forget=0.2, noise=0.0, blunder=0.2, version=VERSION),
    2: Level(2, words=True, forget=0.1, noise=0.0, blunder=0.1, version=VERSION),
    3: Level(3, words=True, forget=0.0, noise=0.0, blunder=0.05, version=VERSION),
    4: Level(4, words=True, forget=0.0, noise=0.0, coordinates=True, version=VERSION),
}
TACTICS: dict[int, Tactics] = {
    1: Tactics(groups=True, duels=True, cover=False, tells=False),
    2: Tactics(groups=True, duels=True, cover=False, tells=False, hides=True),
    3: Tactics(groups=True, duels=True, cover=True, tells=False, hides=True, finish=3.0),
    4: Tactics(
        groups=True,
        duels=True,
        cover=True,
        tells=True,
        hides=True,
        finish=3.0,
        sees_hiding=True,
        names=True,
        sees_cover=True,
    ),
}


@dataclass(frozen=True)
class Sight:
    """What a deducing seat goes by at night: its card, its reading of the table,
    the weapons it knows seats hold, and its certain faction-mates."""

    me: Mapping[str, Any]
    reading: Reading
    seen: Mapping[int, str]
    friends: frozenset[int]
    living: frozenset[int] = frozenset()
    finish: float = 0.0  # the worth of a kill that likely wipes the rival out (Tactics)


def sight(
    me: Mapping[str, Any],
    read: Reading,
    told: Sequence[HistoryItem],
    friends: frozenset[int],
    living: frozenset[int] = frozenset(),
    finish: float = 0.0,
) -> Sight:
    """Weapons from its own duels (FF-12) over those its likely mates said in ``told``."""
    mine, seat = str(me["faction"]), int(me["seat"])

    def mate(s: int) -> bool:
        return s != seat and read.factions.get(s, {}).get(mine, 0.0) >= TRUST

    seen = {**told_weapons(told, mate), **weapons_seen(me["duels"])}
    return Sight(me, read, seen, friends, living, finish)


def arms_of(me: Mapping[str, Any]) -> tuple[str, str]:
    """Tonight's weapon and the weapon its shield guards against (FF-5, FF-6)."""
    if me["elite"]:
        loadout = me.get("loadout") or {}
        return str(loadout.get("weapon", "")), str(loadout.get("shield", "anti-"))[5:]
    return str(me["weapon"] or ""), str(me["weapon"] or "")


def me_armed(me: Mapping[str, Any]) -> bool:
    return arms_of(me)[0] in WEAPONS


def pair_decided(me: Mapping[str, Any], pub: Mapping[str, Any]) -> bool:
    """FF-26: the seat's pair is decided (its result is final)."""
    return any(me["faction"] in results for results in dict(pub["decided_pairs"]).values())


def attack_values(view: Sight, targets: Sequence[int], arms: tuple[str, str]) -> dict[int, float]:
    """Each target's worth: the chance my strike kills it times what its death is
    worth (a rival most, an elite more; a mate costs), less my death's cost times
    its chance (FF-21, FF-22). Known mates are left out."""
    me, read = view.me, view.reading
    mine = str(me["faction"])
    rival = rival_of(mine)
    cost = DEATH_COST_ELITE if me["elite"] else DEATH_COST
    scores = {}
    for t in targets:
        if t == me["seat"] or t in view.friends:
            continue
        odds, elite = read.factions[t], read.elite.get(t, 0.25)
        kill, die = duel_odds(*arms, int(me["hp"]), weapon_odds(t, view.seen, read), elite)
        other = 1 - odds[rival] - odds[mine]
        bonus = ELITE_BONUS * elite + view.finish * _last(view, t, rival)
        gain = odds[rival] * (1 + bonus) - MATE_COST * odds[mine] + OTHER * other
        scores[t] = kill * gain - cost * die
    return scores


def _last(view: Sight, target: int, rival: str) -> float:
    """The chance that no other living seat is of the rival faction (the reading's
    expected count of them, cut at 0): killing ``target`` then decides the pair (FF-26)."""
    rest = (s for s in view.living if s not in (target, view.me["seat"]))
    return max(0.0, 1.0 - sum(view.reading.factions[s][rival] for s in rest))


def best_loadout(view: Sight, targets: Sequence[int]) -> dict[str, str]:
    """FF-5: the weapon and shield whose best attack tonight is worth most; among
    equals, the shield against what beats the weapon (a regular's strike back
    then cannot kill)."""
    best: tuple[float, str, str] | None = None
    for weapon in WEAPONS:
        for guards in (beater(weapon), *(w for w in WEAPONS if w != beater(weapon))):
            value = max(attack_values(view, targets, (weapon, guards)).values(), default=0.0)
            if best is None or value > best[0] + 1e-9:
                best = (value, weapon, guards)
    assert best is not None
    return {"weapon": best[1], "shield": f"anti-{best[2]}"}


def news_of(
    me: Mapping[str, Any], pub: Mapping[str, Any], read: Reading, told: set[int]
) -> list[tuple[int, str]]:
    """Living seats (not likely mates, likely regulars) whose weapon the seat saw
    struck back (FF-12) and has not told yet."""
    mine = str(me["faction"])
    return [
        (s, w)
        for s, w in sorted(weapons_seen(me["duels"]).items())
        if s in pub["living"]
        and s not in told
        and read.factions.get(s, {}).get(mine, 0.0) < TRUST
        and read.elite.get(s, 0.25) < 0.5
    ]


def rivals(me: Mapping[str, Any], pub: Mapping[str, Any]) -> list[tuple[int, str]]:
    """An elite's living rival regulars (FF-9), each with the rival faction."""
    rival = rival_of(str(me["faction"]))
    known = dict(me.get("known_factions") or {})
    return [
        (int(s), rival)
        for s, f in sorted(known.items(), key=lambda x: int(x[0]))
        if f == rival and int(s) in pub["living"]
    ]


# ------------------------------------------------------------------ duels (FF-12, FF-21, FF-22)


def hostile_weapons(me: Mapping[str, Any]) -> list[str]:
    """Weapons this seat has met in its own duels (struck with or struck back with)."""
    seen: list[str] = []
    for duel in me.get("duels", []):
        # FF-12: a defender learns the weapon it was struck with; an attacker the
        # weapon the defender struck back with.
        key = "weapon_struck_with" if duel.get("role") == "defender" else "weapon_struck_back_with"
        if duel.get(key) is not None:
            seen.append(str(duel[key]))
    return seen


def weapons_seen(duels: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Opponents' weapons learned as an attacker (the weapon they struck back with, FF-12)."""
    seen: dict[int, str] = {}
    for d in duels:
        back = d.get("weapon_struck_back_with")
        if d.get("role") == "attacker" and back is not None and d.get("opponent") is not None:
            seen[int(d["opponent"])] = str(back)
    return seen


def weapon_odds(target: int, seen: Mapping[int, str], reading: Reading) -> Odds:
    """A regular target's weapon: the one it struck back with, else one its
    faction-mates (as far as the reading is sure) were not seen holding (FF-8)."""
    if target in seen:
        return {w: float(w == seen[target]) for w in WEAPONS}
    mine = reading.factions.get(target) or {}
    faction = max(FACTIONS, key=lambda f: mine.get(f, 0.0))
    taken = {
        w
        for s, w in seen.items()
        if s != target
        and reading.factions.get(s, {}).get(faction, 0.0) >= SURE
        and mine.get(faction, 0.0) >= SURE
        and reading.elite.get(s, 0.5) < 0.5
    }
    left = [w for w in WEAPONS if w not in taken] or list(WEAPONS)
    return {w: (1 / len(left) if w in left else 0.0) for w in WEAPONS}


def _told_patterns() -> list[tuple[re.Pattern[str], str]]:
    """The phrasebook's ``seen_<weapon>`` sentences as patterns (seat, weapon)."""
    out = []
    for weapon in WEAPONS:
        for texts in PHRASES[f"seen_{weapon}"].values():
            for text in texts:
                out.append((re.compile(re.escape(text).replace(r"\{a\}", r"(\d+)")), weapon))
    return out


TOLD = _told_patterns()


def told_weapons(history: Sequence[HistoryItem], trusted: Callable[[int], bool]) -> dict[int, str]:
    """Weapons ``trusted`` speakers said seats fight with (the later word wins)."""
    said: dict[int, str] = {}
    for item in history:
        if item.kind != "ff.speech" or item.speaker is None or not trusted(item.speaker):
            continue
        for pattern, weapon in TOLD:
            for found in pattern.finditer(item.speech or ""):
                said[int(found.group(1))] = weapon
    return said


def _fatal(effect: str, hp: int) -> bool:
    return effect == "kill" or (effect == "wound" and hp <= 1)


def duel_odds(weapon: str, guards: str, hp: int, theirs: Odds, elite: float) -> tuple[float, float]:
    """(P my strike kills the target, P its strike back kills me) when I attack
    with ``weapon``, my shield guarding against ``guards`` and ``hp`` left. A
    regular target holds ``theirs`` and its shield guards against it (FF-6); an
    elite's weapon and shield are unknown, one of three each (FF-5)."""
    kill_r = sum(p for x, p in theirs.items() if STRIKE_TABLE[(weapon, x)] == "kill")
    die_r = sum(
        p
        for x, p in theirs.items()
        if STRIKE_TABLE[(weapon, x)] != "kill" and _fatal(STRIKE_TABLE[(x, guards)], hp)
    )
    third = 1 / len(WEAPONS)
    kill_e = sum(third for s in WEAPONS if STRIKE_TABLE[(weapon, s)] == "kill")
    die_e = (1 - kill_e) * sum(third for v in WEAPONS if _fatal(STRIKE_TABLE[(v, guards)], hp))
    return (1 - elite) * kill_r + elite * kill_e, (1 - elite) * die_r + elite * die_e


def beater(weapon: str) -> str:
    """The weapon that beats ``weapon`` (FF-4)."""
    return next(w for w, beaten in BEATS.items() if beaten == weapon)
