"""Command-line options and arguments shared by several commands (the game file,
``--out``, ``--json``, ``--as-seat``; the backend, its cluster-wide limits and
games in flight of ``batch`` and ``study``), the checks they share, and the
command class every command is built with (help without type labels)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from sandbox.batch.policy import LLM_GAMES_IN_FLIGHT
from sandbox.cli.errors import fail, untyped
from sandbox.session.gamefile import LoadedConfig

ConfigArgument = Annotated[Path, typer.Argument(help="game file (TOML)")]
# rich markup would read "[run]" as a style tag and drop it: escape the bracket
OutOption = Annotated[Path | None, typer.Option(help="transcript folder (default: \\[run].out)")]
JsonOption = Annotated[bool, typer.Option("--json", help="print one JSON object only")]
AsSeatOption = Annotated[int | None, typer.Option(help="show only what seat N may see")]

BackendOption = Annotated[str, typer.Option(help="local (this machine) or ray (a Ray cluster)")]
AddressOption = Annotated[
    str | None, typer.Option(help="ray: auto or ray://host:port (default: start Ray here)")
]
TranscriptsOption = Annotated[
    str, typer.Option(help="ray: send (back to this machine) or shared (--out seen by all)")
]
LimitOption = Annotated[
    list[str] | None,
    typer.Option(help="ray: KEY=N calls in flight cluster-wide (KEY: provider or model)"),
]
RpmOption = Annotated[
    list[str] | None, typer.Option(help="ray: KEY=N requests per minute cluster-wide")
]
GamesInFlightOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="games each worker process plays at once (default: "
        f"{LLM_GAMES_IN_FLIGHT} with LLM seats, else 1; local models: 1)",
    ),
]


def out_folder(out: Path | None, loaded: LoadedConfig) -> Path:
    """Where transcripts go: --out, else [run].out; a file there is refused."""
    folder = out or Path(loaded.file.run.out)
    if folder.exists() and not folder.is_dir():
        name = "--out" if out is not None else "[run].out"
        fail(f"{name} must be a folder; {folder} is a file")
    return folder


def check_seat(seat: int | None, count: int) -> None:
    """``--seat``/``--as-seat`` N must be one of the game's seats."""
    if seat is not None and not 1 <= seat <= count:
        fail(f"seat {seat} out of range; this game has seats 1..{count}")


class Command(TyperCommand):
    """Every ``sandbox`` command: its help lists its options without type labels."""

    def get_params(self, ctx: Any) -> list[Any]:
        return untyped(super().get_params(ctx))
