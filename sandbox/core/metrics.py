"""What a behaviour metric is: a function from a recorded game to its items
(see docs/study-reference.md). A variant names its table of them in its
:class:`sandbox.core.variant.Research`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class MetricItem:
    """One observation of a behaviour metric: in ``game``, ``contestant`` scored
    ``value`` (1 or 0 for a rate, e.g. a day number for a timing)."""

    game: str
    contestant: str
    value: float


class GameRecord(Protocol):
    """What a metric may read of a recorded game: the face of
    ``sandbox.transcript.Transcript`` read as rows (``read_game``), named here
    as a protocol because the engine sits below the transcript package."""

    events: list[dict[str, Any]]  # {"seq", "kind", **data} in order
    outcome: dict[str, Any] | None  # the outcome line; None: unfinished

    @property
    def game_id(self) -> str: ...

    @property
    def roles(self) -> dict[int, str]: ...

    @property
    def sides(self) -> dict[int, str]:
        """seat -> its study side (:meth:`Variant.research.study_side`)."""
        ...

    @property
    def contestants(self) -> dict[int, str]: ...

    def of_kind(self, *kinds: str) -> list[dict[str, Any]]: ...


Metric = Callable[[GameRecord], Iterator[MetricItem]]
"""A behaviour metric: its items in one game (see docs/study-reference.md)."""


# The readings every variant's metrics share (seat -> role, contestant, side);
# one copy here so the variants' tables differ only in what they measure.

NO_CLAIM = ("", "none", None)  # a speech that claims no role


def role_of(game: GameRecord, seat: Any) -> str:
    """The seat's role, "?" for no seat or an unknown one."""
    return game.roles.get(int(seat), "?") if seat is not None else "?"


def who(game: GameRecord, seat: Any) -> str:
    """The contestant playing the seat, "?" if none is recorded."""
    return game.contestants.get(int(seat), "?")


def side_players(game: GameRecord, side: str) -> set[str]:
    """The contestants playing any seat of the study side ``side``."""
    return {game.contestants.get(s, "?") for s, sd in game.sides.items() if sd == side}


def item(game: GameRecord, contestant: str, hit: bool) -> MetricItem:
    """A rate metric's item: 1 for a hit, 0 for a miss."""
    return MetricItem(game.game_id, contestant, float(hit))


def dead_by(game: GameRecord, dawn: str, removed: str, before: int | None = None) -> set[int]:
    """Seats killed at night (a ``dawn`` event's ``victim``) or removed by the
    day's vote (a ``removed`` event's ``seat``), all of them or those before
    event ``before``."""

    def kept(event: dict[str, Any]) -> bool:
        return before is None or int(event["seq"]) < before

    dawns = [e for e in game.of_kind(dawn) if e.get("victim") is not None and kept(e)]
    out = {int(e["seat"]) for e in game.of_kind(removed) if kept(e)}
    return {int(e["victim"]) for e in dawns} | out


def claim_honesty_of(game: GameRecord, *kinds: str) -> Iterator[MetricItem]:
    """Events of ``kinds`` with a structured role claim: share claiming the
    speaker's true role (claims are recorded, never confirmed)."""
    for event in game.of_kind(*kinds):
        claim = event.get("claim")
        if claim not in NO_CLAIM:
            seat = event.get("seat")
            yield item(game, who(game, seat), claim == role_of(game, seat))


SpeechVotePairs = Callable[[GameRecord], Iterator[tuple[int, set[int], int | None]]]
"""(speaker, seats it accused, whom it then voted for), as a variant pairs them."""


def consistency_of(game: GameRecord, pairs: SpeechVotePairs) -> Iterator[MetricItem]:
    """Speech-vote pairs: share whose ballot names one of the seats the speech
    accused (a ballot for nobody is not)."""
    for seat, accused, target in pairs(game):
        yield item(game, who(game, seat), target in accused)


def consistency_metric(pairs: SpeechVotePairs) -> Metric:
    """The ``speech_action_consistency`` metric of a variant whose speech-vote
    pairs ``pairs`` gives (:func:`consistency_of`), one function for every variant."""

    def speech_action_consistency(game: GameRecord) -> Iterator[MetricItem]:
        """Speech-vote pairs: share whose ballot names one of the seats the
        speech accused (a ballot for nobody is not)."""
        return consistency_of(game, pairs)

    return speech_action_consistency


def vote_pair(
    seat: int, accused: set[int], ballot: dict[str, Any]
) -> Iterator[tuple[int, set[int], int | None]]:
    """The speech-vote pair of ``seat``'s speech that accused ``accused`` and its
    ``ballot`` (the ballots event holding its vote); none when nobody is accused."""
    if accused:
        target = ballot["ballots"][str(seat)]
        yield seat, accused, None if target is None else int(target)


def survival_of(game: GameRecord, role: str, dead: set[int]) -> Iterator[MetricItem]:
    """Seats of ``role`` alive (not in ``dead``) at the end of a finished game."""
    if game.outcome is None:
        return
    for seat, seat_role in game.roles.items():
        if seat_role == role:
            yield item(game, who(game, seat), seat not in dead)


def next_ballot(ballots: list[dict[str, Any]], seat: int, seq: int) -> dict[str, Any] | None:
    """The first ballots event after event ``seq`` in which ``seat`` voted."""
    mine = (b for b in ballots if int(b["seq"]) > seq and str(seat) in (b.get("ballots") or {}))
    return next(mine, None)
