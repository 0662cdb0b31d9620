"""The English grammar of :mod:`.speech`: seat references, then the patterns of
claims, statements, check reports, votes, accusations and vouches over one
normalised sentence (``@N`` a seat, ``%k%`` a role word)."""

from __future__ import annotations

import re

from sandbox.deduction.reading import (
    ROLE_NAMED,
    SEATS,
    SEATS_NAMED,
    Reading,
    Rule,
    accused,
    claimed,
    cleared,
    mark_checks,
    negated_before,
    reported,
    resolve_pronouns,
    run,
    stated,
    tokens,
    voted,
    vouched,
)

_NUMBERS = {
    word: str(n)
    for n, word in enumerate(
        [
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
        ],
        start=1,
    )
}
_CONTRACTIONS = {
    "i'm": "i am",
    "isn't": "is not",
    "wasn't": "was not",
    "aren't": "are not",
    "weren't": "were not",
    "won't": "will not",
    "don't": "do not",
    "doesn't": "does not",
    "didn't": "did not",
    "can't": "cannot",
    "let's": "let us",
    "i'll": "i will",
    "it's": "it is",
    "he's": "he is",
    "she's": "she is",
    "that's": "that is",
    "i've": "i have",
}
_CONTRACTED = re.compile("|".join(re.escape(k) for k in _CONTRACTIONS))

# --------------------------------------------------------------- seats
_NUMBER_WORD = "|".join(_NUMBERS)
_SEAT_WORDS = re.compile(rf"\b(seats?|players?|#)\s*({_NUMBER_WORD})\b")
_NUMBER_LIST = r"\d{1,2}(?:\s*(?:,|and|&|or)\s*(?:seat\s*|player\s*|#\s*)?\d{1,2}\b)*"
_SEAT_REF = re.compile(rf"(?:\b(?:seats?|players?|number)\s*#?\s*|\bno\.\s*|#\s*)({_NUMBER_LIST})")
_VERB_NUMBER = re.compile(
    r"\b(checked|inspected|investigated|verified|vote for|vote|voting for|voting|vote out|"
    r"suspect|accuse|trust|vouch for|cleared|clear)\s+(\d{1,2})\b"
    # not a count: "vote 2 times", "suspect 3 of them" (any plural noun but "was")
    r"(?!\s*(?:(?!was\b)[a-z]{2,}s\b|of\b|more\b|%))"
)
_HEAD_NUMBER = re.compile(
    r"(^|[.;,!:]\s*|\b(?:and|but|so|also)\s+)(\d{1,2})\s+(?=(?:is|was|must|looks|seems)\b)"
)
_DIGITS = re.compile(r"\d{1,2}")


def seats(text: str) -> str:
    """Lower-case ``text`` with every English seat reference as ``@N``."""
    text = text.replace("’", "'")
    text = _SEAT_WORDS.sub(lambda m: f"{m.group(1)} {_NUMBERS[m.group(2)]}", text)
    text = _SEAT_REF.sub(lambda m: _listed(m.group(1)), text)
    text = _VERB_NUMBER.sub(lambda m: f"{m.group(1)} @{m.group(2)}", text)
    return _HEAD_NUMBER.sub(lambda m: f"{m.group(1)}@{m.group(2)} ", text)


def _listed(numbers: str) -> str:
    return " and ".join(f"@{n}" for n in _DIGITS.findall(numbers))


# --------------------------------------------------------------- grammar
ADV = (
    r"(?:(?:also|actually|really|truly|indeed|honestly|just|only|simply|obviously|definitely|"
    r"clearly|certainly|surely|probably|likely|most likely|totally|absolutely|still|now|then|"
    r"too|both|all|100%)\s+)*"
)
ART = r"(?:(?:the|a|an|one|our|one of the|real|true|actual|genuine|only)\s+)*"
NOT = r"(not\s+|never\s+)?"
_NEGATORS = re.compile(r"\b(?:not|never|no)\b")

_REPORTED = re.compile(
    rf"(?:{SEATS}|\b(?:he|she|they|who|someone|somebody|everyone|others?)\b)\s+"
    r"(?:(?:also|just|even|first|then|still|again|now|openly)\s+)*"
    r"(?:says?|said|claims?|claimed|claiming|thinks?|thought|told|tells|calls?|called|"
    r"accuses?|accused|insists?|insisted|believes?|suggests?|suggested|points? at|pointed at|"
    r"wrote|writes|argues?|argued|wants?|voted|votes|checked|announced|declared|swears?|swore)"
    r"\b[^,;:]*"
)
_ACCORDING = re.compile(r"\baccording to\b.*")
_CONDITION = re.compile(r"\b(?:if|unless|suppose|supposing|assuming|whether|in case)\b[^,;:]*")
_DOUBT = re.compile(
    rf"\bi\s+(?:do not|never)\s+(?:think|believe|feel)\s+(?:that\s+)?{SEATS}\s+(is|are|was)\s+"
    r"(?!not\b)"
)
_PRONOUN = re.compile(r"\b(?:it|he|she)(?=\s+(?:is|was|must|looks|seems)\b)")
_CHECK_WORD = re.compile(r"\b(?:checked|inspected|investigated|verified|my check|my result)\b")
_CHECKED = re.compile(
    r"\b(?:checked|inspected|investigated|verified|check(?:ed)? on|my check on|my check of|"
    rf"results? (?:on|for))\s+{SEATS}"
)


def _vote(m: re.Match[str], r: Reading, text: str) -> None:
    if not negated_before(text, m.start(), _NEGATORS, 14):
        voted(m, r, text)


_S = SEATS_NAMED
_R = ROLE_NAMED
_N = NOT.replace("(", "(?P<neg>", 1)
_TO_BE = (
    r"(?:(?:must|should|has to|have to|could|might|may|will|would)\s+)?"
    r"(?:is|are|was|were|be|looks like|look like|seems to be|seems like|seems|appears to be|"
    r"sounds like)"
)
_WHEN = r"(?:\s+(?:last night|tonight|yesterday|this morning|on night \d+|at night))?"
_DEGREE = r"(?:(?:very|so|quite|most|highly|pretty|super|a bit|kind of)\s+)*"

RULES: list[Rule] = [
    # claims: "i am (not) the seer", "i claim seer", "police here", "my faction is army"
    (
        re.compile(rf"\bi\s+am\s+{ADV}{_N}{ADV}(?:(?:with|on|in|of|part of|from)\s+)?{ART}{_R}"),
        claimed,
    ),
    (
        re.compile(
            rf"\bi\s+(?:claim|declare|announce)(?:\s+(?:to be|that i am|i am))?\s+{ART}{_R}"
        ),
        claimed,
    ),
    (re.compile(rf"^\W*(?:as\s+)?{ART}{_R}\s+here\b"), claimed),
    (re.compile(rf"\bas\s+{ART}{_R}\s*,\s*i\b"), claimed),
    (re.compile(rf"\bcount me\s+(?:with|as|among|in)\s+{ART}{_R}"), claimed),
    (re.compile(rf"\bmy\s+(?:faction|role|identity|card|side|team)\s+is\s+{_N}{ART}{_R}"), claimed),
    # check reports: "i checked @4: wolf", "my check on @4 came back: not a killer"
    (
        re.compile(
            r"\b(?:checked|inspected|investigated|verified|check(?:ed)? on|my check on|"
            rf"my check of|results? (?:on|for))\s+{_S}{_WHEN}\s*[,:;=>\-–—]*\s*(?:and\s+)?"
            r"(?:(?:it|he|she|they|this seat|that seat|the result|result|which)\s+)?"
            r"(?:(?:is|was|are|were|came back(?: as)?|turned out(?: to be)?|returned|shows?|"
            rf"showed|reads?)\s*)?[:,]?\s*{ADV}{_N}{ART}{_R}"
        ),
        reported,
    ),
    (re.compile(rf"\b(?:my check|i)\s+(?:clears?|cleared)\s+{_S}"), cleared),
    # statements: "@4 is (not) a wolf", "@4 and @6 are clean"
    (re.compile(rf"{_S}\s+{_TO_BE}\s+{ADV}{_N}{ADV}{ART}{_R}"), stated),
    (
        re.compile(
            rf"{_S}\s+(?:is|are|looks|seems|sounds|was)\s+{ADV}{_DEGREE}"
            r"(?:suspicious|shady|sus|guilty|evil|lying|a liar|fishy)\b"
        ),
        accused,
    ),
    (re.compile(rf"{_S}\s+(?:lies|lied|keeps lying)\b"), accused),
    (
        re.compile(
            rf"{_S}\s+(?:is|seems|looks|sounds)\s+{ADV}{_DEGREE}"
            r"(?:honest|trustworthy|truthful|reliable|telling the truth)\b"
        ),
        vouched,
    ),
    # verbs: "i suspect @4", "i trust @4" (not "i believe @4 is …")
    (
        re.compile(
            rf"\bi\s+{ADV}(?:do\s+)?(?:suspect|accuse|distrust|doubt|am watching|"
            rf"am keeping an eye on)\s+{_S}(?!'s)"  # "i doubt @4's claim": the claim
        ),
        accused,
    ),
    (
        re.compile(
            rf"\bi\s+{ADV}(?:(?:will|would|can|do)\s+)?(?:trust|believe in|believe|vouch for|"
            rf"defend|support|stand with|side with)\s+{_S}"
            r"(?!\s+(?:is|are|was|were|must|should|could|might|looks?|seems?)\b)"
        ),
        vouched,
    ),
    # vote promises: "i will vote @6", "my vote goes to @6", "let us exile @6"
    (re.compile(rf"\bvot(?:e|ing)(?:\s+(?:for|out|against|to exile|to eliminate))?\s+{_S}"), _vote),
    (
        re.compile(
            r"\bmy\s+(?:vote|ballot)\s+(?:goes|will go|is going|is|will be|stays)"
            rf"(?:\s+(?:to|on|for|with))?\s+{_S}"
        ),
        _vote,
    ),
    (
        re.compile(
            r"\b(?:let us|we should|we must|i will|i am going to)\s+"
            rf"(?:exile|eliminate|lynch|push out|get rid of)\s+{_S}"
        ),
        _vote,
    ),
]


def read(sentence: str, reading: Reading) -> None:
    """The evidence of one English sentence (seats already ``@N``)."""
    text = _CONTRACTED.sub(lambda m: _CONTRACTIONS[m.group()], sentence)
    text = tokens(text, reading, "en")
    text = _DOUBT.sub(lambda m: f"{m.group(1)} {m.group(2)} not ", text)
    text = _ACCORDING.sub(" ", _CONDITION.sub(" ", _REPORTED.sub(" ", text)))
    text = resolve_pronouns(text, _PRONOUN)
    mark_checks(text, reading, _CHECKED, _CHECK_WORD)
    run(RULES, text, reading)
