"""Batches of independent games (``sandbox batch``), optionally in worker processes.

Game k of a batch is ``session.play_game`` with seed ``first_seed + k`` and the
game file's own config: unlike a series (KG-5) no game depends on another, so
they can be played in any order, in parallel, and each transcript is the one
``sandbox run --seed`` would write for that seed.

Workers are started with the "spawn" context (no forked copies of the parent's
threads or event loop) and each plays whole games. LLM seats with the built-in
fake provider or a local model start their server inside each worker process.
A game that raises is recorded with its seed and one-line error; the others go on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from sandbox.config import LoadedConfig, llm_specs, parse_config
from sandbox.session import LiveHooks, play_game
from sandbox.stats import gather, role_group, summarise

LOCAL_PREFIXES = ("local/", "local:")


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play one game; plain data so it pickles."""

    raw_config: Mapping[str, Any]
    seed: int
    out: str


@dataclass(frozen=True)
class GameResult:
    """What one game of a batch produced (plain data, sent back from workers)."""

    seed: int
    transcript: str | None
    reason: str | None = None
    winners: tuple[str, ...] = ()  # role groups with at least one winning seat
    error: str | None = None
    interrupted: bool = False

    @property
    def finished(self) -> bool:
        return self.error is None and not self.interrupted

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "transcript": self.transcript,
            "reason": self.reason,
            "winners": list(self.winners),
            "error": self.error,
            "interrupted": self.interrupted,
        }


@dataclass
class BatchResult:
    """All games of a batch, sorted by seed, whatever order they finished in."""

    results: list[GameResult] = field(default_factory=list)
    interrupted: bool = False

    @property
    def finished(self) -> list[GameResult]:
        return [r for r in self.results if r.finished]

    @property
    def failed(self) -> list[GameResult]:
        return [r for r in self.results if r.error is not None]

    @property
    def cut_short(self) -> list[GameResult]:
        """Games stopped by Ctrl-C: their transcripts are unfinished but resumable."""
        return [r for r in self.results if r.interrupted]


# ---------------------------------------------------------------- one game

# Worker processes only (see _worker_setup): whether a game is being played, and
# whether it has been asked to stop.
_in_worker = False
_playing = False
_stopping = False


def play_one(job: GameJob) -> GameResult:
    """Play one game; every failure becomes a one-line error in the result.

    Runs in a worker process or in the caller's: the config is parsed here from
    plain data, the way ``resume`` rebuilds a game file from a transcript header.
    """
    started: list[Path] = []
    hooks = LiveHooks(on_start=lambda game, path: started.append(path))
    try:
        with _interruptible():
            loaded = parse_config(job.raw_config)
            record = play_game(loaded, job.seed, Path(job.out), hooks=hooks)
    except KeyboardInterrupt:
        return GameResult(job.seed, _first(started), interrupted=True)
    except Exception as err:  # a broken game must not end the batch
        return GameResult(job.seed, _first(started), error=one_line(err))
    outcome = record.outcome
    winners: tuple[str, ...] = ()
    if outcome is not None:
        wins = {role_group(record.roles[s]) for s, r in outcome.results.items() if r == "win"}
        winners = tuple(sorted(wins))
    return GameResult(job.seed, str(record.path), outcome.reason if outcome else None, winners)


def _first(paths: Sequence[Path]) -> str | None:
    return str(paths[0]) if paths else None


def one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _worker_setup() -> None:
    """Workers leave the terminal's process group: Ctrl-C reaches the parent
    only, which stops running games with SIGTERM (see _stop_workers)."""
    global _in_worker
    _in_worker = True
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_game)


@contextmanager
def _interruptible() -> Iterator[None]:
    """In a worker, a game in progress takes SIGINT with Python's default handler,
    so asyncio.run installs its own and a stop cancels the game the way Ctrl-C
    cancels ``sandbox run``: the transcript is closed cleanly and resumable."""
    global _playing
    if _in_worker:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _playing = True
    try:
        yield
    finally:
        _playing = False
        if _in_worker:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_game(signum: int, frame: FrameType | None) -> None:
    global _stopping
    if _playing and not _stopping:  # once: a second SIGINT would skip asyncio's cleanup
        _stopping = True
        # Stopping mid-call leaves the provider's coroutine unawaited: expected, not news.
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        signal.raise_signal(signal.SIGINT)


# ------------------------------------------------------------------- batch


def first_seed(loaded: LoadedConfig, seed: int | None) -> int:
    """--seed, else the game file's seed, else 0 (a batch is always reproducible)."""
    if seed is not None:
        return seed
    return loaded.file.seed if loaded.file.seed is not None else 0


def worker_count(jobs: int) -> int:
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def uses_local_model(loaded: LoadedConfig) -> bool:
    """A local model server answers one request at a time: parallel games would
    only queue behind each other (and each worker would load its own copy)."""
    return any(s.model.startswith(LOCAL_PREFIXES) for s in llm_specs(loaded.file))


def seats_a_human(loaded: LoadedConfig) -> bool:
    specs = [loaded.file.default_agent, *loaded.file.agent]
    return any(s.kind == "human" for s in specs)


def jobs_for(loaded: LoadedConfig, seeds: Sequence[int], out: Path) -> list[GameJob]:
    raw = loaded.to_json()
    return [GameJob(raw, seed, str(out)) for seed in seeds]


OnResult = Callable[[GameResult], None]


def run_batch(jobs: Sequence[GameJob], workers: int, on_result: OnResult) -> BatchResult:
    """Play every job; ``on_result`` sees each result as it arrives. Ctrl-C (or a
    KeyboardInterrupt from ``on_result``) stops the batch: games not started are
    dropped, running ones are stopped with resumable transcripts."""
    batch = BatchResult()
    try:
        if workers <= 1:
            _run_here(jobs, batch, on_result)
        else:
            _run_pool(jobs, workers, batch, on_result)
    except KeyboardInterrupt:
        batch.interrupted = True
    batch.results.sort(key=lambda r: r.seed)
    return batch


def _run_here(jobs: Iterable[GameJob], batch: BatchResult, on_result: OnResult) -> None:
    for job in jobs:
        result = play_one(job)
        batch.results.append(result)
        if result.interrupted:
            raise KeyboardInterrupt
        on_result(result)


def _run_pool(
    jobs: Sequence[GameJob], workers: int, batch: BatchResult, on_result: OnResult
) -> None:
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(min(workers, len(jobs)), context, initializer=_worker_setup)
    seeds = {pool.submit(play_one, job): job.seed for job in jobs}
    futures = list(seeds)
    try:
        for future in as_completed(futures):
            result = _result_of(future, seeds[future])
            batch.results.append(result)
            on_result(result)
    except KeyboardInterrupt:
        _stop_workers(pool, futures, batch)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _result_of(future: Future[GameResult], seed: int) -> GameResult:
    """A worker that died (killed, out of memory) fails its game, not the batch."""
    try:
        return future.result()
    except Exception as err:
        return GameResult(seed, None, error=one_line(err))


def _stop_workers(
    pool: ProcessPoolExecutor, futures: Sequence[Future[GameResult]], batch: BatchResult
) -> None:
    """Drop queued games, interrupt running ones and collect what they left."""
    for future in futures:
        future.cancel()
    # The pool has no public way to interrupt running calls before Python 3.14.
    processes: Mapping[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()  # SIGTERM: _stop_game interrupts the game in progress
    seen = {r.seed for r in batch.results}
    for future in futures:
        if future.cancelled() or (not future.done() and not _settles(future)):
            continue
        try:
            result = future.result()
        except Exception:  # a worker that died mid-game left nothing to report
            continue
        if result.seed not in seen:
            batch.results.append(result)


def _settles(future: Future[GameResult], timeout: float = 10.0) -> bool:
    try:
        future.exception(timeout=timeout)
    except Exception:
        return False
    return True


# ----------------------------------------------------------------- summary


def win_counts(results: Iterable[GameResult]) -> Counter[str]:
    """Games won per role group so far; a game nobody won counts as 'draw'."""
    counts: Counter[str] = Counter()
    for result in results:
        if result.finished:
            counts.update(result.winners or ("draw",))
    return counts


def summary_of(batch: BatchResult, bootstrap_seed: int) -> dict[str, Any]:
    """sandbox.stats over the transcripts of the finished games."""
    paths = [Path(r.transcript) for r in batch.finished if r.transcript]
    if not paths:
        return {}
    per_variant, _ = gather(paths)
    return summarise(per_variant, bootstrap_seed)
