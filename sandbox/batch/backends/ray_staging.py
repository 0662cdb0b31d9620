"""Where a Ray game's transcript waits between attempts, seen from the driver:
the game's staging folder on shared storage (``shared`` mode) or the lines the
tracker holds (``send`` mode). A transcript left unfinished in ``--out`` is
handed over to that place before its game starts again, and what a game left
there is salvaged back into ``--out`` when it cannot be finished."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path
from typing import Any

from sandbox.batch.backends.ray_cluster import ray_module
from sandbox.batch.jobs import GameJob
from sandbox.transcript.files import SUFFIX

STAGING = ".ray-staging"


def game_ident(job: GameJob) -> str:
    """A job's name for folders and actors: its key if it has one, else its seed."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", job.key or f"s{job.seed}")


def stage_of(job: GameJob) -> Path:
    """The game's staging folder under ``--out`` (used in ``shared`` mode)."""
    return Path(job.out) / STAGING / game_ident(job)


def hand_over(job: GameJob, mode: str, tracker: Any) -> GameJob:
    """An interrupted transcript in --out becomes the game's partial: moved into
    its staging folder (shared) or given to the tracker (send); the finished
    file comes back under the same name."""
    ray = ray_module()

    ident = game_ident(job)
    path = Path(str(job.resume))
    if mode == "shared":
        stage = stage_of(job)
        stage.mkdir(parents=True, exist_ok=True)
        os.replace(path, stage / path.name)
    else:
        ray.get(tracker.forget.remote(ident))
        ray.get(tracker.append.remote(ident, path.name, path.read_bytes()))
    return dataclasses.replace(job, resume=None)


def salvage(job: GameJob, mode: str, tracker: Any) -> str | None:
    """Put what a game left into --out, so ``sandbox resume`` can finish it;
    returns the file's path, or None when no line of it was kept."""
    ray = ray_module()

    ident = game_ident(job)
    if mode == "shared":
        stage = stage_of(job)
        files = sorted(stage.glob(f"*{SUFFIX}"))
        target = Path(job.out) / files[0].name if files else None
        if files and target is not None:
            os.replace(files[0], target)
        shutil.rmtree(stage, ignore_errors=True)
    else:
        partial = ray.get(tracker.partial.remote(ident))
        target = Path(job.out) / partial[0] if partial else None
        if partial and target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(partial[1])
    ray.get(tracker.forget.remote(ident))
    return str(target) if target is not None else None
