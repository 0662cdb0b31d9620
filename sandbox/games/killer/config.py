"""The Killer game's configuration: player count, fixed seats and every ruling
that RULES-SPEC marks as an option (KG-1, KG-4, KG-5, KG-6, KG-12, KG-13), and the
day's discussion protocol with its open-day budget (OD-1, OD-4)."""

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
)

from sandbox.core.discussion import OpenDayRulings
from sandbox.core.lineup import check_fixed_seats
from sandbox.games.killer.info import CIVILIAN, KILLER, MAX_PLAYERS, MIN_PLAYERS, POLICE, Role

# KG-13 concede scope: the spec's literal reading (either side down to one) or
# the narrower one (only a member of the side that is down to one).
ConcedeScope = Literal["either_side_down_to_one", "own_side_down_to_one"]
EITHER_SIDE: ConcedeScope = "either_side_down_to_one"
OWN_SIDE: ConcedeScope = "own_side_down_to_one"
# OD-1: KG-8's speeches in turn (today's protocol, the default) or an open day.
Discussion = Literal["turns", "open"]
TURNS: Discussion = "turns"
OPEN_BUDGET = ("messages_per_seat", "messages_per_day", "quiet_rounds")  # OD-4's keys
TALK = ("killer_chat", "graveyard_chat")  # the table-talk rulings (KG-3, KG-14 rulings)


def without_turns_keys(line: dict[str, Any]) -> dict[str, Any]:
    """A game-started line of a game in turns as it was written before open days
    (OD-1): no ``discussion`` key, no open-day budget, so its transcript and its
    seats' views stay as they were; the event's defaults read it back. So too
    the table-talk rulings while they are off (their default)."""
    if line["data"].get("discussion") == TURNS:
        for key in ("discussion", *OPEN_BUDGET):
            line["data"].pop(key, None)
    for key in TALK:
        if line["data"].get(key) is False:
            del line["data"][key]
    return line


def lineup(players: int) -> dict[str, int]:
    """KG-1: 3 police / 3 killers for 11–14 players, 4 / 4 for 15–16; the rest civilians."""
    side = 3 if players <= 14 else 4
    return {KILLER: side, POLICE: side, CIVILIAN: players - 2 * side}


class SeatFix(BaseModel):
    """A [[seat]] entry: fixes one seat's role (scenarios). The rest are dealt by shuffle."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    seat: int = Field(ge=1, le=MAX_PLAYERS, description="seat number")
    role: Role = Field(description="the role this seat is dealt")


class KillerConfig(OpenDayRulings):
    """Rulings of the Killer game. Defaults follow RULES-SPEC. OD-4's budget keys
    (``messages_per_seat``, ``messages_per_day``, ``quiet_rounds``) come from
    ``OpenDayRulings`` and matter only with ``discussion = "open"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Strict: a TOML float (12.0) or a boolean is refused rather than coerced.
    players: StrictInt = Field(12, description="KG-1: number of players, 11–16")
    check_answer: Literal["identity", "killer_or_not"] = Field(
        "identity",
        description="KG-4: the judge tells the police the exact role, or only killer/not killer",
    )
    reveal_role_on_death: bool = Field(
        False, description="KG-6: announce the role of each dead player"
    )
    day_limit: StrictInt = Field(
        30, ge=1, le=1000, description="KG-12: draw by limit after this day"
    )
    previous_first_victim: int | None = Field(
        None,
        description="KG-5: the previous game's first-night victim, who may not die on night 1",
    )
    concede: ConcedeScope = Field(
        EITHER_SIDE,
        description="KG-13: who may concede once the police or the killers are down to one "
        "living member: any police player or killer, or only a member of that side",
    )
    discussion: Discussion = Field(
        TURNS,
        description='OD-1: "turns" (KG-8: one speech per living seat in turn) or "open" '
        "(an open day: any living seat posts messages until a budget ends the phase)",
    )
    killer_chat: StrictBool = Field(
        False,
        description="KG-3 ruling: each living killer sends one message to the killers at "
        "night, in seat order, before their opinions",
    )
    graveyard_chat: StrictBool = Field(
        False,
        description="KG-14 ruling: each night the dead may send one message that only the "
        "dead and the spectators read, never the living",
    )
    seat: tuple[SeatFix, ...] = Field((), description="[[seat]] entries fixing seats' roles")

    @field_validator("players")
    @classmethod
    def _players_in_range(cls, value: int) -> int:
        if not MIN_PLAYERS <= value <= MAX_PLAYERS:
            raise ValueError(
                f"Killer takes {MIN_PLAYERS}–{MAX_PLAYERS} players (KG-1); got {value}"
            )
        return value

    # Field validators (not a model validator) so that an error names its key;
    # they run in field order, so 'players' is already checked when present.
    @field_validator("previous_first_victim")
    @classmethod
    def _victim_in_range(cls, victim: int | None, info: ValidationInfo) -> int | None:
        players = info.data.get("players")
        if victim is not None and players is not None and not 1 <= victim <= players:
            raise ValueError(f"{victim} out of range; allowed: 1..{players}")
        return victim

    @field_validator("seat")
    @classmethod
    def _seats_fit_lineup(
        cls, fixes: tuple[SeatFix, ...], info: ValidationInfo
    ) -> tuple[SeatFix, ...]:
        players = info.data.get("players")
        if players is None:  # the player count itself is wrong and reported
            return fixes
        check_fixed_seats(
            fixes,
            players,
            lineup(players),
            lambda fixed, role, allowed: (
                f"{fixed} seats fixed as {role}, but {players} players have only {allowed} (KG-1)"
            ),
        )
        return fixes
