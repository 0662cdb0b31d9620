"""The shipped conformance kit (``sandbox.testing``): it passes on every
registered variant, and each of its checks catches a variant broken on purpose,
naming the check and the seed."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel

from sandbox.core.events import Event
from sandbox.core.variant import SeatView, Variant, ViewFold
from sandbox.games.registry import get_variant, variant_names
from sandbox.testing import CHECKS, ConformanceError, check_game, check_variant
from sandbox.testing.facts import said_facts
from tests.core.toy import Out, Secret, Toy, ToyConfig, ToyState
from tests.games.bots.harness import bot_players
from tests.prompts.audit import ZH, role_facts

# Few games: the kit's deep checks (a full view build at every decision, the
# prompt audit in two languages) are what is tested here, not many seeds.
GAMES = {"toy": 10, "killer": 3, "four_factions": 1}


@pytest.mark.parametrize("variant", variant_names())
def test_the_kit_passes_every_registered_variant(variant: str) -> None:
    report = check_variant(
        variant, games=GAMES.get(variant, 2), seed=3, languages=("en", "zh"), fold_every=1
    )
    assert report.seeds == list(range(3, 3 + GAMES.get(variant, 2)))
    assert report.decisions > 0 and report.events > report.decisions
    assert report.folds_compared == report.decisions  # fold_every=1: at every decision
    assert report.texts_audited > report.games  # views and prompts, sampled decisions
    assert sum(report.endings.values()) == report.games
    assert variant in str(report)


@pytest.mark.parametrize("level", [3, 4])
@pytest.mark.parametrize("variant", ["four_factions", "killer", "werewolf"])
def test_the_kit_passes_games_of_the_deducing_bots(variant: str, level: int) -> None:
    """Issue 37: the checks (the no-leak audit of views and prompts among them)
    over games the reference bots play at a deducing level, not random seats."""
    report = check_variant(
        variant,
        {"day_limit": 6} if variant == "four_factions" else {},
        games=GAMES.get(variant, 2),
        seed=3,
        languages=("en", "zh"),
        players=bot_players(level),
    )
    assert report.seeds == list(range(3, 3 + GAMES.get(variant, 2)))
    assert report.fallbacks == 0  # the bots answered every request themselves
    assert report.texts_audited > report.games


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
def test_the_exact_audit_of_the_built_in_variants_passes(variant: str) -> None:
    """With the variants' own reading of events (tests/prompts/audit.py)."""
    config = (
        {"reveal_role_on_death": True}
        if variant == "killer"
        else {"reveal_faction_on_death": True, "defender_learns_attacker": True}
    )
    report = check_variant(
        variant, config, games=1, seed=5, facts=role_facts, aliases=ZH, languages=("en", "zh")
    )
    assert report.texts_audited > 0


def test_the_kit_does_not_import_pytest_or_hypothesis() -> None:
    """It ships with the package, where neither is installed."""
    code = (
        "import sys, sandbox.testing; "
        "print(sorted(m for m in ('pytest', 'hypothesis', '_pytest') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- broken on purpose


class GlobalDice(Toy):
    """Eliminates by state that outlives a game (how many games this variant
    has started), not by the generator it is handed: a replay of the same seed
    and decisions takes the other end of the living seats. (A draw from the
    process-wide generator made this check flaky: a short game's replay could
    draw the same seats by chance.)"""

    def __init__(self) -> None:
        super().__init__()
        self.games_started = 0

    def initial_state(self, config: ToyConfig) -> ToyState:
        self.games_started += 1
        return super().initial_state(config)

    def resolve(
        self, state: ToyState, config: ToyConfig, answers: Mapping[int, Any], rng: random.Random
    ) -> Iterator[Event]:
        for event in super().resolve(state, config, answers, rng):
            if isinstance(event, Out):
                yield Out(state.alive[0] if self.games_started % 2 else state.alive[-1])
            else:
                yield event


class ForgetfulView(Toy):
    """Leaves the seat's own secret out of its history."""

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        view = super().build_view(seat, events)
        history = tuple(h for h in view.history if h.kind != Secret.kind)
        return replace(view, history=history)


class SharedFold(Toy):
    """An incremental view shared by every seat: each seat's fold also gets the
    events fed to the others."""

    def __init__(self) -> None:
        super().__init__()
        self.fold = _Fold(self)

    def view_fold(self, seat: int) -> ViewFold | None:
        return self.fold


class _Fold:
    def __init__(self, variant: Toy) -> None:
        self.variant = variant
        self.events: dict[int, Event] = {}
        self.seat = 1

    def add(self, seq: int, event: Event) -> None:
        self.events[seq] = event
        if isinstance(event, Secret):
            self.seat = event.seat

    def snapshot(self) -> SeatView:
        return Toy.build_view(self.variant, self.seat, sorted(self.events.items()))


class Endless(Toy):
    """Never ends: nobody is eliminated."""

    def resolve(
        self, state: ToyState, config: ToyConfig, answers: Mapping[int, Any], rng: random.Random
    ) -> Iterator[Event]:
        yield from (
            e for e in super().resolve(state, config, answers, rng) if not isinstance(e, Out)
        )


class CountingRoles(Toy):
    """Folds a secret differently each time (a counter on the variant object),
    so a game rebuilt from its events gets other roles."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets_seen = 0

    def apply(self, state: ToyState, event: Event) -> None:
        super().apply(state, event)
        if isinstance(event, Secret):
            self.secrets_seen += 1
            state.lucky[event.seat] += self.secrets_seen


def gossiping_killer() -> Variant[Any]:
    """Killer keeping every role card it folds on the variant object, and
    showing them in every view: the side channel the no-leak check exists for."""
    base = type(get_variant("killer"))

    class GossipRules(type(base.rules)):  # type: ignore[misc]
        def __init__(self, variant: Any) -> None:
            self.variant = variant

        def apply(self, state: Any, event: Event) -> None:
            super().apply(state, event)
            if event.kind == "killer.role":
                data = event.to_json()["data"]
                heard = getattr(self.variant, "heard", {})
                self.variant.heard = {**heard, str(data["seat"]): data["role"]}

    class Gossip(base):  # type: ignore[misc, valid-type]
        heard: dict[str, str]

        def __init__(self) -> None:
            self.rules = GossipRules(self)

        def view_fold(self, seat: int) -> ViewFold | None:
            return None

        def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
            fold = base.view_fold(self, seat)  # Killer's own view, with no fast path
            for seq, event in events:
                fold.add(seq, event)
            view = fold.snapshot()
            return replace(view, public={**view.public, "roles": getattr(self, "heard", {})})

    return Gossip()


BROKEN: list[tuple[str, Any, dict[str, Any]]] = [
    ("determinism", GlobalDice, {}),
    ("visibility", ForgetfulView, {}),
    ("fold", SharedFold, {}),
    ("terminates", Endless, {"max_decisions": 60}),
    ("replay", CountingRoles, {}),
    ("no-leak", gossiping_killer, {}),
]


@pytest.mark.parametrize(("check", "make", "options"), BROKEN, ids=[b[0] for b in BROKEN])
def test_each_check_catches_a_broken_variant(
    check: str, make: Any, options: dict[str, Any]
) -> None:
    variant = make()
    config: BaseModel = variant.parse_config({}) if not isinstance(variant, Toy) else ToyConfig()
    with pytest.raises(ConformanceError) as caught:
        check_variant(variant, config, games=5, seed=40, **options)
    error = caught.value
    assert (error.check, error.variant) == (check, variant.name)
    assert 40 <= error.seed < 45
    assert f"seed {error.seed}" in str(error) and repr(check) in str(error)
    with pytest.raises(ConformanceError):  # the named seed alone fails again
        check_game(make(), config, error.seed, **options)
    assert check in CHECKS


def test_a_sound_toy_passes_the_checks_the_broken_ones_fail() -> None:
    """The same seeds, on the unbroken toy: the failures above are the breakage's."""
    report = check_variant(Toy(), ToyConfig(), games=5, seed=40)
    assert report.games == 5 and report.decisions > 0


def test_what_a_seat_heard_said_it_may_repeat() -> None:
    """The generous reading of a seen event counts what a speech says (each
    sentence's seat numbers with its role words) and a seat's own claim; so a
    bot repeating another's public accusation is no leak (issue 37)."""
    words = frozenset({"killer", "police"})
    data = {"seat": 2, "claim": "police", "text": "I checked seat 4: a killer. Day 3 now."}
    assert set(said_facts(data, words)) == {(2, "police"), (4, "killer")}
    assert set(said_facts("4号是杀手。", words, {"killer": "杀手"})) == {(4, "killer")}
    assert not set(said_facts({"text": "Seat 4 spoke. A killer hides."}, words))
