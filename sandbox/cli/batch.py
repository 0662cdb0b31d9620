"""The ``batch`` command: N independent games of one game file (seeds S..S+N-1),
on this machine or a Ray cluster, resumable; then the figures over all of them."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from sandbox.analysis.intervals import BOOTSTRAP_SEED
from sandbox.batch.backends import Backend, BackendError, backend_notes, start_backend
from sandbox.batch.jobs import BatchResult, GameJob, GameResult
from sandbox.batch.policy import (
    LOCAL_MODEL_NOTE,
    BatchOptionError,
    Capacity,
    agent_specs,
    capacity,
    first_seed,
    seats_a_human,
)
from sandbox.batch.run import jobs_for, skip_done, summary_of, win_counts
from sandbox.cli.errors import bad_input_is_one_line, fail, stopped_by_fault
from sandbox.cli.interrupts import EXIT_INTERRUPTED
from sandbox.cli.options import (
    AddressOption,
    BackendOption,
    ConfigArgument,
    GamesInFlightOption,
    JsonOption,
    LimitOption,
    OutOption,
    RpmOption,
    TranscriptsOption,
    out_folder,
)
from sandbox.cli.progress import progress_bar
from sandbox.cli.stats import print_variant_stats
from sandbox.session.agent_specs import AgentSpec
from sandbox.session.gamefile import load_config
from sandbox.transcript import folder_lock

# A batch's games are listed up front; a million is a large study, a billion a typo.
MAX_GAMES = 1_000_000


def batch(
    config: ConfigArgument,
    games: Annotated[int, typer.Option(min=1, max=MAX_GAMES, help="number of independent games")],
    seed: Annotated[
        int | None, typer.Option(min=0, help="first seed (default: config's, else 0)")
    ] = None,
    jobs: Annotated[int, typer.Option(min=0, help="worker processes (0 = one per CPU)")] = 1,
    out: OutOption = None,
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option(help="no progress bar")] = False,
    backend: BackendOption = "local",
    address: AddressOption = None,
    transcripts: TranscriptsOption = "send",
    limit: LimitOption = None,
    rpm: RpmOption = None,
    max_cost: Annotated[
        float | None, typer.Option(min=0, help="ray: start no game once this many USD are spent")
    ] = None,
    games_in_flight: GamesInFlightOption = None,
    estimate_only: EstimateOption = False,
) -> None:
    """Play N independent games with seeds S..S+N-1, in parallel if asked; summarise."""
    err = Console(stderr=True, highlight=False)
    with contextlib.ExitStack() as held:  # the folder's lock, to the end
        with bad_input_is_one_line():
            loaded = load_config(config)
            if seats_a_human(loaded):
                fail("a batch cannot seat humans; use 'sandbox run' to play")
            target = out_folder(out, loaded)
            if not estimate_only:  # an estimate writes nothing there
                held.enter_context(folder_lock(target))  # one batch or study per folder
                target.mkdir(parents=True, exist_ok=True)
        chosen = policy_of(agent_specs(loaded), jobs, games_in_flight, backend)
        if chosen.capped:
            err.print(LOCAL_MODEL_NOTE)
        start = first_seed(loaded, seed)
        seeds = list(range(start, start + games))
        if estimate_only:  # cost before spending: a sample on the fake provider, nothing kept
            at_once = chosen.workers * chosen.in_flight
            show_estimate(jobs_for(loaded, seeds, target), games, at_once, as_json)
            return
        # Games already finished in this folder are skipped; interrupted ones are finished.
        work, done = skip_done(jobs_for(loaded, seeds, target), target)
        if done and not as_json:
            err.print(f"{len(done)} of {games} games already played in {target}; skipping them")
        players = started_backend(backend, chosen, address, transcripts, limit, rpm, max_cost)
        with _progress(err, len(work), show=not (as_json or quiet)) as on_result:
            result = players.run(work, on_result)
            players.close()
            for line in backend_notes(players):
                err.print(escape(line))
        result.skipped = done
        _report(result, config, seeds, as_json)
        if not as_json:
            finished = len(result.finished) + len(done)
            print(f"{finished} of {games} games finished; transcripts in {target}")
        _exit(result, games, err)


def policy_of(
    specs: list[AgentSpec], jobs: int, games_in_flight: int | None, backend: str
) -> Capacity:
    """The batch policy (sandbox/batch/policy.py); an option it refuses is one line."""
    try:
        return capacity(specs, jobs, games_in_flight, backend)
    except BatchOptionError as error:
        fail(str(error))


EstimateOption = Annotated[
    bool,
    typer.Option(
        "--estimate",
        help="play a few games on the fake provider with the real prompts and prices; "
        "print the plan's expected calls, tokens, dollars and hours; play nothing",
    ),
]


def show_estimate(jobs: list[GameJob], games: int, at_once: int, as_json: bool) -> None:
    """``--estimate`` (sandbox/study/estimate.py): stdout, or one error line."""
    from sandbox.study.estimate import EstimateError, estimate, estimate_lines

    try:
        est = estimate(jobs, games, max(1, at_once))
    except EstimateError as err:
        fail(str(err))
    if as_json:
        sys.stdout.write(json.dumps({"estimate": est.to_json()}) + "\n")
    else:
        print("\n".join(estimate_lines(est)))


def started_backend(
    name: str,
    chosen: Capacity,
    address: str | None,
    transcripts: str,
    limit: list[str] | None,
    rpm: list[str] | None,
    max_cost: float | None = None,
) -> Backend:
    """The chosen backend, started; a bad choice is one error line."""
    try:
        return start_backend(
            name,
            chosen.workers,
            address,
            transcripts,
            limit or [],
            rpm or [],
            max_cost,
            in_flight=chosen.in_flight,
        )
    except BackendError as err:
        fail(str(err))


@contextmanager
def _progress(err: Console, total: int, show: bool) -> Iterator[Callable[[GameResult], None]]:
    """A progress bar (games done / N and the wins so far), and failures as they come."""
    done: list[GameResult] = []
    with progress_bar(err, "games", total, show) as bar:

        def on_result(result: GameResult) -> None:
            done.append(result)
            if result.error is not None:
                bar.note(f"game seed {result.seed} failed: {escape(result.error)}")
            wins = ", ".join(f"{k} {v}" for k, v in sorted(win_counts(done).items()))
            bar.advance(f"games · wins: {wins or '-'}")

        yield on_result


def _report(result: BatchResult, config: Path, seeds: list[int], as_json: bool) -> None:
    summary = summary_of(result, BOOTSTRAP_SEED)
    if as_json:
        obj = {
            "config": str(config),
            "seeds": seeds,
            "finished": len(result.finished) + len(result.skipped),
            "already_played": len(result.skipped),
            "transcripts": [*result.skipped, *(r.transcript for r in result.finished)],
            "games": [r.to_json() for r in result.results],
            "failed": [r.to_json() for r in result.failed],
            "interrupted": result.interrupted,
            "stats": summary,
        }
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    else:
        console = Console(highlight=False)
        for name, figures in summary.items():
            print_variant_stats(console, name, figures)
        for failed in result.failed:
            console.print(f"[red]failed[/red] seed {failed.seed}: {escape(failed.error or '')}")


def _exit(result: BatchResult, total: int, err: Console) -> None:
    if result.fault is not None:
        stopped_by_fault(result.fault, len(result.finished) + len(result.skipped), total)
    if result.interrupted:
        finished = len(result.finished) + len(result.skipped)
        err.print(f"interrupted: {finished} of {total} games finished.")
        err.print("run the same command again to finish the batch (played games are skipped)")
        raise typer.Exit(EXIT_INTERRUPTED)
    if result.failed:
        err.print(f"{len(result.failed)} of {total} games failed.")
        raise typer.Exit(1)
