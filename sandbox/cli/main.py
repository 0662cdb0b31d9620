"""The ``sandbox`` command line (docs/cli.md): the app, its commands in the order
``sandbox --help`` lists them, and ``main``. Each family of commands lives in
its own module of this package; options they share are in ``options``.

Every bad input (missing file, invalid config, not a transcript, unknown
variant, seat out of range) ends with one line ``error: ...`` on stderr and exit
code 2, never a traceback (``errors``); Ctrl-C at any moment, even while
this module is still importing the commands, is exit code 130 without one
(``interrupts``).
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

from sandbox.cli.interrupts import EXIT_INTERRUPTED, ctrl_c_ends_quietly

# Loading the commands takes a second or more (litellm, rich, pydantic models);
# a batch's spawned workers load this module too before they ignore Ctrl-C.
with ctrl_c_ends_quietly():
    import typer

    from sandbox.cli import batch, play, serve, stats, study, tools, transcripts, view, whatif
    from sandbox.cli.errors import OneLineErrors
    from sandbox.cli.options import Command

app = typer.Typer(
    name="sandbox",
    help="Social-deduction games played by LLM agents: run, watch, replay, study.",
    cls=OneLineErrors,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # -h as well as --help, on every command (click passes it down to each)
    context_settings={"help_option_names": ["-h", "--help"]},
)
DISTRIBUTION = "llm-deduction-sandbox"


def _print_version(asked: bool) -> None:
    if asked:
        try:
            number = version(DISTRIBUTION)
        except PackageNotFoundError:  # a source tree without install metadata
            number = "unknown"
        print(f"sandbox {number}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", help="print the version and exit", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    pass


app.command("run", cls=Command)(play.run)
app.command("batch", cls=Command)(batch.batch)
app.command("serve", cls=Command)(serve.serve)
app.command("rules", cls=Command)(tools.rules)
app.command("validate", cls=Command)(tools.validate)
app.command("view", cls=Command)(view.view)
app.command("replay", cls=Command)(transcripts.replay)
app.command("resume", cls=Command)(transcripts.resume_game)
app.command("fork", cls=Command)(transcripts.fork_game)
app.command("whatif", cls=Command)(whatif.whatif_cmd)
app.command("ablate", cls=Command)(whatif.ablate_cmd)
app.command("stats", cls=Command)(stats.stats)
app.command("fake-llm", cls=Command)(tools.fake_llm)
app.command("study", cls=Command)(study.study_cmd)
app.command("export", cls=Command)(study.export_cmd)
app.command("report", cls=Command)(study.report_cmd)

EXIT_BROKEN_PIPE = 141  # what a shell reports for a command killed by SIGPIPE


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        # typer turns Ctrl-C inside a command into exit 130; this is the moment
        # before it parses the arguments or after the command has returned
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # The reader of our output went away (`sandbox stats | head`): stop as `cat`
        # does, without a message; later writes (at exit) go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_BROKEN_PIPE)


if __name__ == "__main__":
    main()
