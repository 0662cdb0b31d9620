"""The belief with the shipped tables and parameters on the situations issue 37
describes: speeches read from their words, deaths revealing roles."""

from __future__ import annotations

from sandbox.deduction.belief import Belief, hidden_brier
from sandbox.deduction.evidence import Ballot, Killed
from sandbox.deduction.space import Space
from sandbox.deduction.speech import parse_speech
from sandbox.deduction.tables import load_table

WEREWOLF = load_table("werewolf")
EIGHT = Space(tuple(range(1, 9)), {"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4})
WOLF = {"werewolf"}


def villager_at_one() -> Belief:
    belief = Belief(EIGHT, WEREWOLF)
    belief.know(1, {"villager"})
    return belief


def hear(belief: Belief, speaker: int, text: str) -> None:
    belief.observe_all(parse_speech(text, speaker, WEREWOLF, EIGHT.seats))


def test_a_fake_seer_whose_wolf_was_the_doctor_is_the_likeliest_wolf() -> None:
    belief = villager_at_one()
    prior = belief.probability(3, WOLF)
    hear(belief, 3, "I am the seer. I checked seat 6: a werewolf. Vote it out.")
    belief.observe_all([Ballot(3, 6), Ballot(2, 6), Ballot(4, 6)])
    belief.know(6, {"doctor"})  # exiled, and the role revealed: the check was false
    wolf = {s: belief.probability(s, WOLF) for s in EIGHT.seats}
    assert wolf[3] > 0.6 > prior
    assert wolf[3] == max(wolf.values())
    # the claim is not believed again: seat 3 is unlikely the seer now
    assert belief.probability(3, {"seer"}) < 0.1


def test_a_seer_proved_right_is_trusted_and_its_clear_heard() -> None:
    belief = villager_at_one()
    hear(belief, 4, "我是预言家，昨晚验了5号，是狼人。7号是我的金水。")
    claimed = belief.probability(4, {"seer"})
    belief.know(5, WOLF)  # exiled and revealed a werewolf
    assert belief.probability(4, {"seer"}) > max(0.7, claimed)
    assert belief.probability(7, WOLF) < belief.probability(8, WOLF)


def test_a_counter_claim_splits_then_a_death_settles_it() -> None:
    belief = villager_at_one()
    hear(belief, 2, "I am the seer. Seat 3 is a werewolf.")
    hear(belief, 3, "No, I am the real seer, and seat 2 is a wolf.")
    assert abs(belief.probability(2, WOLF) - belief.probability(3, WOLF)) < 0.01
    belief.observe(Killed(3))  # the pack killed seat 3 in the night
    belief.know(3, {"seer"})  # revealed at dawn
    assert belief.probability(2, WOLF) > 0.9


def test_evidence_lowers_the_brier_score_against_the_truth() -> None:
    truth = {1: "villager", 2: "werewolf", 3: "seer", 4: "villager", 5: "werewolf",
             6: "doctor", 7: "villager", 8: "villager"}  # fmt: skip
    belief = villager_at_one()
    before = hidden_brier(belief.marginals(), truth, frozenset(WOLF))
    hear(belief, 3, "I am the seer: I checked seat 5, werewolf. Seat 7 is clean.")
    hear(belief, 2, "Seat 3 is lying; I am the seer and seat 7 is a wolf.")
    belief.observe_all([Ballot(2, 7), Ballot(5, 7), Ballot(3, 5), Ballot(4, 5)])
    after = hidden_brier(belief.marginals(), truth, frozenset(WOLF))
    assert after < before
