"""``sandbox batch --backend ray`` from the command line, on the module's local
cluster; bad backend options are one ``error:`` line and exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.batch.backends import BackendOptions
from sandbox.batch.backends.ray import RayBackend
from sandbox.cli.main import app

BOTS = """variant = "killer"
seed = 40
[rules]
players = 11
[default_agent]
kind = "baseline"
[run]
out = "{out}"
"""


def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "k.toml"
    path.write_text(BOTS.format(out=tmp_path / "out"), encoding="utf-8")
    return path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--backend", "spark"], "--backend: 'spark' is unknown; allowed: local, ray"),
        (["--address", "auto"], "--address needs --backend ray"),
        (["--limit", "openai=2"], "--limit/--rpm needs --backend ray"),
        (["--max-cost", "1"], "--max-cost needs --backend ray"),
        (["--backend", "ray", "--limit", "openai"], "--limit: 'openai' is not KEY=N"),
        (["--backend", "ray", "--rpm", "openai=0"], "--rpm: 'openai=0' is not KEY=N"),
        (["--backend", "ray", "--transcripts", "nfs"], "--transcripts: 'nfs' is unknown"),
    ],
)
def test_bad_backend_options_are_one_line(tmp_path: Path, extra: list[str], message: str) -> None:
    result = invoke("batch", str(game_file(tmp_path)), "--games", "2", *extra)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


@pytest.mark.usefixtures("cluster")
def test_batch_on_ray_reports_what_the_local_backend_reports(tmp_path: Path) -> None:
    path = game_file(tmp_path)
    runs = {}
    for backend in ("local", "ray"):
        out = tmp_path / backend
        result = invoke(
            "batch", str(path), "--games", "6", "--backend", backend, "--out", str(out), "--json"
        )
        assert result.exit_code == 0, result.stderr
        runs[backend] = json.loads(result.stdout)
    local, ray = runs["local"], runs["ray"]
    assert ray["finished"] == 6 and ray["seeds"] == list(range(40, 46))
    drop = ("transcript",)
    assert [{k: v for k, v in g.items() if k not in drop} for g in ray["games"]] == [
        {k: v for k, v in g.items() if k not in drop} for g in local["games"]
    ]
    assert ray["stats"] == local["stats"]
    assert all(Path(t).parent == tmp_path / "ray" for t in ray["transcripts"])


@pytest.mark.usefixtures("cluster")
def test_a_reached_cost_cap_starts_no_game(tmp_path: Path) -> None:
    result = invoke(
        "batch",
        str(game_file(tmp_path)),
        "--games",
        "3",
        "--backend",
        "ray",
        "--max-cost",
        "0",
    )
    assert result.exit_code == 0, result.stderr
    assert "0 of 3 games finished" in result.stdout
    assert "no further game started: cost cap $0.0000 reached" in result.stderr


def test_the_cost_cap_holds_new_games_but_finishes_lost_ones() -> None:
    backend = RayBackend(BackendOptions("ray", max_cost=0.5))
    assert backend._may_start(0)
    backend.spent = 0.75
    assert not backend._may_start(0)  # a new game: held back
    assert backend._may_start(1)  # a lost game's next attempt: finished anyway
    assert backend.stopped == "cost cap $0.5000 reached ($0.7500 spent)"


SCALE = sorted((Path(__file__).resolve().parents[3] / "configs" / "scale").glob("*.toml"))


@pytest.mark.parametrize("path", SCALE, ids=[p.name for p in SCALE])
def test_scale_recipes_are_valid_game_files(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # validate checks what run checks, keys included: the recipes' variables, set
    for name in ("VLLM_API_KEY", "LLAMA_KEY"):
        monkeypatch.setenv(name, "not-a-secret")
    result = invoke("validate", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"ok: {path}")
    assert "variant: killer" in result.stdout


def test_there_are_scale_recipes() -> None:
    assert {p.name for p in SCALE} >= {"killer_vllm.toml", "killer_llamacpp.toml"}


def test_without_ray_installed_the_ray_backend_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sandbox.batch.backends.ray_cluster as ray_cluster

    def no_ray() -> Any:
        raise ImportError("No module named 'ray'")

    monkeypatch.setattr(ray_cluster, "ray_module", no_ray)
    result = invoke("batch", str(game_file(tmp_path)), "--games", "2", "--backend", "ray")
    assert result.exit_code == 2
    # A Ray cluster started by an earlier test may still forward a log line of its own
    # ("(gcs_server) ...", "[2026-...]") into this process's stderr; the CLI's are the rest.
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in result.stderr.splitlines()]
    own = [line for line in plain if not line.startswith(("(", "["))]
    assert own == ["error: --backend ray needs Ray: pip install 'llm-deduction-sandbox[ray]'"]


def test_the_local_backend_never_imports_ray(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from typer.testing import CliRunner; from sandbox.cli.main import app; "
        f"r = CliRunner().invoke(app, ['batch', {str(game_file(tmp_path))!r}, '--games', '2']); "
        "assert r.exit_code == 0, r.stderr; assert 'ray' not in sys.modules; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.usefixtures("cluster")
@pytest.mark.parametrize("mode", ["send", "shared"])
def test_a_rerun_on_ray_finishes_an_interrupted_game_in_its_file(tmp_path: Path, mode: str) -> None:
    path = game_file(tmp_path)
    out = tmp_path / "out"
    args = ["batch", str(path), "--games", "3", "--backend", "ray", "--transcripts", mode, "--json"]
    first = invoke(*args)
    assert first.exit_code == 0, first.stderr
    cut = sorted(out.glob("killer-s41-*.jsonl"))[0]
    whole = cut.read_bytes()
    lines = whole.splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[: len(lines) // 2]))  # as if stopped half-way
    again = invoke(*args)
    assert again.exit_code == 0, again.stderr
    obj = json.loads(again.stdout)
    assert obj["already_played"] == 2 and [g["seed"] for g in obj["games"]] == [41]
    assert obj["games"][0]["resumed"] is True
    assert sorted(out.glob("killer-s41-*.jsonl")) == [cut]  # finished in its own file
    finished = [json.loads(x) for x in cut.read_text().splitlines()]
    original = [json.loads(x) for x in whole.decode().splitlines()]
    events = [x for x in finished if x["type"] == "event"]
    assert events == [x for x in original if x["type"] == "event"]
    assert finished[-1]["type"] == "outcome"
