"""What one seat's view knew of the roles at a point of a recorded game.

Read from the events that seat could see (each line's recorded visibility,
``Transcript.seen_by``), never from the referee's truth: its role card, its
team or pack list, the referee's answers to its checks, the roles revealed
with the dead. Each such event is a *fact* "seat s has one of roles R"; with
the deck (the roles dealt, public in every variant: WW-4, KG-1, FF-2) the
facts leave a set of possible roles per seat (:func:`support`), the roles some
assignment consistent with the facts gives that seat
(:class:`sandbox.deduction.space.Space`).

A claim the support rules out is one the speaker's own view contradicted
(docs/studies.md, "Statements: who lied").
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Iterator, Mapping

from sandbox.deduction.space import Counter, Space
from sandbox.deduction.tables import RoleTable
from sandbox.transcript import EventRow, Transcript

Roles = frozenset[str]
Fact = tuple[int, Roles]
Known = dict[int, Roles]  # seat -> roles it may have, for the seats facts named
Reader = Callable[[EventRow, int, Known, RoleTable], Iterator[Fact]]
TEAM = -1  # a fact's seat meaning "every seat not on this team list"

# Team answers of a Werewolf seer (WW-10 ``seer_reveals = "team"``) and
# Killer's "not killer" answer (KG-4 option), as role sets.
WEREWOLF_TEAMS = {"werewolves": "hidden", "village": "honest"}
NOT_KILLER = "not killer"


def _answer(result: object, table: RoleTable) -> Roles | None:
    """The roles a check answer or a revealed role/team stands for."""
    text = str(result)
    if text in table.roles:
        return frozenset((text,))
    if text in table.groups:
        return table.groups[text]
    if WEREWOLF_TEAMS.get(text) == "hidden":
        return table.hidden
    if WEREWOLF_TEAMS.get(text) == "honest" or text == NOT_KILLER:
        return table.honest
    return None


def _card(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
    # WW-2, KG-2: a seat's own role card
    roles = _answer(e.get("role"), table)
    if roles is not None and isinstance(e.get("seat"), int):
        yield int(e["seat"]), roles


def _team(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
    # WW-4 (the pack), KG-2 (killers and police each learn their fellows): the
    # members have the team's role, and nobody else has it.
    role = str(e.get("role"))
    members = {int(m) for m in e.get("members") or ()}
    for member in members:
        yield member, frozenset((role,))
    yield TEAM, frozenset((role,))  # "nobody else": Knowledge.add expands it


def _answered(seat_field: str, answer_field: str) -> Reader:
    """A check's answer about one seat: WW-10 (a role or a team), KG-4 (a role
    or "killer"/"not killer")."""

    def read(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
        roles = _answer(e.get(answer_field), table)
        if roles is not None and isinstance(e.get(seat_field), int):
            yield int(e[seat_field]), roles

    return read


def _revealed(field: str, reveal: str, honest_victim: bool) -> Reader:
    def read(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
        dead = e.get(field)
        if not isinstance(dead, int):
            return
        roles = _answer(e.get(reveal), table) if e.get(reveal) is not None else None
        if roles is not None:
            yield dead, roles
        if honest_victim:  # WW-7: the pack kills a village seat
            yield dead, table.honest

    return read


def _saved(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
    # WW-9: the doctor learns the pack attacked this seat, so it is a village seat (WW-7)
    if isinstance(e.get("seat"), int):
        yield int(e["seat"]), table.honest


def _ff_card(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
    # FF-5/6/7: the faction and rank on the card
    rank = "elite" if e.get("elite") else "regular"
    yield int(e["seat"]), frozenset((f"{e.get('faction')}/{rank}",))


def _ff_regulars(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
    # FF-9: the elite learns regulars' factions
    for other, faction in dict(e.get("regulars") or {}).items():
        yield int(other), frozenset((f"{faction}/regular",))


def _ff_elite(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
    # FF-10: a regular learns its faction's elite (the faction is its own)
    own = known.get(seat, frozenset())
    factions = {role.split("/", 1)[0] for role in own}
    if len(factions) == 1 and isinstance(e.get("elite_seat"), int):
        yield int(e["elite_seat"]), frozenset((f"{factions.pop()}/elite",))


def _each(field: str) -> Reader:
    """A seat -> role (or faction) mapping made public: FF-28's factions of the
    dead, WW-20's every role at the end."""

    def read(e: EventRow, seat: int, known: Known, table: RoleTable) -> Iterator[Fact]:
        for other, said in dict(e.get(field) or {}).items():
            roles = _answer(said, table)
            if roles is not None:
                yield int(other), roles

    return read


READERS: Mapping[str, Reader] = {
    "werewolf.role": _card,
    "werewolf.pack": _team,
    "werewolf.seer_result": _answered("seat", "result"),
    "werewolf.saved": _saved,
    "werewolf.dawn": _revealed("victim", "revealed", honest_victim=True),
    "werewolf.exiled": _revealed("seat", "revealed", honest_victim=False),
    "werewolf.roles_revealed": _each("roles"),
    "killer.role": _card,
    "killer.team": _team,
    "killer.check": _answered("suspect", "answer"),
    "killer.dawn": _revealed("victim", "role", honest_victim=False),
    "killer.voted_out": _revealed("seat", "role", honest_victim=False),
    "ff.role": _ff_card,
    "ff.elite_knowledge": _ff_regulars,
    "ff.elite_known": _ff_elite,
    "ff.dawn": _each("factions"),
}


class Knowledge:
    """One seat's facts, gathered event by event in game order."""

    def __init__(self, game: Transcript[EventRow], seat: int, table: RoleTable) -> None:
        self.seat, self.table = seat, table
        self.seats = tuple(sorted(game.roles))
        self.deck: dict[str, int] = dict(Tally(game.roles.values()))
        self.known: Known = {}
        self._support: dict[int, Roles] | None = None

    def add(self, event: EventRow) -> None:
        reader = READERS.get(str(event.get("kind")))
        if reader is None:
            return
        for target, roles in list(reader(event, self.seat, self.known, self.table)):
            if target == TEAM:  # a team list: the seats not on it lack the team's role
                members = {int(m) for m in event.get("members") or ()}
                for other in self.seats:
                    if other not in members:
                        self._narrow(other, self.table.every - roles)
            elif target in self.seats:
                self._narrow(target, roles)

    def own_card(self, role: str) -> None:
        """A seat always knows its own card (WW-2, KG-2, FF-5), even where the
        transcript holds no role-card line it could see (or only a team fact)."""
        card = frozenset((role,))
        if self.known.get(self.seat) != card:
            self._narrow(self.seat, card)

    def _narrow(self, seat: int, roles: Roles) -> None:
        before = self.known.get(seat, self.table.every)
        self.known[seat] = before & roles
        self._support = None

    def support(self) -> dict[int, Roles]:
        """seat -> the roles some deal consistent with the facts gives it."""
        if self._support is None:
            self._support = support(Space(self.seats, self.deck, dict(self.known)))
        return self._support


def support(space: Space) -> dict[int, Roles]:
    """Each seat's possible roles: those on some complete deal the space
    allows (forward over the seats, checked backward by the completion count).
    A contradictory space (no deal) gives every seat its allowed options."""
    counter = Counter(space)
    states: set[tuple[int, ...]] = {counter.full}
    found: dict[int, Roles] = {}
    for index, seat in enumerate(space.seats):
        ok: set[str] = set()
        after: set[tuple[int, ...]] = set()
        for left in states:
            for role in counter.options[index]:
                if not left[role]:
                    continue
                rest = (*left[:role], left[role] - 1, *left[role + 1 :])
                if counter.completions(index + 1, rest):
                    ok.add(counter.roles[role])
                    after.add(rest)
        found[seat] = frozenset(ok) if ok else space.options(seat)
        states = after or states
    return found
