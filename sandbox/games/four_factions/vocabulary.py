"""Four Factions' own words in each language (factions, ranks, weapons, stages,
field labels): the vocabulary its sentences, cards and boards are said in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import (
    Vocabulary,
)

D = Mapping[str, Any]


# ------------------------------------------------------------ vocabulary
# The Four Factions words in Chinese: the same words the Chinese rules and
# prompts use.

VOCABULARY = Vocabulary(
    terms={
        "zh": {
            "wolves": "狼人",
            "spies": "间谍",
            "justice": "司法",
            "army": "军队",
            "elite": "最强精英",
            "regular": "非最强精英",
            "rock": "石头",
            "scissors": "剪刀",
            "paper": "布",
            "anti-rock": "防石头",
            "anti-scissors": "防剪刀",
            "anti-paper": "防布",
            "kill": "秒杀",
            "wound": "轻伤",
            "proofs": "证明",
            "accusation": "指控",
            "protection": "保护",
            "open": "自由发言",
            "quiet": "不许动武",
            "loadout": "选择武器和盾牌",
            "first_half": "上半夜",
            "second_half": "下半夜",
            "attacker": "攻击者",
            "defender": "防守者",
            "corpse": "尸体",
            "you": "你",
            "opponent": "对方",
            "speak": "发言",
            "attack": "攻击",
            "pairs_decided": "两对敌对关系都已分出结果",
        },
    },
    labels={
        "zh": {
            "faction": "阵营",
            "elite": "最强精英",
            "weapon": "武器",
            "shield": "盾牌",
            "max_hp": "最大生命值",
            "hp": "生命值",
            "known_factions": "已知阵营",
            "my_elite": "本阵营最强精英",
            "loadout": "今夜装备",
            "duels": "对决",
            "half": "半夜",
            "opponent": "对手",
            "weapon_struck_with": "对方所用武器",
            "weapon_struck_back_with": "反击武器",
            "outcomes": "结果",
            "hp_after": "之后生命值",
        },
    },
)
