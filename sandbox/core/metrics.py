"""What a behaviour metric is: a function from a recorded game to its items
(see docs/studies.md). A variant names its table of them in its
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
"""A behaviour metric: its items in one game (see docs/studies.md)."""
