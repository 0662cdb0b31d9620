"""A conformance kit for game variants: the checks the project runs on its own
games, for authors of new ones (see docs/adding-a-game.md, "Checking your variant").

    from sandbox.testing import check_variant
    report = check_variant(MyVariant(), {"players": 8}, games=50, seed=0)

plays ``games`` games with seeds ``seed``, ``seed + 1``, … in which every seat
answers uniformly at random among the legal options, and checks in each:

``terminates``   the game ends (within ``max_decisions``) with a result for every seat;
``answers``      every recorded decision is the one asked, of the seat it was asked of,
                 and request ids are unique in the game;
``determinism``  the same seed and decisions give the same events again;
``visibility``   every seat's view holds exactly the events visible to that seat;
``fold``         the incremental view (``Variant.view_fold``) equals ``build_view``
                 over the same events (at every ``fold_every``-th decision, and
                 for every seat at the end), and a view handed out earlier is not
                 changed by later folding;
``replay``       events serialized to JSON and read back rebuild the same game
                 (``Game.from_events``): outcome, roles and every seat's view;
``no-leak``      neither a seat's view nor any prompt it is given (both styles, each
                 language asked for) states a fact about another seat that the
                 seat may not know (sampled decisions).

A failed check raises :class:`ConformanceError` (an ``AssertionError``) naming
the variant, the seed and the check; :func:`check_game` re-runs that one game.

How the no-leak check knows what is secret: a fact is a pair (seat, label),
labels being the words of ``Variant.roles``. A seat may know what the events it
saw state, read generously (every seat number in an event paired with every
role word in it; a true flag counts as the word of its key). It may not know
what the events it did not see state, read strictly (only unambiguous pairs:
``{"4": "killer"}``, ``"elite_seat": 10``, or one field of seats beside role
words, as in ``{"seat": 4, "role": "killer"}``). So the generic reading errs
towards missing a leak, not towards a false alarm; pass ``facts=`` with the
variant's own reading for an exact audit. The seat's view and prompts *state*
a fact when a line says it in a form a renderer would use: "seat 4 is a
killer", "Seat 4: KILLER", ``"4": "killer"``, "killer team: seats 4, 6", and
the Chinese forms of the words given in ``aliases``.

This module is shipped with the package: it imports neither pytest nor
hypothesis (drive it from property tests as you like: ``check_game`` takes
any seed).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from sandbox.agents.simple import draw_payload
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import DecisionMade, Event, event_from_json
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView, Variant
from sandbox.games.registry import get_variant

CHECKS = ("terminates", "answers", "determinism", "visibility", "fold", "replay", "no-leak")

Fact = tuple[int, str]
# event -> the (seat, label) facts it states
FactReader = Callable[[Event], Iterable[Fact]]
# one decision of a played game: request id, seat, and "payload" or "fallback"
Decision = dict[str, Any]

TRIES = 64  # random draws per decision before the fallback (rules may tie fields)
RESULTS = frozenset({"win", "lose", "draw"})


class ConformanceError(AssertionError):
    """A variant failed a check on one game; ``check_game(..., seed)`` repeats it."""

    def __init__(self, variant: str, seed: int, check: str, detail: str) -> None:
        super().__init__(f"{variant}, seed {seed}: check {check!r} failed: {detail}")
        self.variant = variant
        self.seed = seed
        self.check = check
        self.detail = detail


@dataclass
class ConformanceReport:
    """What was checked (all checks passed when you hold one)."""

    variant: str
    seeds: list[int] = field(default_factory=list)
    decisions: int = 0
    fallbacks: int = 0
    events: int = 0
    folds_compared: int = 0
    texts_audited: int = 0
    endings: Counter[str] = field(default_factory=Counter)

    @property
    def games(self) -> int:
        return len(self.seeds)

    def __str__(self) -> str:
        endings = ", ".join(f"{k} {n}" for k, n in sorted(self.endings.items()))
        return (
            f"{self.variant}: {self.games} games, {self.decisions} decisions "
            f"({self.fallbacks} fallbacks), {self.events} events, "
            f"{self.folds_compared} views compared, {self.texts_audited} views and prompts "
            f"audited; endings: {endings}"
        )


@dataclass(frozen=True)
class Leak:
    """A line of a seat's prompt stating something the seat may not know."""

    seat: int
    fact: str
    line: str


# ---------------------------------------------------------------- entry points


def check_variant(
    variant: Variant[Any] | str,
    config: BaseModel | Mapping[str, Any] | None = None,
    *,
    games: int = 20,
    seed: int = 0,
    prompts: bool = True,
    languages: Sequence[str] = ("en",),
    facts: FactReader | None = None,
    aliases: Mapping[str, str] | None = None,
    max_decisions: int = 20_000,
    fold_every: int = 4,
) -> ConformanceReport:
    """Play ``games`` random games (seeds ``seed`` …) and run every check on each.

    ``config``: the variant's config model, or its raw ``[rules]`` keys (None:
    defaults). ``prompts``: audit the rendered prompts (False: skip no-leak).
    ``facts``: the variant's own reading of which events state which facts
    (default: the generic reading, see the module docstring; with it, the raw
    view is audited too, with ``facts`` only the prompts). ``aliases``:
    other words for labels (e.g. a translation) the audit also looks for.
    ``fold_every``: compare the incremental view with a full build at every
    n-th decision (and for every seat at the end; 1: at every decision).
    Raises ConformanceError on the first failure.
    """
    v = get_variant(variant) if isinstance(variant, str) else variant
    cfg = config if isinstance(config, BaseModel) else v.parse_config(dict(config or {}))
    report = ConformanceReport(v.name)
    for game_seed in range(seed, seed + games):
        check_game(
            v,
            cfg,
            game_seed,
            prompts=prompts,
            languages=languages,
            facts=facts,
            aliases=aliases,
            max_decisions=max_decisions,
            fold_every=fold_every,
            report=report,
        )
    return report


def check_game(
    variant: Variant[Any],
    config: BaseModel,
    seed: int,
    *,
    deep: bool = True,
    prompts: bool = True,
    languages: Sequence[str] = ("en",),
    facts: FactReader | None = None,
    aliases: Mapping[str, str] | None = None,
    max_decisions: int = 20_000,
    fold_every: int = 4,
    report: ConformanceReport | None = None,
) -> ConformanceReport:
    """One random game, checked. ``deep=False`` runs only the cheap checks
    (terminates, answers), for property tests over many seeds."""
    report = report if report is not None else ConformanceReport(variant.name)
    audit = None
    if deep and prompts:
        audit = _PromptAudit(variant, seed, languages, facts, dict(aliases or {}), report)
    watcher = _Watcher(report, audit, fold_every) if deep else None
    try:
        game, log = play_random(variant, config, seed, max_decisions=max_decisions, watch=watcher)
    except ConformanceError:
        raise
    except Exception as exc:  # the variant crashed during play
        raise ConformanceError(
            variant.name, seed, "terminates", f"{type(exc).__name__} during play: {exc}"
        ) from exc
    _check_end(game, seed, len(log) > max_decisions)
    _check_answers(game, seed, log)
    if watcher is not None:
        watcher.check_detached(game)
        _check_determinism(game, seed, log)
        _check_visibility(game, seed)
        _check_replay(game, seed)
    report.seeds.append(seed)
    report.decisions += len(log)
    report.fallbacks += sum("fallback" in d for d in log)
    report.events += len(game.events)
    ended = game.outcome()
    report.endings[ended.reason if ended else "unfinished"] += 1
    return report


# ---------------------------------------------------------------- playing

# Called before each decision is answered (the fold and no-leak checks).
Watch = Callable[[Game, DecisionRequest], None]


def play_random(
    variant: Variant[Any],
    config: BaseModel,
    seed: int,
    *,
    max_decisions: int = 20_000,
    watch: Watch | None = None,
) -> tuple[Game, list[Decision]]:
    """A game in which every seat answers uniformly among the legal options
    (the fallback after TRIES refused draws). Stops after ``max_decisions``."""
    game = Game.new(variant, config, seed)
    rng = random.Random(seed)
    log: list[Decision] = []
    while not game.over and len(log) <= max_decisions:
        request = game.pending()[0]
        if watch is not None:
            watch(game, request)
        payload = legal_answer(game, request, rng)
        entry: Decision = {"request_id": request.id, "seat": request.seat}
        if payload is None:
            entry["fallback"] = "invalid"
            game.submit_fallback(request.id, "invalid")
        else:
            entry["payload"] = payload
            game.submit(request.id, payload)
        log.append(entry)
    return game, log


def legal_answer(game: Game, request: DecisionRequest, rng: random.Random) -> dict[str, Any] | None:
    """A uniform draw the referee accepts, normalised; None after TRIES refusals."""
    for _ in range(TRIES):
        try:
            return game.validate(request.id, draw_payload(request, rng))
        except IllegalDecision:
            continue
    return None


def replay(variant: Variant[Any], config: BaseModel, seed: int, log: list[Decision]) -> Game:
    """The game again from its seed and decisions."""
    game = Game.new(variant, config, seed)
    for entry in log:
        if "fallback" in entry:
            game.submit_fallback(entry["request_id"], entry["fallback"])
        else:
            game.submit(entry["request_id"], entry["payload"])
    return game


# ---------------------------------------------------------------- checks


@contextmanager
def _checking(game: Game, seed: int, check: str) -> Iterator[None]:
    """Any error inside becomes a ConformanceError naming the check and seed."""
    try:
        yield
    except ConformanceError:
        raise
    except Exception as exc:  # a crash in the variant is a failed check too
        detail = f"{type(exc).__name__}: {exc}"
        raise ConformanceError(game.variant.name, seed, check, detail) from exc


def _fail(game: Game, seed: int, check: str, detail: str) -> ConformanceError:
    return ConformanceError(game.variant.name, seed, check, detail)


def _check_end(game: Game, seed: int, capped: bool) -> None:
    if capped or not game.over:
        raise _fail(game, seed, "terminates", "the game did not end")
    outcome = game.outcome()
    if outcome is None:
        raise _fail(game, seed, "terminates", "over, but no outcome")
    if set(outcome.results) != set(game.seats):
        raise _fail(game, seed, "terminates", f"results for seats {sorted(outcome.results)}")
    odd = {r for r in outcome.results.values() if r not in RESULTS}
    if odd:
        raise _fail(game, seed, "terminates", f"results {sorted(odd)} not in win/lose/draw")


def _check_answers(game: Game, seed: int, log: list[Decision]) -> None:
    made = [(e.request_id, e.seat) for e in game.events if isinstance(e, DecisionMade)]
    asked = [(d["request_id"], d["seat"]) for d in log]
    if made != asked:
        first = next(
            (i for i, (m, a) in enumerate(zip(made, asked, strict=False)) if m != a),
            min(len(made), len(asked)),
        )
        raise _fail(game, seed, "answers", f"decision {first} recorded differently from asked")
    if len({rid for rid, _ in made}) != len(made):
        raise _fail(game, seed, "answers", "a request id was used twice")


def _check_determinism(game: Game, seed: int, log: list[Decision]) -> None:
    with _checking(game, seed, "determinism"):
        again = replay(game.variant, game.config, seed, log)
        first = _first_difference(_events_json(game.events), _events_json(again.events))
    if first is not None:
        raise _fail(game, seed, "determinism", f"event {first} differs on a replay")


def _check_visibility(game: Game, seed: int) -> None:
    for seat in game.seats:
        visible = [seq for seq, _ in game.visible_events(seat)]
        view = compare_fold(game, seat)
        seen = [item.seq for item in view.history]
        if seen != visible:
            extra = sorted(set(seen) - set(visible))
            missing = sorted(set(visible) - set(seen))
            raise _fail(
                game,
                seed,
                "visibility",
                f"seat {seat}'s history: not visible {extra[:5]}, missing "
                f"{missing[:5]}, or out of order",
            )


def _check_replay(game: Game, seed: int) -> None:
    with _checking(game, seed, "replay"):
        raw = json.loads(json.dumps(_events_json(game.events)))
        events = [event_from_json(r) for r in raw]
        first = _first_difference(raw, _events_json(events))
        if first is not None:
            raise _fail(game, seed, "replay", f"event {first} changes through JSON")
        rebuilt = Game.from_events(game.variant, game.config, game.seed, events)
        if not rebuilt.over or rebuilt.outcome() != game.outcome():
            raise _fail(game, seed, "replay", "the rebuilt game has another outcome")
        if dict(rebuilt.roles()) != dict(game.roles()):
            raise _fail(game, seed, "replay", "the rebuilt game has other roles")
        for seat in game.seats:
            if rebuilt.view(seat) != game.view(seat):
                raise _fail(game, seed, "replay", f"seat {seat}'s view differs when rebuilt")


def _events_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [e.to_json() for e in events]


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


class _Watcher:
    """Before each decision: the deciding seat's incremental view against a
    full build, and (sampled) the prompt audit. Keeps the first view handed
    out, to check at the end that later folding did not change it."""

    def __init__(
        self, report: ConformanceReport, audit: _PromptAudit | None, fold_every: int
    ) -> None:
        self.report = report
        self.audit = audit
        self.fold_every = max(1, fold_every)
        self.decisions = 0
        self.first: tuple[int, int, SeatView] | None = None  # seat, events seen, view

    def check_detached(self, game: Game) -> None:
        """The first view handed out still equals a build from its events."""
        if self.first is None:
            return
        seat, upto, view = self.first
        with _checking(game, game.seed, "fold"):
            events = [(i, e) for i, e in game.visible_events(seat) if i < upto]
            again = game.variant.build_view(seat, events)
        if view != again:
            raise _fail(
                game,
                game.seed,
                "fold",
                f"seat {seat}'s view changed after it was handed out "
                "(return detached copies from snapshot())",
            )

    def __call__(self, game: Game, request: DecisionRequest) -> None:
        self.decisions += 1
        view: SeatView | None = None
        if self.first is None or self.decisions % self.fold_every == 0:
            view = compare_fold(game, request.seat)
            self.report.folds_compared += 1
            if self.first is None:
                self.first = (request.seat, len(game.events), view)
        if self.audit is not None:
            self.audit(game, request, view)


def compare_fold(game: Game, seat: int) -> SeatView:
    """The seat's view as the core serves it (incremental fold), checked
    against ``build_view`` over the same events."""
    with _checking(game, game.seed, "fold"):
        view = game.view(seat)
        full = game.variant.build_view(seat, game.visible_events(seat))
    if view != full:
        raise _fail(
            game,
            game.seed,
            "fold",
            f"seat {seat}'s folded view differs from build_view after event {len(game.events) - 1}",
        )
    return view


# ---------------------------------------------------------------- no-leak


class _PromptAudit:
    """Renders sampled decisions' prompts and looks for forbidden facts: the
    first decision of each (decision, role) pair, and a share of the others."""

    SAMPLE = 0.05

    def __init__(
        self,
        variant: Variant[Any],
        seed: int,
        languages: Sequence[str],
        facts: FactReader | None,
        aliases: dict[str, str],
        report: ConformanceReport,
    ) -> None:
        self.seed = seed
        self.languages = tuple(languages)
        self.facts = facts
        self.aliases = aliases
        self.report = report
        self.seen: set[tuple[str, str]] = set()
        self.rng = random.Random(f"no-leak {variant.name} {seed}")
        self.readers: tuple[FactReader, ...] = ()
        # The facts each event states, read once per reading (the game holds
        # every event, so ids stay unique while it lasts).
        self.read: tuple[dict[int, frozenset[Fact]], ...] = ({}, {})

    def _readers(self, game: Game) -> tuple[FactReader, FactReader]:
        """The readings for seen and unseen events, answering from a cache."""
        if not self.readers:
            if self.facts is not None:
                self.readers = (self.facts, self.facts)
            else:
                words = role_words(game.roles().values())
                self.readers = (stated_facts(words), plainly_stated_facts(words))
        return self._cached(0), self._cached(1)

    def _cached(self, which: int) -> FactReader:
        reader, cache = self.readers[which], self.read[which]

        def cached(event: Event) -> frozenset[Fact]:
            hit = cache.get(id(event))
            if hit is None:
                hit = cache[id(event)] = frozenset(reader(event))
            return hit

        return cached

    def __call__(self, game: Game, request: DecisionRequest, view: SeatView | None) -> None:
        role = game.roles().get(request.seat, "")
        key = (request.decision, role)
        if key in self.seen and self.rng.random() >= self.SAMPLE:
            return
        self.seen.add(key)
        with _checking(game, self.seed, "no-leak"):
            seen, unseen = self._readers(game)
            hidden = forbidden_facts(game, request.seat, len(game.events), seen, unseen=unseen)
            view = view if view is not None else game.view(request.seat)
            # The view's raw data only under the generic reading, which counts
            # all of it as seen: data may pair seats and role words without
            # stating a fact (e.g. a seat's claim), which an exact reading of
            # facts does not cover; prompts say what the data means.
            texts = [view_text(view)] if self.facts is None else []
            texts += [prompt_text(view, request, lang) for lang in self.languages]
        for text in texts:
            leaks = find_leaks(text, request.seat, hidden, self.aliases)
            if leaks:
                shown = "; ".join(f"{x.fact} in {x.line.strip()[:120]!r}" for x in leaks[:3])
                raise _fail(
                    game,
                    self.seed,
                    "no-leak",
                    f"seat {request.seat} ({request.decision}) is told: {shown}",
                )
            self.report.texts_audited += 1


def view_text(view: SeatView) -> str:
    """The view itself, one line per entry: what any renderer could show."""
    lines = [
        f"- {key}: {json.dumps(value, ensure_ascii=False)}"
        for part in (view.private, view.public)
        for key, value in _plain(part).items()
    ]
    lines += [
        f"{item.kind} {json.dumps(_plain(item.facts), ensure_ascii=False)}" for item in view.history
    ]
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """Nested mappings and sequences as JSON-ready dicts and lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [_plain(v) for v in items]
    return value


def prompt_text(view: SeatView, request: DecisionRequest, language: str = "en") -> str:
    """Every message of both prompt styles for one decision, as one text."""
    # Imported here: the prompt machinery (jinja2, templates) is only needed
    # by the audit, not by the rest of the kit.
    from sandbox.agents.llm.prompt import render_prompt

    full = render_prompt(view, request, language=language, belief_probe=True)
    compact = render_prompt(
        view, request, language=language, belief_probe=True, style="compact", history_items=5
    )
    return "\n".join(m["content"] for m in [*full.messages, *compact.messages])


def role_words(labels: Iterable[str]) -> frozenset[str]:
    """The words of role labels ("wolves/elite" gives "wolves" and "elite")."""
    return frozenset(w for label in labels for w in re.split(r"[/:\s]+", label.lower()) if w)


def stated_facts(words: Collection[str]) -> FactReader:
    """The generous generic reading of an event (what a seat that saw it may
    know): each seat number in its data paired with each role word in it
    (string values, and keys of true flags)."""

    def read(event: Event) -> Iterable[Fact]:
        seats: set[int] = set()
        found: set[str] = set()
        named: set[Fact] = set()
        _collect(event.to_json()["data"], seats, found, named)
        paired = {(s, w) for s in seats for w in found} | named
        return {(s, w) for s, w in paired if w in words}

    return read


def plainly_stated_facts(words: Collection[str]) -> FactReader:
    """The strict generic reading of an event (what a seat that did not see it
    may not know): only unambiguous pairs: ``{"4": "killer"}`` entries, a key
    naming a role over seats (``"elite_seat": 10``), and an event whose data
    has exactly one field of seats (a number or a list of numbers) beside its
    role words (``{"seat": 4, "role": "killer"}``, ``{"role": ..., "members": [...]}``)."""

    def read(event: Event) -> Iterable[Fact]:
        data: Mapping[str, Any] = event.to_json()["data"]
        seats: set[int] = set()
        found: set[str] = set()
        named: set[Fact] = set()
        _collect(data, seats, found, named)  # only for ``named``
        pairs = set(named) | set(_entries(data))
        seat_fields = [v for v in data.values() if _seat_numbers(v) is not None]
        if len(seat_fields) == 1:
            top = {w for key, value in data.items() for w in _top_words(key, value)}
            pairs |= {(s, w) for s in _seat_numbers(seat_fields[0]) or () for w in top}
        return {(s, w) for s, w in pairs if w in words}

    return read


def _seat_numbers(value: Any) -> list[int] | None:
    """The numbers of a field holding a number or a list of numbers, else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return list(value)
    return None


def _top_words(key: str, value: Any) -> set[str]:
    if value is True:
        return {key.lower()}
    return set(role_words([value])) if isinstance(value, str) else set()


def _entries(value: Any) -> Iterator[Fact]:
    """(seat, word) of every ``"<seat>": "<words>"`` entry, at any depth."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if str(key).isdigit() and isinstance(item, str):
                yield from ((int(key), w) for w in role_words([item]))
            yield from _entries(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _entries(item)


def _collect(value: Any, seats: set[int], words: set[str], named: set[Fact]) -> None:
    """Seat numbers and words in ``value``; ``named``: seats under a key that
    names a role ("elite_seat": 10 gives (10, "elite"))."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        seats.add(value)
    elif isinstance(value, str):
        words.update(role_words([value]))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if str(key).isdigit():
                seats.add(int(key))
            key_words = [w for w in re.split(r"[_\W]+", str(key).lower()) if w]
            if item is True:
                words.update(key_words)
            inner: set[int] = set()
            _collect(item, inner, words, named)
            seats |= inner
            named.update((s, w) for s in inner for w in key_words)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, seats, words, named)


def forbidden_facts(
    game: Game,
    seat: int,
    upto: int,
    facts: FactReader,
    *,
    unseen: FactReader | None = None,
    learned: Callable[[Game, int, Event], Iterable[Fact]] | None = None,
) -> set[Fact]:
    """Facts about other seats stated by events before ``upto`` that ``seat``
    could not see, less those stated by events it saw. ``unseen``: another
    (stricter) reading for the events it could not see; ``learned``: what it
    may infer from an event it saw (e.g. a teammate's role)."""
    known: set[Fact] = set()
    hidden: set[Fact] = set()
    for event in game.events[:upto]:
        if event.visibility().visible_to(seat):
            known.update(facts(event))
            if learned is not None:
                known.update(learned(game, seat, event))
        else:
            hidden.update((unseen or facts)(event))
    return {(t, label) for t, label in hidden - known if t != seat}


_NUMBER = re.compile(r"\d+")

# What may stand between "seat N" and a label when a renderer states a role:
# punctuation, "is"/"was", articles, and role-card words ("faction:", "Your role:").
SEAT_FIRST_JOIN = (
    r"(?:\s|[:=(,.→>\-]|\bis\b|\bwas\b|\ban?\b|\bthe\b|\bfaction\b|\brole\b|\byour\b)*"
)


@lru_cache(maxsize=4096)
def fact_patterns(t: int, label: str, alias: str = "") -> tuple[re.Pattern[str], ...]:
    """Every way a renderer might say 'seat t is <label>' (``alias``: another
    word for the label, e.g. its Chinese name)."""
    lab = re.escape(label)
    other = re.escape(alias or label)
    forms = [
        rf"\bseats?\s*{t}\b{SEAT_FIRST_JOIN}['\"]?{lab}\b",
        rf"(?<![\w.]){t}['\"]?\s*:\s*['\"]?{lab}\b",
        rf"\b{lab}\b[^\n\d]{{0,20}}?\bseats?\s+(?:\d+\s*,\s*)*{t}\b",
        rf"(?<!\d){t}号\s*(?:是|为|：|:|（)?\s*(?:{other}|{lab})",
        rf"(?:{other}|\b{lab}\b)[^\n\d]{{0,6}}(?:\d+、)*{t}(?:、\d+)*号",
    ]
    return tuple(re.compile(f, re.IGNORECASE) for f in forms)


def find_leaks(
    text: str, seat: int, facts: Collection[Fact], aliases: Mapping[str, str] | None = None
) -> list[Leak]:
    """Every fact of ``facts`` stated somewhere in ``text``. Each pattern stays
    within one line, so only lines mentioning both the seat number and the
    label (in any casing, or its alias) are searched: that keeps the audit fast."""
    aliases = aliases or {}
    leaks: list[Leak] = []
    for line in text.splitlines():
        numbers = {int(n) for n in _NUMBER.findall(line)}
        if not numbers:
            continue
        lower = line.lower()
        for t, label in facts:
            alias = aliases.get(label, "")
            mentioned = t in numbers and (label in lower or bool(alias and alias in line))
            if mentioned and any(p.search(line) for p in fact_patterns(t, label, alias)):
                leaks.append(Leak(seat, f"seat {t} is {label}", line))
    return leaks
