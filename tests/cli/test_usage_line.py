"""The figures a finished game ends with (issue 40 item 4): usage with the cached
share of prompt tokens, and the game's seconds per decision."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sandbox.cli.display import time_line, usage_line
from sandbox.cli.main import app
from sandbox.session.runner import RunStats
from sandbox.transcript import read_transcript

ROOT = Path(__file__).resolve().parents[2]


def test_the_cached_share_is_cached_over_prompt_tokens() -> None:
    stats = RunStats(decisions=4, calls=5, tokens_in=1000, tokens_out=80, tokens_cached=870)
    stats.count_fallback(2, "invalid")
    assert usage_line(stats) == (
        "decisions 4 · fallbacks 1 · calls 5 · tokens 1000/80 (87% cached) · cost $0.0000"
    )
    assert "cached" not in usage_line(RunStats(decisions=4, tokens_in=10))  # none reported


def test_seconds_per_decision() -> None:
    assert time_line(100.0, 40) == "time 100.0 s · 2.50 s per decision"


def test_cached_tokens_are_counted_per_call_and_add_up_over_parts() -> None:
    first, second = RunStats(), RunStats()
    first.add_call({"tokens_in": 100, "tokens_out": 5, "cached_tokens": 60})
    first.add_call({"tokens_in": 100, "tokens_out": 5})  # a provider that reports none
    second.add_call({"tokens_in": 50, "cached_tokens": 50})
    assert first.tokens_cached == 60
    total = first + second
    assert (total.tokens_in, total.tokens_cached) == (250, 110)
    assert total.to_json()["tokens_cached"] == 110


def test_a_run_ends_with_its_figures(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", str(ROOT / "configs/killer_fake.toml"), "--seed", "1", "--quiet",
              "--out", str(tmp_path)]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (path,) = tmp_path.glob("*.jsonl")
    transcript = read_transcript(path)
    calls = transcript.calls
    cached = sum(int(c.get("cached_tokens") or 0) for c in calls)
    prompt = sum(int(c.get("tokens_in") or 0) for c in calls)
    assert cached > 0  # the fake provider reports a prompt cache
    assert f"({cached / prompt:.0%} cached)" in result.output
    assert " s per decision" in result.output.replace("\n", " ")
