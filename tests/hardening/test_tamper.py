"""Tamper evidence: `replay` re-derives everything it can from the seed and the recorded
decisions (roles, visibility, order of sealed answers, the outcome line) and reports any
edit of those as a divergence; `resume` refuses a transcript that does not replay."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hardening.helpers import Line, bot_game, invoke, read_lines, renumber, write_lines


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> list[Line]:
    return read_lines(bot_game(tmp_path_factory.mktemp("game")))


def swap_two_roles(lines: list[Line]) -> list[Line]:
    roles = lines[0]["roles"]
    killer = next(s for s, r in roles.items() if r == "killer")
    civilian = next(s for s, r in roles.items() if r == "civilian")
    roles[killer], roles[civilian] = roles[civilian], roles[killer]
    return lines


def private_event_made_public(lines: list[Line]) -> list[Line]:
    line = next(x for x in lines if x.get("type") == "event" and isinstance(x["vis"], list))
    line["vis"] = "public"
    return lines


def forged_summary(lines: list[Line]) -> list[Line]:
    lines[-1]["summary"] = "The civilians won by a landslide."
    return lines


def forged_stats(lines: list[Line]) -> list[Line]:
    lines[-1]["stats"]["decisions"] += 1
    return lines


def forged_result(lines: list[Line]) -> list[Line]:
    results = lines[-1]["results"]
    seat = next(iter(results))
    results[seat] = "draw" if results[seat] != "draw" else "win"
    return lines


def reordered_sealed_decisions(lines: list[Line]) -> list[Line]:
    """Two answers of one sealed step (same step, consecutive lines) swapped."""
    for i in range(1, len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if (
            a.get("kind") == b.get("kind") == "core.decision"
            and a["data"]["decision"] == b["data"]["decision"] == "vote"
        ):
            lines[i], lines[i + 1] = b, a
            return renumber(lines)
    raise AssertionError("no two consecutive votes in this game")


TAMPERS: dict[str, tuple[Callable[[list[Line]], list[Line]], str]] = {
    "swapped roles": (swap_two_roles, "header roles"),
    "private event made public": (private_event_made_public, "visibility"),
    "forged summary": (forged_summary, "summary"),
    "forged stats": (forged_stats, "stats decisions"),
    "forged result": (forged_result, "result"),
    "reordered sealed decisions": (reordered_sealed_decisions, "out of the referee's order"),
}


def test_the_untouched_game_replays(tmp_path: Path, original: list[Line]) -> None:
    path = write_lines(tmp_path / "game.jsonl", copy.deepcopy(original))
    result = invoke("replay", str(path))
    assert result.exit_code == 0 and "OK" in result.stdout


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_replay_reports_the_tampering(tmp_path: Path, original: list[Line], name: str) -> None:
    tamper, words = TAMPERS[name]
    path = write_lines(tmp_path / "game.jsonl", tamper(copy.deepcopy(original)))
    result = invoke("replay", str(path))
    assert result.exit_code == 1 and "DIVERGED" in result.stdout, result.output
    assert words in result.stdout


@pytest.mark.parametrize(
    "name", ["swapped roles", "private event made public", "reordered sealed decisions"]
)
def test_resume_refuses_a_tampered_unfinished_game(
    tmp_path: Path, original: list[Line], name: str
) -> None:
    tamper, _ = TAMPERS[name]
    unfinished = tamper(copy.deepcopy(original))[:-1]  # drop the outcome line
    path = write_lines(tmp_path / "game.jsonl", unfinished)
    result = invoke("resume", str(path))
    assert result.exit_code == 2 and "does not replay" in result.stderr, result.output


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda ls: [*ls, ls[-1]], "a second outcome line"),
        (lambda ls: [{**ls[0], "roles": []}, *ls[1:]], "roles"),
    ],
)
def test_malformed_edits_are_one_error_line(
    tmp_path: Path, original: list[Line], edit: Callable[[list[Line]], list[Line]], words: str
) -> None:
    path = write_lines(tmp_path / "game.jsonl", edit(copy.deepcopy(original)))
    for command in ("replay", "view", "resume"):
        result = invoke(command, str(path))
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert words in result.stderr and "Traceback" not in result.output
