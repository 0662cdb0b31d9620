"""Experiment files (``sandbox study STUDY.toml``), validated with pydantic.

A study names a game file, a pool of contestants (a name plus an agent spec, as
an ``[[agent]]`` entry of a game file would give it, without ``seats``/``role``),
a schedule and a base seed. See docs/studies.md.

A contestant may be a *person* (issue 39, item 4): ``kind = "person"`` with a
pseudonymous ``id`` (``p-7f3a``) that is its only name in transcripts and
ratings; the person plays in a browser page (a human browser seat). ``blind =
true`` hides which seats are models and asks each person at the end which seats
were played by AI (sandbox.analysis.detect reads the answers).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sandbox.core.errors import ConfigError
from sandbox.session.agent_specs import AgentSpec, parse_agent_spec
from sandbox.session.gamefile import LoadedConfig, describe_error, load_config

# A person's pseudonymous id: letters, digits and dashes only, so that an email
# address or a full name ("Ada Lovelace") cannot be given as one by mistake.
PERSON_ID = r"^[A-Za-z0-9][A-Za-z0-9-]{1,39}$"
PERSON = "person"


class Contestant(BaseModel):
    """One contestant: a name and the agent that plays for it; a person is
    named by its pseudonymous ``id`` alone."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str = Field("", max_length=60, pattern=r"^([A-Za-z0-9_.+-]+)?$")

    @model_validator(mode="after")
    def _named(self) -> Contestant:
        extra = self.model_extra or {}
        if extra.get("kind") != PERSON:
            if not self.name:
                raise ValueError("contestant: 'name' is required")
            return self
        if self.name:
            raise ValueError(
                "a person contestant is named by its pseudonymous 'id' only (no 'name')"
            )
        found = extra.get("id")
        if not isinstance(found, str) or re.fullmatch(PERSON_ID, found) is None:
            raise ValueError(
                "a person contestant needs a pseudonymous 'id' such as \"p-7f3a\" "
                "(2-40 letters, digits, dashes)"
            )
        return self

    @property
    def label(self) -> str:
        """Its name in the study: the name, or a person's id."""
        return self.name or str((self.model_extra or {}).get("id"))

    @property
    def is_person(self) -> bool:
        return (self.model_extra or {}).get("kind") == PERSON


class StudyFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.+-]+$")
    game: str = Field(description="the game file (TOML), relative to the study file")
    schedule: Literal["matrix", "round_robin", "i3"] = "matrix"
    games_per_cell: int = Field(1, ge=1, le=10000)
    seed: int = Field(0, ge=0)
    jobs: int = Field(1, ge=0, le=256, description="worker processes (0 = one per CPU)")
    out: str | None = Field(None, description="transcript folder (default: <game out>/<name>)")
    cost_cap: float | None = Field(None, gt=0, description="US dollars for the whole study")
    provider_limits: dict[str, int] = Field(
        default_factory=dict, description="games in flight per provider, e.g. {openai = 2}"
    )
    blind: bool = Field(
        False, description="people are not told which seats are models, and are asked at the end"
    )
    contestant: list[Contestant] = Field(min_length=2)

    @model_validator(mode="after")
    def _unique_names(self) -> StudyFile:
        names = [c.label for c in self.contestant]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"contestant names must be unique; repeated: {', '.join(twice)}")
        bad = [k for k, v in self.provider_limits.items() if v < 1]
        if bad:
            raise ValueError(f"provider_limits.{bad[0]}: must be at least 1")
        return self


@dataclass(frozen=True)
class Study:
    """A validated study: the file, its game file and each contestant's agent spec."""

    file: StudyFile
    game: LoadedConfig
    specs: dict[str, AgentSpec]
    source: Path

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def names(self) -> list[str]:
        return [c.label for c in self.file.contestant]

    @property
    def people(self) -> list[str]:
        """The persons' pseudonymous ids (contestants of kind "person")."""
        return [c.label for c in self.file.contestant if c.is_person]

    def out(self) -> Path:
        if self.file.out is not None:
            return (self.source.parent / self.file.out).resolve()
        return Path(self.game.file.run.out) / self.name

    def spec_json(self, name: str) -> dict[str, Any]:
        return self.specs[name].model_dump(mode="json", exclude_none=True, exclude_defaults=True)


def load_study(path: Path) -> Study:
    """Read and validate a study file and the game file it names (ConfigError, one line)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot be read ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    try:
        file = StudyFile.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{path}: {describe_error(err)}") from None
    game = load_config((path.parent / file.game).resolve())
    specs = {c.label: contestant_spec(path, c) for c in file.contestant}
    return Study(file, game, specs, path)


def contestant_spec(path: Path, contestant: Contestant) -> AgentSpec:
    """The contestant's agent, validated exactly as a game file's [[agent]] entry;
    a person's is a human browser seat (its other keys: the seat's, e.g.
    ``decision_timeout_s``)."""
    fields = dict(contestant.model_extra or {})
    who = contestant.label
    for key in ("seats", "role"):
        if key in fields:
            raise ConfigError(f"{path}: contestant '{who}': '{key}' is set by the schedule")
    if fields.get("kind") == "human":
        raise ConfigError(
            f"{path}: contestant '{who}': a study seats humans only as kind = \"person\" "
            "with a pseudonymous id"
        )
    if contestant.is_person:
        fields.pop("id", None)
        fields.update(kind="human", interface="browser")
    try:
        return parse_agent_spec(fields)
    except ValidationError as err:
        raise ConfigError(f"{path}: contestant '{who}': {describe_error(err)}") from None
