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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sandbox.core.errors import ConfigError
from sandbox.core.variant import Variant, get_variant, variant_names

AgentKind = Literal["random", "scripted", "baseline", "human", "llm"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AgentSpec(Strict):
    """Which agent plays a seat, and how. Selected by ``seats`` or ``role``."""

    kind: AgentKind = "baseline"
    seats: list[int] | None = Field(None, description="seat numbers this entry applies to")
    role: str | None = Field(
        None, description="a role or team label (e.g. 'wolves', 'killer'); matches by prefix"
    )
    # scripted
    decisions: list[dict[str, Any]] = Field(default_factory=list)
    then: Literal["fallback", "random"] = "fallback"
    skip_unlisted: bool = Field(
        False, description="scripted: fall back on requests until the next entry's 'decision'"
    )
    # human
    interface: Literal["terminal", "browser"] = Field(
        "terminal", description="human: play in this terminal or in a browser page on loopback"
    )
    port: int | None = Field(
        None, ge=0, le=65535, description="human/browser: loopback port (default: a free one)"
    )
    decision_timeout_s: float | None = Field(
        None, gt=0, le=86400, description="human: seconds per decision, then the fallback"
    )
    # llm
    model: str | None = Field(None, description="litellm model string, e.g. 'openai/gpt-4o'")
    api_base: str | None = None
    api_key_env: str | None = Field(
        None, description="name of the environment variable holding the key (never the key)"
    )
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=16, le=32768)
    timeout_s: float = Field(60.0, gt=0, le=3600)
    language: Literal["en", "zh"] | None = None
    max_repairs: int | None = Field(None, ge=0, le=5)
    concurrency: int | None = Field(None, ge=1, le=256)
    belief_probe: bool | None = None
    structured: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    prompt_style: Literal["full", "compact"] | None = Field(
        None, description="llm: 'compact' = short primer and recent history, for small models"
    )
    history_items: int | None = Field(
        None, ge=1, le=100000, description="llm: show at most this many recent history items"
    )

    @model_validator(mode="after")
    def _llm_needs_model(self) -> AgentSpec:
        if self.kind == "llm" and not self.model:
            raise ValueError("an llm agent needs 'model' (a litellm model string)")
        if self.seats is not None and self.role is not None:
            raise ValueError("give 'seats' or 'role', not both")
        return self


class LLMDefaults(Strict):
    """Defaults for every llm seat; an [[agent]] entry may override each."""

    language: Literal["en", "zh"] = "en"
    max_repairs: int = Field(2, ge=0, le=5)
    concurrency: int = Field(8, ge=1, le=256)
    belief_probe: bool = False
    prompt_style: Literal["full", "compact"] = "full"
    history_items: int | None = Field(None, ge=1, le=100000)
    retry_attempts: int = Field(4, ge=1, le=10)
    retry_max_wait_s: float = Field(20.0, gt=0, le=600)
    retry_total_s: float = Field(120.0, gt=0, le=3600)


class RunSettings(Strict):
    out: str = "transcripts"
    series: int = Field(1, ge=1, le=1000, description="consecutive games (Killer KG-5)")
    # No "never" value is needed: the share can never exceed 1, so 1 never aborts.
    abort_share: float = Field(
        0.25,
        ge=0,
        le=1,
        description="abort when more decisions than this share fell back on provider failure"
        " (1 = never)",
    )


class GameFile(Strict):
    variant: str
    seed: int | None = Field(None, ge=0, description="game seed (a whole number >= 0)")
    name: str | None = None
    rules: dict[str, Any] = Field(default_factory=dict)
    seat: list[dict[str, Any]] = Field(default_factory=list)
    default_agent: AgentSpec = AgentSpec()
    agent: list[AgentSpec] = Field(default_factory=list)
    llm: LLMDefaults = LLMDefaults()
    run: RunSettings = RunSettings()


@dataclass(frozen=True)
class LoadedConfig:
    """A validated game file together with its variant and the variant's config."""

    file: GameFile
    variant: Variant[Any]
    game_config: BaseModel
    source: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return self.file.model_dump(mode="json", exclude_none=True)


def load_config(path: Path) -> LoadedConfig:
    """Read and validate a TOML game file. Raises ConfigError (one line)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
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
    return parse_config(raw, path)


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
    seats = variant.seat_count(game_config)
    labels = variant.role_labels(game_config)
    decisions = variant.decision_fields(game_config)
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
        if decisions:
            check_script(name, spec.decisions, decisions)


# Keys of a scripted entry that are not answer fields.
SCRIPT_KEYS = frozenset({"decision", "note"})


def check_script(
    name: str, entries: Sequence[Mapping[str, Any]], decisions: Mapping[str, tuple[str, ...]]
) -> None:
    """Each scripted entry names a decision of the variant (if it names one) and
    only answer fields that decision (or, unnamed, any decision) has."""
    every_field = sorted({f for fields in decisions.values() for f in fields})
    for index, entry in enumerate(entries, 1):
        where = f"{name}.decisions[{index}]"
        wanted = entry.get("decision")
        if wanted is not None and wanted not in decisions:
            raise ConfigError(
                f"{where}.decision: '{wanted}' is not a decision of this game; "
                f"allowed: {', '.join(decisions)}"
            )
        allowed = decisions[wanted] if wanted is not None else every_field
        unknown = [k for k in entry if k not in SCRIPT_KEYS and k not in allowed]
        if unknown:
            of = f" of '{wanted}'" if wanted is not None else ""
            raise ConfigError(
                f"{where}: '{unknown[0]}' is not an answer field{of}; "
                f"allowed: {', '.join([*allowed, *sorted(SCRIPT_KEYS)])}"
            )


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


# The [[agent]] keys each kind reads; any other key set on an entry does nothing.
SELECTOR_KEYS = frozenset({"kind", "seats", "role"})
KIND_KEYS: Mapping[str, frozenset[str]] = {
    "random": frozenset(),
    "baseline": frozenset(),
    "scripted": frozenset({"decisions", "then", "skip_unlisted"}),
    "human": frozenset({"interface", "port", "decision_timeout_s", "language"}),
    "llm": frozenset(
        {
            "model",
            "api_base",
            "api_key_env",
            "temperature",
            "max_tokens",
            "timeout_s",
            "language",
            "max_repairs",
            "concurrency",
            "belief_probe",
            "structured",
            "prompt_style",
            "history_items",
        }
    ),
}


def ignored_keys(spec: AgentSpec) -> list[str]:
    """Keys set on an agent entry that its kind never reads (e.g. a model on a
    random seat): legal, but almost always a mistake worth a warning."""
    used = SELECTOR_KEYS | KIND_KEYS[spec.kind]
    ignored = sorted(key for key in spec.model_fields_set if key not in used)
    if spec.kind == "human" and spec.interface == "terminal" and "port" in spec.model_fields_set:
        ignored.append("port")  # only a browser seat listens on a port
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


def uses_llm(file: GameFile) -> bool:
    return file.default_agent.kind == "llm" or any(s.kind == "llm" for s in file.agent)
