"""What a Four Factions seat legally learns beyond the Mind's reading (issue 37),
and the duel odds a deducing seat picks its loadout and its target by.

The Mind (``sandbox.deduction``) weighs claims, accusations and speeches seat by
seat. It cannot say "these two seats are of one faction", and that is what the
day-3 protections say at a table where a regular backs its own elite (FF-10: a
regular knows its elite; FF-15: it may protect it, and the baseline's regulars
do). So this module lays a second layer over the Mind's odds, from the public
record only:

- **groups**: a seat protected by at least :data:`HUB` seats is taken for an
  elite, and the seats that protected it for its faction's regulars;
- **each group's faction**: the groups take distinct factions (one elite per
  faction, FF-3); every labelling is weighed by the members' odds from the
  Mind and the accusations (below), all of them enumerated (at most 4! = 24);
  a member's odds then mix its own with its group's label;
- **accusations** (FF-14): an elite knows every regular's faction (FF-9), so a
  protected seat's accusation names its target's faction; and an accuser names
  its own rival's faction more often than another;
- **pairs decided** (FF-26, public at dawn): a living seat is not of a faction
  wiped out;
- **a covering table** (read at level 4): where the seats the reader knows for
  certain mostly claimed their rival's faction on day 1, every claim points at
  the claimed faction's rival, and an accuser and its target at the other pair.

What a seat learns from its own duels, and the duel odds, are :mod:`.tactics`'.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction.evidence import RoleClaim, SeatIs
from sandbox.deduction.mind import Heard, Mind
from sandbox.deduction.tables import RoleTable, load_table
from sandbox.games.four_factions.config import FACTIONS, rival_of
from sandbox.games.four_factions.words import VOCABULARY
from sandbox.games.phrasebook import Phrasebook, load_phrases

Odds = dict[str, float]  # faction (or weapon) -> chance
PHRASES = load_phrases("sandbox.games.four_factions")  # phrases.toml: the bot's words

HUB = 2  # protected by this many seats: an elite among its regulars (FF-15)
LINK = 0.9  # a protector of a hub is of the hub's faction
BACKED_HONEST = 0.85  # a hub backs a member whose day-1 claim was its true faction
HUB_ELITE = 0.95  # a hub is an elite; its protectors are regulars
ELITE_SAYS = 4.0  # a hub's accusation names its target's faction (FF-9)
NAMES_RIVAL = 3.0  # an accuser names its own rival's faction (FF-25) this much more often
BACKS_RIVAL = 3.0  # at a table that hides its elites, a protector backs its rival this much more
COVER = 40.0  # at a covering table: a claim's rival this much likelier, the claimed faction
# this much less, an accuser and its target this much less of the named pair: nearly sure,
# since a table seen to cover does so seat after seat (trials in docs/benchmarks.md)


@dataclass(frozen=True)
class Group:
    """A protected elite (its ``hub``) and the seats that protected it."""

    hub: int
    members: tuple[int, ...]


@dataclass(frozen=True)
class Reading:
    """A seat's picture of the table: faction odds and the chance of being an elite."""

    factions: dict[int, Odds]
    elite: dict[int, float]


def groups(protections: Sequence[Mapping[str, Any]]) -> list[Group]:
    """The seats protected by at least :data:`HUB` others (at most four, the most
    backed first), each with its protectors that are not hubs themselves."""
    backers: dict[int, list[int]] = {}
    for entry in protections:
        backers.setdefault(int(entry["target"]), []).append(int(entry["seat"]))
    hubs = sorted((h for h, b in backers.items() if len(b) >= HUB), key=lambda h: -len(backers[h]))
    hubs = hubs[: len(FACTIONS)]  # FF-3: one elite per faction
    return [Group(h, tuple(s for s in backers[h] if s not in hubs)) for h in hubs]


def read_table(
    seat_odds: Mapping[int, Mapping[str, float]],
    elite_odds: Mapping[int, float],
    pub: Mapping[str, Any],
    mates: frozenset[int] = frozenset(),
    watched: frozenset[int] | None = None,
    covers: bool = False,
) -> Reading:
    """``seat_odds`` (every seat, the reader's own included, from the Mind and the
    seat's certain knowledge) after the protections, accusations and public pair
    results; ``elite_odds`` after the groups. Given the reader's certain ``mates``
    (itself among them), a table where a seat outside them backed one of the
    ``watched`` mates (all of them unless given) is read as one that hides its
    elites (tactics.Tactics.hides): a protector backs the seat it takes for its
    rival, and no group is formed."""
    odds = {int(s): _normal(dict(o)) for s, o in seat_odds.items()}
    said = pub.get("protections") or []
    found = groups(said)
    seen = mates if watched is None else watched
    if any(p["target"] in seen and p["seat"] not in mates for p in said):
        _backs_rivals(odds, said)
        found = []
    hubs = {g.hub for g in found}
    if covers:
        _covered(odds, pub)
    else:
        _accusations(odds, pub.get("accusations") or [], hubs)
    _wiped(odds, pub)
    elite = {int(s): float(p) for s, p in elite_odds.items()}
    if found:
        _label(odds, found, pub)
        for g in found:  # what the seat knows for certain (0 or 1) stays
            for s, p in ((g.hub, HUB_ELITE), *((m, 1 - HUB_ELITE) for m in g.members)):
                if elite.get(s) not in (0.0, 1.0):
                    elite[s] = p
    return Reading(odds, elite)


def _backs_rivals(odds: dict[int, Odds], said: Sequence[Mapping[str, Any]]) -> None:
    """Each protector and its target likely of rival factions (FF-25), weighed by
    the other's odds (a snapshot, so the order of the protections does not matter)."""
    before = {s: dict(o) for s, o in odds.items()}
    for p in said:
        for one, other in ((int(p["seat"]), int(p["target"])), (int(p["target"]), int(p["seat"]))):
            if one in odds and other in before and not _certain(odds[one]):
                theirs = before[other]
                rival = {f: 1 + (BACKS_RIVAL - 1) * theirs[rival_of(f)] for f in FACTIONS}
                odds[one] = _normal({f: odds[one][f] * rival[f] for f in FACTIONS})


def _covered(odds: dict[int, Odds], pub: Mapping[str, Any]) -> None:
    """At a table that claims its rival's faction (tactics.Tactics.cover), a claim
    of X points at X's rival (FF-13; the Mind read it as likely true), and an
    accuser names its own mate a faction of the other pair (FF-14): both seats
    are then likely of neither faction of that pair."""
    for seat, said in dict(pub.get("claims") or {}).items():
        if said in FACTIONS:
            _lean(odds, int(seat), {said: 1 / COVER, rival_of(said): COVER})
    for entry in pub.get("accusations") or []:
        named = entry.get("faction")
        if named in FACTIONS:
            away = dict.fromkeys((named, rival_of(named)), 1 / COVER)
            for s in (int(entry["seat"]), int(entry["target"])):
                _lean(odds, s, away)


def _lean(odds: dict[int, Odds], seat: int, factor: Mapping[str, float]) -> None:
    """A seat's odds times ``factor`` per faction (1 where it names none), unless certain."""
    o = odds.get(seat)
    if o is not None and not _certain(o):
        odds[seat] = _normal({f: p * factor.get(f, 1.0) for f, p in o.items()})


def _normal(odds: Odds) -> Odds:
    total = sum(odds.get(f, 0.0) for f in FACTIONS)
    if total <= 0:
        return dict.fromkeys(FACTIONS, 1 / len(FACTIONS))
    return {f: odds.get(f, 0.0) / total for f in FACTIONS}


def _certain(odds: Odds) -> bool:
    return max(odds.values()) >= 1.0


def _accusations(odds: dict[int, Odds], said: Sequence[Mapping[str, Any]], hubs: set[int]) -> None:
    for entry in said:
        seat, target, named = int(entry["seat"]), int(entry["target"]), entry.get("faction")
        if named not in FACTIONS:
            continue
        if seat in hubs and target in odds and not _certain(odds[target]):
            odds[target][named] *= ELITE_SAYS
            odds[target] = _normal(odds[target])
        if seat in odds and not _certain(odds[seat]):
            odds[seat][rival_of(named)] *= NAMES_RIVAL
            odds[seat] = _normal(odds[seat])


def _wiped(odds: dict[int, Odds], pub: Mapping[str, Any]) -> None:
    """FF-26: a faction that lost or drew its pair is wiped out; the living are none of it."""
    gone = {
        f
        for results in dict(pub.get("decided_pairs") or {}).values()
        for f, result in dict(results).items()
        if result != "win"
    }
    for s in pub.get("living") or ():
        if s in odds and gone:
            kept = {f: (0.0 if f in gone else p) for f, p in odds[s].items()}
            if sum(kept.values()) > 0:
                odds[s] = _normal(kept)


def _label(odds: dict[int, Odds], found: list[Group], pub: Mapping[str, Any]) -> None:
    """Weigh every labelling of the groups by distinct factions; mix each seat's odds."""
    claims = dict(pub.get("claims") or {})
    backed = {int(p["seat"]): int(p["target"]) for p in pub.get("protections") or []}
    weights: list[Odds] = []
    for g in found:
        w: Odds = {}
        for f in FACTIONS:
            v = _of(odds, g.hub)[f]
            for s in g.members:
                v *= _linked(_of(odds, s), f)
            t = backed.get(g.hub)
            if t in g.members and str(t) in claims:
                v *= BACKED_HONEST if claims[str(t)] == f else (1 - BACKED_HONEST) / 3
            w[f] = v
        weights.append(w)
    post = [dict.fromkeys(FACTIONS, 0.0) for _ in found]
    total = 0.0
    for labels in itertools.permutations(FACTIONS, len(found)):
        v = math.prod(weights[i][f] for i, f in enumerate(labels))
        total += v
        for i, f in enumerate(labels):
            post[i][f] += v
    if total <= 0:
        return  # the record contradicts itself under this model: keep the seat odds
    for g, p in zip(found, post, strict=True):
        label = {f: v / total for f, v in p.items()}
        odds[g.hub] = label
        for s in g.members:
            odds[s] = _member(_of(odds, s), label)


def _of(odds: Mapping[int, Odds], seat: int) -> Odds:
    return odds.get(seat) or dict.fromkeys(FACTIONS, 1 / len(FACTIONS))


def _linked(mine: Odds, label: str) -> float:
    """How likely a seat of odds ``mine`` protects a hub of faction ``label``."""
    return LINK * mine[label] + (1 - LINK) / 3 * (1 - mine[label])


def _member(mine: Odds, label: Odds) -> Odds:
    out = dict.fromkeys(FACTIONS, 0.0)
    for f, pf in label.items():
        cond = {x: mine[x] * (LINK if x == f else (1 - LINK) / 3) for x in FACTIONS}
        z = sum(cond.values())
        for x in FACTIONS:
            out[x] += pf * cond[x] / z if z > 0 else 0.0
    return _normal(out)


# ------------------------------------------------------------ the Mind (issue 37)

TABLE: RoleTable = load_table("four_factions")
ELITES = frozenset(f"{f}/elite" for f in FACTIONS)


def roles_of(faction: str, elite: bool | None = None) -> frozenset[str]:
    """A faction's roles (FF-9: one elite, the rest regulars), or one rank of them."""
    ranks = ("elite", "regular") if elite is None else ("elite" if elite else "regular",)
    return frozenset(f"{faction}/{rank}" for rank in ranks)


def think(mind: Mind, view: SeatView) -> None:
    me, pub = view.private, view.public
    if not mind.started:
        seats = range(1, 17)  # FF-1: sixteen seats, four per faction, one elite each
        deck = {role: 1 if role.endswith("/elite") else 3 for role in TABLE.roles}
        mind.start(seats, deck)
    if me.get("my_elite") is not None:  # FF-10
        mind.know_seat(int(me["my_elite"]), roles_of(str(me["faction"]), elite=True))
    for seat, faction in dict(me.get("known_factions") or {}).items():  # FF-9
        mind.know_seat(int(seat), roles_of(str(faction), elite=False))
    for seat, faction in dict(pub.get("dead_factions") or {}).items():
        mind.know_seat(int(seat), roles_of(str(faction)))
    mind.update(view, heard)


def heard(item: HistoryItem) -> Heard | None:
    """What one history item tells a seat (FF-13, FF-14, FF-17)."""
    f, kind = item.facts, item.kind
    if kind == "ff.role":
        return Heard(know=[(int(f["seat"]), roles_of(str(f["faction"]), bool(f["elite"])))])
    if item.speaker is None:
        return None
    if kind == "ff.proofs" and f.get("am") in FACTIONS:
        return Heard(evidence=[RoleClaim(item.speaker, roles_of(f["am"]))], speaker=item.speaker)
    if kind == "ff.accusation" and f.get("faction") in FACTIONS:
        said = SeatIs(item.speaker, int(f["target"]), roles_of(f["faction"]))
        return Heard(evidence=[said], speaker=item.speaker)
    if kind == "ff.speech":
        return Heard(speaker=item.speaker, text=item.speech or "")
    return None


def faction_odds(mind: Mind | None, seats: Sequence[Any]) -> dict[int, dict[str, float]]:
    """Each seat's chance of each faction, from the belief."""
    assert mind is not None
    return {s: {f: mind.chance(s, roles_of(f)) for f in FACTIONS} for s in seats if s is not None}


def reading(
    mind: Mind,
    me: Mapping[str, Any],
    pub: Mapping[str, Any],
    sees_hiding: bool = False,
    sees_cover: bool = False,
) -> Reading:
    """The Mind's odds for every seat (the reader's own certain), read with the
    protections, accusations and pair results (:func:`read_table`; with
    ``sees_hiding``, its certain mates tell whether the table hides its elites)."""
    seat, mine = int(me["seat"]), str(me["faction"])
    odds = {s: {f: mind.chance(s, roles_of(f)) for f in FACTIONS} for s in range(1, 17)}
    odds[seat] = {f: float(f == mine) for f in FACTIONS}
    elite = {s: mind.chance(s, ELITES) for s in range(1, 17)}
    elite[seat] = float(bool(me["elite"]))
    mates = frozenset(s for s in odds if odds[s][mine] > 0.999) if sees_hiding else frozenset()
    # An elite knows all its mates (FF-9); a regular only its elite (FF-10), whose
    # other regulars, unknown to it, may back it: a regular watches only itself.
    watched = mates if me["elite"] else mates & {seat}
    return read_table(odds, elite, pub, mates, watched, sees_cover and covering(odds, mine, pub))


def covering(odds: Mapping[int, Odds], mine: str, pub: Mapping[str, Any]) -> bool:
    """The seats the reader knows for certain, not of its faction, mostly claimed
    their rival's faction on day 1 (FF-13): the table covers."""
    claims = dict(pub.get("claims") or {})
    known = [
        (f, claims[str(s)])
        for s, o in odds.items()
        for f in FACTIONS
        if o[f] > 0.999 and f != mine and str(s) in claims
    ]
    return len(known) >= 2 and 2 * sum(said == rival_of(f) for f, said in known) > len(known)


def _named_patterns() -> list[tuple[re.Pattern[str], str]]:
    """The phrasebook's sentences that name a seat's faction (``named``) as
    patterns (seat, faction), each faction in the words a bot's statement gives it."""
    out = []
    for language, texts in PHRASES["named"].items():
        for text, faction in itertools.product(texts, FACTIONS):
            word = VOCABULARY.term(language, faction) or faction
            body = re.escape(text).replace(r"\{a\}", r"(\d+)")
            out.append((re.compile(body.replace(r"\{faction\}", re.escape(word))), faction))
    return out


NAMED = _named_patterns()


def heed_elite(mind: Mind, view: SeatView) -> None:
    """A regular takes its elite's word (FF-10: it knows its elite's seat; FF-9:
    the elite knows every regular's faction) on the regulars it named in its
    open speeches: certain, as if it had seen their cards."""
    elite = view.private.get("my_elite")
    for item in view.history:
        if item.kind != "ff.speech" or elite is None or item.speaker != elite:
            continue
        for pattern, faction in NAMED:
            for found in pattern.finditer(item.speech or ""):
                mind.know_seat(int(found.group(1)), roles_of(faction, elite=False))


# ------------------------------------------------------------ words (FF-13..FF-15)
# Words only (phrases.toml in the seat's language): nothing here moves a decision.


def statement(book: Phrasebook, key: str, **slots: Any) -> str:
    """A day statement's words (``am`` and ``faction`` in the seat's language)."""
    for name in ("am", "faction"):
        if name in slots:
            faction = str(slots[name])
            slots[name] = VOCABULARY.term(book.language, faction) or faction
    return book.say(key, **slots)


def open_speech(book: Phrasebook, me: Mapping[str, Any], pub: Mapping[str, Any], seat: int) -> str:
    """Free speech: answer an accusation against the seat, else recall its last
    duel, else say it is watching."""
    against = [a for a in pub.get("accusations", []) if a.get("target") == seat]
    if against:
        last = against[-1]
        return statement(book, "accused_me", a=last["seat"], faction=last["faction"])
    duels = [d for d in me.get("duels", []) if d.get("opponent") is not None]
    if duels:
        last_duel = duels[-1]
        return book.say("my_duel", a=last_duel["opponent"], day=last_duel["day"])
    return book.say("watching", day=pub.get("day", 1))
