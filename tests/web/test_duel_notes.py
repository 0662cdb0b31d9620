"""Four Factions' attack question shows the seat's own weapon, shield and the
FF-21 strike rows that involve them (issue 20, item 3), from its card only."""

from __future__ import annotations

import html
import random
import re

from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView
from sandbox.web.form import render_form
from tests.prompts.harness import new_game, play

# Hand-built from FF-21 (same weapon: nothing; the weapon beats the guarded one:
# kill; the guarded weapon beats the strike: wound), shields in the order rock,
# scissors, paper.
STRIKE = {
    "rock": "does nothing to one with anti-rock; kills one with anti-scissors; "
    "wounds one with anti-paper (HP − 1)",
    "scissors": "wounds one with anti-rock (HP − 1); does nothing to one with anti-scissors; "
    "kills one with anti-paper",
    "paper": "kills one with anti-rock; wounds one with anti-scissors (HP − 1); "
    "does nothing to one with anti-paper",
}
STRUCK = {
    "anti-rock": "rock does nothing to you; scissors wounds you (HP − 1); paper kills you",
    "anti-scissors": "rock kills you; scissors does nothing to you; paper wounds you (HP − 1)",
    "anti-paper": "rock wounds you (HP − 1); scissors kills you; paper does nothing to you",
}


def notes(form_html: str) -> dict[str, str]:
    found = re.search(r'<dl class="notes">(.*?)</dl>', form_html, re.S)
    if found is None:
        return {}
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", found.group(1), re.S)
    return {html.unescape(k): html.unescape(v) for k, v in pairs}


def attacks(seed: int) -> list[tuple[SeatView, DecisionRequest]]:
    game = new_game("four_factions", seed)
    picked = play(game, random.Random(seed), pick=lambda g, r: r.decision == "attack")
    return [(c.view, c.request) for c in picked]


def kit(view: SeatView) -> tuple[str, str]:
    private = view.private
    loadout = private.get("loadout") or {}
    return (
        str(private.get("weapon") or loadout["weapon"]),
        str(private.get("shield") or loadout["shield"]),
    )


def test_the_attack_question_shows_the_seats_kit_and_its_strike_rows() -> None:
    seen = {"regular": 0, "elite": 0}
    for seed in (1, 2, 3):
        for view, request in attacks(seed):
            weapon, shield = kit(view)
            rows = notes(render_form(request, "en", view))
            assert rows["You fight with"] == f"{weapon} and {shield}"
            assert rows[f"Your strike ({weapon})"] == STRIKE[weapon]
            assert rows[f"Strikes at you ({shield})"] == STRUCK[shield]
            assert rows["HP"] == f"{view.private['hp']}/{view.private['max_hp']}"
            assert "FF-22" in rows["A duel"]
            seen["elite" if view.private.get("elite") else "regular"] += 1
            if not view.private.get("elite"):
                assert shield == f"anti-{weapon}"  # FF-21: a regular's own shield
    assert seen["regular"] and seen["elite"], seen  # both kinds of fighter were asked


def test_the_notes_speak_chinese_and_only_beside_the_attack() -> None:
    view, request = attacks(1)[0]
    rows = notes(render_form(request, "zh", view))
    assert len(rows) == 5 and not re.search(r"[a-z]{3,}", " ".join(rows.values()))  # no English
    assert any(key.startswith("打你") and "防" in key for key in rows)
    game = new_game("four_factions", 1)
    other = game.pending()[0]
    assert notes(render_form(other, "en", game.view(other.seat))) == {}
    killer = new_game("killer", 1)
    first = killer.pending()[0]
    assert notes(render_form(first, "en", killer.view(first.seat))) == {}
