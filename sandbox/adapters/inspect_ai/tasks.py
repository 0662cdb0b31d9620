"""inspect_ai tasks, one per registered variant: ``sandbox/<variant>``.

inspect loads this module through the ``inspect_ai`` entry point named
``sandbox`` (pyproject), so ``inspect eval sandbox/<variant> --model M`` finds
the tasks without a file. Each sample is one game (see ``samples``): the
evaluated model plays its seats through inspect's model API (``InspectAgent``),
the other seats come from the opponent pool (``opponents``), the game writes a
normal transcript, and the scorer reads it (``scoring``). The task arguments
(``-T name=value``) are those of :func:`build_task`; docs/inspect.md lists them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError  # inspect's one-line CLI error
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError, registry_info
from pydantic import ValidationError

from sandbox.adapters.inspect_ai.agent import InspectAgent
from sandbox.adapters.inspect_ai.opponents import Seating, check_pool, parse_pool
from sandbox.adapters.inspect_ai.samples import Casting, GamePlan, samples_of
from sandbox.adapters.inspect_ai.scoring import game_scorer, score_keys
from sandbox.adapters.validity import MAX_FALLBACK_SHARE
from sandbox.agents.llm.settings import LLMSettings
from sandbox.agents.llm.setup import one_error
from sandbox.core.errors import ConfigError
from sandbox.core.seat import Agent, AgentSetupError
from sandbox.core.variant import MIXED, CoreEnding
from sandbox.games.registry import get_variant, variant_names
from sandbox.session.api import play

PACKAGE = "sandbox"  # the task names' namespace: sandbox/<variant>
DEFAULT_GAMES = 10
DEFAULT_TRANSCRIPTS = "transcripts"


def build_task(
    variant: str,
    *,
    side: str | None = None,
    role: str | None = None,
    seat: int | None = None,
    opponents: str | Sequence[str] | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    rules: Mapping[str, Any] | None = None,
    language: str = "en",
    max_repairs: int = 2,
    belief_probe: bool = False,
    prompt_style: str = "full",
    structured: str = "auto",
    temperature: float | None = None,
    max_tokens: int | None = None,
    context_window: int | None = None,
    cache: bool = False,
    transcripts: str = DEFAULT_TRANSCRIPTS,
    max_fallback_share: float = MAX_FALLBACK_SHARE,
) -> Task:
    """The task of ``variant`` with these arguments (ConfigError when bad).
    ``max_fallback_share``: past this share of fallbacks among the evaluated
    seats' decisions (or with any provider failure), a sample is scored
    ``invalid``, never a win (``sandbox.adapters.validity``)."""
    if not 0.0 <= max_fallback_share <= 1.0:
        raise ConfigError(f"max_fallback_share: between 0 and 1 (got {max_fallback_share})")
    settings = seat_settings(
        language=language,
        max_repairs=max_repairs,
        belief_probe=belief_probe,
        prompt_style=prompt_style,
        structured=structured,
        temperature=temperature,
        max_tokens=max_tokens,
        context_window=context_window,
    )
    opponent_settings = LLMSettings(language=settings.language)
    pool = parse_pool(opponents)
    check_pool(pool, opponent_settings, variant)
    plan = GamePlan(variant, games, seed, Casting(side, role, seat), dict(rules or {}))
    entries = ",".join(o.entry for o in pool)
    samples = samples_of(plan, get_variant(variant).title, entries)
    keys = score_keys(variant, settings.belief_probe)
    # Absolute now: inspect may run a task from another working directory.
    folder = Path(transcripts).expanduser().resolve()
    return Task(
        dataset=samples,
        solver=play_game(
            variant,
            dict(plan.rules),
            [o.entry for o in pool],
            settings.model_dump(mode="json"),
            cache,
            str(folder),
        ),
        scorer=game_scorer(keys, settings.belief_probe, max_fallback_share),
        metadata={"variant": variant, "opponents": entries, "transcripts": str(folder)},
    )


def seat_settings(**given: Any) -> LLMSettings:
    """The evaluated seats' settings; a bad value is a ConfigError in one line."""
    try:
        return LLMSettings.model_validate({k: v for k, v in given.items() if v is not None})
    except ValidationError as err:
        raise ConfigError(one_error(err)) from None


@solver
def play_game(
    variant: str,
    rules: dict[str, Any],
    opponents: list[str],
    settings: dict[str, Any],
    cache: bool,
    transcripts: str,
) -> Solver:
    """Play the sample's game: the evaluated model on the sample's seats, the
    pool on the others; what it produced goes into the sample's metadata."""
    seat_config = LLMSettings.model_validate(settings)
    opponent_config = LLMSettings(language=seat_config.language)
    seating = Seating(parse_pool(opponents))
    plan = GamePlan(variant, 1, rules=rules)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        game = plan.new_game(int(meta["seed"]))
        mine = [int(s) for s in meta["seats"]]
        model = get_model()
        others = [s for s in game.seats if s not in mine]
        agents: dict[int, Agent] = {
            s: InspectAgent(model, settings=seat_config, cache=cache) for s in mine
        }
        agents.update(seating.agents(others, game.seed, opponent_config))
        meta["model"] = str(model)
        meta["opponents"] = {str(s): label for s, label in seating.labels(others).items()}
        meta["transcripts"] = transcripts
        try:
            record = await play(game, agents, transcript=transcripts)
        except LimitExceededError as err:
            meta["outcome"] = f"stopped by inspect's {err.type} limit"
            raise
        except AgentSetupError as err:
            raise PrerequisiteError(f"error: {err}") from None
        outcome = record.outcome
        assert outcome is not None  # play returns a finished (or aborted) game
        results = {str(s): str(r) for s, r in sorted(outcome.results.items())}
        mine_results = {results[str(s)] for s in mine}
        meta.update(
            transcript=str(record.path),
            outcome=outcome.reason,
            summary=outcome.summary,
            results=results,
            result=next(iter(mine_results)) if len(mine_results) == 1 else MIXED,
            finished=outcome.reason != CoreEnding.ABORTED,
            fallbacks={str(s): dict(record.stats.fallbacks.get(s, {})) for s in mine},
            decisions=record.stats.decisions,
            repairs=record.stats.repairs,
        )
        state.output = ModelOutput.from_content(model=str(model), content=outcome.summary)
        state.completed = True
        return state

    return solve


# ------------------------------------------------------------ registration
TaskFactory = Callable[..., Task]


def task_factory(variant: str) -> TaskFactory:
    """The ``@task`` function of one variant: :func:`build_task`'s keywords as
    its parameters (inspect reads them for ``-T``), a bad value stopping the
    run with one ``error:`` line."""

    def game_task(**args: Any) -> Task:
        try:
            return build_task(variant, **args)
        except ConfigError as err:
            raise PrerequisiteError(f"error: {err}") from None

    # inspect reads a task's parameters (``-T``) from its signature: the same
    # keywords as build_task's, written once there.
    whole = inspect.signature(build_task)
    game_task.__signature__ = whole.replace(  # type: ignore[attr-defined]
        parameters=[p for name, p in whole.parameters.items() if name != "variant"]
    )
    game_task.__name__ = game_task.__qualname__ = variant
    game_task.__doc__ = f"{get_variant(variant).title}: the model plays a seat or a side."
    return game_task


def register(variant: str) -> TaskFactory:
    """Register ``sandbox/<variant>``. inspect namespaces a task by the package
    it is installed from, but an editable install of this project (whose
    distribution is not named after its package) goes unseen; the namespace
    is then given in the name."""
    factory = task_factory(variant)
    registered: TaskFactory = task(name=variant)(factory)
    if "/" not in registry_info(registered).name:
        registered = task(name=f"{PACKAGE}/{variant}")(factory)
    return registered


TASKS: dict[str, TaskFactory] = {name: register(name) for name in variant_names()}
