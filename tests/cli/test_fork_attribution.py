"""A fork credits the decisions it copies to the seats that made them (issue 9 item 5):
in stats (fallbacks per agent kind) and in the viewer (each line's controller)."""

from __future__ import annotations

from pathlib import Path

from sandbox.analysis.stats import game_facts
from sandbox.core.events import DecisionMade
from sandbox.session import fork, fork_points, play_game
from sandbox.session.gamefile import parse_config
from sandbox.transcript import read_transcript
from sandbox.viewer.timeline import build_timeline

KILLER = {"variant": "killer", "rules": {"players": 11}}


def test_copied_decisions_keep_their_original_controller(tmp_path: Path) -> None:
    # The original: every seat scripted with an empty script, so every decision is
    # the referee's fallback (reason "exhausted").
    original = parse_config({**KILLER, "default_agent": {"kind": "scripted"}})
    record = play_game(original, 4, tmp_path / "a")
    assert record.path is not None
    source = read_transcript(record.path)
    at = fork_points(source.events)[3]
    copied = sum(1 for e in source.events[:at] if isinstance(e, DecisionMade))
    assert copied > 0

    randoms = parse_config({**KILLER, "default_agent": {"kind": "random"}})
    forked = fork(record.path, at, randoms, tmp_path / "b")
    assert forked.path is not None
    transcript = read_transcript(forked.path)

    facts = game_facts(transcript)
    assert facts is not None
    assert facts.fallbacks.get(("scripted", "exhausted")) == copied
    assert not any(kind == "random" and reason == "exhausted" for kind, reason in facts.fallbacks)

    timeline = build_timeline(transcript, None)
    by_seq = {e.seq: e for section in timeline.sections for e in section.entries}
    before = [e for seq, e in by_seq.items() if seq < at and e.controller is not None]
    after = [e for seq, e in by_seq.items() if seq >= at and e.controller is not None]
    assert before and {e.controller for e in before} == {"scripted"}
    assert after and {e.controller for e in after} == {"random"}
