"""A sandbox for social-deduction games played by LLM agents.

The public API (everything else is internal and may move)::

    from sandbox import LLMAgent, BaselineAgent, new_game, play_sync
    game = new_game("killer", seed=7, players=11)
    result = play_sync(game, lambda seat, role: BaselineAgent())
    result.outcome, result.by_role(), result.transcript_path

Names are imported on first use, so ``import sandbox.core`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox.agents.base import Agent, AgentAnswer, AgentSetupError, DecisionContext
    from sandbox.agents.baseline import BaselineAgent
    from sandbox.agents.human.seat import HumanAgent
    from sandbox.agents.llm.agent import LLMAgent
    from sandbox.agents.llm.settings import LLMSettings
    from sandbox.agents.simple import RandomAgent, ScriptedAgent
    from sandbox.core.game import Game
    from sandbox.core.variant import Outcome
    from sandbox.play.api import new_game, play, play_sync
    from sandbox.play.driver import run_sync
    from sandbox.play.runner import RunStats
    from sandbox.play.session import GameRecord
    from sandbox.transcript import GameLog, TranscriptError, load_transcript

_HOME = {
    "Agent": "sandbox.agents.base",
    "AgentAnswer": "sandbox.agents.base",
    "AgentSetupError": "sandbox.agents.base",
    "DecisionContext": "sandbox.agents.base",
    "BaselineAgent": "sandbox.agents.baseline",
    "HumanAgent": "sandbox.agents.human.seat",
    "LLMAgent": "sandbox.agents.llm.agent",
    "LLMSettings": "sandbox.agents.llm.settings",
    "RandomAgent": "sandbox.agents.simple",
    "ScriptedAgent": "sandbox.agents.simple",
    "new_game": "sandbox.play.api",
    "play": "sandbox.play.api",
    "play_sync": "sandbox.play.api",
    "Game": "sandbox.core.game",
    "Outcome": "sandbox.core.variant",
    "run_sync": "sandbox.play.driver",
    "RunStats": "sandbox.play.runner",
    "GameRecord": "sandbox.play.session",
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
    "LLMAgent",
    "LLMSettings",
    "Outcome",
    "RandomAgent",
    "RunStats",
    "ScriptedAgent",
    "TranscriptError",
    "load_transcript",
    "new_game",
    "play",
    "play_sync",
    "run_sync",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return __all__
