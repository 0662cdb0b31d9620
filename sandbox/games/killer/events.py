"""Killer events. Each is frozen; its fields alone decide who may see it, so a
transcript line rebuilds the same audience. ``audience`` fields name the group
(the living killers or police at that moment) allowed to see group secrets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from sandbox.core.events import Event
from sandbox.core.visibility import Visibility, only


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """Public line-up and the active rulings (everyone knows the rules, KG-1)."""

    kind: ClassVar[str] = "killer.game_started"
    players: int
    killers: int
    police: int
    last_words_quota: int
    day_limit: int
    check_answer: str
    reveal_role_on_death: bool
    barred_first_victim: int | None
    # KG-13 scope; the default lets transcripts written before the option load.
    concede: str = "either_side_down_to_one"


@dataclass(frozen=True, slots=True)
class RoleCard(Event):
    """KG-2: a seat's own card, seen by that seat alone."""

    kind: ClassVar[str] = "killer.role"
    seat: int
    role: str

    def visibility(self) -> Visibility:
        return only(self.seat)


@dataclass(frozen=True, slots=True)
class TeamList(Event):
    """KG-2: the killers (or the police) learn who their fellows are."""

    kind: ClassVar[str] = "killer.team"
    role: str
    members: tuple[int, ...]

    def visibility(self) -> Visibility:
        return only(*self.members)


@dataclass(frozen=True, slots=True)
class NightFell(Event):
    """KG-11: a new night (night n is followed by day n)."""

    kind: ClassVar[str] = "killer.night"
    night: int


@dataclass(frozen=True, slots=True)
class Opinions(Event):
    """KG-3/KG-4: the sealed opinions of one group, shown to that group afterwards."""

    kind: ClassVar[str] = "killer.opinions"
    night: int
    role: str  # "killer" or "police"
    opinions: Mapping[str, int | None]
    audience: tuple[int, ...]

    def visibility(self) -> Visibility:
        return only(*self.audience)


@dataclass(frozen=True, slots=True)
class KillChosen(Event):
    """KG-3: the killers' victim for the night (None: no opinion given, no kill)."""

    kind: ClassVar[str] = "killer.kill_chosen"
    night: int
    target: int | None
    tie_break: bool
    audience: tuple[int, ...]

    def visibility(self) -> Visibility:
        return only(*self.audience)


@dataclass(frozen=True, slots=True)
class PoliceTurn(Event):
    """Public: the killers closed their eyes, the police open theirs (no seats named)."""

    kind: ClassVar[str] = "killer.police_turn"
    night: int


@dataclass(frozen=True, slots=True)
class CheckResult(Event):
    """KG-4: the judge's private answer to the police (suspect None: no check)."""

    kind: ClassVar[str] = "killer.check"
    night: int
    suspect: int | None
    answer: str | None  # a role, or "killer"/"not killer" (KG-4 option)
    tie_break: bool
    audience: tuple[int, ...]

    def visibility(self) -> Visibility:
        return only(*self.audience)


@dataclass(frozen=True, slots=True)
class Dawn(Event):
    """KG-6: day breaks; the night's victim (if any) is announced and is dead."""

    kind: ClassVar[str] = "killer.dawn"
    day: int
    victim: int | None
    role: str | None  # only with reveal_role_on_death


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    """The judge opens a day phase: last words, speeches or a vote.

    ``context``: last words "night"/"vote"; speeches "day"/"tie_tied"/"tie_others";
    votes "vote"/"revote". ``order`` is the speaking order, ``candidates`` the
    players one may vote for, ``round`` the KG-10 tie round (0 = first vote).
    """

    kind: ClassVar[str] = "killer.phase"
    day: int
    phase: str
    context: str
    round: int
    order: tuple[int, ...]
    candidates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Speech(Event):
    """KG-8/KG-10: a public speech ("pass" is an empty text), with its structured
    claims: the role the speaker claims and the seats it accuses and vouches for
    (sorted). Recorded as said, never confirmed (KG-14); the defaults ("none", no
    seats) also load transcripts written before the fields existed."""

    kind: ClassVar[str] = "killer.speech"
    day: int
    seat: int
    text: str
    context: str
    claim: str = "none"
    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LastWords(Event):
    """KG-6/KG-7: a dead player's last words, with structured claims as in ``Speech``."""

    kind: ClassVar[str] = "killer.last_words"
    day: int
    seat: int
    text: str
    claim: str = "none"
    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Ballots(Event):
    """KG-9: every ballot of a vote, announced after the vote (None = abstain)."""

    kind: ClassVar[str] = "killer.ballots"
    day: int
    round: int
    ballots: Mapping[str, int | None]
    tally: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class VotedOut(Event):
    """KG-9: the player with the most votes leaves the game."""

    kind: ClassVar[str] = "killer.voted_out"
    day: int
    seat: int
    role: str | None  # only with reveal_role_on_death


@dataclass(frozen=True, slots=True)
class NobodyOut(Event):
    """KG-9 ruling: nobody voted, so nobody is voted out."""

    kind: ClassVar[str] = "killer.nobody_out"
    day: int
    round: int


@dataclass(frozen=True, slots=True)
class Tied(Event):
    """KG-10: the vote tied; ``round`` is the tie round that starts (1 or 2)."""

    kind: ClassVar[str] = "killer.tied"
    day: int
    round: int
    tied: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ForcedDraw(Event):
    """KG-10: still tied after two revotes; the game ends as a forced draw."""

    kind: ClassVar[str] = "killer.forced_draw"
    day: int
    tied: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Conceded(Event):
    """KG-13: a police player or killer concedes for their side, which loses."""

    kind: ClassVar[str] = "killer.conceded"
    day: int
    seat: int
    side: str


@dataclass(frozen=True, slots=True)
class DayLimitReached(Event):
    """KG-12 ruling: the day limit passed without an end; draw by limit."""

    kind: ClassVar[str] = "killer.day_limit"
    day: int
