"""FF-11: every seat, living or dead, knows the seat numbers, every public speech
and every public announcement."""

from __future__ import annotations

import pytest

from tests.games.four_factions.helpers import fallback_until, new, night
from tests.games.four_factions.test_rules import layout


@pytest.mark.rule("FF-11")
def test_every_seat_hears_every_speech_and_every_announcement() -> None:
    game = new(layout("justice", "spies", "wolves", "army"), day_limit=5)
    (proofs,) = game.pending()
    game.submit(proofs.id, {"am": "spies", "speech": "I am a spy."})
    night(game, first={3: 4})  # 3 (paper) kills 4 (rock): announced at dawn
    fallback_until(game, 5, "open")
    (turn,) = game.pending()
    game.submit(turn.id, {"speech": "Who killed seat 4?"})
    public = {i for i, e in enumerate(game.events) if e.visibility().scope == "public"}
    assert {game.events[i].kind for i in public} >= {"ff.proofs", "ff.dawn", "ff.speech"}
    for seat in game.seats:
        assert public <= {i for i, _ in game.visible_events(seat)}, seat
        view = game.view(seat)
        said = [(h.speaker, h.speech) for h in view.history if h.speech is not None]
        assert (1, "I am a spy.") in said and (turn.seat, "Who killed seat 4?") in said
        assert [h.facts["dead"] for h in view.history if h.kind == "ff.dawn"][-1] == [4]
        assert sorted(view.public["living"] + view.public["dead"]) == list(range(1, 17))
