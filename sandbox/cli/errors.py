"""How every command ends on bad input: one ``error: ...`` line on stderr and exit
code 2, never a traceback. Shared by sandbox/cli/main.py and the commands registered on
it (sandbox/cli/study.py), so neither imports the other back."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

from sandbox.agents.base import AgentSetupError
from sandbox.agents.simple import ScriptError
from sandbox.core.errors import ConfigError
from sandbox.play import SessionError
from sandbox.transcript import TranscriptError

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    print(f"error: {first}", file=sys.stderr)
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
    except OSError as err:
        fail(f"{err.filename or ''}: {err.strerror or err}".strip(": "))
