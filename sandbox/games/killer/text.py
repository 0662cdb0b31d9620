"""One-line, referee-voice descriptions of Killer events (logs, the referee's view)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import sandbox.games.killer.events as ev
from sandbox.core.events import Event
from sandbox.games.killer.info import Phase


def describe(event: Event) -> str | None:
    """One readable line per Killer event, or None for events of other kinds."""
    line = _DESCRIBE.get(type(event))
    return None if line is None else line(event)


def _kill_chosen(e: ev.KillChosen) -> str:
    who = "nobody" if e.target is None else f"seat {e.target}"
    return f"The killers choose {who}{' (seeded draw)' if e.tie_break else ''}."


def _check_result(e: ev.CheckResult) -> str:
    if e.suspect is None:
        return "The police check nobody."
    draw = " (chosen by a seeded draw)" if e.tie_break else ""  # KG-4 as KG-3
    return f"The judge tells the police: seat {e.suspect}{draw} is {e.answer}."


def _dawn(e: ev.Dawn) -> str:
    if e.victim is None:
        return f"Day {e.day} dawns; nobody died in the night."
    return f"Day {e.day} dawns; seat {e.victim} was killed{_role(e.role)}."


# One entry per event kind: the referee's one-line wording of it.
_DESCRIBE: dict[type[Event], Callable[[Any], str]] = {
    ev.GameStarted: lambda e: (
        f"Killer with {e.players} players: {e.killers} killers, {e.police} police."
    ),
    ev.RoleCard: lambda e: f"Seat {e.seat} is dealt the {e.role} card.",
    ev.TeamList: lambda e: f"The {e.role} team is seats {_seats(e.members)}.",
    ev.NightFell: lambda e: f"Night {e.night} falls.",
    ev.Opinions: lambda e: f"Night {e.night} {e.role} opinions: {_pairs(e.opinions)}.",
    ev.KillChosen: _kill_chosen,
    ev.PoliceTurn: lambda e: "The killers close their eyes; the police open theirs.",
    ev.CheckResult: _check_result,
    ev.Dawn: _dawn,
    ev.PhaseStarted: lambda e: _phase(e),
    ev.Speech: lambda e: f"Seat {e.seat} says: {e.text or '(pass)'}{_claims(e)}",
    ev.LastWords: lambda e: f"Seat {e.seat}'s last words: {e.text or '(pass)'}{_claims(e)}",
    ev.Ballots: lambda e: f"Ballots of {_vote_name(e.round)}: {_pairs(e.ballots)}.",
    ev.VotedOut: lambda e: f"Seat {e.seat} is voted out{_role(e.role)}.",
    ev.NobodyOut: lambda e: "Nobody voted; nobody is out.",
    ev.Tied: lambda e: f"Tie between seats {_seats(e.tied)}: {_vote_name(e.round)} follows.",
    ev.ForcedDraw: lambda e: f"Still tied between seats {_seats(e.tied)}: a forced draw.",
    ev.Conceded: lambda e: f"Seat {e.seat} concedes for the {e.side} side.",
    ev.DayLimitReached: lambda e: f"Day {e.day} was the last day: draw by limit.",
}


def _claims(event: ev.Speech | ev.LastWords) -> str:
    """KG-14: the structured claims, as said (nothing when there are none)."""
    parts = []
    if event.claim != "none":
        parts.append(f"claims {event.claim}")
    if event.accuse:
        parts.append(f"accuses seats {_seats(event.accuse)}")
    if event.vouch:
        parts.append(f"vouches for seats {_seats(event.vouch)}")
    return f" [{'; '.join(parts)}]" if parts else ""


def _phase(event: ev.PhaseStarted) -> str:
    if event.phase == Phase.LAST_WORDS:
        return f"Seat {event.order[0]} may give last words."
    if event.phase == Phase.SPEECHES:
        return f"Speeches ({event.context}) in order: seats {_seats(event.order)}."
    return f"{_vote_name(event.round).capitalize()} among seats {_seats(event.candidates)}."


def _vote_name(round_: int) -> str:
    """KG-9/KG-10 rounds are counted from 0 in events; people count revotes from 1."""
    return "the vote" if round_ == 0 else f"revote {round_}"


def _seats(seats: object) -> str:
    assert isinstance(seats, tuple | list)
    return ", ".join(str(s) for s in seats)


def _role(role: str | None) -> str:
    return f" (a {role})" if role else ""


def _pairs(values: object) -> str:
    assert isinstance(values, Mapping)
    shown = [f"{k}→{'none' if v is None else v}" for k, v in values.items()]
    return ", ".join(shown) or "none"
