"""How a deducing Four Factions seat fights (issue 37): the worth of each attack
by its reading of the table and the duel odds (FF-21, FF-22), the elite's arms,
and the weapons it tells its mates (FF-12, FF-17). What it reads is
:mod:`.evidence`'s; which of these a level uses is its :class:`.ladder.Tactics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.core.variant import HistoryItem
from sandbox.games.four_factions.evidence import (
    Reading,
    beater,
    duel_odds,
    told_weapons,
    weapon_odds,
    weapons_seen,
)
from sandbox.games.four_factions.info import WEAPONS, rival_of

DEATH_COST = 0.9  # a regular's own death, against one rival killed
DEATH_COST_ELITE = 1.5  # an elite's (it knows every regular, FF-9, and picks its arms)
MATE_COST = 3.0  # killing a faction-mate (FF-24 allows it)
OTHER = 0.1  # killing a seat of the other pair: one attacker fewer
ELITE_BONUS = 0.5  # a rival elite is worth more than a regular
TRUST = 0.9  # a seat this likely a faction-mate is believed on a weapon it saw


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
