"""A sandbox for social-deduction games played by LLM agents.

The public API (everything else is internal and may move)::

    from sandbox import LLMAgent, BaselineAgent, new_game, play_sync
    game = new_game("killer", seed=7, players=11)
    result = play_sync(game, lambda seat, role: BaselineAgent())
    result.outcome, result.by_role(), result.transcript_path

    # a game played from a game file (`sandbox run`): what if the speech at event
    # 35 had never been heard? The control and the change, 10 branches each
    from sandbox import Intervention, whatif
    effect = whatif("transcripts/killer-s1-....jsonl", Intervention("remove_speech", seq=35))
    effect.effects  # per outcome: both arms' means, the difference, its 95% interval

Names are imported on first use, so ``import sandbox.core`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox.agents.baseline import BaselineAgent
    from sandbox.agents.human.seat import HumanAgent
    from sandbox.agents.llm.agent import LLMAgent
    from sandbox.agents.llm.settings import LLMSettings
    from sandbox.agents.remote import RemoteAgent
    from sandbox.agents.simple import RandomAgent, ScriptedAgent
    from sandbox.core.game import Game
    from sandbox.core.seat import Agent, AgentAnswer, AgentSetupError, DecisionContext
    from sandbox.core.variant import Outcome
    from sandbox.session.api import new_game, play, play_sync
    from sandbox.session.driver import run_sync
    from sandbox.session.play import GameRecord, PlayResult
    from sandbox.session.runner import RunStats
    from sandbox.transcript import GameLog, TranscriptError, load_transcript
    from sandbox.what_if import Intervention, WhatIfResult, whatif

_HOME = {
    "Agent": "sandbox.core.seat",
    "AgentAnswer": "sandbox.core.seat",
    "AgentSetupError": "sandbox.core.seat",
    "DecisionContext": "sandbox.core.seat",
    "BaselineAgent": "sandbox.agents.baseline",
    "HumanAgent": "sandbox.agents.human.seat",
    "LLMAgent": "sandbox.agents.llm.agent",
    "LLMSettings": "sandbox.agents.llm.settings",
    "RandomAgent": "sandbox.agents.simple",
    "RemoteAgent": "sandbox.agents.remote",
    "ScriptedAgent": "sandbox.agents.simple",
    "new_game": "sandbox.session.api",
    "play": "sandbox.session.api",
    "play_sync": "sandbox.session.api",
    "Game": "sandbox.core.game",
    "Outcome": "sandbox.core.variant",
    "run_sync": "sandbox.session.driver",
    "RunStats": "sandbox.session.runner",
    "Intervention": "sandbox.what_if",
    "WhatIfResult": "sandbox.what_if",
    "whatif": "sandbox.what_if",
    "GameRecord": "sandbox.session.play",  # PlayResult's name before
    "PlayResult": "sandbox.session.play",
    "GameLog": "sandbox.transcript",
    "TranscriptError": "sandbox.transcript",
    "load_transcript": "sandbox.transcript",
}

__all__ = [
    "Agent",
    "AgentAnswer",
    "AgentSetupError",
    "BaselineAgent",
    "DecisionContext",
    "Game",
    "GameLog",
    "GameRecord",
    "HumanAgent",
    "Intervention",
    "LLMAgent",
    "LLMSettings",
    "Outcome",
    "PlayResult",
    "RandomAgent",
    "RemoteAgent",
    "RunStats",
    "ScriptedAgent",
    "TranscriptError",
    "WhatIfResult",
    "load_transcript",
    "new_game",
    "play",
    "play_sync",
    "run_sync",
    "whatif",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return __all__
