"""Baseline Four Factions bot: simple, seeded, legal, and uses only its view.

Policy (deliberately plain, so LLM seats have a fair yardstick):
- Day 1 proofs: tells the truth with probability TRUTH_RATE, else claims a
  random other faction.
- Day 2 accusation: an elite accuses a regular it *knows* claimed falsely,
  preferring its rival faction; a regular accuses someone of the rival faction.
- Day 3 protection: backs a seat believed to be a faction-mate or ally whose
  claim is true (an elite knows; a regular backs its own elite).
- Open days: a short remark or a pass.
- Elite loadout: counters the weapon met most in its own duels (shield against
  it, weapon that beats it) with probability COUNTER_RATE, else a random pick.
- Attacks: stays home with probability STAY_HOME_RATE; otherwise scores every
  target by the faction beliefs below (claims, accusations,
  protections, what its own elite exposed or protected): rival faction is good,
  own faction bad, a likely faction-mate (>= MATE_LIMIT) or a known one is never
  attacked; a weapon it has seen its own beat adds, one that beats it subtracts.
Every answer is checked with ctx.validate; if the preferred one is illegal the
bot falls back to a legal draw over the request's options.

Its words (FF day statements): the bot chooses each statement's structure (the
faction it claims, whom it accuses of which faction, whom it protects); its
phrasebook (``phrases.toml``) says it in the seat's language.

Its beliefs about the others, from its view only, are plain weights per faction
for each seat, built from the day 1–3 record (FF-13..FF-15) and the seat's own
certain knowledge (FF-9, FF-10):
- certain: an elite's known regulars; a regular's own elite;
- day 1: a claim is weak evidence (anyone may lie, FF-13);
- day 2: an accusation made by one's own elite names the target's true faction
  (an elite knows every regular, FF-9); a seat that accused me or my elite is
  probably my rival;
- day 3: a seat my elite protected is probably my faction-mate.

At ``level`` 1..4 (issue 37; 0 is this baseline, unchanged) a deduction Mind
(:func:`.evidence.think`) keeps a belief over every seat's faction and rank from
the claims, accusations and (level 2 up) the words of open speeches; its
accusations and attacks come from it, read with the protections and pair
results (:func:`.evidence.read_table`), and the duel odds choose the elite's arms
and every target, at home when none is worth the risk (:mod:`.tactics`). What
each level adds, and how often it slips, is its :mod:`.tactics` rung (v5): from
2 it hides its elite on day 3; from 3 it claims its rival's faction, accuses its
own and finishes its rival; at 4 it tells its mates the weapons it saw, its elite
names the rival's regulars, and it reads a table that hides its elites and one
that claims its rival's faction.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice, draw_payload
from sandbox.core.seat import FALLBACK_INVALID, Agent, AgentAnswer, DecisionContext
from sandbox.deduction.mind import Mind
from sandbox.games.four_factions.config import FACTIONS, rival_of
from sandbox.games.four_factions.evidence import (
    PHRASES,
    TABLE,
    Reading,
    faction_odds,
    heed_elite,
    open_speech,
    reading,
    statement,
    think,
)
from sandbox.games.four_factions.resolve import BEATS, STRIKE_TABLE
from sandbox.games.four_factions.tactics import (
    LADDER,
    TACTICS,
    Sight,
    Tactics,
    arms_of,
    attack_values,
    best_loadout,
    hostile_weapons,
    me_armed,
    news_of,
    pair_decided,
    rivals,
    sight,
    weapons_seen,
)
from sandbox.games.phrasebook import Phrasebook

# ------------------------------------------------------------ beliefs


# The rules' own pairs (FF-25), never a copy of them.
RIVAL = {faction: rival_of(faction) for faction in FACTIONS}

W_CLAIM = 1.0
W_ELITE_EXPOSED = 4.0
W_ACCUSED_US = 1.5
W_ELITE_PROTECTED = 3.0
W_PRIOR = 0.5  # every faction stays possible


def beliefs(me: Mapping[str, Any], pub: Mapping[str, Any]) -> dict[int, dict[str, float]]:
    """For every other seat, the probability of each faction as this seat sees it."""
    mine = str(me["faction"])
    weight: dict[int, defaultdict[str, float]] = {
        s: defaultdict(float) for s in range(1, 17) if s != me["seat"]
    }
    for seat, faction in dict(pub.get("claims", {})).items():
        _add(weight, int(seat), str(faction), W_CLAIM)
    elite = me.get("my_elite")
    ours = {int(me["seat"])} | ({int(elite)} if elite is not None else set())
    for entry in pub.get("accusations", []):
        if entry["seat"] == elite and entry.get("faction"):
            _add(weight, int(entry["target"]), str(entry["faction"]), W_ELITE_EXPOSED)
        if entry["target"] in ours and entry["seat"] not in ours:
            _add(weight, int(entry["seat"]), RIVAL[mine], W_ACCUSED_US)
    for entry in pub.get("protections", []):
        if entry["seat"] == elite:
            _add(weight, int(entry["target"]), mine, W_ELITE_PROTECTED)
    return {s: _certain_or_normalised(me, s, w) for s, w in weight.items()}


def _add(weight: dict[int, defaultdict[str, float]], seat: int, faction: str, w: float) -> None:
    if seat in weight and faction in FACTIONS:
        weight[seat][faction] += w


def _certain_or_normalised(
    me: Mapping[str, Any], seat: int, weight: Mapping[str, float]
) -> dict[str, float]:
    known = dict(me.get("known_factions", {})).get(str(seat))
    if known is None and me.get("my_elite") == seat:
        known = me["faction"]
    if known is not None:
        return {f: float(f == known) for f in FACTIONS}
    raw = {f: weight.get(f, 0.0) + W_PRIOR for f in FACTIONS}
    total = sum(raw.values())
    return {f: v / total for f, v in raw.items()}


# ------------------------------------------------------------ the bot


TRUTH_RATE = 0.6
STAY_HOME_RATE = 0.05
COUNTER_RATE = 0.6  # elites counter what they saw this often; else they pick at random
MATE_LIMIT = 0.6  # believed at least this likely to be my faction: never attacked
W_EDGE = 0.4  # how much a known weapon match-up weighs against faction beliefs
MIN_VALUE = -0.5  # below this no target is worth leaving home for
SPEAK_RATE = 0.5
LEGAL_TRIES = 32
NO_TACTICS = Tactics(groups=False, duels=False, cover=False, tells=False)  # level 0


class BaselineBot(Agent):
    kind = "baseline"
    replayable = True
    # An open day's ask is answered by _message (its owed statement first, OD-3),
    # not by the generic speech adapter (sandbox.agents.open_talk).
    answers_open_day = True

    def __init__(self, seed: int, language: str = "en", level: int = 0) -> None:
        self.rng = random.Random(seed)
        self.book = Phrasebook(PHRASES, language, seed)  # words only: never moves a decision
        self.seed = seed
        self.spoke_on: set[int] = set()  # open days on which the bot posted a speech
        self.told: set[int] = set()  # seats whose weapon it has told the table (level 4)
        self.named = False  # its elite has named the rival's regulars (level 4)
        self.at_level(level)

    def at_level(self, level: int) -> None:
        """Play at ``level`` (0: the baseline; 1..4: deducing, issue 37)."""
        self.mind = Mind(TABLE, level, self.seed, levels=LADDER) if level else None
        self.tactics = TACTICS[level] if level else NO_TACTICS

    def describe(self) -> dict[str, Any]:
        return self.mind.describe(self.kind, "four_factions") if self.mind else {"kind": self.kind}

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        view = ctx.view
        if self.mind is not None:
            think(self.mind, view)
            if self.tactics.names:
                heed_elite(self.mind, view)
        private, public = dict(view.private), dict(view.public)
        chooser = getattr(self, f"_{ctx.request.decision}", None)
        preferred = chooser(private, public, ctx) if chooser is not None else None
        if preferred is not None:
            try:
                return AgentAnswer(ctx.validate(preferred))
            except IllegalDecision:
                pass
        for _ in range(LEGAL_TRIES):
            try:
                return AgentAnswer(ctx.validate(draw_payload(ctx.request, self.rng)))
            except IllegalDecision:
                continue
        return AgentAnswer(None, fallback_reason=FALLBACK_INVALID)

    def _graveyard_message(self, me: dict[str, Any], pub: dict[str, Any], ctx: Any) -> Any:
        return {"message": ""}  # FF-19 ruling: a dead bot passes (it has nothing to add)

    # ----------------------------------------------------------- statements
    def _proofs(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        mine = str(me["faction"])
        if self.tactics.cover:  # the rival's own faction: its seats take us for mates (FF-13)
            return {"am": RIVAL[mine], "speech": statement(self.book, "proofs", am=RIVAL[mine])}
        claim = mine if self.rng.random() < TRUTH_RATE else self._other(mine)
        return {"am": claim, "speech": statement(self.book, "proofs", am=claim)}

    def _accusation(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        options = _options(ctx, "target")
        claims: Mapping[str, str] = pub["claims"]
        known: Mapping[str, str] = me["known_factions"]
        rival = RIVAL[str(me["faction"])]
        mates = [s for s in options if s in self._friends(me) and str(s) in claims]
        if self.tactics.cover and mates:  # a mate: no other seat takes us for its rival (FF-14)
            other = next(
                f for f in FACTIONS if f not in (me["faction"], rival, claims[str(mates[0])])
            )
            speech = statement(self.book, "accusation", a=mates[0], faction=other)
            return {"target": mates[0], "faction": other, "speech": speech}
        liars = [s for s in options if str(s) in known and claims.get(str(s)) != known[str(s)]]
        liars.sort(key=lambda s: known[str(s)] != rival)
        if not liars and self.mind is not None and claims:  # the likeliest false claim
            return self._accuse_from_belief(self.mind, options, claims)
        if liars:
            target = liars[0]
            faction = known[str(target)]
        else:
            target = self.rng.choice(options)
            claimed = claims.get(str(target))
            faction = rival if claimed != rival else self._other(str(claimed))
        speech = statement(self.book, "accusation", a=target, faction=faction)
        return {"target": target, "faction": faction, "speech": speech}

    def _protection(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        options = _options(ctx, "target")
        friends = self._friends(me)
        claims: Mapping[str, str] = pub["claims"]
        known: Mapping[str, str] = me["known_factions"]
        honest_friends = [
            s
            for s in options
            if s in friends and known.get(str(s), claims.get(str(s))) == claims.get(str(s))
        ]
        if self.tactics.cover:  # its claim is a lie: back a mate all the same
            honest_friends = [s for s in options if s in friends]
        if self.tactics.hides and self.mind is not None:  # no hub names our elite (FF-15)
            rival, odds = RIVAL[str(me["faction"])], self._read(me, pub).factions
            honest_friends = sorted(
                (s for s in options if s not in friends), key=lambda s: -odds[s][rival]
            )
        target = (honest_friends or [self.rng.choice(options)])[0]
        return {"target": target, "speech": statement(self.book, "protection", a=target)}

    def _speak(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        if self.tactics.names and me["elite"] and not self.named:  # for its regulars (FF-9)
            self.named = True
            said = [statement(self.book, "named", a=s, faction=f) for s, f in rivals(me, pub)]
            if said:
                return {"speech": self.book.join(said)}
        seen = weapons_seen(me["duels"]) if self.tactics.tells else {}
        news = news_of(me, pub, self._read(me, pub), self.told) if seen else []
        if news:  # the weapons its duels showed, for its faction-mates (FF-12, FF-17)
            self.told.update(s for s, _ in news)
            return {"speech": self.book.join([self.book.say(f"seen_{w}", a=s) for s, w in news])}
        if self.rng.random() >= SPEAK_RATE:
            return {"speech": ""}
        return {"speech": open_speech(self.book, me, pub, ctx.request.seat)}

    # ------------------------------------------------------- open discussion
    def _message(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        """An open day's ask (OD-5): the statement the seat owes first, with its
        words (OD-3: the first message carrying it gives it); then at most one
        speech a day; otherwise wait."""
        offered = {f.name for f in ctx.request.fields}
        for field, stage in (("am", self._proofs), ("faction", self._accusation)):
            if field in offered:
                return self._owed(stage(me, pub, ctx), ctx)
        if "target" in offered:
            return self._owed(self._protection(me, pub, ctx), ctx)
        day = int(pub.get("day") or 0)
        if day in self.spoke_on:
            return {"speak": False}
        self.spoke_on.add(day)
        said = self._speak(me, pub, ctx)["speech"]
        return {"speak": True, "speech": said} if said else {"speak": False}

    def _owed(self, statement: dict[str, Any], ctx: DecisionContext) -> Any:
        """The statement as a message if the referee takes it (the seat owes it),
        else a wait: the day's statement is owed once (OD-3)."""
        try:
            return ctx.validate({"speak": True, **statement})
        except IllegalDecision:
            return {"speak": False}

    # ---------------------------------------------------------------- night
    def _loadout(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        """Counter what the duels showed: a shield against the weapon met most, a
        weapon that beats it (FF-21); a random pick when nothing was seen yet."""
        if self.tactics.duels and self.mind is not None:
            # The level's slip (whether, not which: one option) draws its arms at random.
            if self.mind.slip([0]) is None:
                return self._plan_loadout(me, pub, ctx)
            weapon, guards = self.mind.rng.choice(tuple(BEATS)), self.mind.rng.choice(tuple(BEATS))
            return {"weapon": weapon, "shield": f"anti-{guards}"}
        seen = hostile_weapons(me)
        if not seen or self.rng.random() >= COUNTER_RATE:  # stay unpredictable
            weapon = self.rng.choice(tuple(BEATS))
            return {"weapon": weapon, "shield": f"anti-{self.rng.choice(tuple(BEATS))}"}
        common = max(sorted(set(seen)), key=seen.count)
        beater = next(w for w, beaten in BEATS.items() if beaten == common)
        return {"weapon": beater, "shield": f"anti-{common}"}

    def _attack(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        options = [s for s in _options(ctx, "target") if s is not None]
        if self.tactics.duels:
            return {"target": self._best_target(me, pub, options, ctx)}
        if not options or self.rng.random() < STAY_HOME_RATE:
            return {"target": None}
        weapon = self._weapon_tonight(me)
        friends, elites = self._friends(me), self._known_elites(me)
        seen = weapons_seen(me["duels"])
        if self.tactics.groups:
            belief: Mapping[int, Mapping[str, float]] = self._read(me, pub).factions
        else:
            belief = faction_odds(self.mind, options) if self.mind else beliefs(me, pub)
        rival, mine = RIVAL[str(me["faction"])], str(me["faction"])
        scored = []
        for s in options:
            if s in friends or s == me["seat"]:
                continue
            odds = belief.get(s, {})
            if odds.get(mine, 0.0) >= MATE_LIMIT:
                continue  # FF-24 allows it, but a likely faction-mate is never worth it
            edge = 1 - self._danger(s, weapon, seen, elites, me)  # +1 beats, -1 loses
            value = 2 * odds.get(rival, 0.0) - 2 * odds.get(mine, 0.0) + W_EDGE * edge
            scored.append((value, self.rng.random(), s))
        if not scored:
            return {"target": None}
        value, _, target = max(scored)
        return {"target": target if value > MIN_VALUE else None}

    # ------------------------------------------------------- tactics (levels 2..4)
    def _plan_loadout(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        targets = [s for s in pub["living"] if s % 2 != me["seat"] % 2]  # FF-19
        return best_loadout(self._sight(me, pub, ctx), targets)

    def _best_target(
        self, me: dict[str, Any], pub: dict[str, Any], options: list[int], ctx: DecisionContext
    ) -> int | None:
        """The attack worth most by the reading and the duel odds; home if none is worth it."""
        if not options or not me_armed(me) or pair_decided(me, pub):
            return None  # FF-26: a decided pair's result is final, nothing to gain
        assert self.mind is not None
        scores = attack_values(self._sight(me, pub, ctx), options, arms_of(me))
        rash = self.mind.slip(list(scores))
        if rash is not None:  # a slip: any seat not known a mate, worth it or not
            return rash
        tie = {s: self.mind.rng.random() for s in scores}
        target = max(scores, key=lambda s: (round(scores[s], 9), tie[s]), default=None)
        return target if target is not None and scores[target] > self.tactics.attack_at else None

    def _sight(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Sight:
        """Its reading and the weapons it knows: its own duels' and, at level 4, its mates' word."""
        read = self._read(me, pub)
        told = ctx.view.history if self.tactics.tells else ()
        living, finish = frozenset(pub["living"]), self.tactics.finish
        return sight(me, read, told, frozenset(self._friends(me)), living, finish)

    def _read(self, me: Mapping[str, Any], pub: Mapping[str, Any]) -> Reading:
        assert self.mind is not None
        return reading(self.mind, me, pub, self.tactics.sees_hiding, self.tactics.sees_cover)

    def _accuse_from_belief(self, mind: Mind, options: list[Any], claims: Mapping[str, str]) -> Any:
        """FF-14: the seat whose day-1 claim is likeliest false, of its likeliest faction."""
        odds = faction_odds(mind, options)
        claimed = {s: claims.get(str(s), "") for s in options}
        target = mind.pick(options, lambda s: 1 - odds[s].get(claimed[s], 0.0))
        assert target is not None
        rest = [f for f in FACTIONS if f != claimed[target]]
        faction = max(rest, key=lambda f: odds[target][f])
        speech = statement(self.book, "accusation", a=target, faction=faction)
        return {"target": target, "faction": faction, "speech": speech}

    # -------------------------------------------------------------- helpers
    def _danger(
        self,
        seat: int,
        weapon: str | None,
        seen: Mapping[int, str],
        elites: set[int],
        me: Mapping[str, Any],
    ) -> int:
        """0 = my strike should kill it, 1 = unknown, 2 = it can kill me back."""
        if seat in elites and not me["elite"]:
            return 2  # an elite may have picked the shield against my weapon
        theirs = seen.get(seat)
        if theirs is None or weapon is None:
            return 1
        # A regular's shield guards against its own weapon (FF-6); FF-21 decides.
        if STRIKE_TABLE[(weapon, theirs)] == "kill":
            return 0
        return 2 if STRIKE_TABLE[(theirs, weapon)] == "kill" else 1

    def _weapon_tonight(self, me: Mapping[str, Any]) -> str | None:
        if me["elite"]:
            loadout = me.get("loadout")
            return None if not loadout else str(loadout["weapon"])
        return None if me["weapon"] is None else str(me["weapon"])

    def _friends(self, me: Mapping[str, Any]) -> set[int]:
        """Seats believed to be faction-mates (never attacked, preferred for protection)."""
        mine = me["faction"]
        known: Mapping[str, str] = me["known_factions"]
        friends = {int(s) for s, f in known.items() if f == mine}
        if me["my_elite"] is not None:
            friends.add(int(me["my_elite"]))
        return friends

    def _known_elites(self, me: Mapping[str, Any]) -> set[int]:
        if me["my_elite"] is not None:
            return {int(me["my_elite"])}
        known: Mapping[str, str] = me["known_factions"]
        if len(known) == 12:  # FF-9 "all": every seat not listed is an elite
            return {s for s in range(1, 17) if str(s) not in known and s != me["seat"]}
        return set()

    def _other(self, faction: str) -> str:
        return self.rng.choice([f for f in FACTIONS if f != faction])


def _options(ctx: DecisionContext, name: str) -> list[Any]:
    field = ctx.request.field(name)
    assert isinstance(field, Choice)
    return list(field.options)
