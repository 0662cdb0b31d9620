"""Command-line options shared by several commands (``batch`` and ``study``): the
backend that plays the games, its cluster-wide limits, and games in flight per worker."""

from __future__ import annotations

from typing import Annotated

import typer

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
        help="games each worker process plays at once (default: 16 with LLM seats, "
        "else 1; local models: 1)",
    ),
]
