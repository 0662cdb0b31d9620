"""A deducing seat's mind and its speech (sandbox/deduction/mind.py, talk.py):
the levels read what they should, and a speech accuses only with a reason."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from sandbox.agents.baseline import baseline_bot
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction.mind import (
    LEVELS,
    VERSION,
    Heard,
    Mind,
    frozen_tag,
    heard_death,
    heard_speech,
)
from sandbox.deduction.tables import RoleTable
from sandbox.deduction.talk import Talker
from sandbox.games.killer.bot import LADDER as KILLER_LADDER
from sandbox.games.registry import get_variant
from sandbox.games.werewolf.bot import LADDER as WEREWOLF_LADDER

# each variant's ladder lives in its own folder (its bot's LADDER)
LADDERS = {"werewolf": WEREWOLF_LADDER, "killer": KILLER_LADDER}

# A small table: roles a (hidden), b (the checker), c; words in English.
TABLE = RoleTable(
    roles=("a", "b", "c"),
    hidden=frozenset({"a"}),
    checker="b",
    groups={"good": frozenset({"b", "c"})},
    words={"en": {"a": ("wolf",), "b": ("seer",), "c": ("villager",), "good": ("good",)}},
    say={"en": {"a": "a wolf", "b": "the seer", "c": "a villager", "good": "good"}},
)
DECK = {"a": 2, "b": 1, "c": 3}
SEATS = range(1, 7)


def _item(seq: int, speaker: int | None = None, text: str = "", **facts: Any) -> HistoryItem:
    return HistoryItem(seq, "t.item", 1, "day", speaker, text or None, facts, public=True)


def _view(items: list[HistoryItem]) -> SeatView:
    return SeatView(None, 1, {}, {}, tuple(items))  # type: ignore[arg-type]


def _reader(item: HistoryItem) -> Heard | None:
    f = item.facts
    if "dead" in f:
        return heard_death(TABLE, f["dead"], f.get("role"), night=True)
    if item.speaker is not None:
        accuse, vouch = f.get("accuse", ()), f.get("vouch", ())
        return heard_speech(TABLE, item.speaker, f.get("claim"), accuse, vouch, item.speech or "")
    return None


def _mind(level: int, items: list[HistoryItem], me_role: str = "c") -> Mind:
    mind = Mind(TABLE, level, seed=3)
    mind.start(SEATS, DECK)
    mind.know_seat(1, frozenset({me_role}))
    mind.update(_view(items), _reader)
    return mind


def test_the_words_of_a_speech_count_from_level_two_only() -> None:
    said = [_item(1, speaker=2, text="I am the seer. I checked seat 4: a wolf.")]
    words = _mind(2, said)
    fields_only = _mind(1, [])  # level 1 never reads words: as if nothing was said
    assert words.hidden(4) > fields_only.hidden(4) + 0.1
    assert _mind(1, said).hidden(4) == pytest.approx(fields_only.hidden(4))


def test_a_statement_proved_false_is_the_reason_given() -> None:
    items = [
        _item(1, speaker=3, accuse=[5]),  # seat 3 says seat 5 is a wolf ...
        _item(2, dead=5, role="c"),  # ... and seat 5 is shown a villager
    ]
    mind = _mind(3, items)
    said = Talker(mind, "en", 1).speak(1, [2, 3, 4, 6], honest=True)
    assert said.accuse == [3]
    text = " ".join(said.sentences).lower()
    assert "seat 3" in text and "seat 5" in text


def test_no_accusation_without_a_reason() -> None:
    mind = _mind(3, [])
    said = Talker(mind, "en", 1).speak(1, [2, 3, 4, 5, 6], honest=True)
    assert said.accuse == [] and said.sentences  # it says it has nothing, not "Pass."


def test_a_claim_of_a_role_shown_elsewhere_is_called_a_lie() -> None:
    items = [_item(1, speaker=4, claim="b"), _item(2, dead=2, role="b")]
    said = Talker(_mind(3, items), "en", 1).speak(1, [3, 4, 5, 6], honest=True)
    assert said.accuse == [4]
    assert "seat 2" in " ".join(said.sentences).lower()


def test_a_cover_reads_only_the_public_record() -> None:
    secret = HistoryItem(1, "t.item", 1, "night", None, None, {"dead": 3, "role": "a"})
    mind = _mind(3, [secret])
    cover = mind.cover(_view([secret]), _reader)
    assert mind.hidden(3) == pytest.approx(1.0)
    assert cover.hidden(3) < 0.5


def test_levels_and_the_frozen_tag() -> None:
    assert sorted(LEVELS) == [1, 2, 3, 4]
    assert not LEVELS[1].words and LEVELS[3].words and LEVELS[4].words
    assert LEVELS[4].noise < LEVELS[3].noise < LEVELS[2].noise < LEVELS[1].noise
    # Four Factions' levels keep v1's settings; only 4 plays as a team; none slips.
    assert [(v.forget, v.noise, v.coordinates) for _, v in sorted(LEVELS.items())] == [
        (0.2, 0.25, False),
        (0.0, 0.15, False),
        (0.0, 0.08, False),
        (0.0, 0.0, True),
    ]
    assert all(v.blunder == 0 and not v.bluffs for v in LEVELS.values())
    assert all(v.hidden_abstains and v.trust == 1.0 for v in LEVELS.values())
    # Werewolf's and Killer's ladders, v3: graded forgetting and slips, no softmax
    # spread; only the top level plays as a team and bluffs; Werewolf's hidden
    # side abstains with its cover from level 3; Killer's level 1 is the
    # baseline and its deducing levels weigh speeches more firmly as they rise.
    assert VERSION == 3 and sorted(LADDERS) == ["killer", "werewolf"]
    pinned = {
        "werewolf": [
            (False, 0.25, 0.0, 0.4, False, False, False, 1.0),
            (True, 0.15, 0.0, 0.25, False, False, False, 1.0),
            (True, 0.1, 0.0, 0.15, False, False, True, 1.0),
            (True, 0.0, 0.0, 0.0, True, True, True, 1.0),
        ],
        "killer": [
            (False, 0.0, 0.0, 0.0, False, False, True, 1.0),
            (False, 0.06, 0.0, 0.15, False, False, True, 0.85),
            (True, 0.04, 0.0, 0.1, False, False, True, 1.0),
            (True, 0.0, 0.0, 0.0, True, True, True, 1.5),
        ],
    }
    # Killer's level 1 plays the baseline itself (v3); no other rung does.
    assert [v.baseline for _, v in sorted(LADDERS["killer"].items())] == [True, False, False, False]
    assert not any(v.baseline for v in (*LADDERS["werewolf"].values(), *LEVELS.values()))
    for variant, ladder in LADDERS.items():
        assert [
            (
                v.words,
                v.forget,
                v.noise,
                v.blunder,
                v.coordinates,
                v.bluffs,
                v.hidden_abstains,
                v.trust,
            )
            for _, v in sorted(ladder.items())
        ] == pinned[variant]
    assert frozen_tag("x", 3) == "x/level-3/v3"
    assert frozen_tag("killer", 3) == "killer/level-3/v3"
    # the shared version by default; a ladder may hand its own (Level.version, Four Factions v4)
    assert frozen_tag("four_factions", 3) == "four_factions/level-3/v3"
    assert frozen_tag("four_factions", 3, 4) == "four_factions/level-3/v4"
    # each ladder's rungs carry its version: Killer's weights moved (v4), Werewolf's did not
    assert {v.version for v in LADDERS["killer"].values()} == {4}
    assert {v.version for v in LADDERS["werewolf"].values()} == {3}
    with pytest.raises(ValueError):
        Mind(TABLE, 0, seed=1)
    with pytest.raises(ValueError):
        Mind(TABLE, 5, seed=1, levels=LADDERS["killer"])


@pytest.mark.parametrize("variant", sorted(LADDERS))
def test_a_level_slips_at_its_rate_and_the_top_level_never(variant: str) -> None:
    ladder, options = LADDERS[variant], [2, 3, 4, 5, 6]
    best = 4  # the one seat the score favours
    picks: dict[int, list[int | None]] = {}
    deducing = sorted(level for level, v in ladder.items() if not v.baseline)
    for level in deducing:
        mind = Mind(TABLE, level, seed=7, levels=ladder)
        picks[level] = [mind.pick(options, lambda s: float(s == best)) for _ in range(4000)]
    missed = {level: sum(p != best for p in ps) / 4000 for level, ps in picks.items()}
    assert missed[4] == 0
    for level in deducing[:-1]:  # a slip lands on the best seat a fifth of the time
        assert missed[level] == pytest.approx(ladder[level].blunder * 0.8, abs=0.02)
    assert all(missed[a] > missed[b] for a, b in itertools.pairwise(deducing))
    assert set(picks[deducing[0]]) == set(options)  # a slip may land anywhere


@pytest.mark.parametrize("variant", sorted(LADDERS))
def test_a_bot_plays_its_own_variants_ladder(variant: str) -> None:
    bot = baseline_bot(get_variant(variant), seed=5)
    for level, rates in LADDERS[variant].items():
        bot.at_level(level)  # type: ignore[attr-defined]
        if rates.baseline:  # the baseline's play, under its level's frozen tag
            assert bot.mind is None  # type: ignore[attr-defined]
            assert bot.describe()["reference"] == frozen_tag(variant, level)
        else:
            assert bot.mind.level is rates  # type: ignore[attr-defined]


def test_a_cover_keeps_its_minds_ladder() -> None:
    ladder = LADDERS["werewolf"]
    mind = Mind(TABLE, 2, seed=3, levels=ladder)
    mind.start(SEATS, DECK)
    assert mind.cover(_view([]), _reader).level == ladder[2]


def test_a_herd_on_one_seat_weighs_less_than_as_many_independent_voices() -> None:
    from sandbox.deduction.belief import Belief
    from sandbox.deduction.evidence import SeatIs
    from sandbox.deduction.space import Space

    herd = [_item(k, speaker=k, accuse=[6]) for k in (2, 3, 4, 5)]
    mind = _mind(3, herd)
    independent = Belief(Space(tuple(SEATS), DECK), TABLE)
    independent.know(1, {"c"})
    for k in (2, 3, 4, 5):
        independent.observe(SeatIs(k, 6, TABLE.hidden))
    first = _mind(3, herd[:1])
    assert first.hidden(6) < mind.hidden(6) < independent.probability(6, TABLE.hidden)
