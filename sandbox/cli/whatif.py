"""``sandbox whatif``: one intervention on a saved game, played K times beside
the control, and its effect with a 95% interval; ``sandbox ablate``: speeches
of a whole study removed or replaced by a pass (docs/studies.md, "What if")."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.analysis.load import load_games
from sandbox.cli.errors import bad_input_is_one_line, fail
from sandbox.cli.interrupts import EXIT_INTERRUPTED
from sandbox.cli.options import JsonOption, check_seat
from sandbox.cli.progress import progress_bar
from sandbox.session.driver import run_sync
from sandbox.study.spec import load_study
from sandbox.what_if import (
    DEFAULT_BRANCHES,
    Intervention,
    WhatIfResult,
    ablation,
    prepare,
    run_whatif,
)

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
        seats = prepared.variant.rules.seat_count(prepared.config)
        for chosen in against or []:
            check_seat(chosen, seats)
        try:
            with progress_bar(err, "branches", 2 * branches, not (quiet or as_json)) as bar:
                result = run_whatif(prepared, branches, out, jobs, against, lambda b: bar.advance())
        except KeyboardInterrupt:
            _interrupted(err)
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
        return
    print_effects(Console(highlight=False), result)


def _interrupted(err: Console) -> NoReturn:
    """Ctrl-C: the branches finished so far are on disk, and a rerun skips them."""
    err.print("interrupted: run the same command again; finished branches are kept")
    raise typer.Exit(EXIT_INTERRUPTED) from None  # no chained KeyboardInterrupt


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


# ------------------------------------------------------------------ ablate


def ablate_cmd(
    study: Annotated[
        Path, typer.Argument(help="a study file (TOML) or the folder of its transcripts")
    ],
    speeches: Annotated[int, typer.Option(min=1, help="speeches to sample")] = 12,
    by: Annotated[str, typer.Option(help="sample evenly by contestant, side, kind or claim")] = (
        "contestant"
    ),
    branches: Annotated[
        int, typer.Option("--branches", "-k", min=2, help="branches per arm and speech")
    ] = 3,
    seed: Annotated[int, typer.Option(help="the sampling seed")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="branch folder (default: <study folder>-ablation)")
    ] = None,
    jobs: JobsOption = 1,
    cost_cap: Annotated[
        float | None, typer.Option(min=0, help="US$ (default: the study file's cost_cap)")
    ] = None,
    limit: Annotated[
        list[str] | None,
        typer.Option(help="PROVIDER=N branches in flight (default: the study's provider_limits)"),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="print the branches, calls and cost; play nothing")
    ] = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Remove sampled speeches of a study, or replace them by a pass, K branches each
    beside the control: the causal effect per contestant and side (resumable)."""
    err = Console(stderr=True, highlight=False)
    with bad_input_is_one_line():
        folder, cap, limits = _study_settings(study, cost_cap, limit)
        games = [g for g in load_games([folder]).games if g.study]
        chosen = ablation.sample(games, speeches, by, seed)
        ablation.check_plan(chosen, speeches)
        plan = ablation.Plan(chosen, ablation.ARMS, branches, out or _default_out(folder))
        cost = ablation.estimate(plan)
        if dry_run:
            _print_estimate(as_json, plan, cost)
            return
        budget = ablation.Budget(cap, limits)
        try:
            with progress_bar(err, "branches", cost["branches"], not (quiet or as_json)) as bar:
                run = run_sync(ablation.play_plan(plan, jobs, budget, lambda *u: bar.advance()))
        except KeyboardInterrupt:
            _interrupted(err)
        results = ablation.summarise(plan, games, seed)
        results.update(played_now=run.played, reused=run.reused, stopped=run.stopped)
        written = ablation.write_results(folder, results)
    if as_json:
        sys.stdout.write(json.dumps(results, ensure_ascii=False) + "\n")
    else:
        print_ablation(Console(highlight=False), results)
        print(f"results in {written}; branch transcripts in {plan.out}")
    if run.stopped:
        err.print(f"stopped scheduling: {escape(run.stopped)}")


def _study_settings(
    study: Path, cost_cap: float | None, limit: list[str] | None
) -> tuple[Path, float | None, dict[str, int]]:
    """The transcript folder, cost cap and provider limits (a study file gives its own)."""
    cap, limits = None, {}
    if study.is_file():
        loaded = load_study(study)
        folder, cap, limits = loaded.out(), loaded.file.cost_cap, dict(loaded.file.provider_limits)
    elif study.is_dir():
        folder = study
    else:
        fail(f"{study}: no such study file or folder")
    for item in limit or []:
        key, _, value = item.partition("=")
        if not key or not value.isdigit() or int(value) < 1:
            fail(f"--limit {item}: give PROVIDER=N with N at least 1")
        limits[key] = int(value)
    return folder, cost_cap if cost_cap is not None else cap, limits


def _default_out(folder: Path) -> Path:
    return folder.parent / f"{folder.name}-ablation"


def _print_estimate(as_json: bool, plan: ablation.Plan, cost: dict[str, Any]) -> None:
    if as_json:
        sys.stdout.write(json.dumps({"dry_run": True, **cost}) + "\n")
        return
    print(
        f"{len(plan.speeches)} speeches × {1 + len(plan.arms)} arms (control, "
        f"{', '.join(plan.arms)}) × {plan.branches} branches = {cost['branches']} branches, "
        f"{cost['to_play']} to play"
    )
    print(
        f"about {cost['calls']} model calls, {cost['tokens_in']} tokens in and "
        f"{cost['tokens_out']} out, ${cost['cost']:.4f} at the models' prices "
        "(the source games' calls after each speech, once per branch)"
    )


SHORT = {
    "votes_for_accused": "votes for accused",
    "votes_against_speaker": "votes vs speaker",
    "speaker_side_won": "side won",
    "p_truth": "p(truth)",
}


def print_ablation(console: Console, results: dict[str, Any]) -> None:
    observed = results.get("observational") or {}
    for arm, per_outcome in (results.get("effects") or {}).items():
        names = list(per_outcome)
        heads = [SHORT.get(n, n) for n in names]
        table = Table("speaker", *heads, "observed Δp", title=f"effect of {arm}")
        groups = sorted({w for o in per_outcome.values() for w in o["by_contestant"]})
        for who in groups:
            cells = [_figure(per_outcome[n]["by_contestant"].get(who)) for n in names]
            table.add_row(escape(who), *cells, _figure(observed.get(who)))
        sides = sorted({s for o in per_outcome.values() for s in o["by_side"]})
        for side in sides:
            cells = [_figure(per_outcome[n]["by_side"].get(side)) for n in names]
            table.add_row(escape(f"side {side}"), *cells, "")
        console.print(table)
    console.print(
        f"{len(results.get('speeches') or [])} speeches, {results.get('branches')} branches per "
        "arm; effect = arm − control per speech, mean per speaker, 95% cluster bootstrap over games"
    )


def _figure(fig: dict[str, Any] | None) -> str:
    if not fig or fig.get("value") is None:
        return "–"
    ci = fig.get("ci95")
    shown = "" if not ci else f" [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    return f"{fig['value']:+.2f}{shown}"
