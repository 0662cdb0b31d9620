"""A transcript's first and last lines: the header (variant, seed, rules, roles,
agents) and the outcome line (result, summary, counters)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sandbox.core.seat import Agent
from sandbox.core.variant import Outcome
from sandbox.session.gamefile import LoadedConfig
from sandbox.session.runner import RunStats

SECRET_MARKERS = ("secret", "password", "token", "api_key")
DISTRIBUTION = "llm-deduction-sandbox"


def sandbox_version() -> str:
    """The installed distribution's version (recorded in every header)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def random_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


def transcript_path(out: Path, variant: str, seed: int) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return out / f"{variant}-s{seed}-{stamp}.jsonl"


def scrub(describe: Mapping[str, Any]) -> dict[str, Any]:
    """Drop anything that looks like a secret from an agent's self-description."""
    clean: dict[str, Any] = {}
    for key, value in describe.items():
        lowered = key.lower()
        if any(m in lowered for m in SECRET_MARKERS) and not lowered.endswith("_env"):
            continue
        clean[key] = scrub(value) if isinstance(value, Mapping) else value
    return clean


def build_header(
    loaded: LoadedConfig,
    game_config: BaseModel,
    seed: int,
    roles: Mapping[int, str],
    agents: Mapping[int, Agent],
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "variant": loaded.variant.name,
        "seed": seed,
        "name": loaded.file.name,
        "config": loaded.to_json(),
        "game_config": game_config.model_dump(mode="json"),
        "roles": {str(s): r for s, r in sorted(roles.items())},
        "agents": {str(s): scrub(a.describe()) for s, a in sorted(agents.items())},
        "sandbox_version": sandbox_version(),
        "started": utc_now(),
        **(extra or {}),
    }


def outcome_line(outcome: Outcome, stats: RunStats) -> dict[str, Any]:
    return {
        "reason": outcome.reason,
        "results": {str(s): r for s, r in sorted(outcome.results.items())},
        "summary": outcome.summary,
        "stats": stats.to_json(),
        "ended": utc_now(),
    }
