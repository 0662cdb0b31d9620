"""How a Four Factions game ends: once both pairs' results are announced (FF-26,
FF-27: only announced results count, so at dawn), or at the day limit, where an
undecided pair is a draw by limit (FF-27)."""

from __future__ import annotations

from sandbox.core.variant import Outcome, Result
from sandbox.games.four_factions.info import PAIRS, Ending, pair_name
from sandbox.games.four_factions.state import FFState


def outcome(state: FFState) -> Outcome | None:
    if len(state.pair_results) < len(PAIRS) and not state.limit_reached:
        return None  # asked after every step: the usual answer without building lists
    undecided = state.unannounced_pairs()
    if undecided and not state.limit_reached:
        return None
    by_faction: dict[str, str] = {}
    for result in state.pair_results.values():
        by_faction.update(result)
    for pair in undecided:  # FF-27: draw by limit
        by_faction.update({f: Result.DRAW.value for f in pair})
    results = {s: by_faction[f] for s, f in sorted(state.faction.items())}
    ending = Ending.DAY_LIMIT if undecided else Ending.PAIRS_DECIDED
    return Outcome(ending, results, _summary(state, by_faction, undecided))


def _summary(state: FFState, by_faction: dict[str, str], undecided: list[tuple[str, str]]) -> str:
    parts = []
    for x, y in PAIRS:
        name = pair_name((x, y))
        how = " (day limit)" if (x, y) in undecided else ""
        parts.append(f"{name}: {x} {by_faction[x]}, {y} {by_faction[y]}{how}")
    end = f"Day limit {state.limit_day} reached" if undecided else "Both pairs decided"
    return f"{end} on day {state.day}. " + "; ".join(parts) + "."
