"""People as study contestants (issue 39, item 4): a person is named by a
pseudonymous id only, plays a browser seat, and the game's header records the
people it seats and whether the study was blind."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.core.errors import ConfigError
from sandbox.session.agent_specs import HumanSpec
from sandbox.study.run import job_for, planned_games
from sandbox.study.spec import load_study

GAME = """variant = "killer"
name = "k11"
[rules]
players = 11
"""

BASE = """name = "s"
game = "game.toml"
seed = 3
{top}
[[contestant]]
{person}

[[contestant]]
name = "bot"
kind = "baseline"

[[contestant]]
name = "dice"
kind = "random"
"""

PERSON = 'kind = "person"\nid = "p-7f3a"\ndecision_timeout_s = 30'


def study_at(tmp_path: Path, person: str = PERSON, top: str = "blind = true") -> Path:
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    path = tmp_path / "study.toml"
    path.write_text(BASE.format(person=person, top=top), encoding="utf-8")
    return path


def test_a_person_is_named_by_its_id_and_plays_a_browser_seat(tmp_path: Path) -> None:
    study = load_study(study_at(tmp_path))
    assert study.names == ["p-7f3a", "bot", "dice"]
    assert study.people == ["p-7f3a"] and study.file.blind is True
    spec = study.specs["p-7f3a"]
    assert isinstance(spec, HumanSpec)
    assert (spec.interface, spec.decision_timeout_s) == ("browser", 30)
    # not blind unless asked
    assert load_study(study_at(tmp_path, top="")).file.blind is False


@pytest.mark.parametrize(
    ("person", "says"),
    [
        ('kind = "person"\nid = "p-7f3a"\nname = "Ada"', "pseudonymous 'id' only"),
        ('kind = "person"\nid = "Ada Lovelace"', "needs a pseudonymous 'id'"),
        ('kind = "person"\nid = "ada@example.org"', "needs a pseudonymous 'id'"),
        ('kind = "person"', "needs a pseudonymous 'id'"),
        ('kind = "human"\nname = "ada"', 'humans only as kind = "person" with a pseudonymous id'),
        ('kind = "baseline"', "'name' is required"),
    ],
)
def test_what_a_person_cannot_be(tmp_path: Path, person: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load_study(study_at(tmp_path, person=person))


def test_two_people_with_one_id_are_one_name_too_many(tmp_path: Path) -> None:
    path = study_at(tmp_path, person=PERSON + '\n[[contestant]]\nkind = "person"\nid = "p-7f3a"')
    with pytest.raises(ConfigError, match="repeated: p-7f3a"):
        load_study(path)


def test_the_header_names_the_people_a_game_seats(tmp_path: Path) -> None:
    study = load_study(study_at(tmp_path))
    seen_person = seen_models_only = False
    for game in planned_games(study):
        extra = job_for(study, game, tmp_path).header_extra or {}
        seated = "p-7f3a" in game.seats.values()
        if seated:
            seen_person = True
            assert extra["study"]["people"] == ["p-7f3a"] and extra["study"]["blind"] is True
            assert "p-7f3a" in extra["contestants"].values()
        else:  # a game of models only: its header as before
            seen_models_only = True
            assert "people" not in extra["study"] and "blind" not in extra["study"]
    assert seen_person and seen_models_only
