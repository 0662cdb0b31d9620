"""One-line, referee-voice descriptions of Werewolf events (logs, the referee's view)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import sandbox.games.werewolf.events as ev
from sandbox.core.events import Event


def describe(event: Event) -> str | None:
    """One readable line per Werewolf event, or None for events of other kinds."""
    line = _DESCRIBE.get(type(event))
    return None if line is None else line(event)


def _seats(seats: Iterable[object]) -> str:
    shown = ", ".join(str(s) for s in seats)
    return shown or "nobody"


def _pairs(values: Mapping[str, object]) -> str:
    shown = [f"{k}→{'abstain' if v is None else v}" for k, v in values.items()]
    return ", ".join(shown) or "none"


def _shown(revealed: str | None) -> str:
    return f" ({revealed})" if revealed else ""


def _claims(e: ev.Speech | ev.LastWords) -> str:
    """WW-12: the structured claims as said (nothing when there are none)."""
    parts = []
    if e.claim != "none":
        parts.append(f"claims {e.claim}")
    if e.accuse:
        parts.append(f"accuses {_seats(e.accuse)}")
    if e.vouch:
        parts.append(f"vouches for {_seats(e.vouch)}")
    softened = " (softened)" if e.shown != e.text else ""
    return (f" [{'; '.join(parts)}]" if parts else "") + softened


def _kill(e: ev.KillChosen) -> str:
    if e.target is None:
        return f"Night {e.night}: every werewolf abstained; nobody is attacked."
    why = {
        "votes": "",
        "tie_draw": " (tie, seeded draw)",
        "abstain_draw": " (all abstained, seeded draw)",
    }.get(e.how, "")
    return f"Night {e.night}: the werewolves choose seat {e.target}{why}."


def _dawn(e: ev.Dawn) -> str:
    if e.victim is None:
        return f"Day {e.day} dawns; nobody died in the night."
    return f"Day {e.day} dawns; seat {e.victim} died in the night{_shown(e.revealed)}."


def _exiled(e: ev.Exiled) -> str:
    why = {
        "votes": f"with {e.votes} votes",
        "tie_draw": "by a seeded draw among the tied",
        "abstain_draw": "by a seeded draw (everyone abstained)",
    }.get(e.how, e.how)
    return f"Seat {e.seat} is exiled {why}{_shown(e.revealed)}."


_DESCRIBE: dict[type[Event], Callable[[Any], str]] = {
    ev.GameStarted: lambda e: (
        f"Werewolf with {e.players} seats: {e.werewolves} werewolves, {e.seers} seer(s), "
        f"{e.doctors} doctor(s), {e.villagers} villagers."
    ),
    ev.RoleCard: lambda e: f"Seat {e.seat} is dealt the {e.role} card.",
    ev.Pack: lambda e: f"The werewolves are seats {_seats(e.members)}.",
    ev.NightFell: lambda e: f"Night {e.night} falls.",
    ev.Protection: lambda e: (
        f"The doctor (seat {e.doctor}) protects "
        f"{'nobody' if e.target is None else f'seat {e.target}'}."
    ),
    ev.Inspection: lambda e: (
        f"The seer (seat {e.seer}) checks {'nobody' if e.target is None else f'seat {e.target}'}."
    ),
    ev.PackTurn: lambda e: (
        f"Night {e.night}: the werewolves' {e.stage} ({e.mode}): seats {_seats(e.order)}."
    ),
    ev.WolfMessage: lambda e: f"Seat {e.seat} tells the pack: {e.text or '(pass)'}",
    ev.WolfVotes: lambda e: f"Night {e.night} kill votes: {_pairs(e.votes)}.",
    ev.KillChosen: _kill,
    ev.SeerResult: lambda e: f"The seer (seat {e.seer}) learns: seat {e.seat} is {e.result}.",
    ev.Saved: lambda e: f"The doctor's protection saved seat {e.seat}.",
    ev.Dawn: _dawn,
    ev.LastWordsTurn: lambda e: f"Seat {e.seat} may speak last words.",
    ev.SpeakingOrder: lambda e: (
        f"Day {e.day}: {e.rounds} round(s) of speeches in order {_seats(e.order)}."
    ),
    ev.BiddingTurn: lambda e: f"Day {e.day}, turn {e.turn} of {e.turns}: bids for the floor.",
    ev.Bids: lambda e: f"Bids of turn {e.turn}: {_pairs(e.bids)}.",
    ev.FloorWon: lambda e: (
        f"Seat {e.seat} wins the floor{' (tie, seeded draw)' if e.drawn else ''}."
    ),
    ev.Speech: lambda e: f"Seat {e.seat} says: {e.shown or '(pass)'}{_claims(e)}",
    ev.LastWords: lambda e: f"Seat {e.seat}'s last words: {e.shown or '(pass)'}{_claims(e)}",
    ev.VoteOpened: lambda e: f"Day {e.day}: {e.mode} vote, voters {_seats(e.order)}.",
    ev.Ballots: lambda e: f"Ballots: {_pairs(e.ballots)}.",
    ev.Exiled: _exiled,
    ev.NoExile: lambda e: f"Nobody is exiled ({e.reason.replace('_', ' ')}).",
    ev.DayLimitReached: lambda e: f"Day {e.day} was the last day: a draw.",
    ev.RolesRevealed: lambda e: f"The roles: {_pairs(e.roles)}.",
}
