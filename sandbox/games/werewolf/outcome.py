"""How a Werewolf game ends (WW-17..WW-21): the winning team and each seat's result.

The end is checked by the resolution at exactly the points WW-17 names (after a
night's resolution, after an exile) and at the day limit; it then announces every
role (``RolesRevealed``), and only that event makes the game over."""

from __future__ import annotations

from sandbox.core.variant import Outcome, Result
from sandbox.games.werewolf.info import VILLAGE, WEREWOLVES, Ending, team_of
from sandbox.games.werewolf.state import WerewolfState

SUMMARIES = {
    Ending.VILLAGE_WINS: "No werewolf is alive: the village team wins (WW-18).",
    Ending.WEREWOLVES_WIN: (
        "The living werewolves are as many as the other living seats: the werewolves win (WW-19)."
    ),
    Ending.DAY_LIMIT: "The last day ended without a winner: a draw for every seat (WW-21).",
}


def decided(state: WerewolfState) -> Ending | None:
    """WW-18/WW-19 on the living seats (None: the game goes on)."""
    wolves = len(state.living_wolves())
    if wolves == 0:
        return Ending.VILLAGE_WINS
    if wolves >= len(state.living_village()):
        return Ending.WEREWOLVES_WIN
    return None


def winner(ending: Ending) -> str | None:
    """The winning team, or None for a draw."""
    if ending == Ending.VILLAGE_WINS:
        return VILLAGE
    if ending == Ending.WEREWOLVES_WIN:
        return WEREWOLVES
    return None


def outcome(state: WerewolfState) -> Outcome | None:
    if state.ending is None:
        return None
    ending = Ending(state.ending)
    team = winner(ending)
    # WW-20: every seat of the winning team wins, dead or alive.
    results = {
        seat: Result.DRAW
        if team is None
        else (Result.WIN if team_of(role) == team else Result.LOSE)
        for seat, role in state.roles.items()
    }
    return Outcome(ending, results, SUMMARIES[ending])
