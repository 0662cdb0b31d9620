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
  target by the faction beliefs of four_factions_beliefs (claims, accusations,
  protections, what its own elite exposed or protected): rival faction is good,
  own faction bad, a likely faction-mate (>= MATE_LIMIT) or a known one is never
  attacked; a weapon it has seen its own beat adds, one that beats it subtracts.
Every answer is checked with ctx.validate; if the preferred one is illegal the
bot falls back to a legal draw over the request's options.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import sandbox.games.four_factions.talk as talk
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice, draw_payload
from sandbox.core.seat import FALLBACK_INVALID, Agent, AgentAnswer, DecisionContext
from sandbox.games.four_factions.beliefs import RIVAL, beliefs, hostile_weapons
from sandbox.games.four_factions.info import FACTIONS
from sandbox.games.four_factions.strikes import BEATS, STRIKE_TABLE
from sandbox.games.phrasebook import Phrasebook

TRUTH_RATE = 0.6
STAY_HOME_RATE = 0.05
COUNTER_RATE = 0.6  # elites counter what they saw this often; else they pick at random
MATE_LIMIT = 0.6  # believed at least this likely to be my faction: never attacked
W_EDGE = 0.4  # how much a known weapon match-up weighs against faction beliefs
MIN_VALUE = -0.5  # below this no target is worth leaving home for
SPEAK_RATE = 0.5
LEGAL_TRIES = 32


class BaselineBot(Agent):
    kind = "baseline"
    replayable = True

    def __init__(self, seed: int, language: str = "en") -> None:
        self.rng = random.Random(seed)
        self.book = Phrasebook(talk.PHRASES, language, seed)  # words only: never moves a decision

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        view = ctx.view
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

    # ----------------------------------------------------------- statements
    def _proofs(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        mine = str(me["faction"])
        claim = mine if self.rng.random() < TRUTH_RATE else self._other(mine)
        return {"am": claim, "speech": talk.statement(self.book, "proofs", am=claim)}

    def _accusation(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        options = _options(ctx, "target")
        claims: Mapping[str, str] = pub["claims"]
        known: Mapping[str, str] = me["known_factions"]
        rival = RIVAL[str(me["faction"])]
        liars = [s for s in options if str(s) in known and claims.get(str(s)) != known[str(s)]]
        liars.sort(key=lambda s: known[str(s)] != rival)
        if liars:
            target = liars[0]
            faction = known[str(target)]
        else:
            target = self.rng.choice(options)
            claimed = claims.get(str(target))
            faction = rival if claimed != rival else self._other(str(claimed))
        speech = talk.statement(self.book, "accusation", a=target, faction=faction)
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
        target = (honest_friends or [self.rng.choice(options)])[0]
        return {"target": target, "speech": talk.statement(self.book, "protection", a=target)}

    def _speak(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        if self.rng.random() >= SPEAK_RATE:
            return {"speech": ""}
        return {"speech": talk.open_speech(self.book, me, pub, ctx.request.seat)}

    # ---------------------------------------------------------------- night
    def _loadout(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        """Counter what the duels showed: a shield against the weapon met most, a
        weapon that beats it (FF-21); a random pick when nothing was seen yet."""
        seen = hostile_weapons(me)
        if not seen or self.rng.random() >= COUNTER_RATE:  # stay unpredictable
            weapon = self.rng.choice(tuple(BEATS))
            return {"weapon": weapon, "shield": f"anti-{self.rng.choice(tuple(BEATS))}"}
        common = max(sorted(set(seen)), key=seen.count)
        beater = next(w for w, beaten in BEATS.items() if beaten == common)
        return {"weapon": beater, "shield": f"anti-{common}"}

    def _attack(self, me: dict[str, Any], pub: dict[str, Any], ctx: DecisionContext) -> Any:
        options = [s for s in _options(ctx, "target") if s is not None]
        if not options or self.rng.random() < STAY_HOME_RATE:
            return {"target": None}
        weapon = self._weapon_tonight(me)
        friends, elites = self._friends(me), self._known_elites(me)
        seen = _weapons_seen(me["duels"])
        belief = beliefs(me, pub)
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


def _weapons_seen(duels: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Opponents' weapons learned as an attacker (the weapon they struck back with)."""
    seen: dict[int, str] = {}
    for d in duels:
        back = d.get("weapon_struck_back_with")
        if d.get("role") == "attacker" and back is not None and d.get("opponent") is not None:
            seen[int(d["opponent"])] = str(back)
    return seen
