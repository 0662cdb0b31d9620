"""Playing games: ``play_seated``, the one game loop that the Python API's
``play`` and every game file played (``sandbox run``, a series (KG-5), a batch)
go through; games from game files; and the pieces resume and fork continue with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.seat import Agent, SeatHost
from sandbox.core.variant import Outcome
from sandbox.session.driver import blocking
from sandbox.session.gamefile import LoadedConfig
from sandbox.session.header import build_header, outcome_line, transcript_path
from sandbox.session.open_clock import OPEN_PACE_S
from sandbox.session.runner import EventHook, Runner, RunStats
from sandbox.session.seating import build_agents
from sandbox.transcript import TranscriptWriter


@dataclass
class PlayResult:
    """What playing one game produced (finished or interrupted): its outcome, run
    statistics and where its transcript is. The recorded game itself, read back
    from that file, is a :class:`sandbox.transcript.Transcript`."""

    path: Path | None
    variant: str
    seed: int
    roles: dict[int, str]
    outcome: Outcome | None
    stats: RunStats
    final_state: Any = None
    game_config: BaseModel | None = None

    @property
    def transcript_path(self) -> Path | None:
        return self.path

    def by_seat(self) -> dict[int, str]:
        """Each seat's result ("win", "lose", "draw"); empty while unfinished."""
        return dict(sorted(self.outcome.results.items())) if self.outcome else {}

    def by_role(self) -> dict[str, str]:
        """Each role's result. Seats of one role share it in both games; were they
        ever to differ, the role shows every result with its count (``win×2, lose×1``)."""
        results: dict[str, Counter[str]] = {}
        for seat, result in self.by_seat().items():
            results.setdefault(self.roles[seat], Counter())[result] += 1
        return {
            role: next(iter(counts))
            if len(counts) == 1
            else ", ".join(f"{result}×{n}" for result, n in sorted(counts.items()))
            for role, counts in sorted(results.items())
        }

    def to_json(self) -> dict[str, Any]:
        out = self.outcome
        return {
            "variant": self.variant,
            "seed": self.seed,
            "reason": out.reason if out else None,
            "summary": out.summary if out else None,
            "seats": {
                str(s): {"role": role, "result": out.results.get(s) if out else None}
                for s, role in sorted(self.roles.items())
            },
            "transcript": str(self.path) if self.path else None,
            "stats": self.stats.to_json(),
        }


@dataclass
class LiveHooks:
    """Callbacks the CLI uses to show a game as it goes."""

    on_start: Callable[[Game, Path], None] = lambda game, path: None
    on_event: Callable[[Game, int, Event], None] = lambda game, seq, event: None
    # May wrap the seats' agents (e.g. the host panel's switchable seats) once the
    # transcript is open, before its header is written.
    seat_agents: Callable[[Game, dict[int, Agent], TranscriptWriter], dict[int, Agent]] = (
        lambda game, agents, writer: agents
    )
    # The host that seats the game (the run's web pages): it serves the seats that
    # need a page or an endpoint. None: no web pages in this run.
    host: SeatHost | None = None
    # Referee-only keys for the outcome line, asked once every seat is closed
    # (a blind study's end answers: sandbox.analysis.detect).
    outcome_extra: Callable[[], Mapping[str, Any]] = lambda: {}


async def play_game_async(
    loaded: LoadedConfig,
    seed: int,
    out: Path,
    *,
    game_config: BaseModel | None = None,
    hooks: LiveHooks | None = None,
    header_extra: Mapping[str, Any] | None = None,
) -> PlayResult:
    """Play one game of a game file to its end, writing its transcript into ``out``.
    Cancellation (Ctrl-C) propagates and leaves the file resumable; the record's
    path is known from ``hooks.on_start``."""
    hooks = hooks or LiveHooks()
    config = game_config or loaded.game_config
    game = Game.new(loaded.variant, config, seed)
    roles = dict(game.roles())
    agents = build_agents(loaded, roles, seed, host=hooks.host)
    path = transcript_path(out, loaded.variant.name, seed)
    with TranscriptWriter(path) as writer:
        agents = hooks.seat_agents(game, agents, writer)
        writer.header(build_header(loaded, config, seed, roles, agents, header_extra))
        hooks.on_start(game, path)
        return await play_seated(
            game,
            agents,
            writer,
            abort_share=loaded.file.run.abort_share,
            abort_seat=loaded.file.run.abort_seat,
            on_event=_on(game, hooks),
            open_pace_s=loaded.file.run.open_pace_s,
            outcome_extra=hooks.outcome_extra,
        )


async def play_seated(
    game: Game,
    agents: Mapping[int, Agent],
    writer: TranscriptWriter | None,
    *,
    abort_share: float | None,
    abort_seat: int | None = None,
    on_event: EventHook | None = None,
    open_pace_s: float = OPEN_PACE_S,
    outcome_extra: Callable[[], Mapping[str, Any]] | None = None,
) -> PlayResult:
    """Play ``game`` to its end with its seated ``agents``; the runner writes every
    event to ``writer`` (None: no file) and the outcome line ends it (with
    ``outcome_extra``'s keys, asked after the agents are closed). Every agent is
    closed, however the game ends; the writer is its opener's to close."""
    try:
        runner = Runner(
            game,
            agents,
            writer,
            on_event=on_event,
            abort_share=abort_share,
            abort_seat=abort_seat,
            open_pace_s=open_pace_s,
        )
        outcome = await runner.run()
    finally:
        await close_all(agents)
    if writer is not None:
        extra = outcome_extra() if outcome_extra is not None else {}
        writer.outcome({**outcome_line(outcome, runner.stats), **extra})
    path = writer.path if writer is not None else None
    roles = dict(game.roles())
    return PlayResult(
        path, game.variant.name, game.seed, roles, outcome, runner.stats, game.state, game.config
    )


play_game = blocking(
    play_game_async,
    "play_game",
    ":func:`play_game_async` from synchronous code (also inside a running loop).",
)


def play_series(
    loaded: LoadedConfig,
    seed: int,
    count: int,
    out: Path,
    *,
    hooks: LiveHooks | None = None,
    on_game_done: Callable[[PlayResult], None] = lambda record: None,
) -> list[PlayResult]:
    """K consecutive games; each config comes from the variant's next_in_series (KG-5).
    Game k (0-based) is played with seed ``seed + k``."""
    records: list[PlayResult] = []
    config = loaded.game_config
    for index in range(count):
        extra = {"series": {"index": index + 1, "of": count, "first_seed": seed}}
        record = play_game(
            loaded, seed + index, out, game_config=config, hooks=hooks, header_extra=extra
        )
        records.append(record)
        on_game_done(record)
        config = loaded.variant.rules.next_in_series(config, record.final_state)
    return records


def runner_for(
    loaded: LoadedConfig,
    game: Game,
    agents: Mapping[int, Agent],
    writer: TranscriptWriter,
    hooks: LiveHooks,
) -> Runner:
    """The runner of a game file's game, with its abort rule."""
    run = loaded.file.run
    return Runner(
        game,
        agents,
        writer,
        on_event=_on(game, hooks),
        abort_share=run.abort_share,
        abort_seat=run.abort_seat,
        open_pace_s=run.open_pace_s,
    )


def _on(game: Game, hooks: LiveHooks) -> EventHook:
    """The runner's event hook: the live hooks' ``on_event``, told which game it is."""
    return lambda seq, event: hooks.on_event(game, seq, event)


async def run_to_end(runner: Runner, agents: Mapping[int, Agent]) -> Outcome:
    """Run the game to its end; every agent is closed whatever happens."""
    try:
        return await runner.run()
    finally:
        await close_all(agents)


async def close_all(agents: Mapping[int, Agent]) -> None:
    """Close every agent, even when one of them fails to close (then re-raise it)."""
    failures: list[BaseException] = []
    for agent in agents.values():
        try:
            await agent.close()
        except Exception as err:  # the others must still release their resources
            failures.append(err)
    if failures:
        raise failures[0]


# Its name before it was told apart from the recorded game (the public API and
# older callers still import it): the same class.
GameRecord = PlayResult
