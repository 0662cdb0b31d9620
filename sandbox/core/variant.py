"""The plugin contract every game variant implements.

A variant is pure: it turns configuration plus seeded randomness into setup
events, folds events into its state, says which decisions are open, checks
them against its rules and resolves them into more events. The core
(:mod:`sandbox.core.game`) drives it and owns nothing variant-specific; the
registry of variants lives with the games (:mod:`sandbox.games.registry`).
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from importlib.resources.abc import Traversable
from typing import Any, ClassVar, Generic, Protocol, cast

from pydantic import BaseModel
from typing_extensions import TypeVar

from sandbox.core.events import Event, thaw
from sandbox.core.metrics import Metric
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.statements import StatementRules
from sandbox.core.words import Lang, VariantWords, lead, sanitise

S = TypeVar("S")
# The default keeps ``Variant[State]`` annotations meaning "any config model".
C = TypeVar("C", bound=BaseModel, default=BaseModel)
B = TypeVar("B")


@dataclass(frozen=True, slots=True)
class HistoryItem:
    """One visible event, as a seat may know it.

    ``speech`` is text a player wrote (always shown as quoted data);
    ``facts`` are what the referee states (always shown as the referee's voice);
    ``public``: its event is visible to every seat, so every seat's item says
    the same (a prompt may show such items apart from the seat's own secrets).
    """

    seq: int
    kind: str
    day: int
    phase: str
    speaker: int | None = None
    speech: str | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)
    public: bool = False


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may legally know, computed from the events it saw.

    ``private``: the seat's own fixed facts (its role card).
    ``public``: derived knowledge at this moment (day, phase, living seats, …),
    built only from events visible to the seat.
    ``history``: the visible events in order, ready for rendering.
    ``variant``: the variant played (the object itself: a seat asks it for its
    words and templates, never a registry for a name).
    """

    variant: Variant[Any, Any]
    seat: int
    private: Mapping[str, Any]
    public: Mapping[str, Any]
    history: tuple[HistoryItem, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (tuples become lists, the variant its name), for
        golden files, audits and remote programs."""
        items = [{f.name: getattr(i, f.name) for f in dataclasses.fields(i)} for i in self.history]
        plain = {"variant": self.variant.name, "seat": self.seat, "private": self.private}
        return cast(dict[str, Any], thaw({**plain, "public": self.public, "history": items}))


class ViewFold(Protocol):
    """An incremental view: fed a seat's visible events one at a time, it can
    produce the same SeatView as ``Variant.build_view`` over all of them."""

    def add(self, seq: int, event: Event) -> None: ...

    def snapshot(self) -> SeatView: ...


class Result(StrEnum):
    """A seat's result in a finished game."""

    WIN = "win"
    LOSE = "lose"
    DRAW = "draw"


class CoreEnding(StrEnum):
    """Endings the core itself gives, whatever the variant."""

    ABORTED = "aborted"  # too many decisions fell back for provider failure (runner)


MIXED = "mixed"  # by_role: seats with one label ended with different results


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended. ``ending`` is one of the variant's endings (or a
    :class:`CoreEnding`); ``results`` maps each seat to "win", "lose" or "draw"."""

    ending: StrEnum
    results: Mapping[int, str]
    summary: str

    @property
    def reason(self) -> str:
        """The ending as plain text: the ``reason`` of transcripts and statistics."""
        return self.ending.value

    def by_role(self, roles: Mapping[int, str]) -> dict[str, str]:
        """Each label of ``roles`` (seat -> role or side) with its seats' result;
        "mixed" if seats sharing a label ended differently."""
        grouped: dict[str, set[str]] = {}
        for seat, result in self.results.items():
            grouped.setdefault(roles[seat], set()).add(str(result))
        return {
            label: next(iter(found)) if len(found) == 1 else MIXED
            for label, found in sorted(grouped.items())
        }


@dataclass(frozen=True, slots=True)
class VariantInfo:
    """What a variant declares once about itself; config checks, role selectors,
    scripted seats and tools read it instead of asking the variant piecemeal.

    ``roles``: every label ``Variant.rules.roles`` can give (empty: not known before play).
    ``sides``: the groups results are decided for (Killer's roles, Four Factions'
    factions); the belief probe asks about them. ``decisions``: each decision
    name with the field names of its answer (optional fields included; empty:
    not known). ``endings``/``phases``: the variant's enums of ending reasons
    and phases.

    Optional, with defaults a minimal variant can leave alone:
    ``kind_prefix``: what its event kinds start with before the dot (``"ff"``
    for ``"ff.duel"``; empty: the name). ``speech_kinds``: the event kinds that
    are public speeches (a belief probe may follow each; the persuasion figures
    measure them). ``seated_with``: side -> the side a study seats it with,
    for sides that win and lose together (Killer's civilians play with the
    police); a side not listed is a study side of its own. ``death_fields``:
    event kind -> the field naming the seat that event kills (the analysis
    counts survivals from them). ``card_kinds``: the history item kinds that
    say only what a seat's role card says (its card, its team);
    ``restated_answers``: the decisions whose answer (unless a fallback) an
    event the seat sees states again once the decision is resolved (a speech,
    the team's opinions, the ballots). The shared record leaves both out of a
    seat's secret record: its role card and its public record right above say
    the same (a variant that leaves them empty keeps every line).
    ``own_fields``: answer fields that only some seats of one step are asked,
    by their secret role (Killer's KG-13 concession); the shared record lists
    them after the seat's role card, so the rest of the step reads alike.
    """

    name: str
    title: str
    min_seats: int
    max_seats: int
    roles: tuple[str, ...]
    sides: tuple[str, ...]
    decisions: Mapping[str, tuple[str, ...]]
    endings: type[StrEnum]
    phases: type[StrEnum]
    kind_prefix: str = ""
    speech_kinds: frozenset[str] = frozenset()
    seated_with: Mapping[str, str] = field(default_factory=dict)
    death_fields: Mapping[str, str] = field(default_factory=dict)
    card_kinds: frozenset[str] = frozenset()
    restated_answers: frozenset[str] = frozenset()
    own_fields: frozenset[str] = frozenset()

    @property
    def prefix(self) -> str:
        """The event-kind prefix, dot included (``"ff."``)."""
        return f"{self.kind_prefix or self.name}."

    def seat_range(self) -> range:
        return range(self.min_seats, self.max_seats + 1)

    def check_seat_count(self, seats: int) -> None:
        """Raise ValueError unless ``seats`` is within the declared range."""
        if seats not in self.seat_range():
            raise ValueError(
                f"{self.name} takes {self.min_seats}–{self.max_seats} seats; got {seats}"
            )

    def ending(self, reason: str) -> StrEnum:
        """The ending named ``reason``: one of the variant's or a core one."""
        for enum in (self.endings, CoreEnding):
            if reason in enum._value2member_map_:
                return enum(reason)
        known = ", ".join([*self.endings, *CoreEnding])
        raise ValueError(f"{self.name}: unknown ending {reason!r}; known: {known}")


class Rules(ABC, Generic[S, C]):
    """The referee's hooks: a variant's rules, generic in its state and config.

    A variant subclasses it and overrides the hooks (python-chess style: names
    as class attributes, ``apply = staticmethod(fold)``, where a module function
    already has the hook's shape); the core (:mod:`sandbox.core.game`) calls them
    through ``Variant.rules``."""

    @abstractmethod
    def seat_count(self, config: C) -> int: ...

    @abstractmethod
    def initial_state(self, config: C) -> S:
        """An empty state, before any event."""

    @abstractmethod
    def setup(self, config: C, rng: random.Random) -> Iterator[Event]:
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
        config: C,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        """Resolve a complete step under ``config``'s rulings. The core applies each
        yielded event before resuming the generator, so the generator always sees
        the updated state."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def roles(self, state: S) -> Mapping[int, str]:
        """Referee-only: each seat's role label (for transcripts and agent groups)."""

    def next_in_series(self, config: C, finished_state: S) -> C:
        """The config of the next game in a series (e.g. Killer KG-5). Default: same."""
        return config


class Research:
    """What the tools around the engine ask a variant (its bot, its metrics,
    studies, belief probes, scripted-seat checks). A minimal variant uses this
    class as it is; one that differs subclasses it and overrides only those
    hooks. ``bot`` and ``metrics`` name where the baseline bot class and the
    metric table live (``"module:name"``), imported only when asked for, so that
    bot and analysis code never load with the engine. ``statements`` names its
    :class:`StatementRules` likewise (default: none, so the statements table has no rows)."""

    def __init__(
        self, info: VariantInfo, *, bot: str = "", metrics: str = "", statements: str = ""
    ) -> None:
        self.info = info
        self.bot_class = bot  # an Agent class, built as (seed, language)
        self.metrics_table = metrics  # a mapping name -> Metric
        self.statement_rules = statements  # a StatementRules, named like the others

    def baseline_bot(self, seed: int, language: str = "en") -> Any:
        """A new baseline bot (a :class:`sandbox.core.seat.Agent`) seeded with
        ``seed`` that speaks ``language``, or None when the variant has none (a
        game file's ``kind = "baseline"`` is then refused)."""
        return _named(self.bot_class)(seed, language) if self.bot_class else None

    def metrics(self) -> Mapping[str, Metric]:
        """The behaviour metrics, name -> :data:`Metric` (study summaries and
        ``sandbox report`` show them). Default: none."""
        return cast(Mapping[str, Metric], _named(self.metrics_table)) if self.metrics_table else {}

    def statements(self) -> StatementRules | None:
        """How the statements table reads this variant's speeches and what each
        seat knew (issue 39); None: the variant declares none (no rows)."""
        module, _, name = self.statement_rules.partition(":")
        found = getattr(importlib.import_module(module), name, None) if module else None
        return found if isinstance(found, StatementRules) else None

    def decision_fields(self, config: Any) -> Mapping[str, tuple[str, ...]]:
        """Each decision this variant may ask with its answer's field names
        (``info.decisions``), so that scripted seats can be checked before play.
        Empty means unknown."""
        return self.info.decisions

    def side_of(self, role: str) -> str:
        """The side (one of ``info.sides``) a role label plays for. Default: the label."""
        return role

    def belief_labels(self) -> tuple[str, ...]:
        """The labels the belief probe asks a probability for, for each other
        living seat. Default: ``info.sides``; empty: a few words of free text."""
        return self.info.sides

    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """The seats whose side a seat knows for certain from its own card (its
        known teammates), which the belief probe does not ask about. Default: none."""
        return set()

    def study_side(self, role: str) -> str:
        """The side a study seats a contestant on for ``role``: ``side_of(role)``,
        or the side ``info.seated_with`` puts it with."""
        side = self.side_of(role)
        return self.info.seated_with.get(side, side)

    def study_sides(self) -> tuple[str, ...]:
        """The sides a study matches contestants over, in ``info.sides`` order
        (empty: not declared; a study then reads them from the roles dealt)."""
        return tuple(dict.fromkeys(self.info.seated_with.get(s, s) for s in self.info.sides))


class Variant(ABC, Generic[S, C]):
    """A game variant: its declaration, generic in its state and its config model.

    Subclass it, set ``info``, ``config_model`` and ``rules`` (a :class:`Rules`)
    and, if the defaults do not fit, ``research`` (a :class:`Research`); expose an
    instance through the ``sandbox.variants`` entry-point group (see
    ``sandbox.games.registry``). The variant itself answers only what a seat and
    a reader need (its views and its words); it hands out ``rules`` to the
    referee and ``research`` to the tools.
    """

    info: ClassVar[VariantInfo]
    config_model: type[C]
    rules: Rules[S, C]
    research: Research

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A variant that declares no research gets the defaults, read from its info.
        if "info" in vars(cls) and "research" not in vars(cls):
            cls.research = Research(cls.info)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def title(self) -> str:
        return self.info.title

    def parse_config(self, raw: Mapping[str, Any]) -> C:
        return self.config_model.model_validate(dict(raw))

    # ------------------------------------------------------------- views

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        """A seat's knowledge from (seq, event) pairs it was allowed to see.
        Default: its :meth:`view_fold` fed every pair (define one or both)."""
        fold = self.view_fold(seat)
        if fold is None:
            raise NotImplementedError(f"{self.name} defines neither build_view nor view_fold")
        for seq, event in events:
            fold.add(seq, event)
        return fold.snapshot()

    def view_fold(self, seat: int) -> ViewFold | None:
        """An incremental fold of ``seat``'s view: the core then feeds it only new
        events instead of rebuilding from the start. It must agree with
        ``build_view`` (the conformance tests check this). None: none."""
        return None

    # ------------------------------------------------------------- words
    # The accessors of the variant's words (one object after the words step).

    @abstractmethod
    def rules_text(self, config: C, language: str = "en") -> str:
        """The rules with the active rulings, citing rule IDs."""

    def role_labels(self, config: C) -> tuple[str, ...]:
        """Every label ``rules.roles`` can give (``info.roles``), so that a game
        file's role selector can be checked before play. Empty means unknown."""
        return self.info.roles

    def describe_event(self, event: Event) -> str:
        """A one-line English description for logs and the referee's view.
        Default: the event's English sentence from :meth:`words` (a speech
        quoted after it), else its fields."""
        data = event.to_json()["data"]
        words = self.words()
        sentence = words.sentences.get(event.kind) if words is not None else None
        if words is not None and sentence is not None:
            said = sentence(data, Lang("en", words.vocabulary))
            if said.speech is None:
                return said.sentence
            return f'{lead(said.sentence)}: "{sanitise(said.speech)}"'
        fields = ", ".join(f"{k}={v}" for k, v in data.items())
        return f"{event.kind}: {fields}"

    def words(self) -> VariantWords | None:
        """The variant's words: each event kind's sentence in every language, its
        decision phrases, its vocabulary, card tables and board effects
        (:class:`sandbox.core.words.VariantWords`). None: events are said by
        :meth:`describe_event`, decisions as their fields."""
        return None

    def prompt_templates(self) -> Traversable | None:
        """The folder of this variant's prompt templates (``<lang>/<name>.j2``
        inside, e.g. ``importlib.resources.files("my_game") / "prompts"``). None:
        the project's own ``prompts/<name>/``. Templates it lacks come from
        ``prompts/_generic`` either way."""
        return None


def _named(where: str) -> Any:
    """The object ``"module:name"`` names, its module imported now."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


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
