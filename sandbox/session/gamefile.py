"""Game files: TOML, validated with pydantic. See docs/config.md.

A game file names the variant, its rulings (``[rules]``), fixed seat setups
(``[[seat]]``), the default seat agent and agent overrides (``[[agent]]``),
and run settings (``[run]``). Every error is one line naming the field and the
allowed values.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    Field,
    ValidationError,
    model_validator,
)

from sandbox.agents.baseline import BaselineAgent
from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.errors import ConfigError
from sandbox.core.seat import AgentSetupError, Seating
from sandbox.core.variant import Variant
from sandbox.games.registry import get_variant, variant_names
from sandbox.session.agent_specs import (
    AgentSpec,
    BaselineSpec,
    HumanSpec,
    LLMSpec,
    ScriptedSpec,
    Strict,
    with_kind,
)
from sandbox.session.script_check import check_script


class RunSettings(Strict):
    out: str = "transcripts"
    series: int = Field(
        1,
        ge=1,
        le=1000,
        description="consecutive games, each next config from the variant's series rules",
    )
    # No "never" value is needed: the share can never exceed 1, so 1 never aborts.
    abort_share: float = Field(
        0.25,
        ge=0,
        le=1,
        description="abort when more decisions than this share fell back on provider failure"
        " (1 = never)",
    )
    abort_seat: int | None = Field(
        None,
        ge=1,
        description="count only this seat's decisions in the abort rule (an evaluated seat)",
    )
    open_pace_s: float = Field(
        30.0,  # open_clock.OPEN_PACE_S
        gt=0,
        le=3600,
        description="OD-7: seconds an open day's round waits for a person who sets no "
        "decision_timeout_s before that person waits for the round",
    )


class GameFile(Strict):
    variant: str
    seed: int | None = Field(None, ge=0, description="game seed (a whole number >= 0)")
    name: str | None = None
    rules: dict[str, Any] = Field(default_factory=dict)
    seat: list[dict[str, Any]] = Field(default_factory=list)
    default_agent: AgentSpec = BaselineSpec(kind="baseline")
    agent: list[AgentSpec] = Field(default_factory=list)
    llm: LLMSettings = LLMSettings()
    run: RunSettings = RunSettings()

    @model_validator(mode="before")
    @classmethod
    def _default_kinds(cls, data: Any) -> Any:
        """An agent table without ``kind`` is a baseline bot (as it always was)."""
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        if "default_agent" in data:
            data["default_agent"] = with_kind(data["default_agent"])
        if isinstance(data.get("agent"), list):
            data["agent"] = [with_kind(entry) for entry in data["agent"]]
        return data


@dataclass(frozen=True)
class LoadedConfig:
    """A validated game file together with its variant and the variant's config."""

    file: GameFile
    variant: Variant[Any]
    game_config: BaseModel
    source: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """The game file as written (defaults left out, so that ``[llm]`` defaults and
        a seat's own overrides stay apart when a transcript's header is read back)."""
        return self.file.model_dump(mode="json", exclude_unset=True)


def load_config(path: Path) -> LoadedConfig:
    """Read and validate a TOML game file. Raises ConfigError (one line)."""
    try:
        raw = tomllib.loads(read_game_file(path))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a game file") from None
    except UnicodeDecodeError as err:
        why = f"{err.reason} at byte {err.start}"
        raise ConfigError(f"{path}: not a UTF-8 text file ({why})") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read ({err.strerror or err})") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a game file") from None
    try:
        return parse_config(raw, path)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a game file") from None


# A game file is a few kilobytes; anything far larger is not one (and /dev/zero or a
# FIFO must never hang a command).
MAX_GAME_FILE_BYTES = 1_000_000


def read_game_file(path: Path) -> str:
    """The text of a regular file of at most MAX_GAME_FILE_BYTES, else ConfigError."""
    if path.exists() and not path.is_dir() and not path.is_file():
        raise ConfigError(f"{path}: not a regular file")
    with path.open("rb") as fh:
        data = fh.read(MAX_GAME_FILE_BYTES + 1)
    if len(data) > MAX_GAME_FILE_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_GAME_FILE_BYTES:,} bytes; not a game file")
    return data.decode("utf-8")


def parse_config(raw: Mapping[str, Any], source: Path | None = None) -> LoadedConfig:
    where = f"{source}: " if source else ""
    try:
        file = GameFile.model_validate(dict(raw))
    except ValidationError as err:
        raise ConfigError(where + describe_error(err)) from None
    if file.variant not in variant_names():
        allowed = ", ".join(variant_names())
        raise ConfigError(
            f"{where}variant: '{file.variant}' is not a game here; allowed: {allowed}"
        )
    variant = get_variant(file.variant)
    try:
        game_config = variant.parse_config({**file.rules, "seat": file.seat})
    except ValidationError as err:
        raise ConfigError(where + describe_error(err, section="rules")) from None
    except ValueError as err:
        raise ConfigError(f"{where}{err}") from None
    try:
        check_agents(file, variant, game_config)
    except ConfigError as err:
        raise ConfigError(f"{where}{err}") from None
    return LoadedConfig(file, variant, game_config, source)


def role_matches(selector: str, role: str) -> bool:
    """'wolves' matches 'wolves' and 'wolves/elite'; 'killer' matches 'killer'."""
    return role == selector or role.startswith(selector + "/")


def check_agents(file: GameFile, variant: Variant[Any], game_config: BaseModel) -> None:
    """What the agent tables can only be checked against once the variant is known:
    seat ranges, role selectors and scripted entries (a typo must never silently
    select nothing or stop a game halfway)."""
    seats = variant.rules.seat_count(game_config)
    counted = file.run.abort_seat
    if counted is not None and counted > seats:
        raise ConfigError(f"run.abort_seat: {counted} out of range; allowed: 1..{seats}")
    labels = variant.role_labels(game_config)
    named = [("default_agent", file.default_agent)]
    named += [(f"agent[{i}]", spec) for i, spec in enumerate(file.agent, 1)]
    for name, spec in named:
        bad = [s for s in spec.seats or [] if not 1 <= s <= seats]
        if bad:
            shown = ", ".join(str(s) for s in bad)
            raise ConfigError(f"{name}.seats: {shown} out of range; allowed: 1..{seats}")
        if spec.role is not None and labels and not any(role_matches(spec.role, r) for r in labels):
            raise ConfigError(
                f"{name}.role: '{spec.role}' matches no role; roles: {', '.join(labels)}"
            )
        if isinstance(spec, ScriptedSpec):
            check_script(name, spec.decisions, variant, game_config)


def field_path(loc: Sequence[int | str]) -> str:
    """A pydantic location as a user reads the game file: tables of an array are
    counted from 1 as they appear in it, so ``("seat", 0, "hp")`` is ``seat[1].hp``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part + 1}]"
        else:
            path += f".{part}" if path else part
    return path or "(top level)"


def describe_error(err: ValidationError, section: str | None = None) -> str:
    """The first pydantic error as one line: field path, message, offending value."""
    first = err.errors(include_url=False, include_context=False)[0]
    path = field_path(first["loc"])
    if section and not path.startswith("seat"):
        path = f"{section}.{path}"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    got = first.get("input")
    # Our own validators already say what they got; pydantic's built-in ones do not.
    quiet = first["type"] in ("missing", "extra_forbidden", "value_error")
    shown = "" if quiet else f" (got {got!r})"
    more = len(err.errors()) - 1
    tail = f" [+{more} more error(s)]" if more else ""
    return f"{path}: {message}{shown}{tail}"


def ignored_keys(spec: AgentSpec) -> list[str]:
    """Keys set on an agent entry that its kind never reads (e.g. a model on a
    random seat): legal, but almost always a mistake worth a warning."""
    ignored = list(spec._ignored)
    terminal = isinstance(spec, HumanSpec) and spec.interface == "terminal"
    if terminal and "port" in spec.model_fields_set:
        ignored.append("port")  # only a browser seat listens on a port
    if terminal and "pace_s" in spec.model_fields_set:
        ignored.append("pace_s")  # a terminal shows the news at the seat's turn
    return ignored


def config_warnings(file: GameFile) -> list[str]:
    """One line per agent entry key that has no effect."""
    named = [("default_agent", file.default_agent)]
    named += [(f"agent[{i}]", spec) for i, spec in enumerate(file.agent, 1)]
    return [
        f"{name}: '{key}' is ignored by a {spec.kind} seat"
        for name, spec in named
        for key in ignored_keys(spec)
    ]


def non_default_rules(variant: Variant[Any], game_config: BaseModel) -> dict[str, Any]:
    """The rulings that differ from the variant's defaults ([[seat]] tables aside)."""
    default = variant.parse_config({}).model_dump(mode="json")
    current = game_config.model_dump(mode="json")
    return {k: v for k, v in current.items() if k != "seat" and default.get(k) != v}


def check_setup(loaded: LoadedConfig) -> None:
    """What ``run`` checks when it seats the agents, without starting anything: each
    non-human entry builds its agent (an unknown fake policy, an unset key variable,
    a local model that is not installed, no baseline bot for the variant); ConfigError
    names the entry. Human seats open pages or prompts, so they are built at run time."""
    named = [("default_agent", loaded.file.default_agent)]
    named += [(f"agent[{i}]", spec) for i, spec in enumerate(loaded.file.agent, 1)]
    for name, spec in named:
        if isinstance(spec, HumanSpec):
            continue
        try:
            agent = spec.build(1, 0, loaded.file.llm)
            if isinstance(agent, BaselineAgent):
                agent.attach(Seating(1, 0, loaded.variant))
        except AgentSetupError as err:
            raise ConfigError(f"{name}: {err}") from None


def uses_llm(file: GameFile) -> bool:
    return file.default_agent.kind == "llm" or any(s.kind == "llm" for s in file.agent)


def llm_specs(file: GameFile) -> list[LLMSpec]:
    """Every llm entry of a game file (the default agent first)."""
    return [s for s in (file.default_agent, *file.agent) if isinstance(s, LLMSpec)]
