"""The Werewolf configuration: seat and role counts (WW-1), every ruling of
RULES-WEREWOLF with its config key, the two presets (WW-24) and the fixed
seats of a game file's [[seat]] tables (scenarios).

Every error is one line naming the key and what is allowed."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sandbox.core.discussion import OpenDayRulings
from sandbox.core.lineup import check_fixed_seats
from sandbox.games.werewolf.info import (
    DOCTOR,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SEER,
    SMALL_TABLE,
    VILLAGER,
    WEREWOLF,
    Role,
)

Preset = Literal["kaggle_standard", "werewolf_arena"]
Reveal = Literal["role", "team", "none"]
Draw = Literal["random", "nobody"]

# WW-24: the keys each preset sets. The defaults below ARE the Kaggle standard
# setup, so that preset sets nothing; werewolf_arena is google's werewolf_arena.
PRESETS: dict[str, dict[str, Any]] = {
    "kaggle_standard": {},
    "werewolf_arena": {
        "players": 8,
        "werewolves": 2,
        "seers": 1,
        "doctors": 1,
        "wolf_vote": "one_wolf",
        "doctor_self_save": True,
        "doctor_repeat": True,
        "seer_repeat": False,
        "seer_reveals": "role",
        "reveal_on_death": "none",
        "reveal_on_exile": "none",
        "discussion": "bidding",
        "turns": 8,
        "day_vote": "sealed",
        "self_vote": False,
        "abstain": False,
        "exile_rule": "majority",
        "soften_words": False,
    },
}


class SeatFix(BaseModel):
    """A [[seat]] entry: fixes one seat's role; the other seats are dealt (WW-2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    seat: StrictInt = Field(ge=1, le=MAX_PLAYERS, description="seat number")
    role: Role = Field(description="the role this seat is dealt")


def lineup(players: int, werewolves: int, seers: int, doctors: int) -> dict[str, int]:
    """WW-1: the role counts; every seat not dealt a special role is a villager."""
    villagers = players - werewolves - seers - doctors
    return {WEREWOLF: werewolves, SEER: seers, DOCTOR: doctors, VILLAGER: villagers}


# Rulings added after transcripts were first written: announced (WW-4) only when
# set away from their default, so an old game's announcement replays unchanged,
# and read back with that default when absent (WerewolfState.ruling).
LATER_DEFAULTS: dict[str, Any] = {
    "small_table": False,
    "first_night": "free",
    "messages_per_seat": 3,
    "messages_per_day": None,
    "quiet_rounds": 1,
    "graveyard_chat": False,  # WW-16 ruling (table talk, issue 38)
}


class WerewolfConfig(OpenDayRulings):
    """Rulings of the Werewolf game. Defaults: Kaggle Game Arena's standard setup.
    The OD-4 budget of an open day (``discussion = "open"``) is included from
    :class:`OpenDayRulings`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: Preset = Field(
        "kaggle_standard", description="WW-24: a named set of rulings; keys given beside it win"
    )
    # WW-1. Strict: a TOML float (8.0) or a boolean is refused, never coerced.
    # small_table comes first: the players check reads it.
    small_table: StrictBool = Field(
        False, description="WW-1: allow 4 or 5 seats (Mini-Mafia's table), not only 6-16"
    )
    players: StrictInt = Field(8, description="WW-1: number of seats, 6-16 (4-16: small_table)")
    werewolves: StrictInt = Field(2, ge=1, le=MAX_PLAYERS, description="WW-1: werewolves (>= 1)")
    seers: StrictInt = Field(1, ge=0, le=1, description="WW-1: seers, 0 or 1")
    doctors: StrictInt = Field(1, ge=0, le=1, description="WW-1: doctors, 0 or 1")
    # Night
    wolf_chat: StrictBool = Field(False, description="WW-6: werewolves' private messages")
    graveyard_chat: StrictBool = Field(
        False,
        description="WW-16 ruling: each night the dead may send one message that only the dead "
        "and the spectators read, never the living",
    )
    wolf_vote: Literal["sequential", "sealed", "one_wolf"] = Field(
        "sequential", description="WW-7: how the werewolves name the kill"
    )
    wolf_all_abstain: Draw = Field(
        "random", description="WW-7: every werewolf abstains: a seeded victim, or nobody dies"
    )
    doctor_self_save: StrictBool = Field(True, description="WW-8: the doctor may protect itself")
    doctor_repeat: StrictBool = Field(
        True, description="WW-8: the doctor may protect the previous night's seat again"
    )
    seer_repeat: StrictBool = Field(True, description="WW-10: the seer may check a seat again")
    seer_reveals: Literal["role", "team"] = Field(
        "role", description="WW-10: the seer learns the role, or only the team"
    )
    first_night: Literal["free", "fixed"] = Field(
        "free",
        description="WW-5: night 1 as the seats choose it, or fixed (Mini-Mafia): the pack "
        "kills a seeded villager, the seer checks a werewolf, the doctor is not asked",
    )
    # Day
    reveal_on_death: Reveal = Field("role", description="WW-11: what dawn says of the dead")
    last_words: StrictBool = Field(False, description="WW-11: the dead speak once")
    discussion: Literal["round_robin", "bidding", "open"] = Field(
        "round_robin", description="WW-12: how the living take the floor (open: OD-1)"
    )
    rounds: StrictInt = Field(2, ge=1, le=100, description="WW-12: round-robin rounds a day")
    first_speaker: Literal["random", "rotate", "fixed"] = Field(
        "random", description="WW-12: who opens a round-robin day"
    )
    turns: StrictInt = Field(8, ge=1, le=1000, description="WW-12: bidding speeches a day")
    speech_chars: StrictInt = Field(
        1200, ge=1, le=100_000, description="WW-12: most characters a speech may have"
    )
    soften_words: StrictBool = Field(True, description="WW-13: kill/lynch/murder softened")
    self_vote: StrictBool = Field(True, description="WW-14: a seat may vote for itself")
    abstain: StrictBool = Field(True, description="WW-14: a seat may abstain")
    day_vote: Literal["sequential", "sealed"] = Field(
        "sequential", description="WW-14: ballots one at a time in the open, or sealed"
    )
    exile_rule: Literal["plurality", "majority"] = Field(
        "plurality", description="WW-15: most votes, or more than half of the living"
    )
    tie: Draw = Field("random", description="WW-15: a plurality tie: a seeded draw, or nobody")
    all_abstain: Draw = Field(
        "random", description="WW-15: nobody votes: a seeded draw among the living, or nobody"
    )
    reveal_on_exile: Reveal = Field("role", description="WW-15: what an exile says of the seat")
    day_limit: StrictInt = Field(20, ge=1, le=1000, description="WW-21: draw after this day")
    seat: tuple[SeatFix, ...] = Field((), description="[[seat]] entries fixing seats' roles")

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        """WW-24: the preset's keys first, then every key given next to it."""
        if not isinstance(data, dict):
            return data
        preset = data.get("preset", "kaggle_standard")
        if preset not in PRESETS:  # let the Literal report it, naming the allowed values
            return data
        return {**PRESETS[preset], **data}

    @field_validator("players")
    @classmethod
    def _players_in_range(cls, value: int, info: ValidationInfo) -> int:
        least = SMALL_TABLE if info.data.get("small_table") else MIN_PLAYERS
        if not least <= value <= MAX_PLAYERS:
            small = value < least and least != SMALL_TABLE
            hint = "; small_table = true allows 4 or 5" if small else ""
            raise ValueError(
                f"Werewolf takes {least}-{MAX_PLAYERS} seats (WW-1); got {value}{hint}"
            )
        return value

    @field_validator("seat")
    @classmethod
    def _seats_fit_lineup(
        cls, fixes: tuple[SeatFix, ...], info: ValidationInfo
    ) -> tuple[SeatFix, ...]:
        keys = ("players", "werewolves", "seers", "doctors")
        values = [info.data.get(k) for k in keys]
        if any(v is None for v in values):
            return fixes  # the counts themselves are wrong and reported
        check_fixed_seats(
            fixes,
            int(values[0] or 0),
            lineup(*(int(v or 0) for v in values)),
            lambda fixed, role, allowed: (
                f"{fixed} seats fixed as {role}, but this setup has only {allowed} (WW-1)"
            ),
        )
        return fixes

    @model_validator(mode="after")
    def _werewolves_do_not_win_at_once(self) -> WerewolfConfig:
        """WW-1: the special roles must fit the seats; WW-19: a setup in which the
        werewolves are already at parity is refused (the game would end before
        anyone decided anything). A model check: defaults count too."""
        special = self.werewolves + self.seers + self.doctors
        if special > self.players:
            raise ValueError(
                f"werewolves + seers + doctors = {special} is more than the "
                f"{self.players} seats (WW-1)"
            )
        village = self.players - self.werewolves
        if self.werewolves >= village:
            raise ValueError(
                f"werewolves: {self.werewolves} werewolves against {village} other seats win "
                f"before the first night (WW-19); at most {(self.players - 1) // 2} "
                f"for {self.players} seats (WW-1)"
            )
        return self

    def counts(self) -> dict[str, int]:
        return lineup(self.players, self.werewolves, self.seers, self.doctors)
