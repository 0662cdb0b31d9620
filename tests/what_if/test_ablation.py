"""Study-level ablations (issue 21, item 3): ``sandbox ablate`` over a small
study on the fake provider finishes, resumes after a real Ctrl-C (SIGINT to a
subprocess) without playing any finished branch again, prints its dry run, and
puts its table and chart in the study report."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.analysis.load import load_games
from sandbox.cli.main import app
from sandbox.transcript import Transcript
from sandbox.what_if.ablation import Budget, effect_figure, prices, sample, speeches_of
from sandbox.what_if.branches import finished_on_disk

ROOT = Path(__file__).resolve().parents[2]
GAME = """
variant = "killer"
name = "killer-reactive"
[rules]
players = 11
day_limit = 1
[default_agent]
kind = "llm"
model = "fake/reactive"
timeout_s = 10
[llm]
max_repairs = 0
"""
STUDY = """
name = "abl"
game = "game.toml"
games_per_cell = 1
seed = 5
jobs = 1
out = "games"
cost_cap = 1.0
[provider_limits]
fake = 2
[[contestant]]
name = "reactive"
kind = "llm"
model = "fake/reactive"
timeout_s = 10
[[contestant]]
name = "random"
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
"""
ARGS = ["--speeches", "4", "-k", "3", "--quiet"]
TOTAL = 4 * 3 * 3  # speeches × (control, remove, pass) × branches


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ablation")
    (folder / "game.toml").write_text(GAME, encoding="utf-8")
    (folder / "study.toml").write_text(STUDY, encoding="utf-8")
    done = CliRunner().invoke(app, ["study", str(folder / "study.toml"), "--quiet"])
    assert done.exit_code == 0, done.output
    return folder / "study.toml"


def _branches(folder: Path) -> dict[Path, bool]:
    return {p: finished_on_disk(p) for p in sorted(folder.rglob("*.jsonl"))}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ablate(study: Path, *extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "sandbox.cli.main", "ablate", str(study), *ARGS, *extra]
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_dry_run_counts_branches_and_prices_them(study: Path) -> None:
    done = CliRunner().invoke(app, ["ablate", str(study), *ARGS, "--dry-run", "--json"])
    assert done.exit_code == 0, done.output
    estimate = json.loads(done.stdout)
    assert estimate["branches"] == estimate["to_play"] == TOTAL
    assert estimate["calls"] > TOTAL and estimate["cost"] == 0.0  # the fake is free
    assert not (study.parent / "games-ablation").exists()  # nothing played
    assert prices("fake/reactive") == (0.0, 0.0)
    assert prices("openai/gpt-4o-mini")[0] > 0  # a priced model is priced


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a subprocess")
def test_ablation_resumes_after_ctrl_c_without_repeating_a_branch_and_reports(
    study: Path, tmp_path: Path
) -> None:
    out = study.parent / "games-ablation"
    # The first run's fake provider holds every request once 3 branches are
    # finished on disk (until the process exits): from then on the run cannot
    # finish, so the Ctrl-C below provably lands mid-work, however busy the
    # machine. A sitecustomize loaded by the subprocess (and only by it) wraps
    # the built-in fake server's request intake.
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import importlib, os\n"
        "from pathlib import Path\n"
        "from sandbox.models.fake.server import FakeLLMServer\n"
        f"finished = importlib.import_module({finished_on_disk.__module__!r}).finished_on_disk\n"
        f"out = Path({str(out)!r})\n"
        "intake = FakeLLMServer.enter\n"
        "def enter(self, record, wire):\n"
        "    taken = intake(self, record, wire)\n"
        "    if out.exists() and sum(map(finished, out.rglob('*.jsonl'))) >= 3:\n"
        "        self._stopping.wait()  # held until the server stops (at exit)\n"
        "    return taken\n"
        "FakeLLMServer.enter = enter\n",
        encoding="utf-8",
    )
    first = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli.main", "ablate", str(study), *ARGS],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(hooks), str(ROOT)])),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Bounds, not durations: this whole test (both runs and the report) took
    # 42 s at load 6, 62 s and 98 s with both cores kept busy (2026-12-06, load 11-13).
    deadline = time.monotonic() + 240
    while not out.exists() or sum(_branches(out).values()) < 3:
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    before = _branches(out)
    finished = {p: (_digest(p), p.stat().st_mtime_ns) for p, done in before.items() if done}
    assert 3 <= len(finished) < TOTAL

    again = _ablate(study, "--json")
    stdout, stderr = again.communicate(timeout=600)
    assert again.returncode == 0, stderr
    results = json.loads(stdout)
    assert results["reused"] == len(finished)
    assert results["played_now"] == TOTAL - len(finished)
    after = _branches(out)
    assert len(after) == TOTAL and all(after.values())
    for path, (digest, mtime) in finished.items():  # never played (or touched) again
        assert _digest(path) == digest and path.stat().st_mtime_ns == mtime
    # the effects per contestant and side, with the observational figure beside them
    effects = results["effects"]
    assert set(effects) == {"remove_speech", "pass_speech"}
    votes = effects["remove_speech"]["votes_for_accused"]
    assert set(votes["by_contestant"]) <= {"reactive", "random"} and votes["by_side"]
    assert len(results["per_speech"]) >= 4 * 2 * 3

    report = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", str(study.parent / "games"), "--out", str(report)])
    assert done.exit_code == 0, done.output
    page = report.read_text(encoding="utf-8")
    assert '<table id="ablation">' in page and 'id="chart-ablation"' in page
    assert "## What if: speech ablations" in report.with_suffix(".md").read_text("utf-8")


def test_speeches_are_sampled_evenly_by_stratum(study: Path) -> None:
    games = [g for g in load_games([study.parent / "games"]).games if g.study]
    chosen = sample(games, 4, "contestant", 0)
    assert sorted(s.contestant for s in chosen) == ["random", "random", "reactive", "reactive"]
    assert chosen == sample(games, 4, "contestant", 0)  # seeded
    by_side = sample(games, 2, "side", 1)
    assert sorted(s.side for s in by_side) == ["killer", "police"]


def test_effect_figure_is_a_cluster_bootstrap_over_games() -> None:
    rows = [
        {"game_id": "a", "effect": -2.0},
        {"game_id": "a", "effect": -4.0},
        {"game_id": "b", "effect": 0.0},
    ]
    fig = effect_figure(rows, random.Random(1))
    assert fig["value"] == -2.0 and fig["n"] == 3 and fig["games"] == 2
    # resampling whole games: all-a gives -3, all-b gives 0, one of each -2
    assert fig["ci95"] == [-3.0, 0.0]
    same = effect_figure([{"game_id": "a", "effect": 0.0}], random.Random(1))
    assert same["ci95"] == [0.0, 0.0]  # a difference with no spread: no invented width


def test_the_cost_cap_stops_scheduling() -> None:
    budget = Budget(cap=1.0, limits={})
    assert not budget.halt(running=0)  # nothing spent, nothing known yet
    budget.spent, budget.costs = 0.6, [0.3, 0.3]
    assert not budget.halt(running=0)  # 0.6 + 0.3 ≤ 1
    assert budget.halt(running=1) and "cost cap $1" in str(budget.stopped)


def test_bad_input_is_one_line(study: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    for args, needle in [
        ([str(tmp_path / "nope")], "no such study file or folder"),
        ([str(study), "--by", "colour"], "--by must be one of"),
        ([str(study), "--limit", "fake"], "PROVIDER=N"),
        ([str(tmp_path)], "no speech to ablate"),
    ]:
        done = runner.invoke(app, ["ablate", *args])
        lines = done.stderr.strip().splitlines()
        assert done.exit_code == 2 and len(lines) == 1 and needle in lines[0], done.stderr


def test_a_speech_with_no_fork_point_after_it_is_never_sampled() -> None:
    """Hand-built: the second speech ends the game in its step (a KG-13
    concession); a step still ends after it, but no decision follows, so a
    branch has nothing to play again (the ablation once failed on one)."""
    header = {"variant": "killer", "roles": {"1": "police", "2": "killer"}}
    events = [
        {"seq": 0, "kind": "core.decision", "seat": 1},
        {"seq": 1, "kind": "killer.speech", "seat": 1},
        {"seq": 2, "kind": "core.step"},
        {"seq": 3, "kind": "core.decision", "seat": 2},
        {"seq": 4, "kind": "killer.speech", "seat": 2, "concede": True},
        {"seq": 5, "kind": "core.step"},
        {"seq": 6, "kind": "killer.game_ended"},
    ]
    game = Transcript(Path("hand-built.jsonl"), header, events)
    assert [s.seq for s in speeches_of(game)] == [1]
