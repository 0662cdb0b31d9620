"""The recorded game: one type for a transcript read back (docs/transcript.md).

A :class:`Transcript` holds what a transcript file holds: its header, its events
in order with each one's visibility, its model calls, its control lines and its
outcome (None while unfinished). Its events come in one of two forms, chosen by
the reader that made it (:mod:`sandbox.transcript.reader`):

* ``Transcript[Event]`` (``read_transcript``): the engine's events, rebuilt and
  checked against this sandbox's schema and installed variants; the session
  replays, resumes and forks these and the viewer draws them;
* ``Transcript[EventRow]`` (``read_game``): each event line flattened to a row
  (``seq``, ``kind`` and the event's fields), read from any schema version and
  any variant, installed or not; analysis tables and a variant's metrics read
  these (the :class:`sandbox.core.variant.GameRecord` protocol).

Everything else (who sat where, the game's identity, who controlled a seat when)
is asked of the one type, whichever form its events are in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic

from typing_extensions import TypeVar

from sandbox.core.events import Event
from sandbox.transcript.identity import identity_of
from sandbox.transcript.sides import side_of

EventRow = dict[str, Any]
"""An event line flattened: ``seq``, ``kind`` and the event's own fields."""

# A bare ``Transcript`` is the engine's form, the one the session and viewer use.
E = TypeVar("E", Event, EventRow, default=Event)


@dataclass
class Transcript(Generic[E]):
    """A transcript read back: header, events in order (with their recorded
    visibility), calls, control lines, outcome (if finished)."""

    path: Path
    header: dict[str, Any]
    events: list[E] = field(default_factory=list)
    # each event's recorded ``vis`` ("public", [seats] or "referee"), by seq
    visibility: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    torn_tail: bool = False  # a crash cut the last line; it was left out

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    @property
    def variant(self) -> str:
        return str(self.header.get("variant"))

    @property
    def game_id(self) -> str:
        """The game's identity (study cell and seed, batch and seed), else the file's name."""
        return identity_of(self.header) or self.path.stem

    @property
    def roles(self) -> dict[int, str]:
        return {int(s): str(r) for s, r in (self.header.get("roles") or {}).items()}

    @property
    def sides(self) -> dict[int, str]:
        """seat -> the side it played for (the variant's study side)."""
        return {s: side_of(self.variant, r) for s, r in self.roles.items()}

    @property
    def agents(self) -> dict[int, dict[str, Any]]:
        return {int(s): dict(d) for s, d in (self.header.get("agents") or {}).items()}

    @property
    def contestants(self) -> dict[int, str]:
        """seat -> contestant; outside a study, the seat's model or agent kind."""
        named = self.header.get("contestants")
        if isinstance(named, Mapping):
            return {int(s): str(n) for s, n in named.items()}
        return {s: agent_label(d) for s, d in self.agents.items()}

    @property
    def study(self) -> dict[str, Any]:
        study = self.header.get("study")
        return dict(study) if isinstance(study, Mapping) else {}

    @property
    def results(self) -> dict[int, str]:
        if self.outcome is None:
            return {}
        return {int(s): str(r) for s, r in (self.outcome.get("results") or {}).items()}

    def of_kind(self, *kinds: str) -> list[E]:
        """The events of these kinds, in order."""
        return [e for e in self.events if kind_of(e) in kinds]

    def seen_by(self, index: int, seat: int) -> bool:
        """Whether the ``index``-th event was visible to ``seat``."""
        vis = self.visibility[index] if index < len(self.visibility) else "public"
        return vis == "public" or (isinstance(vis, list) and seat in vis)

    def agent_at(self, seat: int, seq: int) -> Mapping[str, Any]:
        """Who controlled ``seat`` when event ``seq`` happened (the agent's own
        description): the last control line at or before ``seq`` (a take-over or
        hand-back); else, in a fork, the source's agent for events before the fork
        point; else the header's agent."""
        for control in reversed(self.controls):
            if int(control.get("seat", -1)) == seat and int(control.get("seq", 0)) <= seq:
                return dict(control.get("to") or {})
        fork = self.header.get("forked_from")
        if isinstance(fork, Mapping) and seq < int(fork.get("at") or 0):
            original = (fork.get("agents") or {}).get(str(seat))
            if original is not None:
                return dict(original)
        return dict((self.header.get("agents") or {}).get(str(seat)) or {})


def kind_of(event: Event | EventRow) -> str:
    """An event's kind, in either form."""
    return event.kind if isinstance(event, Event) else str(event.get("kind"))


def agent_label(described: Mapping[str, Any]) -> str:
    """'fake/legal-random' for an LLM seat, else its kind ('baseline', 'random')."""
    model = described.get("model")
    return str(model) if model else str(described.get("kind", "?"))
