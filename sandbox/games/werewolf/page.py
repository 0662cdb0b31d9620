"""What a Werewolf seat's page shows beside the sentences: the seat's card said
to the seat (WW-2, WW-4), and what each event changes on the viewer's seat
board: deaths, roles learned or revealed, ballots (WW-2, WW-4, WW-10, WW-11,
WW-14, WW-15, WW-20). ``words.py`` puts these into
:data:`~sandbox.games.werewolf.words.WORDS`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import BoardEffects, BoardMaker, Lang
from sandbox.words.parts import board_ballots, board_death, board_role, board_team

D = Mapping[str, Any]


# ------------------------------------------------------------ the card
# A seat's card said to the seat (WW-2, WW-4): who it is and its pack; what it
# learned at night is said as its facts.

_CARD_DONE = ("seat", "role", "team", "pack", "fellow_werewolves")


def card(p: D, L: Lang) -> list[tuple[str, str]]:
    role, team = p.get("role"), p.get("team")
    rows = [
        (
            L.say(en="You are", zh="你是"),
            L.say(en=f"{L.seat(p.get('seat'), capital=True)}, a {role} (team {team})",
                  zh=f"{L.seat(p.get('seat'))}，{L.term(role)}（{L.term(team)}阵营）"),
        )
    ]  # fmt: skip
    if "fellow_werewolves" in p:
        fellows = L.seats(p["fellow_werewolves"], capital=True)
        rows.append((L.say(en="Fellow werewolves", zh="同伴狼人"), fellows))
    rows += L.facts({k: v for k, v in p.items() if k not in _CARD_DONE})
    return rows


def team_of(p: D) -> tuple[int, ...]:
    """WW-4: the werewolves know each other."""
    return tuple(int(s) for s in p.get("fellow_werewolves", ()))


# ------------------------------------------------------------ seat board
# What an event tells its audience about the seats (the viewer's board): the
# dead and the roles learned. A speech's claims are added by the viewer.


def _board_seer(d: D, L: Lang) -> BoardEffects:  # WW-10: a role, or a team
    return {"role": {str(d["seat"]): L.term(d.get("result"))}}


def _board_roles(d: D, L: Lang) -> BoardEffects:  # WW-20
    return {"role": {str(s): L.term(r) for s, r in (d.get("roles") or {}).items()}}


BOARD: dict[str, BoardMaker] = {
    "werewolf.ballots": board_ballots,  # WW-14: the ballots are announced
    "werewolf.role": board_role,  # WW-2
    "werewolf.pack": board_team,  # WW-4
    "werewolf.seer_result": _board_seer,
    "werewolf.dawn": board_death("revealed"),  # WW-11, WW-15: what was revealed
    "werewolf.exiled": board_death("revealed"),
    "werewolf.roles_revealed": _board_roles,
}
