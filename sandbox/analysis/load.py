"""Reading transcripts as plain JSON lines (tolerant of a torn last line).

The analysis works on the raw lines rather than typed events so that hand-made
transcripts in tests and files from older versions read the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.study.identity import identity_of
from sandbox.study.sides import side_of


@dataclass
class RawGame:
    """One transcript: header, events (seq, kind, data), call lines, outcome line."""

    path: Path
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    # each event's recorded ``vis`` ("public", [seats] or "referee"), by seq
    visibility: list[Any] = field(default_factory=list)

    @property
    def variant(self) -> str:
        return str(self.header.get("variant"))

    @property
    def roles(self) -> dict[int, str]:
        return {int(s): str(r) for s, r in (self.header.get("roles") or {}).items()}

    @property
    def sides(self) -> dict[int, str]:
        return {s: side_of(self.variant, r) for s, r in self.roles.items()}

    @property
    def contestants(self) -> dict[int, str]:
        """seat -> contestant; outside a study, the seat's model or agent kind."""
        named = self.header.get("contestants")
        if isinstance(named, Mapping):
            return {int(s): str(n) for s, n in named.items()}
        return {s: agent_label(d) for s, d in self.agents.items()}

    @property
    def agents(self) -> dict[int, dict[str, Any]]:
        return {int(s): dict(d) for s, d in (self.header.get("agents") or {}).items()}

    @property
    def study(self) -> dict[str, Any]:
        study = self.header.get("study")
        return dict(study) if isinstance(study, Mapping) else {}

    @property
    def game_id(self) -> str:
        return identity_of(self.header) or self.path.stem

    @property
    def results(self) -> dict[int, str]:
        if self.outcome is None:
            return {}
        return {int(s): str(r) for s, r in (self.outcome.get("results") or {}).items()}

    def of_kind(self, *kinds: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("kind") in kinds]

    def seen_by(self, index: int, seat: int) -> bool:
        """Whether the ``index``-th event was visible to ``seat``."""
        vis = self.visibility[index] if index < len(self.visibility) else "public"
        return vis == "public" or (isinstance(vis, list) and seat in vis)


def agent_label(described: Mapping[str, Any]) -> str:
    """'fake/legal-random' for an LLM seat, else its kind ('baseline', 'random')."""
    model = described.get("model")
    return str(model) if model else str(described.get("kind", "?"))


def read_raw(path: Path) -> RawGame:
    """Parse one transcript; raises ValueError when line 1 is not a header."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) if lines else None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise ValueError(f"{path}: not a transcript (line 1 is not a header)")
    game = RawGame(path, header)
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if number == len(lines):
                break  # a torn last line: the game was cut mid-write
            raise ValueError(f"{path}:{number}: not JSON") from None
        _add(game, obj)
    return game


def _add(game: RawGame, obj: Mapping[str, Any]) -> None:
    kind = obj.get("type")
    if kind == "event":
        game.events.append({"seq": obj.get("seq"), "kind": obj.get("kind"), **obj.get("data", {})})
        game.visibility.append(obj.get("vis", "public"))
    elif kind == "call":
        game.calls.append(dict(obj))
    elif kind == "outcome":
        game.outcome = dict(obj)


def transcript_paths(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(path.rglob("*.jsonl")) if path.is_dir() else [path])
    return found


@dataclass
class Loaded:
    """Games read from files/folders: each identity once, finished ones first."""

    games: list[RawGame]
    unfinished: list[RawGame]
    duplicates: int  # copies of a game already counted (same identity)
    skipped: list[tuple[str, str]]  # unreadable files with the reason


def load_games(paths: Iterable[Path]) -> Loaded:
    """Read every transcript; a game (same study/cell/seed or batch/seed) counts once."""
    loaded = Loaded([], [], 0, [])
    seen: dict[str, RawGame] = {}
    for path in transcript_paths(paths):
        try:
            game = read_raw(path)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            loaded.skipped.append((str(path), str(err).splitlines()[0] if str(err) else "?"))
            continue
        key = game.game_id
        earlier = seen.get(key)
        if earlier is not None:
            loaded.duplicates += 1
            if earlier.outcome is not None or game.outcome is None:
                continue
        seen[key] = game
    for game in seen.values():
        (loaded.games if game.outcome is not None else loaded.unfinished).append(game)
    return loaded
