"""Killer's own words in each language (roles, phases, claims, field labels):
the vocabulary its sentences and boards are said in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import (
    Vocabulary,
)

D = Mapping[str, Any]


# ------------------------------------------------------------ vocabulary
# The Killer words in Chinese: the same words the Chinese rules and prompts use.

VOCABULARY = Vocabulary(
    terms={
        "en": {"not killer": "not a killer"},
        "zh": {
            "killer": "杀手",
            "police": "警察",
            "civilian": "平民",
            "not killer": "不是杀手",
            "kill_opinion": "杀人意见",
            "check_opinion": "查验意见",
            "forced_draw": "硬性平局",
            "surrender": "认输",
            "killers_eliminated": "杀手全部死亡",
            "police_eliminated": "警察全部死亡",
            "civilians_eliminated": "平民全部死亡",
        },
    },
    labels={
        "zh": {
            "fellow_killers": "同伴杀手",
            "fellow_police": "同伴警察",
            "kills": "杀人",
            "checks": "查验",
            "my_opinions": "我的意见",
            "suspect": "查验对象",
            "answer": "答复",
            "about": "关于",
        },
    },
)
