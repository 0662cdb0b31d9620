"""How every command ends when it cannot go on: bad input is one ``error: ...``
line on stderr and exit code 2, never a traceback; a disk that refuses a write
(full, read-only) is one line and exit code 1, every transcript left a readable,
resumable prefix (docs/faults.md); Ctrl-C is exit code 130 with the command that
resumes the game (``interrupts``). Every command's help lists its options
without type labels (``untyped``). Under ``--json`` an error is one JSON
object on that line instead (``{"error": ..., "exit_code": ...}``), the exit
code unchanged."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, Protocol

import typer
from typer.core import TyperGroup

from sandbox.agents.simple import ScriptError
from sandbox.cli.extras import install_hint
from sandbox.cli.interrupts import EXIT_INTERRUPTED
from sandbox.core.errors import ConfigError
from sandbox.core.seat import AgentSetupError
from sandbox.core.words import one_line
from sandbox.session import SessionError
from sandbox.transcript import TranscriptError, TranscriptWriteError
from sandbox.transcript.lock import LockUnavailable

EXIT_BAD_INPUT = 2
EXIT_FAULT = 1  # the machine, not the input: a full disk, a read-only folder

# Errors that stop a game already under way (a broken script, an agent that
# cannot be set up for the next game of a series).
STOPPING_ERRORS = (ConfigError, SessionError, AgentSetupError, ScriptError, TranscriptWriteError)


JSON_FLAG = "--json"
# Set from the command line before the command runs (``OneLineErrors.main``):
# a command given --json reports its errors as JSON too.
_errors_as_json = False


def say_error(text: str, code: int) -> None:
    """One error line on stderr: ``error: text``, or under ``--json`` one JSON
    object (a program reading the output parses it like the rest)."""
    if _errors_as_json:
        print(json.dumps({"error": text, "exit_code": code}, ensure_ascii=False), file=sys.stderr)
    else:
        print(f"error: {text}", file=sys.stderr)


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    say_error(first, code)
    raise typer.Exit(code)


@contextmanager
def bad_input_is_one_line() -> Iterator[None]:
    try:
        yield
    except (ConfigError, SessionError, TranscriptError, AgentSetupError, ScriptError) as err:
        fail(str(err))
    except KeyError as err:  # unknown variant names arrive as KeyError
        fail(str(err.args[0]) if err.args else "unknown key")
    except BrokenPipeError:
        raise  # the reader left (`sandbox stats | head`): main() ends quietly
    except (TranscriptWriteError, LockUnavailable) as err:
        fail(str(err), EXIT_FAULT)
    except OSError as err:
        fail(f"{err.filename or ''}: {err.strerror or err}".strip(": "))


def error_text(message: str) -> str:
    """A message of any shape as the text of one ``error:`` line."""
    return one_line(message) or "unknown error"


def stopped(err: Exception, path: Path | None) -> NoReturn:
    """One error line; a transcript already begun is named (it is left unfinished)."""
    if isinstance(err, TranscriptWriteError):
        again = f"; once there is room: sandbox resume {path}" if path is not None else ""
        fail(f"{error_text(str(err))}{again}", EXIT_FAULT)
    partial = f" (the unfinished transcript is {path})" if path is not None else ""
    fail(f"{error_text(str(err))}{partial}")


class LiveGame(Protocol):
    """What :func:`game_stops_cleanly` needs of a command's live output
    (``cli.display.Display`` is one)."""

    current: Path | None  # the transcript being written, if a game is under way

    def stop(self) -> None: ...


@contextmanager
def game_stops_cleanly(live: LiveGame) -> Iterator[None]:
    """Within the block, Ctrl-C or an error that stops the game first stops
    the live output, then ends the command with its one line naming the
    transcript in progress (resumable)."""
    try:
        yield
    except KeyboardInterrupt:
        live.stop()
        interrupted(live.current)
    except STOPPING_ERRORS as err:
        live.stop()
        stopped(err, live.current)


def stopped_by_fault(fault: str, finished: int, total: int) -> NoReturn:
    """A batch or study the disk stopped: one line, how far it got, how to go on."""
    fail(
        f"{error_text(fault)}; {finished} of {total} games finished, the others are "
        "resumable: make room and run the same command again",
        EXIT_FAULT,
    )


def interrupted(path: Path | None) -> NoReturn:
    """Ctrl-C during a game: say how to finish it, exit 130."""
    print("interrupted.", file=sys.stderr)
    if path is not None:
        print(f"resume with: sandbox resume {path}", file=sys.stderr)
    raise typer.Exit(EXIT_INTERRUPTED)


class OneLineErrors(TyperGroup):
    """Parameter errors found by click (``--series 0``, ``--seat abc``, a missing
    argument) end like every other bad input: one ``error:`` line, exit code 2,
    instead of typer's usage text and boxed panel. So does a command that needs
    an optional dependency which is not installed: the line names the extra."""

    def get_params(self, ctx: Any) -> list[Any]:
        return untyped(super().get_params(ctx))

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        global _errors_as_json
        _errors_as_json = JSON_FLAG in (sys.argv[1:] if args is None else list(args))
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.TyperException as err:  # typer's (vendored) click errors
            # typer has already printed the help text for a bare `sandbox`
            if type(err).__name__ != "NoArgsIsHelpError":
                say_error(f"{error_text(err.format_message())}{_hint(err)}", EXIT_BAD_INPUT)
            code = EXIT_BAD_INPUT
        except typer.Abort:
            print("aborted.", file=sys.stderr)
            code = 1
        except ModuleNotFoundError as err:
            # an optional dependency, imported where it is first needed
            hint = install_hint(err.name or "")
            if hint is None:
                raise
            say_error(f"this command {hint}", EXIT_BAD_INPUT)
            code = EXIT_BAD_INPUT
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


def _no_type(ctx: Any) -> None:
    return None


def untyped(params: Iterable[Any]) -> list[Any]:
    """``params`` shown in the help without their type label (``<bool>``,
    ``<str>``, ``<path>``: noise beside every option, the help says what is
    expected); a number's range is still shown. Only the help's display
    changes: parsing and the usage line read other attributes."""
    shown = list(params)
    for param in shown:
        setattr(param, "display_type_rich", _no_type)  # noqa: B010  (an instance's own display)
    return shown


def _hint(err: Exception) -> str:
    ctx = getattr(err, "ctx", None)
    return f" (see '{ctx.command_path} --help')" if ctx is not None else ""
