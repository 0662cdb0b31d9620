"""The one progress bar of the long commands (``batch``, ``study``, ``whatif``,
``ablate``): things done of N and the time so far, on stderr, so that stdout
stays the command's result (its table or its JSON)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Bar:
    """A running bar: one step at a time, and lines printed above it."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self._progress = progress
        self._task = task

    def advance(self, description: str | None = None) -> None:
        """One more done; ``description`` replaces the words before the bar."""
        if description is None:
            self._progress.update(self._task, advance=1)
        else:
            self._progress.update(self._task, advance=1, description=description)

    def note(self, line: str) -> None:
        """A line above the bar (a failure as it comes), kept when the bar moves on."""
        self._progress.console.print(line)


@contextmanager
def progress_bar(
    err: Console, description: str, total: int, show: bool, eta: bool = False
) -> Iterator[Bar]:
    """A bar of ``total`` steps on ``err``; nothing drawn unless ``show`` (``--quiet``,
    ``--json``); ``eta``: the time left as well."""
    columns: list[str | ProgressColumn] = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    if eta:
        columns += [TextColumn("eta"), TimeRemainingColumn()]
    progress = Progress(*columns, console=err, disable=not show)
    task = progress.add_task(description, total=total)
    with progress:
        yield Bar(progress, task)
