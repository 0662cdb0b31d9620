"""What each Killer event changes on the viewer's seat board: deaths, roles
learned or revealed, checks (KG-4, KG-6, KG-9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import (
    BoardEffects,
    BoardMaker,
    Lang,
)

D = Mapping[str, Any]


# ------------------------------------------------------------ seat board
# What an event tells an audience about the seats (the viewer's board).


def _board_role(d: D, L: Lang) -> BoardEffects:  # KG-2
    return {"role": {str(d["seat"]): L.term(d.get("role"))}}


def _board_team(d: D, L: Lang) -> BoardEffects:  # KG-2
    return {"role": {str(s): L.term(d.get("role")) for s in d.get("members") or ()}}


def _board_check(d: D, L: Lang) -> BoardEffects:  # KG-4
    if d.get("suspect") is not None and d.get("answer"):
        return {"role": {str(d["suspect"]): L.term(d["answer"])}}
    return {}


def _board_death(d: D, L: Lang) -> BoardEffects:  # KG-6/KG-9
    seat = d.get("victim", d.get("seat"))
    if seat is None:
        return {}
    fx: BoardEffects = {"dead": [int(seat)]}
    if d.get("role"):
        fx["role"] = {str(seat): L.term(d["role"])}
    return fx


def _board_ballots(d: D, L: Lang) -> BoardEffects:  # KG-9: every ballot is announced
    return {"vote": {str(s): L.seat(t) for s, t in (d.get("ballots") or {}).items()}}


BOARD: dict[str, BoardMaker] = {
    "killer.ballots": _board_ballots,
    "killer.role": _board_role,
    "killer.team": _board_team,
    "killer.check": _board_check,
    "killer.dawn": _board_death,
    "killer.voted_out": _board_death,
}
