"""The rules as players read them, with the active rulings, citing rule IDs."""

from __future__ import annotations

from sandbox.games.four_factions.config import FourFactionsConfig


def rules_text(cfg: FourFactionsConfig) -> str:
    knowledge = (
        "the faction of every one of the twelve regulars"
        if cfg.elite_knowledge == "all"
        else "the seats of its own faction's three regulars"
    )
    weapons = (
        "each faction's three regulars hold rock, scissors and paper, one each"
        if cfg.weapon_assignment == "balanced"
        else "each regular's weapon is drawn at random"
    )
    defender = (
        "and also the attacker's seat"
        if cfg.defender_learns_attacker
        else "but NOT who the attacker was"
    )
    wounds = (
        "This applies to every strike, also between two regulars"
        if cfg.wounds_between_regulars
        else "Between two regulars a would-be light wound has no effect (option)"
    )
    reveal = "and their factions" if cfg.reveal_faction_on_death else "but not their factions"
    per_seat = (
        " Some seats may have their own maximum HP."
        if any(s.hp is not None for s in cfg.seat)
        else ""
    )
    return f"""FOUR FACTIONS — rules (IDs in brackets)
[FF-1/2/3] 16 seats (1-16). Four factions of four: wolves, spies, justice, army. Each
faction has one elite and three regulars. Roles are dealt secretly [FF-8]; {weapons}.
[FF-4] Weapons rock, scissors, paper; rock beats scissors, scissors beats paper, paper
beats rock. Shields: anti-rock, anti-scissors, anti-paper.
[FF-5] An elite picks one weapon and one shield each fighting night; both hold all night.
[FF-6] A regular always has one weapon W and the shield anti-W.
[FF-7] Every seat starts at its maximum HP: {cfg.hp}.{per_seat}
[FF-9] An elite knows it is the elite and {knowledge}, never their weapons.
[FF-10] A regular knows its faction, weapon, shield and its faction's elite seat.
[FF-11] Everyone knows the rules, every public speech and announcement.
[FF-12] After a duel the attacker learns the target, the weapon it was struck back with and
every outcome; the defender learns it was attacked, the weapon used and every outcome,
{defender}.
[FF-13] Day 1: each seat says which ONE faction it is (denying the other three) and argues.
Lying is allowed; claims are never checked.
[FF-14] Day 2: each seat accuses a living other seat of a faction that seat denied on day 1
(any faction if it gave no proofs).
[FF-15] Day 3: each seat protects a living other seat that gave proofs, backing its claim.
[FF-16/17] No fighting before night 4. From day 4, each living seat may speak once or pass.
[FF-18] Day d speeches start at seat ((d-1) mod 16)+1 and go up, skipping the dead.
[FF-19] From night 4: elites choose weapon and shield first. First half: each living odd
seat may attack one even seat or stay home. Second half: even seats attack odd seats.
Choices are sealed and simultaneous.
[FF-20] Duels resolve in ascending attacker seat; attacking a dead seat finds a corpse.
[FF-21] A strike with weapon W on a shield guarding G: G = W no effect; W beats G kill
(whatever the HP); G beats W light wound (HP - 1; at 0 the seat dies). {wounds}.
[FF-22] The attacker strikes first; a surviving defender strikes back once. [FF-24]
Attacking one's own faction is allowed.
[FF-25/26] Pairs: wolves vs justice, spies vs army. When all of one side is dead and the
other has a survivor, the survivor's side wins; if both are wiped out, both draw. Checked
after each half-night and announced publicly; the result is final.
[FF-27] The game ends when both pairs are decided, or after day {cfg.day_limit}: then every
undecided pair draws by limit.
[FF-28] At dawn the referee announces who died, {reveal}.
[FF-29] A seat that gives no valid statement on days 1-3 is recorded as having given none.
"""
