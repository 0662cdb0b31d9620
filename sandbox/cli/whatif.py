"""``sandbox whatif``: one intervention on a saved game, played K times beside
the control, and its effect with a 95% interval; ``sandbox ablate``: speeches
of a whole study removed or replaced by a pass (docs/studies.md, "What if")."""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sandbox.cli.errors import bad_input_is_one_line, fail
from sandbox.cli.interrupts import EXIT_INTERRUPTED
from sandbox.cli.options import JsonOption, check_seat
from sandbox.session.whatif import Branch, Intervention, prepare
from sandbox.study.counterfactual import DEFAULT_BRANCHES, WhatIfResult, run_whatif

SeqOption = Annotated[int | None, typer.Option(help="the speech's event seq (sandbox view)")]
BranchesOption = Annotated[
    int, typer.Option("--branches", "-k", min=2, help="branches per arm (branch seeds 1..K)")
]
JobsOption = Annotated[int, typer.Option(min=1, help="branches played at once")]
QuietOption = Annotated[bool, typer.Option(help="no progress bar")]


def whatif_cmd(
    transcript: Annotated[Path, typer.Argument(help="the saved game (.jsonl)")],
    at: Annotated[
        int | None,
        typer.Option(help="branch at event N (default: the step after the changed event)"),
    ] = None,
    remove_speech: SeqOption = None,
    replace_speech: SeqOption = None,
    text: Annotated[str | None, typer.Option(help="--replace-speech: the new text")] = None,
    claims: Annotated[
        str | None,
        typer.Option(help="--replace-speech: claims as JSON, e.g. '{\"accuse\": [3]}'"),
    ] = None,
    pass_speech: SeqOption = None,
    change_decision: Annotated[
        int | None, typer.Option(help="a core.decision event's seq (with --answer)")
    ] = None,
    answer: Annotated[
        str | None, typer.Option(help="--change-decision: fields as JSON, e.g. '{\"target\": 4}'")
    ] = None,
    seat: Annotated[int | None, typer.Option(help="replace this seat's agent from --at on")] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            help='--seat: the agent, as JSON or TOML: \'kind="llm", model="fake/reactive"\''
        ),
    ] = None,
    branches: BranchesOption = DEFAULT_BRANCHES,
    against: Annotated[
        list[int] | None,
        typer.Option(help="count the next vote's ballots against this seat (repeatable)"),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="folder of the branch transcripts")] = None,
    jobs: JobsOption = 1,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Play an intervention (remove or replace a speech, change a decision, replace a
    seat's agent) and the control K times each from event N; print the effect."""
    intervention = _intervention(
        remove_speech,
        replace_speech,
        text,
        claims,
        pass_speech,
        change_decision,
        answer,
        seat,
        agent,
    )
    err = Console(stderr=True, highlight=False)
    with bad_input_is_one_line():
        if not transcript.is_file():
            fail(f"{transcript}: no such file")
        prepared = prepare(transcript, intervention, at)
        seats = prepared.variant.seat_count(prepared.config)
        for chosen in against or []:
            check_seat(chosen, seats)
        try:
            with _progress(err, 2 * branches, show=not (quiet or as_json)) as on_branch:
                result = run_whatif(prepared, branches, out, jobs, against, on_branch)
        except KeyboardInterrupt:
            err.print("interrupted: run the same command again; finished branches are kept")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
        return
    print_effects(Console(highlight=False), result)


def _intervention(
    remove_speech: int | None,
    replace_speech: int | None,
    text: str | None,
    claims: str | None,
    pass_speech: int | None,
    change_decision: int | None,
    answer: str | None,
    seat: int | None,
    agent: str | None,
) -> Intervention:
    given = {
        "--remove-speech": remove_speech,
        "--replace-speech": replace_speech,
        "--pass-speech": pass_speech,
        "--change-decision": change_decision,
        "--seat": seat,
    }
    chosen = [name for name, value in given.items() if value is not None]
    if len(chosen) != 1:
        names = ", ".join(given)
        fail(
            f"give exactly one intervention: {names}"
            + (f" (got {', '.join(chosen)})" if chosen else "")
        )
    if remove_speech is not None:
        return Intervention("remove_speech", seq=remove_speech)
    if pass_speech is not None:
        return Intervention("pass_speech", seq=pass_speech)
    if replace_speech is not None:
        fields = _json_object("--claims", claims) if claims else {}
        if text is not None:
            fields["text"] = text
        if not fields:
            fail("--replace-speech needs --text and/or --claims")
        return Intervention("replace_speech", seq=replace_speech, fields=fields)
    if change_decision is not None:
        if answer is None:
            fail("--change-decision needs --answer (the new fields as JSON)")
        return Intervention(
            "change_decision", seq=change_decision, fields=_json_object("--answer", answer)
        )
    if agent is None:
        fail("--seat needs --agent (the new agent's table)")
    return Intervention("replace_agent", seat=seat, agent=_agent_table(agent))


def _json_object(option: str, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as err:
        fail(f"{option}: not JSON ({err})")
    if not isinstance(value, dict):
        fail(f"{option}: a JSON object is needed, e.g. '{{\"accuse\": [3]}}'")
    return value


def _agent_table(text: str) -> dict[str, Any]:
    """An agent table written as JSON or as the inside of a TOML inline table."""
    try:
        value = json.loads(text)
        if isinstance(value, dict):
            return value
    except ValueError:
        pass
    try:
        return dict(tomllib.loads(f"agent = {{{text}}}")["agent"])
    except tomllib.TOMLDecodeError as err:
        fail(f"--agent: neither JSON nor a TOML table ({err})")


@contextmanager
def _progress(err: Console, total: int, show: bool) -> Iterator[Callable[[Branch], None]]:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not show,
    )
    task = progress.add_task("branches", total=total)

    def on_branch(branch: Branch) -> None:
        progress.update(task, advance=1)

    with progress:
        yield on_branch


def print_effects(console: Console, result: WhatIfResult) -> None:
    ivn = result.intervention
    title = f"effect of {ivn.kind} at event {result.at}"
    table = Table("outcome", "control", "changed", "effect [95% CI]", title=title)
    for row in result.effects:
        ci = row["ci95"]
        shown = "" if ci is None else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]"
        mark = " *" if row["excludes_zero"] else ""
        table.add_row(
            escape(row["outcome"]),
            _num(row["control"]),
            _num(row["treated"]),
            _num(row["effect"], signed=True) + shown + mark,
        )
    console.print(table)
    count = result.to_json()["branches"]
    console.print(
        f"{count} branches per arm; * the interval excludes 0. Intervals: a win by "
        "Newcombe's difference of Wilson intervals, the rest by a bootstrap over branches."
    )
    console.print(f"transcripts in {escape(str(result.out))}")


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"
