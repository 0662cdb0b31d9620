"""Game files and transcript comparisons shared by the games-in-flight tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sandbox.transcript import read_transcript

BOTS = """variant = "killer"
seed = 11
[rules]
players = 11
[default_agent]
kind = "baseline"
[run]
out = "{out}"
"""

# Killer with every seat on the fake provider; day_limit keeps games short.
# ``api_base`` (optional) points the seats at a fake server started by the test.
FAKE = """variant = "killer"
seed = 3
[rules]
players = 11
day_limit = 2
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
{api_base}
[[agent]]
kind = "llm"
model = "fake/illegal"
seats = [11]
timeout_s = 10
{api_base}
[llm]
max_repairs = 1
concurrency = 8
[run]
out = "{out}"
"""

# Fields that legitimately differ between two plays of one game: clocks,
# latencies, costs and the provider's prefix-cache figures (which depend on
# what the fake server answered before, i.e. on the order of the games).
VOLATILE = {"started", "ended", "latency_ms", "cost", "cached_tokens", "stats", "wall_s"}


def bots_file(tmp_path: Path, name: str = "bots.toml") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_text(BOTS.format(out=tmp_path / "out"), encoding="utf-8")
    return path


def fake_file(tmp_path: Path, base_url: str | None = None, name: str = "fake.toml") -> Path:
    api_base = f'api_base = "{base_url}"' if base_url else ""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_text(FAKE.format(out=tmp_path / "out", api_base=api_base), encoding="utf-8")
    return path


def stable_lines(path: Path) -> list[dict[str, Any]]:
    """A transcript's lines without the volatile fields (see VOLATILE)."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [_without_volatile(line) for line in lines]


def _without_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_without_volatile(v) for v in value]
    return value


def by_seed(folder: Path) -> dict[int, Path]:
    """Every transcript in ``folder`` by its game's seed."""
    return {int(read_transcript(p).header["seed"]): p for p in sorted(folder.glob("*.jsonl"))}


def events_and_outcome(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """What the game was: its events and how it ended (no calls, no counters)."""
    lines = stable_lines(path)
    events = [x for x in lines if x["type"] == "event"]
    outcome = next((x for x in lines if x["type"] == "outcome"), None)
    return events, outcome


def comparable(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A transcript as two lists to compare: its other lines in file order, and
    its call lines sorted by request. Calls of one sealed step are asked at once
    and written as they return, so their order is a matter of timing even when
    games are played one at a time."""
    lines = stable_lines(path)
    lines[0] = _same_folder(lines[0])
    calls = [x for x in lines if x["type"] == "call"]
    others = [x for x in lines if x["type"] != "call"]
    calls.sort(key=lambda c: (str(c["request_id"]), int(c.get("attempt") or 0), json.dumps(c)))
    return others, calls


def _same_folder(header: dict[str, Any]) -> dict[str, Any]:
    """The header as if written into any folder: the game file's ``[run] out``
    (and so the batch's config digest) names the folder the test chose."""
    config = dict(header.get("config") or {})
    config["run"] = {k: v for k, v in (config.get("run") or {}).items() if k != "out"}
    batch = {k: v for k, v in (header.get("batch") or {}).items() if k != "config"}
    return {**header, "config": config, "batch": batch}
