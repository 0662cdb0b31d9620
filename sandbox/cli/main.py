"""The ``sandbox`` command line. See docs/cli.md.

Every bad input (missing file, invalid config, not a transcript, unknown
variant, seat out of range) ends with one line ``error: ...`` on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.status import Status
from rich.table import Table
from typer.core import TyperGroup

from sandbox.agents.base import AgentSetupError
from sandbox.agents.simple import ScriptError
from sandbox.analysis.stats import BOOTSTRAP_SEED, gather, summarise
from sandbox.batch.backends import Backend, BackendError, backend_notes, start_backend
from sandbox.batch.jobs import BatchResult, GameResult
from sandbox.batch.run import (
    BatchOptionError,
    agent_specs,
    first_seed,
    in_flight_for,
    jobs_for,
    run_batch,
    seats_a_human,
    skip_done,
    summary_of,
    uses_local_model,
    win_counts,
    worker_count,
)
from sandbox.cli.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    bad_input_is_one_line,
    fail,
)
from sandbox.cli.options import (
    AddressOption,
    BackendOption,
    GamesInFlightOption,
    LimitOption,
    RpmOption,
    TranscriptsOption,
)
from sandbox.core.errors import ConfigError
from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.games.registry import get_variant
from sandbox.games.words import LANGUAGES
from sandbox.play import (
    GameRecord,
    LiveHooks,
    SessionError,
    fork,
    game_config_of,
    loaded_of,
    open_transcript,
    play_series,
    random_seed,
    replay_transcript,
    resume,
)
from sandbox.play.gamefile import (
    AgentSpec,
    HumanSpec,
    LLMSpec,
    LoadedConfig,
    ScriptedSpec,
    check_setup,
    config_warnings,
    load_config,
    non_default_rules,
    uses_llm,
)
from sandbox.transcript import Transcript
from sandbox.viewer.site import game_page, game_row, transcripts_in, write_site
from sandbox.viewer.terminal import Filters, LiveRenderer, print_timeline
from sandbox.viewer.timeline import build_timeline, seat_numbers

# A batch's games are listed up front; a million is a large study, a billion a typo.
MAX_GAMES = 1_000_000



class OneLineErrors(TyperGroup):
    """Parameter errors found by click (``--series 0``, ``--seat abc``, a missing
    argument) end like every other bad input: one ``error:`` line, exit code 2,
    instead of typer's usage text and boxed panel."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.TyperException as err:  # typer's (vendored) click errors
            # typer has already printed the help text for a bare `sandbox`
            if type(err).__name__ != "NoArgsIsHelpError":
                print(f"error: {_one_line(err.format_message())}{_hint(err)}", file=sys.stderr)
            code = EXIT_BAD_INPUT
        except typer.Abort:
            print("aborted.", file=sys.stderr)
            code = 1
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


def _hint(err: Exception) -> str:
    ctx = getattr(err, "ctx", None)
    return f" (see '{ctx.command_path} --help')" if ctx is not None else ""


def _one_line(message: str) -> str:
    return " ".join(message.split()) or "unknown error"


app = typer.Typer(
    name="sandbox",
    help="Social-deduction games played by LLM agents: run, watch, replay, study.",
    cls=OneLineErrors,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


# ------------------------------------------------------------------- run


class Display:
    """Live output of a run: a readable stream of events, or a progress line."""

    def __init__(
        self,
        console: Console,
        status_console: Console,
        seat: int | None,
        live: bool,
        progress_line: bool = False,
    ) -> None:
        self.console = console
        self.status_console = status_console
        self.renderer = LiveRenderer(console, seat) if live else None
        self.status: Status | None = None if live else Status("", console=status_console)
        # A spinner draws nothing where stderr is no terminal (a log, a pipe): there
        # the progress shows as one line per finished game instead.
        self.progress_line = progress_line and not live and not status_console.is_terminal
        self.current: Path | None = None
        self.label = ""
        self.progress = ""

    def hooks(self, label: str) -> LiveHooks:
        self.label = label
        return LiveHooks(on_start=self._start, on_event=self._event)

    def _start(self, game: Game, path: Path) -> None:
        self.current = path
        if self.renderer is not None:
            self.console.rule(f"{escape(self.label)} · {escape(path.name)}")
        elif self.status is not None:
            self.status.start()

    def _event(self, game: Game, seq: int, event: Event) -> None:
        if self.renderer is not None:
            self.renderer.on_event(game, seq, event)
        elif self.status is not None:
            self.progress = f"{self.label}: step {game.step}, {seq + 1} events"
            self.status.update(self.progress)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()

    def game_done(self, record: GameRecord) -> None:
        self.stop()
        self.current = None  # finished: nothing to resume or to call partial
        if self.progress_line:
            self.status_console.print(f"{self.progress} · finished")


def _consoles(as_json: bool) -> tuple[Console, Console]:
    err = Console(stderr=True, highlight=False)
    return (err if as_json else Console(highlight=False)), err


def _live_seat(loaded: LoadedConfig, as_seat: int | None, err: Console) -> tuple[bool, int | None]:
    """Whether to stream events, and as whom. With a human at the table the referee's
    view would spoil the game, so only the human's own prompts are shown."""
    humans = [s for s in loaded.file.agent if s.kind == "human"]
    if as_seat is None and (humans or loaded.file.default_agent.kind == "human"):
        err.print("[dim]A human plays here: the referee's view is hidden (use --as-seat).")
        return False, None
    return True, as_seat


def _check_seat(seat: int | None, count: int) -> None:
    if seat is not None and not 1 <= seat <= count:
        fail(f"seat {seat} out of range; this game has seats 1..{count}")


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="game file (TOML)")],
    seed: Annotated[
        int | None, typer.Option(min=0, help="seed >= 0 (default: config's, else random)")
    ] = None,
    # rich markup would read "[run]" as a style tag and drop it: escape the bracket
    out: Annotated[
        Path | None, typer.Option(help="transcript folder (default: \\[run].out)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object only")] = False,
    series: Annotated[int | None, typer.Option(min=1, help="consecutive games")] = None,
    quiet: Annotated[bool, typer.Option(help="no live event stream, a progress line")] = False,
    as_seat: Annotated[int | None, typer.Option(help="show only what seat N may see")] = None,
    host_panel: Annotated[
        bool, typer.Option(help="a host page: hand seats to people and back, spectator links")
    ] = False,
    host: Annotated[
        str, typer.Option(help="address the web pages listen on (not loopback: a warning)")
    ] = "127.0.0.1",
    watch: Annotated[
        list[str] | None, typer.Option(help="a spectator page of seat N or 'referee' (repeat)")
    ] = None,
    pace: Annotated[
        float, typer.Option(min=0, max=60, help="with --host-panel: seconds before each AI answer")
    ] = 0.0,
) -> None:
    """Play a game (or a series) and write its transcript."""
    with bad_input_is_one_line():
        loaded = load_config(config)
        _check_seat(as_seat, loaded.variant.seat_count(loaded.game_config))
        chosen = seed if seed is not None else loaded.file.seed
        seed_used = chosen if chosen is not None else random_seed()
        count = series or loaded.file.run.series
        console, err = _consoles(as_json)
        for warning in config_warnings(loaded.file):
            err.print(f"warning: {escape(warning)}")
        if chosen is None:
            err.print(f"seed: {seed_used} (random)")
        live, seat = _live_seat(loaded, as_seat, err)
        display = Display(console, err, seat, live and not (quiet or as_json), quiet)
        if _terminal_human(loaded):
            display.status = None  # no spinner over what the person types
        folder = out_folder(out, loaded)
        web = _web_run(loaded, host_panel, host, watch or [], pace)
        try:
            records = _play(loaded, seed_used, count, folder, display, web)
            if web is not None:
                web.wait_for_end_screens()
        finally:
            if web is not None:
                web.stop()
        _report(records, console, as_json)


def _terminal_human(loaded: LoadedConfig) -> bool:
    specs = [loaded.file.default_agent, *loaded.file.agent]
    return any(s.kind == "human" and s.interface == "terminal" for s in specs)


def _web_run(
    loaded: LoadedConfig, host_panel: bool, host: str, watch: list[str], pace: float
) -> Any:
    """The run's web pages (seats, host panel, spectators), when it has any."""
    specs = [loaded.file.default_agent, *loaded.file.agent]
    browser = any(isinstance(s, HumanSpec) and s.interface == "browser" for s in specs)
    if not (host_panel or watch or browser):
        return None
    seats = loaded.variant.seat_count(loaded.game_config)
    for target in watch:
        if target != "referee" and not (target.isdigit() and 1 <= int(target) <= seats):
            fail(f"--watch {target}: give a seat number 1..{seats} or 'referee'")
    web = importlib.import_module("sandbox.web.run")  # uvicorn only when needed
    humans = any(s.kind == "human" for s in specs)
    if "referee" in watch and humans:
        print("warning: --watch referee shows everything to spectators while a person "
              "plays; do not let them help", file=sys.stderr)  # fmt: skip
    run = web.start_run(web.WebRun(host=host, host_panel=host_panel, watch=watch, pace_s=pace))
    if host_panel:
        run.panel()
    return run


def out_folder(out: Path | None, loaded: LoadedConfig) -> Path:
    """Where transcripts go: --out, else [run].out; a file there is refused."""
    folder = out or Path(loaded.file.run.out)
    if folder.exists() and not folder.is_dir():
        name = "--out" if out is not None else "[run].out"
        fail(f"{name} must be a folder; {folder} is a file")
    return folder


def _play(
    loaded: LoadedConfig, seed: int, count: int, out: Path, display: Display, web: Any = None
) -> list[GameRecord]:
    label = f"{loaded.variant.name} seed {seed}"
    hooks = display.hooks(label) if web is None else web.hooks(display.hooks(label))
    try:
        return play_series(
            loaded,
            seed,
            count,
            out,
            hooks=hooks,
            on_game_done=display.game_done,
        )
    except KeyboardInterrupt:
        display.stop()
        _interrupted(display.current)
    except STOPPING_ERRORS as err:
        display.stop()
        _stopped(err, display.current)
    finally:
        display.stop()


# Errors that stop a game already under way (a broken script, an agent that
# cannot be set up for the next game of a series).
STOPPING_ERRORS = (ConfigError, SessionError, AgentSetupError, ScriptError)


def _stopped(err: Exception, path: Path | None) -> NoReturn:
    """One error line; a transcript already begun is named (it is left unfinished)."""
    partial = f" (the unfinished transcript is {path})" if path is not None else ""
    fail(f"{_one_line(str(err))}{partial}")


def _interrupted(path: Path | None) -> NoReturn:
    print("interrupted.", file=sys.stderr)
    if path is not None:
        print(f"resume with: sandbox resume {path}", file=sys.stderr)
    raise typer.Exit(EXIT_INTERRUPTED)


def _report(records: list[GameRecord], console: Console, as_json: bool) -> None:
    if as_json:
        games = [r.to_json() for r in records]
        obj: dict[str, Any] = games[0] if len(games) == 1 else {"games": games}
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        return
    for record in records:
        _print_record(console, record)


def _print_record(console: Console, record: GameRecord) -> None:
    outcome = record.outcome
    if outcome is not None:
        console.print(f"[bold green]{escape(outcome.summary)}[/bold green] ({outcome.reason})")
    table = Table("seat", "role", "result")
    for seat, role in sorted(record.roles.items()):
        table.add_row(str(seat), role, outcome.results.get(seat, "-") if outcome else "-")
    console.print(table)
    stats = record.stats
    console.print(
        f"decisions {stats.decisions} · fallbacks {stats.fallback_count()} · "
        f"calls {stats.calls} · tokens {stats.tokens_in}/{stats.tokens_out} · "
        f"cost ${stats.cost:.4f}"
    )
    console.print(f"transcript: {record.path}")


# ----------------------------------------------------------------- batch


@app.command()
def batch(
    config: Annotated[Path, typer.Argument(help="game file (TOML)")],
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="number of independent games")
    ],
    seed: Annotated[
        int | None, typer.Option(min=0, help="first seed (default: config's, else 0)")
    ] = None,
    jobs: Annotated[int, typer.Option(min=0, help="worker processes (0 = one per CPU)")] = 1,
    out: Annotated[
        Path | None, typer.Option(help="transcript folder (default: \\[run].out)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object only")] = False,
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
) -> None:
    """Play N independent games with seeds S..S+N-1, in parallel if asked; summarise."""
    err = Console(stderr=True, highlight=False)
    with bad_input_is_one_line():
        loaded = load_config(config)
        if seats_a_human(loaded):
            fail("a batch cannot seat humans; use 'sandbox run' to play")
        target = out_folder(out, loaded)
        target.mkdir(parents=True, exist_ok=True)
    try:
        in_flight = in_flight_for(agent_specs(loaded), games_in_flight, backend)
    except BatchOptionError as error:
        fail(str(error))
    start = first_seed(loaded, seed)
    seeds = list(range(start, start + games))
    workers = worker_count(jobs)
    if workers > 1 and uses_local_model(loaded) and backend == "local":
        err.print("note: a local model already keeps the cores busy; playing with --jobs 1")
        workers = 1
    # Games already finished in this folder are skipped; interrupted ones are finished.
    work, done = skip_done(jobs_for(loaded, seeds, target), target)
    if done and not as_json:
        err.print(f"{len(done)} of {games} games already played in {target}; skipping them")
    chosen = _start_backend(backend, jobs, address, transcripts, limit, rpm, max_cost)
    with _batch_progress(err, len(work), show=not (as_json or quiet)) as on_result:
        if chosen is None:  # the local backend
            result = run_batch(work, workers, on_result, in_flight=in_flight)
        else:
            result = chosen.run(work, on_result)
            chosen.close()
            for line in backend_notes(chosen):
                err.print(escape(line))
    result.skipped = done
    _batch_report(result, config, seeds, as_json)
    if not as_json:
        finished = len(result.finished) + len(done)
        print(f"{finished} of {games} games finished; transcripts in {target}")
    _batch_exit(result, games, err)


def _start_backend(
    name: str,
    workers: int,
    address: str | None,
    transcripts: str,
    limit: list[str] | None,
    rpm: list[str] | None,
    max_cost: float | None,
) -> Backend | None:
    """The chosen backend, started, or None for the local one; bad choices are one line."""
    try:
        return start_backend(
            name, workers, address, transcripts, limit or [], rpm or [], max_cost
        )
    except BackendError as err:
        fail(str(err))


@contextmanager
def _batch_progress(err: Console, total: int, show: bool) -> Iterator[Callable[[GameResult], None]]:
    """A progress bar (games done / N and the wins so far), and failures as they come."""
    done: list[GameResult] = []
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not show,
    )
    task = progress.add_task("games", total=total)

    def on_result(result: GameResult) -> None:
        done.append(result)
        if result.error is not None:
            progress.console.print(f"game seed {result.seed} failed: {escape(result.error)}")
        wins = ", ".join(f"{k} {v}" for k, v in sorted(win_counts(done).items()))
        progress.update(task, advance=1, description=f"games · wins: {wins or '-'}")

    with progress:
        yield on_result


def _batch_report(result: BatchResult, config: Path, seeds: list[int], as_json: bool) -> None:
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
            _print_variant_stats(console, name, figures)
        for failed in result.failed:
            console.print(f"[red]failed[/red] seed {failed.seed}: {escape(failed.error or '')}")


def _batch_exit(result: BatchResult, total: int, err: Console) -> None:
    if result.interrupted:
        finished = len(result.finished) + len(result.skipped)
        err.print(f"interrupted: {finished} of {total} games finished.")
        err.print("run the same command again to finish the batch (played games are skipped)")
        raise typer.Exit(EXIT_INTERRUPTED)
    if result.failed:
        err.print(f"{len(result.failed)} of {total} games failed.")
        raise typer.Exit(1)


# ------------------------------------------------------- rules / validate


@app.command()
def rules(
    variant: Annotated[str, typer.Argument(help="four_factions or killer")],
    config: Annotated[Path | None, typer.Option(help="game file whose rulings to apply")] = None,
    language: Annotated[str, typer.Option(help="en or zh")] = "en",
) -> None:
    """Print the rules with the active rulings."""
    with bad_input_is_one_line():
        if language not in ("en", "zh"):
            fail(f"--language: '{language}' is not supported; allowed: en, zh")
        game = get_variant(variant)
        game_config = game.parse_config({})
        if config is not None:
            loaded = load_config(config)
            if loaded.variant.name != game.name:
                fail(f"{config} plays '{loaded.variant.name}', not '{game.name}'")
            game_config = loaded.game_config
        print(game.rules_text(game_config, language=language))


@app.command()
def validate(config: Annotated[Path, typer.Argument(help="game file (TOML)")]) -> None:
    """Check a game file and summarise it."""
    with bad_input_is_one_line():
        loaded = load_config(config)
        check_setup(loaded)  # everything `run` checks before its first event
        seats = loaded.variant.seat_count(loaded.game_config)
        print(f"ok: {config}")
        print(f"variant: {loaded.variant.name} ({loaded.variant.title}), seats: {seats}")
        print(f"seed: {loaded.file.seed if loaded.file.seed is not None else 'random'}")
        print(f"rules: {_rules_summary(loaded)}")
        print(f"default agent: {agent_summary(loaded.file.default_agent)}")
        for spec in loaded.file.agent:
            print(f"  {_selector(spec)}: {agent_summary(spec)}")
        if uses_llm(loaded.file):
            print("llm: " + ", ".join(f"{k}={v}" for k, v in _llm_settings(loaded).items()))
        run = loaded.file.run
        print(f"run: out={run.out}, series={run.series}, abort_share={run.abort_share}")
        for warning in config_warnings(loaded.file):
            print(f"warning: {warning}", file=sys.stderr)


def _selector(spec: AgentSpec) -> str:
    if spec.seats is not None:
        return "seats " + ", ".join(str(s) for s in spec.seats)
    return f"role '{spec.role}'"


def agent_summary(spec: AgentSpec) -> str:
    """The kind and what matters for it: the model of an llm seat, the interface of
    a human, the script length of a scripted seat."""
    if isinstance(spec, LLMSpec):
        return f"llm ({spec.model})"
    if isinstance(spec, HumanSpec):
        port = f", port {spec.port}" if spec.interface == "browser" and spec.port else ""
        return f"human ({spec.interface}{port})"
    if isinstance(spec, ScriptedSpec):
        skip = ", skip_unlisted" if spec.skip_unlisted else ""
        return f"scripted ({len(spec.decisions)} decisions, then {spec.then}{skip})"
    return spec.kind


def _rules_summary(loaded: LoadedConfig) -> str:
    changed = non_default_rules(loaded.variant, loaded.game_config)
    fixed = f"; {len(loaded.file.seat)} fixed seat(s)" if loaded.file.seat else ""
    if not changed:
        return f"defaults{fixed}"
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in changed.items())
    return f"{shown} (others default){fixed}"


def _llm_settings(loaded: LoadedConfig) -> dict[str, Any]:
    llm = loaded.file.llm
    return {
        "language": llm.language,
        "belief_probe": str(llm.belief_probe).lower(),
        "probe_after_speech": str(llm.probe_after_speech).lower(),
        "max_repairs": llm.max_repairs,
        "prompt_style": llm.prompt_style,
        "concurrency": llm.concurrency,
    }


# ------------------------------------------------------------------- view


@app.command()
def view(
    transcript: Annotated[Path, typer.Argument(help="a .jsonl transcript, or a folder of them")],
    seat: Annotated[int | None, typer.Option(help="only what seat N may see")] = None,
    html: Annotated[
        Path | None,
        typer.Option(help="write the interactive page (for a folder: a folder with an index)"),
    ] = None,
    day: Annotated[int | None, typer.Option(help="only the lines of day N")] = None,
    grep: Annotated[str | None, typer.Option(help="only the lines containing this text")] = None,
    calls: Annotated[bool, typer.Option(help="print each model call in full (referee)")] = False,
    language: Annotated[
        str | None, typer.Option(help="en or zh (default: the game's prompt language)")
    ] = None,
) -> None:
    """Show a saved game (as the referee or as one seat), or index a folder of games."""
    with bad_input_is_one_line():
        if language is not None and language not in LANGUAGES:
            fail(f"--language {language!r}: choose one of {', '.join(LANGUAGES)}")
        if transcript.is_dir():
            _view_folder(transcript, html, language, seat, day, grep, calls)
            return
        loaded = open_transcript(transcript)
        _check_seat(seat, len(seat_numbers(loaded)))
        if calls and seat is not None:
            fail("--calls shows the referee's model calls; it cannot be combined with --seat")
        if html is not None:
            if day is not None or grep is not None or calls:
                fail("--day, --grep and --calls filter the terminal view; the page has its own")
            html.write_text(game_page(loaded, seat, language, str(transcript)), encoding="utf-8")
            print(f"wrote {html}")
            return
        timeline = build_timeline(loaded, seat, language)
        print_timeline(Console(highlight=False), timeline, Filters(day, grep, calls))


def _view_folder(
    folder: Path,
    html: Path | None,
    language: str | None,
    seat: int | None,
    day: int | None,
    grep: str | None,
    calls: bool,
) -> None:
    """A folder: its index page and one page per game, or a table of its games."""
    if seat is not None or day is not None or grep is not None or calls:
        fail(
            f"{folder}: a folder is indexed as a whole; --seat, --day, --grep and --calls "
            "take one transcript"
        )
    if html is None:
        _print_games(folder)
        return
    if html.exists() and not html.is_dir():
        fail(f"{html}: for a folder of games --html names a folder (it gets index.html)")
    count, skipped = write_site(folder, html, language)
    if count == 0:
        fail(f"{folder}: is a directory with no readable transcript (.jsonl) in it")
    note = f", {plural(len(skipped), 'file')} skipped" if skipped else ""
    print(f"wrote {html / 'index.html'} ({plural(count, 'game')}{note})")


def _print_games(folder: Path) -> None:
    rows = []
    for path in transcripts_in(folder):
        try:
            loaded = open_transcript(path)
        except SessionError:
            continue
        rows.append(game_row(loaded, str(path.relative_to(folder)), ""))
    if not rows:
        fail(f"{folder}: is a directory with no readable transcript (.jsonl) in it")
    table = Table("game", "variant", "seed", "players / models", "outcome", "events", "cost ($)")
    for row in rows:
        cells = (row.name, row.variant, row.seed, row.players, row.outcome, str(row.events))
        table.add_row(*(escape(c) for c in cells), row.cost)
    Console(highlight=False).print(table)


# ------------------------------------------------- replay / resume / fork


@app.command("replay")
def replay_cmd(transcript: Annotated[Path, typer.Argument(help="a .jsonl transcript")]) -> None:
    """Re-referee a transcript from its seed, config and decisions; compare every event."""
    with bad_input_is_one_line():
        recorded = open_transcript(transcript)
        divergence = replay_transcript(recorded)
    if divergence is not None:
        print(f"DIVERGED at {divergence}")
        raise typer.Exit(1)
    if not recorded.finished:
        count = len(recorded.events)
        print(f"OK (unfinished: {count} events, no outcome): every recorded event is identical")
        return
    print("OK: every event is identical")


@app.command("resume")
def resume_cmd(
    transcript: Annotated[Path, typer.Argument(help="an unfinished transcript")],
    quiet: Annotated[bool, typer.Option(help="no live event stream")] = False,
    as_seat: Annotated[int | None, typer.Option(help="show only what seat N may see")] = None,
) -> None:
    """Finish an interrupted game, appending to the same file."""
    console, err = _consoles(False)
    with bad_input_is_one_line():
        recorded = open_transcript(transcript)
        display = _seat_display(loaded_of(recorded), recorded, as_seat, quiet, console, err)
        try:
            record = resume(transcript, display.hooks("resumed"))
        except KeyboardInterrupt:
            display.stop()
            _interrupted(transcript)
        _print_record(console, record)


@app.command("fork")
def fork_cmd(
    transcript: Annotated[Path, typer.Argument(help="the game to branch from")],
    at: Annotated[int, typer.Option(help="keep events [0, N); N must be a step boundary")],
    config: Annotated[
        Path | None,
        typer.Option(help="game file with the new agents (default: the transcript's own)"),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="folder of the new transcript")] = None,
    quiet: Annotated[bool, typer.Option(help="no live event stream")] = False,
    as_seat: Annotated[int | None, typer.Option(help="show only what seat N may see")] = None,
) -> None:
    """Branch a game at event N and continue with other agents."""
    console, err = _consoles(False)
    with bad_input_is_one_line():
        other = load_config(config) if config is not None else None
        recorded = open_transcript(transcript)
        playing = other or loaded_of(recorded)
        folder = out_folder(out, playing)
        display = _seat_display(playing, recorded, as_seat, quiet, console, err)
        try:
            record = fork(transcript, at, other, folder, display.hooks(f"fork at {at}"))
        except KeyboardInterrupt:
            display.stop()
            _interrupted(display.current)
        except STOPPING_ERRORS as error:
            display.stop()
            _stopped(error, display.current)
        _print_record(console, record)


def _seat_display(
    loaded: LoadedConfig,
    recorded: Transcript,
    as_seat: int | None,
    quiet: bool,
    console: Console,
    err: Console,
) -> Display:
    """The live display of a continued game, under the same rules as ``run``: the
    seat is range-checked and a human at the table never sees the referee's view."""
    variant, game_config = game_config_of(recorded)
    _check_seat(as_seat, variant.seat_count(game_config))
    live, seat = _live_seat(loaded, as_seat, err)
    return Display(console, err, seat, live and not quiet)


# ------------------------------------------------------------------ stats


@app.command("stats")
def stats_cmd(
    paths: Annotated[list[Path], typer.Argument(help="transcript files or folders")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    seed: Annotated[int, typer.Option(help="bootstrap seed")] = 20240601,
    include_aborted: Annotated[
        bool, typer.Option(help="count aborted games (all draw) in the win/lose/draw rates")
    ] = False,
    beliefs: Annotated[
        bool, typer.Option("--beliefs", help="accuracy of the LLM seats' belief probes")
    ] = False,
    by_setup: Annotated[
        bool, typer.Option("--by-setup", help="one table per game file name and player count")
    ] = False,
) -> None:
    """Win rates (with 95% CIs) by role and by contestant/model, reasons, fallbacks and
    usage over many games; each game counted once."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"{missing[0]}: no such file or folder")
    per_variant, skipped = gather(paths, beliefs, by_setup)
    if not per_variant:
        _nothing_read(paths, skipped)
    summary = summarise(per_variant, seed, include_aborted, beliefs)
    if as_json:
        obj = {"variants": summary, "skipped": [{"path": p, "why": w} for p, w in skipped]}
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        return
    console = Console(highlight=False)
    for name, figures in summary.items():
        _print_variant_stats(console, name, figures)
        if beliefs:
            print_belief_stats(console, figures["beliefs"])
    for path, why in skipped:
        console.print(f"[yellow]skipped[/yellow] {escape(path)}: {escape(why)}")


def _nothing_read(paths: list[Path], skipped: list[tuple[str, str]]) -> NoReturn:
    if not skipped:
        fail(f"no transcripts (*.jsonl) found in {', '.join(str(p) for p in paths)}")
    path, why = skipped[0]
    more = f" (+{len(skipped) - 1} more unreadable)" if len(skipped) > 1 else ""
    fail(f"no readable transcript; {path}: {why}{more}")


def _print_variant_stats(console: Console, name: str, figures: dict[str, Any]) -> None:
    console.rule(f"[bold]{escape(name)}[/bold] · {plural(figures['games'], 'game')}")
    if figures.get("pooling_warning"):
        console.print(f"[yellow]warning:[/yellow] {escape(figures['pooling_warning'])}")
    if figures.get("duplicates"):
        console.print(f"duplicate copies of a game (counted once): {figures['duplicates']}")
    if figures["unfinished"]:
        console.print(f"unfinished (left out): {figures['unfinished']}")
    if figures["rated"] < figures["games"]:
        left_out = figures["games"] - figures["rated"]
        console.print(f"aborted (left out of the rates; --include-aborted): {left_out}")
    console.print("reasons: " + ", ".join(f"{k} {v}" for k, v in figures["reasons"].items()))
    table = Table("role", "seats", "win", "lose", "draw")
    for role, results in figures["roles"].items():
        cells = [_rate(results[r]) for r in ("win", "lose", "draw")]
        table.add_row(role, str(results["win"]["seats"]), *cells)
    console.print(table)
    _print_by_contestant(console, figures.get("by_contestant") or {})
    fallbacks = ", ".join(f"{k} {v}" for k, v in figures["fallbacks"].items()) or "none"
    console.print(f"fallbacks (seat kind/reason): {fallbacks}")
    console.print(
        f"repairs {figures['repairs']} · calls {figures['calls']} · tokens "
        f"{figures['tokens_in']}/{figures['tokens_out']} · cost ${figures['cost']:.4f}"
        f" · latency {latency_text(figures['latency_s'])}"
    )


def _print_by_contestant(console: Console, figures: dict[str, Any]) -> None:
    """Win rate per contestant (a study's name, else the model or agent kind) and side."""
    sides = sorted({side for cells in figures.values() for side in cells})
    table = Table("contestant / model", *sides, title="win rate by contestant (95% Wilson)")
    for who, cells in figures.items():
        row = [_contestant_cell(cells.get(side)) for side in sides]
        table.add_row(escape(who), *row)
    console.print(table)


def _contestant_cell(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "-"
    return f"{_rate(cell)} ({cell['wins']}/{cell['games']})"


def print_belief_stats(console: Console, figures: dict[str, Any]) -> None:
    """The belief-probe figures of one variant: overall, then split three ways."""
    if not figures["probes"]:
        dropped = f" ({figures['dropped']} dropped)" if figures["dropped"] else ""
        console.print(f"beliefs: no belief probes found{dropped}")
        return
    guesses = plural(figures["guesses"], "guess", "guesses")
    console.print(
        f"beliefs: {plural(figures['probes'], 'probe')} in "
        f"{plural(figures['transcripts'], 'transcript')} · dropped {figures['dropped']} · "
        f"{guesses}, unknown {_share(figures['unknown_share'])}"
    )
    overall = figures["accuracy"]
    console.print(f"belief accuracy (right/committed guesses): {_accuracy(overall)}")
    for title, split in BELIEF_SPLITS:
        table = Table(title, "accuracy", "right/committed", "unknown")
        for group, cell in figures[split].items():
            right = f"{cell['right']}/{cell['committed']}"
            table.add_row(group, _share(cell["rate"]), right, str(cell["unknown"]))
        console.print(table)


BELIEF_SPLITS = (
    ("guessing seat's role", "by_guesser"),
    ("target's true side", "by_target"),
    ("day", "by_day"),
)


def _accuracy(cell: dict[str, Any]) -> str:
    text = f"{_share(cell['rate'])} ({cell['right']}/{cell['committed']})"
    if cell.get("ci95"):
        low, high = cell["ci95"]
        text += f", 95% CI [{low:.0%}–{high:.0%}]"
    return text


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {many or noun + 's'}"


def latency_text(latency: dict[str, float] | None) -> str:
    """'mean 0.08 s · p50 0.01 s · …' from the stats figures; '-' without calls."""
    if not latency:
        return "-"
    return " · ".join(f"{name} {seconds:.2f} s" for name, seconds in latency.items())


def _rate(cell: dict[str, Any]) -> str:
    low, high = cell["ci95"]
    return f"{cell['rate']:.0%} [{low:.0%}–{high:.0%}]"


# --------------------------------------------------------------- fake-llm


@app.command("fake-llm")
def fake_llm(
    port: Annotated[int, typer.Option(min=0, max=65535, help="port on 127.0.0.1")] = 8000,
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    policy: Annotated[str, typer.Option(help="how it answers, e.g. legal-random")] = "legal-random",
    latency: Annotated[float, typer.Option(help="seconds to wait before each answer")] = 0.0,
) -> None:
    """Serve an OpenAI-compatible fake model for offline runs (Ctrl-C stops it)."""
    try:
        module = importlib.import_module("sandbox.models.fake")
    except ModuleNotFoundError:
        fail("the fake model server (sandbox.models.fake) is not installed in this checkout")
    # The server prints its own address once it is bound; a banner here would
    # claim success before a bad policy or a taken port is known.
    try:
        module.run_server(host, port, policy, latency)
    except KeyboardInterrupt:
        print("stopped.")
    except (ValueError, OverflowError, OSError) as err:
        fail(str(err))


# The study, export and report commands live in sandbox/cli/study.py.
def _register_study_commands() -> None:
    from sandbox.cli.study import register

    register(app)


_register_study_commands()


EXIT_BROKEN_PIPE = 141  # what a shell reports for a command killed by SIGPIPE


def main() -> None:
    try:
        app()
    except BrokenPipeError:
        # The reader of our output went away (`sandbox stats | head`): stop as `cat`
        # does, without a message; later writes (at exit) go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_BROKEN_PIPE)


if __name__ == "__main__":
    main()
