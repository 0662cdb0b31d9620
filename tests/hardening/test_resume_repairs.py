"""Resume counts the repairs of the part already played (issue 14 item 2): the
outcome line of a resumed game states the same counters the lines add up to."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox.session import counters_of, play_game, replay_transcript, resume
from sandbox.session.gamefile import load_config
from sandbox.transcript import read_transcript

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_a_resumed_game_counts_every_repair(tmp_path: Path) -> None:
    loaded = load_config(CONFIGS / "killer_fake.toml")  # has a fake/illegal seat: repairs
    record = play_game(loaded, 2, tmp_path)
    assert record.path is not None
    lines = record.path.read_text(encoding="utf-8").splitlines()
    # Cut the game after the first call line that was a repair, plus a few lines more.
    first_repair = next(
        i for i, line in enumerate(lines) if '"type":"call"' in line and json.loads(line)["repair"]
    )
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: first_repair + 5]) + "\n", encoding="utf-8")
    before = counters_of(read_transcript(cut), read_transcript(cut).events)
    assert before.repairs > 0

    resumed = resume(cut)
    finished = read_transcript(cut)
    assert finished.outcome is not None
    counted = counters_of(finished, finished.events)
    assert resumed.stats.repairs == counted.repairs >= before.repairs
    assert finished.outcome["stats"]["repairs"] == counted.repairs
    assert replay_transcript(finished) is None  # the outcome line's counters hold
