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

from sandbox.cli.interrupts import EXIT_INTERRUPTED, ctrl_c_ends_quietly

# Loading the commands takes a second or more (litellm, rich, pydantic models);
# a batch's spawned workers load this module too before they ignore Ctrl-C.
with ctrl_c_ends_quietly():
    import typer

    from sandbox.cli import batch, play, stats, study, tools, transcripts, view, whatif
    from sandbox.cli.errors import OneLineErrors

app = typer.Typer(
    name="sandbox",
    help="Social-deduction games played by LLM agents: run, watch, replay, study.",
    cls=OneLineErrors,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command("run")(play.run)
app.command("batch")(batch.batch)
app.command("rules")(tools.rules)
app.command("validate")(tools.validate)
app.command("view")(view.view)
app.command("replay")(transcripts.replay)
app.command("resume")(transcripts.resume_game)
app.command("fork")(transcripts.fork_game)
app.command("whatif")(whatif.whatif_cmd)
app.command("ablate")(whatif.ablate_cmd)
app.command("stats")(stats.stats)
app.command("fake-llm")(tools.fake_llm)
app.command("study")(study.study_cmd)
app.command("export")(study.export_cmd)
app.command("report")(study.report_cmd)

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
