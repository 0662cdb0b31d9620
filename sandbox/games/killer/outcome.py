"""How a Killer game ends (KG-10, KG-12, KG-13): the ending, the winning side and
each seat's result."""

from __future__ import annotations

from sandbox.core.variant import Outcome, Result
from sandbox.games.killer.info import CIVILIAN, KILLER, POLICE, Ending
from sandbox.games.killer.state import KillerState

SUMMARIES = {
    Ending.KILLERS_ELIMINATED: "All killers are dead: the police and the civilians win (KG-12).",
    Ending.POLICE_ELIMINATED: "All police are dead: the killers win (KG-12).",
    Ending.CIVILIANS_ELIMINATED: "All civilians are dead: a draw (KG-12).",
    Ending.FORCED_DRAW: "The vote stayed tied after two revotes: a forced draw (KG-10).",
    Ending.DAY_LIMIT: "The day limit passed without an end: a draw by limit (KG-12 ruling).",
}


def outcome(state: KillerState) -> Outcome | None:
    ending = end_reason(state)
    if ending is None:
        return None
    side = winner(state, ending)
    results = {seat: _result(role, side) for seat, role in state.roles.items()}
    return Outcome(ending, results, _summary(state, ending))


def _summary(state: KillerState, ending: Ending) -> str:
    if ending == Ending.SURRENDER:
        return f"The {state.conceded_side} side conceded and loses (KG-13)."
    return SUMMARIES[ending]


def _result(role: str, winning_side: str | None) -> Result:
    if winning_side is None:
        return Result.DRAW
    side = POLICE if role == CIVILIAN else role  # civilians share the police's result
    return Result.WIN if side == winning_side else Result.LOSE


def decided(state: KillerState) -> bool:
    return end_reason(state) is not None


def end_reason(state: KillerState) -> Ending | None:
    """KG-12/KG-13/KG-10 ends, each its own ending."""
    if not state.roles:
        return None
    if state.conceded_side is not None:
        return Ending.SURRENDER
    if state.forced_draw:
        return Ending.FORCED_DRAW
    if state.side_count(KILLER) == 0:
        return Ending.KILLERS_ELIMINATED
    if state.side_count(POLICE) == 0:
        return Ending.POLICE_ELIMINATED
    if state.side_count(CIVILIAN) == 0:
        return Ending.CIVILIANS_ELIMINATED
    if state.day_limit_hit:
        return Ending.DAY_LIMIT
    return None


def winner(state: KillerState, ending: Ending) -> str | None:
    """The winning side ("killer" or "police"; civilians share the police's result),
    or None for a draw."""
    if ending == Ending.SURRENDER:
        return POLICE if state.conceded_side == KILLER else KILLER
    if ending == Ending.KILLERS_ELIMINATED:
        return POLICE
    if ending == Ending.POLICE_ELIMINATED:
        return KILLER
    return None
