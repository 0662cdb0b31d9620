"""Speech understanding (issue 37, item 2): the hand-written corpus in English
and Chinese read into evidence, scored by precision and recall, and the
tricky cases one by one."""

from __future__ import annotations

import pytest

from sandbox.deduction.evidence import Evidence, RoleClaim, SeatIs, VotePromise
from sandbox.deduction.speech import parse_speech
from sandbox.deduction.speech_zh import number
from tests.deduction.corpus import SEATS, SPEAKER, Case, cases, expected, table

# Floors just under what the parser reaches today: a change that reads the
# corpus worse fails here.
FLOORS = {"en": (0.98, 0.98), "zh": (0.98, 0.98)}


def _score(case: Case) -> tuple[set[Evidence], set[Evidence]]:
    t = table(case.variant)
    got = set(parse_speech(case.text, SPEAKER, t, SEATS))
    want = {expected(e, t) for e in case.expect}
    return got, want


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_corpus_is_large_enough(language: str) -> None:
    found = cases(language)
    assert len(found) >= 40
    assert {c.variant for c in found} == {"werewolf", "killer", "four_factions"}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_precision_and_recall_on_the_corpus(language: str) -> None:
    true_pos = false_pos = false_neg = 0
    misses = []
    for case in cases(language):
        got, want = _score(case)
        true_pos += len(got & want)
        false_pos += len(got - want)
        false_neg += len(want - got)
        if got != want:
            misses.append(f"{case.text!r}: extra {got - want}, missing {want - got}")
    precision = true_pos / max(1, true_pos + false_pos)
    recall = true_pos / max(1, true_pos + false_neg)
    floor_p, floor_r = FLOORS[language]
    report = "\n".join(misses)
    assert precision >= floor_p, f"precision {precision:.3f}\n{report}"
    assert recall >= floor_r, f"recall {recall:.3f}\n{report}"


@pytest.mark.parametrize(
    ("variant", "text"),
    [
        ("werewolf", "Seat 3 says he is the seer."),
        ("werewolf", "3号说他是预言家。"),
        ("werewolf", "3号自称预言家，说5号是狼。"),
        ("killer", 'Seat 3 wrote "I am police", which nobody believes.'),
    ],
)
def test_what_another_seat_said_is_not_the_speakers_word(variant: str, text: str) -> None:
    assert parse_speech(text, SPEAKER, table(variant), SEATS) == ()


def test_negations_are_complements_in_both_languages() -> None:
    t = table("werewolf")
    good = t.not_(t.hidden)
    for text in ("Seat 4 is not a wolf.", "4号不是狼。", "I don't think seat 4 is a wolf."):
        assert parse_speech(text, SPEAKER, t, SEATS) == (SeatIs(SPEAKER, 4, good),), text
    not_seer = t.not_(frozenset({"seer"}))
    for text in ("I am not the seer.", "我不是预言家。"):
        assert parse_speech(text, SPEAKER, t, SEATS) == (RoleClaim(SPEAKER, not_seer),), text


def test_every_way_to_name_a_seat() -> None:
    t = table("werewolf")
    for text in (
        "I will vote seat 4.",
        "I will vote player 4.",
        "I will vote #4.",
        "I will vote 4.",
        "I will vote seat four.",
        "我投4号。",
        "我投四号。",
        "我投玩家4。",
        "我投4。",
    ):
        assert parse_speech(text, SPEAKER, t, SEATS) == (VotePromise(SPEAKER, 4),), text


def test_a_statement_about_the_speakers_own_seat_is_a_claim() -> None:
    t = table("werewolf")
    said = parse_speech("Seat 2 is the seer.", SPEAKER, t, SEATS)
    assert said == (RoleClaim(SPEAKER, frozenset({"seer"})),)


def test_seats_outside_the_game_are_dropped() -> None:
    t = table("killer")
    assert parse_speech("Seat 13 is a killer.", SPEAKER, t, range(1, 13)) == ()
    assert parse_speech("Seat 12 is a killer.", SPEAKER, t, range(1, 13)) == (
        SeatIs(SPEAKER, 12, frozenset({"killer"})),
    )


def test_the_words_come_from_the_table_alone() -> None:
    from sandbox.deduction.tables import RoleTable

    made_up = RoleTable(
        roles=("gob", "elf"),
        hidden=frozenset({"gob"}),
        words={"en": {"gob": ("goblin",), "elf": ("elf",)}, "zh": {"gob": ("哥布林",)}},
    )
    assert parse_speech("I am an elf. Seat 3 is a goblin.", 1, made_up) == (
        RoleClaim(1, frozenset({"elf"})),
        SeatIs(1, 3, frozenset({"gob"})),
    )
    assert parse_speech("3号是哥布林。", 1, made_up) == (SeatIs(1, 3, frozenset({"gob"})),)
    # a word of no table is not a role
    assert parse_speech("Seat 3 is a werewolf.", 1, made_up) == ()


@pytest.mark.parametrize(
    ("text", "value"), [("4", 4), ("四", 4), ("十", 10), ("十二", 12), ("两", 2)]
)
def test_chinese_numerals(text: str, value: int) -> None:
    assert number(text) == value


def test_a_two_digit_seat_is_never_read_as_its_first_digit() -> None:
    """Seat 11 is not seat 1: a doubt about seat 11's claim, said by seat 1, is
    no accusation of seat 1 (which would have read as seat 1 owning up to
    being a killer)."""
    t = table("killer")
    assert parse_speech("I doubt seat 11's police claim on seat 7.", 1, t, range(1, 13)) == ()
    got = parse_speech("I suspect seat 11.", 1, t, range(1, 13))
    assert got and all(
        getattr(e, "speaker", None) != 1 or not isinstance(e, RoleClaim) for e in got
    )
