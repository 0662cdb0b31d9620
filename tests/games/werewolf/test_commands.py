"""Werewolf through the command line, from the project's own config files: ``run``
(baseline bots, the fake model, the werewolf_arena preset), ``view`` (terminal
in both languages, a seat's view, ``--html``), ``replay``, ``rules`` in both
languages, and a small ``study`` with its ``report`` (issue 19, "Done when")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs"

pytestmark = pytest.mark.slow


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, (args, result.stdout[-2000:], result.stderr[-2000:])
    return result.stdout


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One game of each shipped config, seed 1, in a folder of its own."""
    out = tmp_path_factory.mktemp("ww")
    played = {}
    for name in ("werewolf", "werewolf_fake", "werewolf_arena"):
        done = json.loads(
            invoke("run", str(CONFIGS / f"{name}.toml"), "--seed", "1", "--json", "--out", str(out))
        )
        played[name] = Path(done["transcript"])
    return played


def test_every_config_plays_to_a_valid_end(games: dict[str, Path]) -> None:
    for name, path in games.items():
        header, *rest = lines(path)
        assert header["variant"] == "werewolf" and header["seed"] == 1, name
        assert rest[-1]["type"] == "outcome", name
        assert rest[-1]["reason"] in ("werewolves_eliminated", "werewolf_parity", "day_limit")
        kinds = {x["kind"] for x in rest if x["type"] == "event"}
        assert {"werewolf.night", "werewolf.dawn", "werewolf.roles_revealed"} <= kinds, name
    agents = lines(games["werewolf"])[0]["agents"]
    assert {a["kind"] for a in agents.values()} == {"baseline"}
    assert any(x["type"] == "call" for x in lines(games["werewolf_fake"]))
    arena = {x["kind"] for x in lines(games["werewolf_arena"]) if x["type"] == "event"}
    assert "werewolf.bids" in arena  # the preset's bidding for the floor (WW-24)


def test_replay_reproduces_every_game(games: dict[str, Path]) -> None:
    for path in games.values():
        assert "OK" in invoke("replay", str(path))


def test_view_says_the_game_in_both_languages(games: dict[str, Path], tmp_path: Path) -> None:
    english = invoke("view", str(games["werewolf"]))
    assert "Werewolf with 8 seats" in english and "Night 1 falls." in english
    chinese = invoke("view", str(games["werewolf"]), "--language", "zh")
    assert "狼人杀，共8个座位" in chinese and "第1夜降临" in chinese
    # the events' game words are said in Chinese too (vocabulary.py), speeches aside
    events = [line for line in chinese.splitlines() if line.startswith("#")]
    referee = [line for line in events if "说" not in line and "遗言" not in line]
    assert not [line for line in referee if re.search(r"\b(werewolf|seer|doctor)\b", line)]
    seat = invoke("view", str(games["werewolf_fake"]), "--seat", "2")
    assert "dealt the" in seat
    page = tmp_path / "game.html"
    invoke("view", str(games["werewolf_arena"]), "--html", str(page))
    assert "Werewolf" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(("language", "said"), [("en", "WW-24"), ("zh", "狼人")])
def test_rules_in_both_languages(language: str, said: str) -> None:
    text = invoke("rules", "werewolf", "--language", language)
    assert said in text and "WW-1" in text and "WW-21" in text


def test_the_study_and_its_report(tmp_path: Path) -> None:
    """configs/study_werewolf_fake.toml, one game per cell, written under tmp_path."""
    text = (CONFIGS / "study_werewolf_fake.toml").read_text(encoding="utf-8")
    text = re.sub(
        r'(?m)^game = ".*?"', f"game = {json.dumps(str(CONFIGS / 'werewolf_fake.toml'))}", text
    )
    text = re.sub(r'(?m)^out = ".*?"', f"out = {json.dumps(str(tmp_path / 'study'))}", text)
    text = re.sub(r"(?m)^games_per_cell = \d+", "games_per_cell = 1", text)
    study = tmp_path / "study.toml"
    study.write_text(text, encoding="utf-8")
    summary = json.loads(invoke("study", str(study), "--json", "--quiet"))
    assert summary["finished"] == summary["planned"] == 6 and not summary["failed"]
    assert {"bot@village", "bot@werewolves"} <= set(summary["ratings_by_role"])
    assert {"seer_hits", "doctor_saves", "vote_accuracy"} <= set(summary["metrics"]["werewolf"])
    page = tmp_path / "report.html"
    invoke("report", str(tmp_path / "study"), "--out", str(page))
    assert "doctor_saves" in page.read_text(encoding="utf-8")
