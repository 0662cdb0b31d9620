"""A baseline Killer player that decides only from its view and the request.

It speaks the small phrasebook of :mod:`sandbox.games.killer.evidence`
and reads the same phrases in others' speeches. Heuristics follow the source's
strategy notes (秘籍):

- police check the table's main suspect, then share their findings or hide
  them (a seeded policy per seat), always in their last words and always to
  answer a false claim against their team; they vote for killers they checked;
- civilians name a suspect every day and vote on the evidence: police claims
  (believed more from a night victim, less as a counter-claim), last words,
  who pushed seats later shown innocent, who shielded exposed ones;
- killers blend in: they vote with the crowd rather than as a block, sometimes
  vote out an exposed mate, sometimes vouch for an innocent, and one of them
  may fake a police claim against whoever exposed a mate. At night they strike
  police claimants and whoever points at them, else a quiet player.

At ``level`` 1..4 (issue 37; 0 is this baseline, unchanged) a deduction
:class:`~sandbox.deduction.mind.Mind` fed by :func:`_heard` keeps a belief over
the roles, reads the words of speeches (level 2 up), and the police and civilian
seats check, vote and speak from it, each speech giving its reason; killers
strike where the police likely sit. docs/deduction.md has the levels.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import sandbox.games.killer.evidence as ev
from sandbox.core.seat import DecisionContext
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction.bot import LadderBot, seat_options
from sandbox.deduction.mind import Heard, Level, Mind, PublicKinds, read_public
from sandbox.deduction.tables import RoleTable, load_table
from sandbox.games.killer.info import INFO
from sandbox.games.killer.talk import Plan, speech_payload
from sandbox.games.phrasebook import Phrasebook, load_phrases

SHARE_RATE = 0.3  # police seats that also publish their clears as soon as they have them
FAKE_CLAIM_RATE = 0.35  # killer seats willing to fake a police claim
BUS_RATE = 0.35  # chance a killer votes with the crowd against its own exposed mate
QUIET_NIGHT_EVERY = 3  # about one night in three the killers strike a quiet player
VOUCH_RATE = 0.25  # chance a killer vouches for an innocent in a speech
PHRASES = load_phrases("sandbox.games.killer")  # phrases.toml: the bot's words, en and zh

TABLE: RoleTable = load_table("killer")
KINDS = PublicKinds.declared(INFO, revealed="role", night="killer.dawn", ballots="killer.ballots")
# Killer's ladder (v3, issue 37 item 4): level 1 plays the baseline's own
# heuristics, and three deducing levels stand above it, graded by slips,
# forgetting and how firmly a speech moves the belief (``trust``). v2's four
# deducing levels were within the noise of each other: at this table a deducing
# police side gains little from forgetting less, a firmer listener gains a
# step up to about trust 1.2 and little above (seeds 1000-1199: level 4 at
# trust 1.5 won 57.0 % of the side-games against a level 3 at 1.0, 51.3 % and
# 48.7 % against one at 1.2), and a deducing level that slips and forgets
# enough to sit a step under another barely beats the baseline. So the
# baseline is the bottom rung (issue 37 item 4's fallback). Chosen on seeds
# 1000-1199 (bench_reference.py --matrix --set), with the table's behaviour
# (tables/killer.toml), which lifts the deducing levels above the baseline.
# v4 (the frozen tag's version of these rungs): the likelihood weights of
# tables/killer.toml chosen by the belief's Brier score (sandbox/deduction/tune.py).
VERSION = 4
LADDER: dict[int, Level] = {
    1: Level(1, words=False, forget=0.0, noise=0.0, baseline=True, version=VERSION),
    2: Level(2, words=False, forget=0.06, noise=0.0, blunder=0.15, trust=0.85, version=VERSION),
    3: Level(3, words=True, forget=0.04, noise=0.0, blunder=0.1, version=VERSION),
    4: Level(
        4,
        words=True,
        forget=0.0,
        noise=0.0,
        coordinates=True,
        bluffs=True,
        trust=1.5,
        version=VERSION,
    ),
}


class BaselineBot(LadderBot):
    variant = "killer"
    table = TABLE
    ladder = LADDER

    def __init__(self, seed: int, language: str = "en", level: int = 0) -> None:
        super().__init__(seed, language, level)
        self.book = Phrasebook(PHRASES, language, seed)  # words only: never moves a decision
        # Fixed per seat, drawn first so each seat's style is stable across games.
        self.shares_checks = self.rng.random() < SHARE_RATE
        self.fakes_claims = self.rng.random() < FAKE_CLAIM_RATE

    def _think(self, mind: Mind, view: SeatView) -> None:
        think(mind, view)

    # -------------------------------------------------------------- dispatch
    def _choose(self, ctx: DecisionContext) -> dict[str, Any]:
        decision = ctx.request.decision
        view = ctx.view
        if decision == "kill_opinion":
            return {"target": self._kill(view, seat_options(ctx, "target"))}
        if decision == "check_opinion":
            return {"suspect": self._check(view, seat_options(ctx, "suspect"))}
        if decision == "vote":
            return {"target": self._vote(view, seat_options(ctx, "target"))}
        if decision in ("team_message", "graveyard_message"):  # the table-talk rulings
            return {"message": self._night_talk(view, decision)}
        fields = [f.name for f in ctx.request.fields]
        plan = self._speech(view, decision == "last_words")
        payload = speech_payload(plan, view, ev.read_table(view), self.book, fields)
        if "concede" in fields:
            payload["concede"] = False  # a lone survivor still plays on
        return payload

    def _night_talk(self, view: SeatView, decision: str) -> str:
        """KG-3 ruling: tell the killers the seat this bot means to name (the
        team's first legal pick if one was stated, else its own: at level 1 up
        from its belief), so their opinions agree; KG-14 ruling: a dead bot
        passes (it has nothing to add)."""
        if decision != "team_message":
            return ""
        options = _kill_options(view)
        following = _team_pick(view, options) is not None
        target = self._kill(view, options)
        zh = self.language == "zh"
        if target is None:
            return "今晚我没有目标。" if zh else "I have no target tonight."
        if following:
            return f"我也主张杀{target}号。" if zh else f"I back seat {target} too."
        return f"今晚我主张杀{target}号。" if zh else f"I will name seat {target} tonight."

    def _tiebreak(self, seats: list[int]) -> dict[int, float]:
        return {s: self.rng.random() for s in seats}

    # ----------------------------------------------------------------- night
    def _kill(self, view: SeatView, options: list[int]) -> int | None:
        """Strike a police claimant or an accuser of the team; else a quiet player."""
        mates = _mates(view) | {view.seat}
        targets = [s for s in options if s not in mates]
        if not targets:
            return None
        pick = _team_pick(view, targets)
        if pick is not None:  # KG-3 ruling: one seat for the team, not a drawn split
            return pick
        if self.mind is not None and (slip := self.mind.slip(targets)) is not None:
            return slip  # a lower level's slip (LADDER)
        table = ev.read_table(view)
        threat = _threats(table, mates) if _strike_threats(view, mates) else {}
        quiet = {s: -float(table.words[s]) for s in targets}
        if self.mind is not None:  # where the police likely sit (KG-4)
            threat = self.mind.add_roles(threat, targets, {"police": 8.0})
        noise = self._tiebreak(targets)
        return max(targets, key=lambda s: (threat.get(s, 0.0), quiet[s], noise[s]))

    def _check(self, view: SeatView, options: list[int]) -> int | None:
        """Check the main unchecked suspect. Ties go by a rule every police seat
        shares (lowest seat), so the team's opinions agree."""
        known = _known_innocent(view) | _known_killers(view)
        fresh = [s for s in options if s not in known and s != view.seat]
        if not fresh:
            return None
        if self.mind is not None:
            return self.mind.most_uncertain(fresh)
        score = _my_suspicion(view, ev.read_table(view))
        return ev.top(fresh, score, {s: -s for s in fresh})

    # ------------------------------------------------------------------- day
    def _vote(self, view: SeatView, options: list[int]) -> int | None:
        if not options:
            return None
        if view.private.get("role") == "killer":
            return self._killer_vote(view, options)
        known = [s for s in options if s in _known_killers(view)]
        cleared = _known_innocent(view)
        pool = known or [s for s in options if s not in cleared] or options
        if self.mind is not None:
            return self.mind.pick(pool, self.mind.hidden)
        score = _my_suspicion(view, ev.read_table(view))
        return ev.top(pool, score, self._tiebreak(pool))

    def _killer_vote(self, view: SeatView, options: list[int]) -> int:
        """Vote as the crowd would; bus an exposed mate only sometimes."""
        mates = _mates(view)
        if self.mind is not None:  # vote as the table would, bussing a lost mate
            choice = self.mind.cover_vote(view, _heard, options, mates | {view.seat})
            return options[0] if choice is None else choice
        crowd = _public_suspicion(view, ev.read_table(view))
        noise = self._tiebreak(options)
        favourite = ev.top(options, crowd, noise)
        if favourite not in mates or self.rng.random() < BUS_RATE:
            return favourite
        others = [s for s in options if s not in mates]
        return ev.top(others, crowd, noise) if others else favourite

    def _speech(self, view: SeatView, last_words: bool) -> Plan:
        role = view.private.get("role")
        plan: Plan | None = None
        if role == "police":
            plan = self._police_speech(view, last_words)
        elif role == "killer":
            plan = self._killer_speech(view)
        if plan is None and self.talker is not None:  # a reasoned speech (issue 37)
            said = self.talker.speak(view.seat, ev.living_others(view), honest=True)
            plan = Plan(accuse=said.accuse, vouch=said.vouch, reasoned=said.sentences)
        if plan is None:
            target = self._day_suspect(view)
            plan = Plan(accuse=[target] if target is not None else [])
        plan.last_words = last_words
        return plan

    def _police_speech(self, view: SeatView, last_words: bool) -> Plan | None:
        table = ev.read_table(view)
        attacked = _false_claims_against_team(view, table)
        if self.team_play:  # the top level answers any false police claim, not only
            # one against the team: the police know their own (KG-3), so a lone
            # fake claim framing a civilian is named a killer at once
            attacked |= any(c.speaker not in _police_team(view) for c in table.claims)
        # One spokesman (the lowest living police) publishes the killers the team
        # found, so the others stay hidden; clears would only mark the speaker for
        # the night, so they wait for the seeded policy or for last words.
        if not (last_words or attacked or _spokesman(view)):
            return None
        clears = self.shares_checks or last_words
        plan = _police_claims(view, table, attacked, clears)
        return plan if plan.claims_police else None

    def _killer_speech(self, view: SeatView) -> Plan:
        table = ev.read_table(view)
        mates = _mates(view)
        accuser = _exposer_of(table, mates | {view.seat}, set(ev.living_others(view)))
        if accuser is not None and (self.fakes_claims or self.team_play) and _lead_killer(view):
            return Plan(found=[accuser])  # a faked police claim against the exposer
        if self.talker is not None:  # speak from the public record's view (a cover)
            others = [s for s in ev.living_others(view) if s not in mates]
            said = self.talker.covered(view, _heard).speak(view.seat, others, honest=True)
            return Plan(accuse=said.accuse, vouch=said.vouch, reasoned=said.sentences)
        target = self._day_suspect(view)
        plan = Plan(accuse=[target] if target is not None else [])
        innocents = [s for s in ev.living_others(view) if s not in mates and s != target]
        if innocents and self.rng.random() < VOUCH_RATE:
            plan.vouch = [self.rng.choice(innocents)]
        return plan

    def _day_suspect(self, view: SeatView) -> int | None:
        living = ev.living_others(view)
        if not living:
            return None
        table = ev.read_table(view)
        if view.private.get("role") == "killer":
            pool = [s for s in living if s not in _mates(view)] or living
            return ev.top(pool, _public_suspicion(view, table), self._tiebreak(pool))
        # A hidden police names a killer it found only once it is public, so its
        # words do not mark it for the night.
        public = {c.target for c in table.claims if c.killer} if not _spokesman(view) else None
        known = [s for s in living if s in _known_killers(view)]
        known = [s for s in known if public is None or s in public]
        if known:
            return known[0]
        pool = [s for s in living if s not in _known_innocent(view)] or living
        if self.mind is not None:
            return self.mind.pick(pool, self.mind.hidden)
        return ev.top(pool, _my_suspicion(view, table), self._tiebreak(pool))


# ------------------------------------------------------------ role knowledge
def _mates(view: SeatView) -> set[int]:
    return {int(s) for s in ev.private_list(view, "fellow_killers")}


def _kill_options(view: SeatView) -> list[int]:
    """KG-3: any living seat; KG-5: never the barred seat on night 1."""
    barred = view.public.get("rules", {}).get("barred_first_victim")
    night_one = int(view.public.get("day", 0)) == 1
    return [int(s) for s in view.public["living"] if not (night_one and int(s) == barred)]


def _team_pick(view: SeatView, targets: list[int]) -> int | None:
    """KG-3 ruling (killer_chat): the first pick among ``targets`` a living
    killer (this seat too) stated tonight; None when none did (always, with the
    ruling off, so those games play as before)."""
    team = _mates(view) | {view.seat}
    night = int(view.public.get("day", 0))
    for item in view.history:
        if item.kind == "talk.team" and item.day == night and item.speaker in team:
            pick = stated_pick(item.speech or "", targets)
            if pick is not None:
                return pick
    return None


_MARKED = re.compile(r"(?:seat|#)\s*(\d+)|(\d+)\s*号", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")


def stated_pick(text: str, targets: Collection[int]) -> int | None:
    """The one seat of ``targets`` a killer's message names ("seat 7", "7号",
    else a bare number); None when it names none of them, or several."""
    marked = {int(a or b) for a, b in _MARKED.findall(text)} & set(targets)
    named = marked or {int(n) for n in _NUMBER.findall(text)} & set(targets)
    return next(iter(named)) if len(named) == 1 else None


def _police_team(view: SeatView) -> set[int]:
    if view.private.get("role") != "police":
        return set()
    return {int(s) for s in ev.private_list(view, "fellow_police")} | {view.seat}


def _known_killers(view: SeatView) -> set[int]:
    return {int(c["suspect"]) for c in ev.private_list(view, "checks") if c["answer"] == "killer"}


def _known_innocent(view: SeatView) -> set[int]:
    checks = ev.private_list(view, "checks")
    cleared = {int(c["suspect"]) for c in checks if c["answer"] != "killer"}
    return cleared | _police_team(view)


def _my_suspicion(view: SeatView, table: ev.Table) -> dict[int, float]:
    """A police or civilian seat's suspicion, with its certain knowledge."""
    trusted = _known_innocent(view) | {view.seat}
    liars = set(_known_killers(view))
    team = _police_team(view)
    if team:  # police know who really is police: any other claimant lies (KG-3)
        liars |= {c.speaker for c in table.claims if c.speaker not in team}
    return ev.suspicion(view, table, trusted, liars)


def _public_suspicion(view: SeatView, table: ev.Table) -> dict[int, float]:
    """What an ordinary civilian would conclude (a killer's guess of the crowd)."""
    return ev.suspicion(view, table, {view.seat}, set())


def _threats(table: ev.Table, mates: set[int]) -> dict[int, float]:
    """Killers fear police claimants (true ones above all) and their accusers."""
    threat: dict[int, float] = {}
    for claim in table.claims:
        if claim.speaker not in mates:
            threat[claim.speaker] = threat.get(claim.speaker, 0.0) + ev.W_CLAIM
    for speaker, target, weight in table.accusations:
        if target in mates and speaker not in mates:
            threat[speaker] = threat.get(speaker, 0.0) + weight
    return threat


def _strike_threats(view: SeatView, team: set[int]) -> bool:
    """秘籍 四: some nights the team kills a quiet player instead of its accusers.
    Decided from facts every killer shares, so the team's opinions agree."""
    night = int(view.public.get("day", 0))
    return (night + sum(team)) % QUIET_NIGHT_EVERY != 0


def _exposer_of(table: ev.Table, team: set[int], living: set[int]) -> int | None:
    """The living non-killer who latest claimed a killer of ``team`` (to counter-claim)."""
    for claim in reversed(table.claims):
        if claim.killer and claim.target in team and claim.speaker in living - team:
            return claim.speaker
    return None


def _lead_killer(view: SeatView) -> bool:
    """Only the lowest living killer fakes claims, so the team tells one story."""
    living = {int(s) for s in view.public.get("living", [])}
    team = (_mates(view) & living) | {view.seat}
    return view.seat == min(team)


def _spokesman(view: SeatView) -> bool:
    """Whether this seat is the police team's public voice (civilians never are)."""
    if view.private.get("role") != "police":
        return True
    living = {int(s) for s in view.public.get("living", [])}
    return view.seat == min(_police_team(view) & living)


def _false_claims_against_team(view: SeatView, table: ev.Table) -> bool:
    team = _police_team(view)
    return any(c.killer and c.target in team and c.speaker not in team for c in table.claims)


def _police_claims(view: SeatView, table: ev.Table, attacked: bool, clears: bool) -> Plan:
    """Publish the checks on living seats; name a false claimant as the killer it is."""
    living = set(ev.living_others(view))
    team = _police_team(view)
    plan = Plan()
    for check in ev.private_list(view, "checks"):
        seat = int(check["suspect"])
        if seat not in living:
            continue
        if check["answer"] == "killer":
            plan.found.append(seat)
        elif clears:
            plan.cleared.append(seat)
    if attacked:
        liars = sorted({c.speaker for c in table.claims if c.speaker not in team} & living)
        plan.liars = [s for s in liars if s not in plan.found]
        plan.cleared = [s for s in plan.cleared if s not in plan.liars]
    return plan


# ------------------------------------------------------------ deduction (issue 37)


def think(mind: Mind, view: SeatView) -> None:
    if not mind.started:
        rules, players = view.public.get("rules", {}), int(view.public["players"])
        killers, police = int(rules["killers"]), int(rules["police"])  # KG-1
        deck = {"killer": killers, "police": police, "civilian": players - killers - police}
        mind.start(range(1, players + 1), deck)
    for seat in _mates(view):  # KG-2: each team knows itself
        mind.know_seat(seat, frozenset({"killer"}))
    for seat in _police_team(view):
        mind.know_seat(seat, frozenset({"police"}))
    for check in ev.private_list(view, "checks"):  # KG-4: a role, or killer / not
        answer = str(check.get("answer"))
        if check.get("answer") is None or check.get("suspect") is None:
            continue
        roles = frozenset({answer}) if answer in TABLE.roles else TABLE.honest
        mind.know_seat(int(check["suspect"]), roles)
    mind.update(view, _heard)


def _heard(item: HistoryItem) -> Heard | None:
    """What one history item tells a seat (KG-6, KG-9, KG-14)."""
    if item.kind == "killer.role":
        return Heard(know=[(int(item.facts["seat"]), frozenset({item.facts["role"]}))])
    return read_public(item, TABLE, KINDS)
