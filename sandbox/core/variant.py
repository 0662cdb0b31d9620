"""The plugin contract every game variant implements, and the registry.

A variant is pure: it turns configuration plus seeded randomness into setup
events, folds events into its state, says which decisions are open, checks
them against its rules and resolves them into more events. The core
(:mod:`sandbox.core.game`) drives it and owns nothing variant-specific.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel

from sandbox.core.events import Event, _thaw
from sandbox.core.requests import DecisionRequest, Payload

S = TypeVar("S")
B = TypeVar("B")


@dataclass(frozen=True, slots=True)
class HistoryItem:
    """One visible event, as a seat may know it.

    ``speech`` is text a player wrote (always shown as quoted data);
    ``facts`` are what the referee states (always shown as the referee's voice).
    """

    seq: int
    kind: str
    day: int
    phase: str
    speaker: int | None = None
    speech: str | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may legally know, computed from the events it saw.

    ``private``: the seat's own fixed facts (its role card).
    ``public``: derived knowledge at this moment (day, phase, living seats, …),
    built only from events visible to the seat.
    ``history``: the visible events in order, ready for rendering.
    """

    variant: str
    seat: int
    private: Mapping[str, Any]
    public: Mapping[str, Any]
    history: tuple[HistoryItem, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (tuples become lists), for golden files and audits."""
        return cast(dict[str, Any], _thaw(dataclasses.asdict(self)))


class ViewFold(Protocol):
    """An incremental view: fed a seat's visible events one at a time, it can
    produce the same SeatView as ``Variant.build_view`` over all of them."""

    def add(self, seq: int, event: Event) -> None: ...

    def snapshot(self) -> SeatView: ...


def detached(value: Any) -> Any:
    """A copy of plain nested data (dicts, lists) so a snapshot never changes
    when the fold that produced it goes on folding."""
    if isinstance(value, dict):
        return {k: detached(v) for k, v in value.items()}
    if isinstance(value, list):
        return [detached(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended. ``results`` maps each seat to "win", "lose" or "draw"."""

    reason: str
    results: Mapping[int, str]
    summary: str


class Variant(ABC, Generic[S]):
    """Base class of a game variant. Subclass, then :func:`register` an instance."""

    name: ClassVar[str]
    title: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]

    @abstractmethod
    def seat_count(self, config: BaseModel) -> int: ...

    @abstractmethod
    def initial_state(self, config: BaseModel) -> S:
        """An empty state, before any event."""

    @abstractmethod
    def setup(self, config: BaseModel, rng: random.Random) -> Iterator[Event]:
        """The events that deal roles and private facts and open the first phase."""

    @abstractmethod
    def apply(self, state: S, event: Event) -> None:
        """Fold one event into ``state`` (mutating it). Must ignore unknown kinds."""

    @abstractmethod
    def open_requests(self, state: S, step: int) -> tuple[DecisionRequest, ...]:
        """Every decision of the current step, answered or not (empty when over)."""

    @abstractmethod
    def check(self, state: S, request: DecisionRequest, payload: Payload) -> None:
        """Rule-level checks beyond the request's shape. Raise IllegalDecision."""

    @abstractmethod
    def fallback(self, state: S, request: DecisionRequest) -> Payload:
        """The documented decision taken for a seat that gave no valid answer."""

    @abstractmethod
    def resolve(
        self,
        state: S,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        """Resolve a complete step. The core applies each yielded event before
        resuming the generator, so the generator always sees the updated state."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        """A seat's knowledge from (seq, event) pairs it was allowed to see."""

    def view_fold(self, seat: int) -> ViewFold | None:
        """Optional fast path: an incremental fold of ``seat``'s view. The core
        then feeds it only new events instead of rebuilding from the start.
        It must agree with ``build_view`` (the conformance tests check this)."""
        return None

    @abstractmethod
    def roles(self, state: S) -> Mapping[int, str]:
        """Referee-only: each seat's role label (for transcripts and agent groups)."""

    @abstractmethod
    def rules_text(self, config: BaseModel, language: str = "en") -> str:
        """The rules with the active rulings, citing rule IDs."""

    def role_labels(self, config: BaseModel) -> tuple[str, ...]:
        """Optional: every label ``roles`` can give under ``config``, so that a game
        file's role selector can be checked before play. Empty means unknown."""
        return ()

    def decision_fields(self, config: BaseModel) -> Mapping[str, tuple[str, ...]]:
        """Optional: each decision name this variant may ask, with the field names
        of its answer, so that scripted seats can be checked before play. Empty
        means unknown."""
        return {}

    def parse_config(self, raw: Mapping[str, Any]) -> BaseModel:
        return self.config_model.model_validate(dict(raw))

    def describe_event(self, event: Event) -> str:
        """A one-line English description for logs and the referee's view.
        Variants override this for readable output; the default lists the fields."""
        data = event.to_json()["data"]
        fields = ", ".join(f"{k}={v}" for k, v in data.items())
        return f"{event.kind}: {fields}"

    def next_in_series(self, config: BaseModel, finished_state: S) -> BaseModel:
        """The config of the next game in a series (e.g. Killer KG-5). Default: same."""
        return config


def for_language(language: str, builders: Mapping[str, B]) -> B:
    """The builder (e.g. of a variant's rules text) for ``language``; a language
    without one is refused with a ValueError naming the allowed languages."""
    try:
        return builders[language]
    except KeyError:
        allowed = ", ".join(f'"{name}"' for name in builders)
        raise ValueError(
            f"rules text language {language!r} is not supported; allowed: {allowed}"
        ) from None


_REGISTRY: dict[str, Variant[Any]] = {}


def register(variant: Variant[Any]) -> Variant[Any]:
    if variant.name in _REGISTRY:
        raise ValueError(f"variant {variant.name!r} is already registered")
    _REGISTRY[variant.name] = variant
    return variant


def get_variant(name: str) -> Variant[Any]:
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"unknown variant {name!r}; known: {known}") from None


def variant_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    # Importing the games package registers the built-in variants.
    import sandbox.games  # noqa: F401
