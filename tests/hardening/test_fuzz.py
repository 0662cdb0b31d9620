"""Fuzzing the CLI's file inputs (bounded; part of CI): random and mutated game files
and transcripts. The property: a command either works, or says so in one `error:`
line with exit 2 (replay: a divergence, exit 1) — never a traceback, never a hang."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hardening.helpers import bot_game, invoke, read_lines

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SEED_FILES = ["killer_12.toml", "four_factions.toml", "killer_fake.toml"]
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def clean_failure(result: Any, allowed: tuple[int, ...] = (0, 2)) -> bool:
    if "Traceback" in result.output or (
        result.exception and not isinstance(result.exception, SystemExit)
    ):
        return False
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        return len(lines) >= 1 and lines[-1].startswith("error: ")
    return result.exit_code in allowed


# Scalars and small structures TOML can hold, to splice into game files.
toml_values = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(['""', '"x"', "true", "false", "[]", "{}", "[1, 2, 2]", "1.5", "nan"]),
    st.text(min_size=0, max_size=8).map(json.dumps),
)


@st.composite
def mutated_game_file(draw: st.DrawFn) -> str:
    lines = (CONFIGS / draw(st.sampled_from(SEED_FILES))).read_text(encoding="utf-8").splitlines()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "drop", "dup", "garble"]))
        if action == "value" and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {draw(toml_values)}"
        elif action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        else:
            lines[i] = draw(st.text(max_size=20))
        if not lines:
            break
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=mutated_game_file())
def test_validate_never_crashes_on_a_mutated_game_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_text(text, encoding="utf-8")
    result = invoke("validate", str(path))
    assert clean_failure(result), result.output


@FUZZ
@given(data=st.binary(max_size=200))
def test_validate_never_crashes_on_random_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_bytes(data)
    assert clean_failure(invoke("validate", str(path)))


@pytest.fixture(scope="module")
def transcript_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = bot_game(tmp_path_factory.mktemp("game"), seed=5)
    return [json.dumps(line) for line in read_lines(path)]


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.text(max_size=6)),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


# An edit: (action, where, a JSON value, some text); applied by ``mutate``.
edits = st.lists(
    st.tuples(
        st.sampled_from(["field", "drop", "dup", "swap", "garble", "cut"]),
        st.integers(0, 10**6),
        json_values,
        st.text(max_size=30),
    ),
    min_size=1,
    max_size=3,
)


def mutate(lines: list[str], changes: list[tuple[str, int, Any, str]]) -> str:
    out = list(lines)
    for action, where, value, text in changes:
        i = where % len(out)
        if action == "field":
            try:
                obj = json.loads(out[i])
            except ValueError:
                continue
            if isinstance(obj, dict) and obj:
                key = sorted(obj)[where % len(obj)]
                obj[key] = value
                out[i] = json.dumps(obj)
        elif action == "drop" and len(out) > 1:
            del out[i]
        elif action == "dup":
            out.insert(i, out[i])
        elif action == "swap" and i + 1 < len(out):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif action == "garble":
            out[i] = text
        elif action == "cut":
            out[i] = out[i][: where % (len(out[i]) + 1)]
    return "\n".join(out) + "\n"


COMMANDS = [["view"], ["replay"], ["view", "--seat", "3"], ["stats"]]


@FUZZ
@given(changes=edits, command=st.sampled_from(COMMANDS))
def test_readers_never_crash_on_a_mutated_transcript(
    tmp_path: Path, transcript_lines: list[str], changes: Any, command: list[str]
) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_text(mutate(transcript_lines, changes), encoding="utf-8")
    result = invoke(command[0], str(path), *command[1:])
    allowed = (0, 1) if command == ["replay"] else (0,)
    assert clean_failure(result, allowed), (command, result.output[-600:])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(changes=edits, command=st.sampled_from([["resume"], ["fork", "--at", "20", "--quiet"]]))
def test_resume_and_fork_never_crash_on_a_mutated_transcript(
    tmp_path: Path, transcript_lines: list[str], changes: Any, command: list[str]
) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_text(mutate(transcript_lines[:-1], changes), encoding="utf-8")
    out = tmp_path / "out"
    extra = ["--out", str(out)] if command[0] == "fork" else []
    result = invoke(command[0], str(path), *command[1:], *extra)
    assert clean_failure(result), (command, result.output[-600:])
