"""WW-13 softened words: kill, lynch and murder become eliminate, exile and remove.

Only whole words are replaced (``skill`` and ``overkill`` stay as they are), in
the same form (-s, -ed, -ing, and the agent nouns killer(s), lyncher(s),
murderer(s)), keeping ALL CAPS or an initial capital."""

from __future__ import annotations

import re

# Every form of the three words, with the same form of its replacement.
FORMS: dict[str, str] = {
    "kill": "eliminate",
    "kills": "eliminates",
    "killed": "eliminated",
    "killing": "eliminating",
    "killer": "eliminator",
    "killers": "eliminators",
    "lynch": "exile",
    "lynches": "exiles",
    "lynched": "exiled",
    "lynching": "exiling",
    "lyncher": "exiler",
    "lynchers": "exilers",
    "murder": "remove",
    "murders": "removes",
    "murdered": "removed",
    "murdering": "removing",
    "murderer": "remover",
    "murderers": "removers",
}
# Longest forms first so "killers" is never read as "killer" + "s"; \b keeps
# words that only contain them (skill, overkill, killjoy) untouched.
_WORD = re.compile(r"\b(" + "|".join(sorted(FORMS, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def _replace(match: re.Match[str]) -> str:
    word = match.group(0)
    new = FORMS[word.lower()]
    if word.isupper():
        return new.upper()
    if word[0].isupper():
        return new[0].upper() + new[1:]
    return new


def soften(text: str) -> str:
    """``text`` as the other seats see it under ``soften_words``."""
    return _WORD.sub(_replace, text)
