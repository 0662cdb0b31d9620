"""A conformance kit for game variants: the checks the project runs on its own
games, for authors of new ones (see docs/adding-a-game.md, "Checking your variant").

    from sandbox.testing import check_variant
    report = check_variant(MyVariant(), {"players": 8}, games=50, seed=0)

plays ``games`` games with seeds ``seed``, ``seed + 1``, … in which every seat
answers uniformly at random among the legal options (or as ``players`` answer,
e.g. the variant's bots; :mod:`sandbox.testing.play`),
and runs in each the checks of :mod:`sandbox.testing.checks`, one module each:

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
                 seat may not know (sampled decisions; what counts as a secret is
                 :mod:`sandbox.testing.facts`, how a text states one
                 :mod:`sandbox.testing.leaks`).

A failed check raises :class:`ConformanceError` (an ``AssertionError``) naming
the variant, the seed and the check; :func:`check_game` re-runs that one game.

The kit is shipped with the package: it imports neither pytest nor hypothesis
(drive it from property tests as you like: ``check_game`` takes any seed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView, Variant
from sandbox.games.registry import get_variant
from sandbox.testing.checks import (
    PromptAudit,
    check_answers,
    check_detached,
    check_determinism,
    check_replay,
    check_terminates,
    check_visibility,
    compare_fold,
)
from sandbox.testing.facts import FactReader
from sandbox.testing.play import Players, play_random
from sandbox.testing.report import ConformanceError, ConformanceReport


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
    players: Players | None = None,
) -> ConformanceReport:
    """Play ``games`` random games (seeds ``seed`` …) and run every check on each.

    ``config``: the variant's config model, or its raw ``[rules]`` keys (None:
    defaults). ``prompts``: audit the rendered prompts (False: skip no-leak).
    ``facts``: the variant's own reading of which events state which facts
    (default: the generic reading of :mod:`sandbox.testing.facts`; with it, the
    raw view is audited too, with ``facts`` only the prompts). ``aliases``:
    other words for labels (e.g. a translation) the audit also looks for.
    ``fold_every``: compare the incremental view with a full build at every
    n-th decision (and for every seat at the end; 1: at every decision).
    ``players``: who answers instead of the uniform random seats (made once per
    game, e.g. the variant's bots), so the checks run over their games.
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
            players=players,
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
    players: Players | None = None,
) -> ConformanceReport:
    """One random game, checked. ``deep=False`` runs only the cheap checks
    (terminates, answers), for property tests over many seeds."""
    report = report if report is not None else ConformanceReport(variant.name)
    audit = None
    if deep and prompts:
        audit = PromptAudit(variant, seed, languages, facts, dict(aliases or {}), report)
    watcher = _Watcher(report, audit, fold_every) if deep else None
    try:
        game, log = play_random(
            variant, config, seed, max_decisions=max_decisions, watch=watcher, players=players
        )
    except ConformanceError:
        raise
    except Exception as exc:  # the variant crashed during play
        raise ConformanceError(
            variant.name, seed, "terminates", f"{type(exc).__name__} during play: {exc}"
        ) from exc
    check_terminates(game, seed, len(log) > max_decisions)
    check_answers(game, seed, log)
    if watcher is not None:
        watcher.check_detached(game)
        check_determinism(game, seed, log)
        check_visibility(game, seed)
        check_replay(game, seed)
    report.seeds.append(seed)
    report.decisions += len(log)
    report.fallbacks += sum("fallback" in d for d in log)
    report.events += len(game.events)
    ended = game.outcome()
    report.endings[ended.reason if ended else "unfinished"] += 1
    return report


class _Watcher:
    """Before each decision: the deciding seat's incremental view against a
    full build, and (sampled) the prompt audit. Keeps the first view handed
    out, to check at the end that later folding did not change it."""

    def __init__(
        self, report: ConformanceReport, audit: PromptAudit | None, fold_every: int
    ) -> None:
        self.report = report
        self.audit = audit
        self.fold_every = max(1, fold_every)
        self.decisions = 0
        self.first: tuple[int, int, SeatView] | None = None  # seat, events seen, view

    def check_detached(self, game: Game) -> None:
        """The first view handed out still equals a build from its events."""
        if self.first is not None:
            check_detached(game, *self.first)

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
