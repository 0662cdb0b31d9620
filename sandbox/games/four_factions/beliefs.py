"""What a baseline Four Factions seat believes about the others, from its view only.

Beliefs are plain weights per faction for each seat, built from the day 1–3
record (FF-13..FF-15) and the seat's own certain knowledge (FF-9, FF-10):
- certain: an elite's known regulars; a regular's own elite;
- day 1: a claim is weak evidence (anyone may lie, FF-13);
- day 2: an accusation made by one's own elite names the target's true faction
  (an elite knows every regular, FF-9); a seat that accused me or my elite is
  probably my rival;
- day 3: a seat my elite protected is probably my faction-mate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from sandbox.games.four_factions.info import FACTIONS, rival_of

# The rules' own pairs (FF-25), never a copy of them.
RIVAL = {faction: rival_of(faction) for faction in FACTIONS}

W_CLAIM = 1.0
W_ELITE_EXPOSED = 4.0
W_ACCUSED_US = 1.5
W_ELITE_PROTECTED = 3.0
W_PRIOR = 0.5  # every faction stays possible


def beliefs(me: Mapping[str, Any], pub: Mapping[str, Any]) -> dict[int, dict[str, float]]:
    """For every other seat, the probability of each faction as this seat sees it."""
    mine = str(me["faction"])
    weight: dict[int, defaultdict[str, float]] = {
        s: defaultdict(float) for s in range(1, 17) if s != me["seat"]
    }
    for seat, faction in dict(pub.get("claims", {})).items():
        _add(weight, int(seat), str(faction), W_CLAIM)
    elite = me.get("my_elite")
    ours = {int(me["seat"])} | ({int(elite)} if elite is not None else set())
    for entry in pub.get("accusations", []):
        if entry["seat"] == elite and entry.get("faction"):
            _add(weight, int(entry["target"]), str(entry["faction"]), W_ELITE_EXPOSED)
        if entry["target"] in ours and entry["seat"] not in ours:
            _add(weight, int(entry["seat"]), RIVAL[mine], W_ACCUSED_US)
    for entry in pub.get("protections", []):
        if entry["seat"] == elite:
            _add(weight, int(entry["target"]), mine, W_ELITE_PROTECTED)
    return {s: _certain_or_normalised(me, s, w) for s, w in weight.items()}


def _add(weight: dict[int, defaultdict[str, float]], seat: int, faction: str, w: float) -> None:
    if seat in weight and faction in FACTIONS:
        weight[seat][faction] += w


def _certain_or_normalised(
    me: Mapping[str, Any], seat: int, weight: Mapping[str, float]
) -> dict[str, float]:
    known = dict(me.get("known_factions", {})).get(str(seat))
    if known is None and me.get("my_elite") == seat:
        known = me["faction"]
    if known is not None:
        return {f: float(f == known) for f in FACTIONS}
    raw = {f: weight.get(f, 0.0) + W_PRIOR for f in FACTIONS}
    total = sum(raw.values())
    return {f: v / total for f, v in raw.items()}


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
