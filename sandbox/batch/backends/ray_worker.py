"""The Ray backend with games in flight: each worker is an async Ray actor that
plays up to ``--games-in-flight`` games at once as coroutines of one event loop,
as a local worker process does (sandbox/batch/workers.py).

Why an actor and not one task per group of games: every game stays one Ray
call with its own result reference, so the driver (sandbox/batch/backends/ray.py)
keeps everything it does per game — each result handed on as its game finishes,
the cost cap and provider limits checked before each new game, Ctrl-C cancelling
each running game (``ray.cancel`` cancels the game's coroutine, whose transcript
is then closed cleanly), and a lost worker's games resumed one by one from their
transcripts on another worker. A task per group would finish only when its
slowest game does, and a group could not take a new game as one of its games ends.

A game here is played exactly as a Ray task plays it (sandbox/batch/backends/ray_task.py):
in a folder of its own, resumed from the lines a lost attempt left, its
transcript handed back (``send``) or moved into ``--out`` (``shared``). What
differs is shared by the actor's games:

- the transcript stream (``send``): one loop sends the new complete lines of
  every game the actor plays to the tracker in one call every ``TAIL_PERIOD_S``
  (not one thread and one call per game);
- the call gate (cluster-wide limits): installed once, it books each call's
  limiter slot to the game that makes it (``GAME_HOLDER``), so the slots of a
  lost or finished game are given back alone;
- the HTTP client pools and per-model limits of the event loop, and the
  background transcript writer, as in a local worker.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.batch.backends.base import Limit
from sandbox.batch.backends.ray_actors import GAME_HOLDER, GameGate
from sandbox.batch.backends.ray_task import (
    TAIL_PERIOD_S,
    TaskOutcome,
    TaskPlan,
    attempt_of,
    outcome_of,
    partial_in,
    result_of_file,
)
from sandbox.batch.jobs import GameJob, GameResult
from sandbox.batch.run import play_one_async
from sandbox.models.gate import install_gate
from sandbox.transcript.files import SUFFIX


@dataclass
class _Followed:
    """One game's transcript as the stream has sent it so far."""

    folder: Path
    offset: int  # bytes already with the tracker
    name: str | None = None  # the file's name, once it exists

    def take(self) -> tuple[str, bytes] | None:
        """The complete lines written since the last take (no await: two takers
        of one game can never send the same bytes)."""
        if self.name is None:
            files = sorted(self.folder.glob(f"*{SUFFIX}"))
            if not files:
                return None
            self.name = files[0].name
        try:
            with (self.folder / self.name).open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except FileNotFoundError:  # moved away as the game ended
            return None
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            return None
        self.offset += cut
        return self.name, chunk[:cut]


class GameWorker:
    """An async Ray actor (1 CPU) that plays many games at once; see the module
    docstring. Started by the driver, one per worker, ``max_concurrency`` above
    the games it is given."""

    def __init__(self, tracker: Any, limiter: Any | None, limits: dict[str, Limit]) -> None:
        from sandbox.transcript import write_in_background

        write_in_background(True)  # many games' lines: written off the event loop
        self.tracker = tracker
        self.limiter = limiter
        if limiter is not None:
            install_gate(GameGate(limiter, limits, f"worker-{os.getpid()}"))
        self._followed: dict[str, _Followed] = {}
        self._stream: asyncio.Task[None] | None = None

    async def pid(self) -> int:
        return os.getpid()

    async def play(self, job: GameJob, plan: TaskPlan) -> TaskOutcome:
        """Play (or resume) one game; the body of every call the driver makes."""
        GAME_HOLDER.set(plan.holder)  # this game's task, and every task it starts
        await self.tracker.started.remote(plan.ident, os.getpid())
        shared = plan.mode == "shared"
        folder = Path(plan.stage) if shared else Path(tempfile.mkdtemp(prefix="sandbox-ray-"))
        folder.mkdir(parents=True, exist_ok=True)
        try:
            partial = partial_in(folder, plan)
            if not shared:
                self._follow(plan.ident, folder, partial)
            try:
                result, resumed = await play_or_resume_async(job, folder, partial)
            finally:
                if not shared:
                    await self._unfollow(plan.ident)
            return outcome_of(job, plan, result, resumed)
        finally:
            if self.limiter is not None:
                await self.limiter.release_holder.remote(plan.holder)
            if not shared:
                shutil.rmtree(folder, ignore_errors=True)

    # ------------------------------------------------------ transcript stream
    def _follow(self, ident: str, folder: Path, partial: Path | None) -> None:
        # The tracker already holds a lost attempt's lines: go on after them.
        offset = partial.stat().st_size if partial is not None else 0
        self._followed[ident] = _Followed(folder, offset)
        if self._stream is None or self._stream.done():
            self._stream = asyncio.get_running_loop().create_task(self._stream_loop())

    async def _stream_loop(self) -> None:
        while self._followed:
            await asyncio.sleep(TAIL_PERIOD_S)
            await self._send(list(self._followed))

    async def _unfollow(self, ident: str) -> None:
        """The game's last lines, then it leaves the stream."""
        try:
            await self._send([ident])
        finally:
            self._followed.pop(ident, None)

    async def _send(self, idents: list[str]) -> None:
        chunks: dict[str, tuple[str, bytes]] = {}
        for ident in idents:
            followed = self._followed.get(ident)
            taken = followed.take() if followed is not None else None
            if taken is not None:
                chunks[ident] = taken
        if chunks:
            # Calls from one caller to the tracker run in the order they are
            # made, so each game's chunks arrive in order.
            await self.tracker.append_many.remote(chunks)


async def play_or_resume_async(
    job: GameJob, folder: Path, partial: Path | None
) -> tuple[GameResult, bool]:
    """ray_task's ``_play_or_resume`` as a coroutine (cancelling it leaves the
    transcript resumable, reported as interrupted)."""
    attempt = attempt_of(job, folder, partial)
    if isinstance(attempt, Path):
        return result_of_file(job, attempt), True
    return await play_one_async(attempt), attempt.resume is not None
