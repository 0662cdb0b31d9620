"""Fuzzing the newer surfaces (issue 25, item 6; bounded, part of CI): study
files through ``sandbox study --dry-run``, the host panel's JSON bodies, and
the transcripts of studies and forks through every reading command. The
property everywhere: it works, or it says why in one ``error:`` line (a 4xx
for a web request) — never a traceback, a 5xx, or a hang."""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.session import LiveHooks, fork_points, play_game
from sandbox.session.gamefile import parse_config
from sandbox.transcript import read_transcript
from sandbox.web.run import WebRun
from tests.hardening.helpers import invoke, read_lines
from tests.hardening.test_fuzz import clean_failure, edits, json_values, mutate, toml_values
from tests.web.helpers import Client, quiet

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
BOTS = 'variant = "killer"\n[rules]\nplayers = 11\n'
BOT_STUDY = """name = "fuzz"
game = "bots.toml"
games_per_cell = 1
seed = 3
out = "out"
[[contestant]]
name = "base"
kind = "baseline"
[[contestant]]
name = "rand"
kind = "random"
"""

# ------------------------------------------------------------------ study files


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("study")
    (folder / "bots.toml").write_text(BOTS, encoding="utf-8")
    (folder / "killer_fake.toml").write_text(
        (CONFIGS / "killer_fake.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    return folder


@st.composite
def mutated_study(draw: st.DrawFn) -> str:
    fake = (CONFIGS / "study_fake.toml").read_text(encoding="utf-8")
    lines = draw(st.sampled_from([fake, BOT_STUDY])).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "drop", "dup", "garble", "table"]))
        if action == "value" and "=" in lines[i]:
            lines[i] = f"{lines[i].split('=', 1)[0]}= {draw(toml_values)}"
        elif action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "table":
            lines.insert(i, draw(st.sampled_from(["[[contestant]]", "[provider_limits]", "[x]"])))
        else:
            lines[i] = draw(st.text(max_size=20))
        if not lines:
            break
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=mutated_study())
def test_a_mutated_study_file_is_planned_or_refused_in_one_line(
    study_folder: Path, text: str
) -> None:
    path = study_folder / "fuzz_study.toml"
    path.write_text(text, encoding="utf-8")
    result = invoke("study", str(path), "--dry-run")
    assert clean_failure(result), result.output[-600:]
    if result.exit_code == 0:
        assert "games planned" in result.stdout


@FUZZ
@given(data=st.binary(max_size=200))
def test_random_bytes_as_a_study_file_are_one_line(study_folder: Path, data: bytes) -> None:
    path = study_folder / "fuzz_bytes.toml"
    path.write_bytes(data)
    result = invoke("study", str(path), "--dry-run")
    assert result.exit_code == 2 and clean_failure(result), result.output[-600:]


# ------------------------------------------------------- the host panel's JSON


class PanelGame(threading.Thread):
    """A bot game with the host panel, waiting for the panel's Start."""

    def __init__(self, web: WebRun, out: Path) -> None:
        super().__init__(daemon=True)
        self.web, self.out = web, out

    def run(self) -> None:
        loaded = parse_config({"variant": "killer", "rules": {"players": 11}})
        play_game(loaded, 7, self.out, hooks=self.web.hooks(LiveHooks()))


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    web = WebRun(host_panel=True, announce=quiet)
    try:
        PanelGame(web, tmp_path_factory.mktemp("panel")).start()
        host_page = web.panel()
        audience = next(a for a in web.hub().audiences() if a.host is host_page)
        client = Client(web.hub(), audience)
        client.wait_for(lambda s: s["status"] == "ready" and bool(s["seats"]))
        yield client
    finally:
        web.stop()


panel_bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(
        st.sampled_from(["seat", "target", "url", "x"]),
        st.one_of(json_values, st.integers(-3, 14), st.sampled_from(["referee", "4", "0", ""])),
        max_size=3,
    ).map(lambda v: json.dumps(v).encode()),
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    body=panel_bodies,
    path=st.sampled_from(["/api/host/take", "/api/host/return", "/api/host/watch"]),
)
def test_any_host_panel_body_is_answered_with_a_2xx_or_4xx(
    panel: Client, body: bytes, path: str
) -> None:
    """Start is left out: a started game with fuzz-taken seats waits for people."""
    status, text = panel.request("POST", path, raw=body)
    assert 200 <= status < 500, (status, body[:80], text[:200])
    if status >= 400:
        assert "Traceback" not in text and json.loads(text)  # a clear message, as JSON
    assert panel.request("GET", "/api/state")[0] == 200  # still serving


# ------------------------------------- study and fork transcripts, every reader


@pytest.fixture(scope="module")
def study_and_fork_lines(
    study_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[str]]:
    """One game of a study and one fork (at a step boundary) of it, line by line."""
    study = study_folder / "bot_study.toml"
    study.write_text(BOT_STUDY, encoding="utf-8")
    played = invoke("study", str(study), "--quiet", "--json")
    assert played.exit_code == 0, played.output
    game = sorted((study_folder / "out").glob("*.jsonl"))[0]
    points = fork_points(read_transcript(game).events)
    at = points[len(points) // 2]
    out = tmp_path_factory.mktemp("fork")
    forked = invoke("fork", str(game), "--at", str(at), "--out", str(out), "--quiet")
    assert forked.exit_code == 0, forked.output
    (fork,) = out.glob("*.jsonl")
    return {
        name: [json.dumps(line) for line in read_lines(path)]
        for name, path in (("study", game), ("fork", fork))
    }


READERS = [
    ["view"],
    ["view", "--seat", "2"],
    ["replay"],
    ["stats"],
    ["export", "--out", "{tmp}/export"],
    ["report", "--out", "{tmp}/report.html"],
]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    changes=edits,
    which=st.sampled_from(["study", "fork"]),
    command=st.sampled_from(READERS),
)
def test_every_reader_takes_a_mutated_study_or_fork_transcript(
    tmp_path: Path,
    study_and_fork_lines: dict[str, list[str]],
    changes: Any,
    which: str,
    command: list[str],
) -> None:
    # a fresh folder per example: tmp_path is shared by all of them
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    path = folder / "games" / f"{which}.jsonl"
    path.parent.mkdir()
    path.write_text(mutate(study_and_fork_lines[which], changes), encoding="utf-8")
    target = str(path.parent if command[0] in ("export", "report") else path)
    args = [part.format(tmp=folder) for part in command[1:]]
    result = invoke(command[0], target, *args)
    allowed = (0, 1) if command[0] == "replay" else (0,)
    assert clean_failure(result, allowed), (which, command, result.output[-600:])
