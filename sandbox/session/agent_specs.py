"""The agent tables of a game file (``default_agent``, ``[[agent]]``): one
pydantic model per seat kind, each building its agent for a seat.

:mod:`sandbox.session.gamefile` validates the whole file with them; a study's
contestants and a what-if's replacement seat parse a single table with
:func:`parse_agent_spec`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    TypeAdapter,
    model_validator,
)

from sandbox.agents.baseline import BaselineAgent
from sandbox.agents.human.seat import HumanAgent
from sandbox.agents.llm.agent import LLMAgent
from sandbox.agents.llm.settings import Language, LLMSettings
from sandbox.agents.remote import RemoteAgent
from sandbox.agents.simple import RandomAgent, ScriptedAgent
from sandbox.core.seat import Agent, AgentSetupError, Seating

AgentKind = Literal["random", "scripted", "baseline", "human", "remote", "llm"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeatSelector(Strict):
    """Which seats an agent entry plays: by seat number or by role (neither: the
    default agent). Keys that only another kind of agent reads are set aside, not
    refused: ``validate`` and ``run`` warn about them (``ignored_keys``)."""

    seats: list[int] | None = Field(None, description="seat numbers this entry applies to")
    role: str | None = Field(
        None,
        description="a role or team label, as the variant's roles give it; 'x' matches 'x' "
        "and 'x/...'",
    )
    _ignored: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _set_aside_other_kinds_keys(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        foreign: list[str] = []
        if isinstance(data, Mapping):
            foreign = sorted(k for k in data if k in AGENT_KEYS and k not in cls.model_fields)
            data = {k: v for k, v in data.items() if k not in foreign}
        spec = handler(data)
        spec._ignored = tuple(foreign)
        return spec

    @model_validator(mode="after")
    def _one_selector(self) -> SeatSelector:
        if self.seats is not None and self.role is not None:
            raise ValueError("give 'seats' or 'role', not both")
        if self.seats is not None and not self.seats:
            raise ValueError("seats: an empty list selects no seat; leave 'seats' out instead")
        if self.seats is not None and len(set(self.seats)) < len(self.seats):
            twice = sorted({s for s in self.seats if self.seats.count(s) > 1})
            raise ValueError(f"seats: {', '.join(map(str, twice))} listed more than once")
        return self


class RandomSpec(SeatSelector):
    """Uniform over the legal options (seeded per seat)."""

    kind: Literal["random"]

    def build(self, seat: int, seed: int, llm: LLMSettings) -> Agent:
        return RandomAgent(seed)


class BaselineSpec(SeatSelector):
    """The variant's baseline bot; at ``level`` 1..4 the reference ladder (issue 37)."""

    kind: Literal["baseline"]
    language: Language | None = Field(
        None, description="baseline: the language the bot speaks (default: [llm].language)"
    )
    level: int = Field(
        0,
        ge=0,
        le=4,
        description="baseline: 0 plays as the baseline always has; 1..4 are the frozen "
        "reference levels, weakest to strongest (each variant's ladder in docs/deduction.md; "
        "a ladder's level 1 may play as the baseline)",
    )

    def build(self, seat: int, seed: int, llm: LLMSettings) -> Agent:
        language = self.language or llm.language
        if self.level:
            return LevelledBaselineAgent(seed, language=language, level=self.level)
        return BaselineAgent(seed, language=language)


class LevelledBaselineAgent(BaselineAgent):
    """The baseline bot set to a deducing level once seated; its description
    carries the level and the frozen reference tag (variant, level, version),
    so a transcript names the reference it was played against."""

    def __init__(self, seed: int | None = None, language: str = "en", level: int = 1) -> None:
        super().__init__(seed, language)
        self.level = level

    def attach(self, seating: Seating) -> None:
        super().attach(seating)
        at_level = getattr(self._bot, "at_level", None)
        if at_level is None:
            raise AgentSetupError(f"{seating.variant.name}'s baseline bot has no levels")
        at_level(self.level)

    def describe(self) -> dict[str, Any]:
        if self._bot is None:
            return {"kind": self.kind, "level": self.level}
        return self._bot.describe()


class ScriptedSpec(SeatSelector):
    """Listed decisions in order (scenarios and tests)."""

    kind: Literal["scripted"]
    decisions: list[dict[str, Any]] = Field(default_factory=list)
    then: Literal["fallback", "random"] = "fallback"
    skip_unlisted: bool = Field(
        False, description="scripted: fall back on requests until the next entry's 'decision'"
    )

    def build(self, seat: int, seed: int, llm: LLMSettings) -> Agent:
        return ScriptedAgent(self.decisions, self.then, seed, self.skip_unlisted)


# Reading speed for a person's page: a speech or an announcement every 1.5 s.
DEFAULT_PACE_S = 1.5


class HumanSpec(SeatSelector):
    """A person, in this terminal or in a browser page."""

    kind: Literal["human"]
    interface: Literal["terminal", "browser"] = Field(
        "terminal", description="human: play in this terminal or in a browser page on loopback"
    )
    port: int | None = Field(
        None, ge=0, le=65535, description="human/browser: loopback port (default: a free one)"
    )

    decision_timeout_s: float | None = Field(
        None, gt=0, le=86400, description="human: seconds per decision, then the fallback"
    )
    language: Language | None = Field(
        None, description="human: the page's and the rules' language (default: [llm].language)"
    )
    pace_s: float = Field(
        DEFAULT_PACE_S,
        ge=0,
        le=60,
        description="human/browser: seconds the game waits after each event the page shows",
    )

    def build(self, seat: int, seed: int, llm: LLMSettings) -> Agent:
        return HumanAgent(
            self.interface,
            port=self.port,
            decision_timeout_s=self.decision_timeout_s,
            language=self.language or llm.language,
            pace_s=self.pace_s,
        )


class RemoteSpec(SeatSelector):
    """A program outside the sandbox, over a WebSocket (docs/remote-agents.md)."""

    kind: Literal["remote"]
    port: int | None = Field(
        None, ge=0, le=65535, description="remote: the server's port (default: a free one)"
    )
    token_env: str | None = Field(
        None,
        description="remote: environment variable holding the endpoint's token "
        "(default: a fresh token, announced with the address)",
    )
    decision_timeout_s: float = Field(
        60.0, gt=0, le=86400, description="remote: seconds per decision, then the fallback"
    )
    max_invalid: int = Field(
        3, ge=0, le=20, description="remote: refused answers per decision before the fallback"
    )
    reconnect_s: float = Field(
        5.0, ge=0, le=3600, description="remote: how long a lost program is waited for"
    )
    connect_timeout_s: float = Field(
        60.0, ge=0, le=86400, description="remote: how long the first connection is waited for"
    )
    language: Language | None = Field(
        None, description="remote: the observation's language (default: [llm].language)"
    )

    def build(self, seat: int, seed: int, llm: LLMSettings) -> Agent:
        return RemoteAgent(
            port=self.port,
            token_env=self.token_env,
            decision_timeout_s=self.decision_timeout_s,
            max_invalid=self.max_invalid,
            reconnect_s=self.reconnect_s,
            connect_timeout_s=self.connect_timeout_s,
            language=self.language or llm.language,
        )


class LLMSpec(SeatSelector, LLMSettings):
    """A model. The LLMSettings keys set here override the game file's ``[llm]``."""

    kind: Literal["llm"]
    model: str = Field(description="litellm model string, e.g. 'openai/gpt-4o'")
    api_base: str | None = None
    api_key_env: str | None = Field(
        None, description="name of the environment variable holding the key (never the key)"
    )

    def build(self, seat: int, seed: int, llm: LLMSettings) -> Agent:
        return LLMAgent(
            self.model,
            api_base=self.api_base,
            api_key_env=self.api_key_env,
            settings=llm.override(self),
        )


AgentSpec = Annotated[
    RandomSpec | BaselineSpec | ScriptedSpec | HumanSpec | RemoteSpec | LLMSpec,
    Field(discriminator="kind"),
]
AGENT_SPECS: tuple[type[SeatSelector], ...] = (
    RandomSpec,
    BaselineSpec,
    ScriptedSpec,
    HumanSpec,
    RemoteSpec,
    LLMSpec,
)
AGENT_KEYS = frozenset(key for spec in AGENT_SPECS for key in spec.model_fields)
DEFAULT_KIND = "baseline"
_AGENT_SPEC: TypeAdapter[AgentSpec] = TypeAdapter(AgentSpec)


def parse_agent_spec(raw: Mapping[str, Any]) -> AgentSpec:
    """An agent table (``kind`` defaults to baseline) as its typed spec; pydantic's
    ValidationError on a bad one."""
    return _AGENT_SPEC.validate_python(with_kind(raw))


def with_kind(raw: Any) -> Any:
    if isinstance(raw, Mapping) and "kind" not in raw:
        return {"kind": DEFAULT_KIND, **raw}
    return raw
