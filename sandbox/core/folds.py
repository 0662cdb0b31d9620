"""Helpers for writing a variant's view fold (:class:`sandbox.core.variant.ViewFold`):
public items flagged, snapshots detached from the fold, a fold made of a
variant's record and its hooks (:class:`SeatFold`), and the facts a history
item carries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

from sandbox.core.discussion import OpenDay
from sandbox.core.events import DecisionMade, Event
from sandbox.core.variant import HistoryItem, SeatView, Variant


def marked_public(item: HistoryItem, event: Event) -> HistoryItem:
    """``item`` flagged ``public`` when its event is visible to every seat."""
    return replace(item, public=True) if event.visibility().scope == "public" else item


def detached(value: Any) -> Any:
    """A copy of plain nested data (dicts, lists) so a snapshot never changes
    when the fold that produced it goes on folding."""
    if isinstance(value, dict):
        return {k: detached(v) for k, v in value.items()}
    if isinstance(value, list):
        return [detached(v) for v in value]
    return value


class SeatRecord(Protocol):
    """What a variant's fold of one seat's knowledge holds at least: the seat
    and the history items it has seen so far."""

    seat: int
    history: list[HistoryItem]


R = TypeVar("R", bound=SeatRecord)


@dataclass
class DaysRecord:
    """The part of a seat's record that Killer and Werewolf keep alike: the
    seat, the day and phase, the table's size and rulings, the seat's role,
    who died (``{"seat": ..., ...}`` each), the history seen and the open day
    (OD-5, folded from its public events). A variant's record adds its own."""

    seat: int
    day: int = 0
    phase: str = "setup"
    players: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    role: str | None = None
    dead: list[dict[str, Any]] = field(default_factory=list)
    history: list[HistoryItem] = field(default_factory=list)
    open: OpenDay = field(default_factory=OpenDay)

    def living(self) -> list[int]:
        gone = {d["seat"] for d in self.dead}
        return [s for s in range(1, self.players + 1) if s not in gone]


@dataclass(frozen=True)
class FoldHooks(Generic[R]):
    """How a variant folds one seat's view, over its own record ``R``:
    ``apply`` folds an event into the record, ``item`` says the event as the
    seat's history item (None: it adds none), and ``private``/``public`` read
    the record into the view's two tables."""

    apply: Callable[[R, Event], None]
    item: Callable[[R, int, Event], HistoryItem | None]
    private: Callable[[R], dict[str, Any]]
    public: Callable[[R], dict[str, Any]]


class SeatFold(Generic[R]):
    """A :class:`~sandbox.core.variant.ViewFold` from a variant's record and
    hooks: each event folded, its item kept (flagged public when every seat
    sees its event), each snapshot detached from the record."""

    def __init__(self, variant: Variant[Any, Any], record: R, hooks: FoldHooks[R]) -> None:
        self.variant = variant
        self.record = record
        self.hooks = hooks

    def add(self, seq: int, event: Event) -> None:
        self.hooks.apply(self.record, event)
        item = self.hooks.item(self.record, seq, event)
        if item is not None:
            self.record.history.append(marked_public(item, event))

    def snapshot(self) -> SeatView:
        record, hooks = self.record, self.hooks
        private, public = detached(hooks.private(record)), detached(hooks.public(record))
        return SeatView(self.variant, record.seat, private, public, tuple(record.history))


class Claiming(Protocol):
    """A speech event with structured claims (KG-14, WW-12)."""

    @property
    def claim(self) -> str: ...
    @property
    def accuse(self) -> tuple[int, ...]: ...
    @property
    def vouch(self) -> tuple[int, ...]: ...


def claims_of(event: Claiming) -> dict[str, Any]:
    """What a speaker claimed, as the referee recorded it (never confirmed:
    KG-14, WW-12), as a history item's facts."""
    return {"claim": event.claim, "accuse": list(event.accuse), "vouch": list(event.vouch)}


def referee_facts(event: Event) -> dict[str, Any]:
    """An event's fields as a history item's facts: a seat's own decision (only
    its own are visible) without its private note, any other event without its
    audience (who saw it is not a fact about the game)."""
    if isinstance(event, DecisionMade):
        return {
            "decision": event.decision,
            "payload": dict(event.payload),
            "fallback": event.fallback,
        }
    data: dict[str, Any] = event.to_json()["data"]
    data.pop("audience", None)
    return data
