"""The Killer game's configuration: player count, fixed seats and every ruling
that RULES-SPEC marks as an option (KG-1, KG-4, KG-5, KG-6, KG-12)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Role = Literal["killer", "police", "civilian"]
KILLER: Role = "killer"
POLICE: Role = "police"
CIVILIAN: Role = "civilian"

MIN_PLAYERS = 11
MAX_PLAYERS = 16


def lineup(players: int) -> dict[str, int]:
    """KG-1: 3 police / 3 killers for 11–14 players, 4 / 4 for 15–16; the rest civilians."""
    side = 3 if players <= 14 else 4
    return {KILLER: side, POLICE: side, CIVILIAN: players - 2 * side}


class SeatFix(BaseModel):
    """A [[seat]] entry: fixes one seat's role (scenarios). The rest are dealt by shuffle."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    seat: int = Field(ge=1, le=MAX_PLAYERS, description="seat number")
    role: Role = Field(description="the role this seat is dealt")


class KillerConfig(BaseModel):
    """Rulings of the Killer game. Defaults follow RULES-SPEC."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    players: int = Field(12, description="KG-1: number of players, 11–16")
    check_answer: Literal["identity", "killer_or_not"] = Field(
        "identity",
        description="KG-4: the judge tells the police the exact role, or only killer/not killer",
    )
    reveal_role_on_death: bool = Field(
        False, description="KG-6: announce the role of each dead player"
    )
    day_limit: int = Field(30, ge=1, le=1000, description="KG-12: draw by limit after this day")
    previous_first_victim: int | None = Field(
        None,
        description="KG-5: the previous game's first-night victim, who may not die on night 1",
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

    @model_validator(mode="after")
    def _seats_fit_lineup(self) -> KillerConfig:
        seats = [fix.seat for fix in self.seat]
        out_of_range = [s for s in seats if s > self.players]
        if out_of_range:
            raise ValueError(f"seat: {out_of_range} out of range; allowed: 1..{self.players}")
        if len(set(seats)) != len(seats):
            raise ValueError(f"seat: a seat is fixed twice ({sorted(seats)})")
        counts = lineup(self.players)
        for role, allowed in counts.items():
            fixed = sum(1 for fix in self.seat if fix.role == role)
            if fixed > allowed:
                raise ValueError(
                    f"seat: {fixed} seats fixed as {role}, but {self.players} players "
                    f"have only {allowed} (KG-1)"
                )
        victim = self.previous_first_victim
        if victim is not None and not 1 <= victim <= self.players:
            raise ValueError(
                f"previous_first_victim: {victim} out of range; allowed: 1..{self.players}"
            )
        return self
