"""The ``inspect eval`` command line on the installed entry point: the task is
found by its name alone, ``-T`` options reach it, and a bad option stops the
run with one ``error:`` line."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log

from sandbox.games.registry import get_variant
from sandbox.transcript import read_game

TIMEOUT_S = 240


def inspect_command() -> list[str]:
    """inspect's own console script beside this interpreter (else its module)."""
    script = Path(sys.executable).with_name("inspect")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "inspect_ai"]


def run_inspect(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The environment goes along (the conftest's offline tokenizer with it).
    return subprocess.run(
        [*inspect_command(), *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def test_inspect_eval_runs_the_task_with_its_options(tmp_path: Path) -> None:
    done = run_inspect(
        tmp_path,
        "eval",
        "sandbox/killer",
        "--model",
        "mockllm/model",
        "-T",
        "side=killer",
        "-T",
        "opponents=baseline,random",
        "-T",
        "games=2",
        "--display",
        "none",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [path] = sorted((tmp_path / "logs").glob("*.eval"))  # inspect's default log folder
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert log.eval.task == "sandbox/killer"
    assert log.eval.task_args["side"] == "killer"
    assert log.eval.task_args["opponents"] == ["baseline", "random"]
    assert log.samples is not None and len(log.samples) == 2
    assert log.results is not None
    wins = [s for s in log.results.scores if s.name == "win"]
    assert all(s.scored_samples == 0 for s in wins)  # no sample counted as a win or loss
    variant = get_variant("killer")
    for sample in log.samples:
        meta = sample.metadata
        assert sample.scores is not None
        score = sample.scores["game"]
        assert isinstance(score.value, dict)
        # mockllm's default text is never a valid answer: the killers fell back
        # on every decision, so the sample is scored invalid, never a win
        # (even when the killers' side won the game without them).
        assert score.answer == "invalid" and score.value["invalid"] == 1.0
        assert math.isnan(float(score.value["win"]))
        assert score.value["valid_answer_rate"] == 0.0 and score.value["fallbacks"] > 0
        transcript = Path(meta["transcript"])
        assert transcript.parent == tmp_path / "transcripts"  # -T transcripts' default
        game = read_game(transcript)
        killers = sorted(
            s for s, r in game.roles.items() if variant.research.study_side(r) == "killer"
        )
        assert meta["side"] == "killer" and meta["seats"] == killers
        others = sorted(s for s in game.roles if s not in killers)
        # The pool is dealt to the other seats in seat order, round robin.
        expected = {str(s): ("baseline", "random")[i % 2] for i, s in enumerate(others)}
        assert meta["opponents"] == expected
        assert {s: game.agents[s]["kind"] for s in others} == {
            int(s): kind for s, kind in expected.items()
        }


def test_a_bad_option_is_one_error_line(tmp_path: Path) -> None:
    done = run_inspect(
        tmp_path, "eval", "sandbox/killer", "--model", "mockllm/model", "-T", "side=nobody"
    )
    assert done.returncode != 0
    output = done.stdout + done.stderr
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines == ["error: side: 'nobody' is not a side; known: killer, police, each"], output
    assert not (tmp_path / "transcripts").exists()
