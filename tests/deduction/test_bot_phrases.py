"""The baseline bots' own sentences read back as the structured claims they
carry: every phrasing of every claim, in both languages, so the parser and the
phrasebooks agree (a deducing bot reads a baseline speech from its words alone)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from sandbox.deduction.evidence import CheckReport, Evidence, RoleClaim, SeatIs, VotePromise
from sandbox.deduction.speech import parse_speech
from sandbox.games.four_factions.bot import PHRASES as FOUR_FACTIONS_PHRASES
from sandbox.games.killer.bot import PHRASES as KILLER_PHRASES
from sandbox.games.werewolf.bot import PHRASES as WEREWOLF_PHRASES
from tests.deduction.corpus import SEATS, SPEAKER, table

A, B = 4, 6  # the seats the phrases name

PHRASEBOOKS: dict[str, Mapping[str, Mapping[str, Sequence[str]]]] = {
    "werewolf": WEREWOLF_PHRASES,
    "killer": KILLER_PHRASES,
    "four_factions": FOUR_FACTIONS_PHRASES,
}
# the faction words the phrases are filled with (as four_factions/bot.py's statement gives them)
FACTIONS = {"en": {"am": "army", "faction": "spies"}, "zh": {"am": "军队", "faction": "间谍"}}
# phrase key -> what it must be read as (one of the options)
MEANT: dict[str, dict[str, list[str]]] = {
    "werewolf": {
        "seer": ["claim seer"],
        "found": ["check werewolf"],
        "liar": ["is werewolf"],
        "suspect": ["is werewolf", "vote"],
        "vouch": ["is good"],
    },
    "killer": {
        "police": ["claim police"],
        "found": ["check killer"],
        "cleared": ["check good"],
        "liar": ["is killer"],
        "suspect": ["is killer", "vote"],
        "vouch": ["is good"],
    },
    "four_factions": {
        "proofs": ["claim army"],
        "accusation": ["is spies"],
        "named": ["is spies"],
    },
}


def _meant(variant: str, short: str) -> Evidence:
    t = table(variant)
    word, *rest = short.split()
    if word == "claim":
        return RoleClaim(SPEAKER, t.resolve(rest[0]))
    if word == "check":
        return CheckReport(SPEAKER, A, t.resolve(rest[0]))
    if word == "is":
        return SeatIs(SPEAKER, A, t.resolve(rest[0]))
    return VotePromise(SPEAKER, A)


def _phrasings(variant: str) -> list[tuple[str, str, str]]:
    return [
        (key, language, text.format(a=A, b=B, role="", day=2, **FACTIONS[language]))
        for key, languages in PHRASEBOOKS[variant].items()
        for language, texts in languages.items()
        for text in texts
    ]


@pytest.mark.parametrize("variant", sorted(PHRASEBOOKS))
def test_every_phrasing_of_a_claim_is_read_as_that_claim(variant: str) -> None:
    wrong = []
    for key, language, text in _phrasings(variant):
        if key not in MEANT[variant]:
            continue
        said = parse_speech(text, SPEAKER, table(variant), SEATS)
        options = {_meant(variant, m) for m in MEANT[variant][key]}
        if not options & set(said):
            wrong.append(f"{language} {key}: {text!r} -> {said}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("variant", sorted(PHRASEBOOKS))
def test_the_context_phrases_say_nothing_of_other_seats(variant: str) -> None:
    """What a bot says of the table (a death, another seat's claim, an accusation
    against itself) is not the bot's own word on a seat."""
    wrong = []
    for key, language, text in _phrasings(variant):
        # a reason may state a public fact as the speaker's own word ("而6号是好人")
        if key in MEANT[variant] or key.startswith("because_"):
            continue
        said = parse_speech(text, SPEAKER, table(variant), SEATS)
        about_others = [e for e in said if not isinstance(e, RoleClaim)]
        if about_others:
            wrong.append(f"{language} {key}: {text!r} -> {about_others}")
    assert not wrong, "\n".join(wrong)
