"""Tiny game (TG-1..TG-5): a fox hides among hens; each round everyone speaks,
then votes someone out. A variant shipped by another package: nothing in
``sandbox/`` names it; the registry finds it through the ``sandbox.variants``
entry point of this package's pyproject.toml (``tinygame = "tinygame:VARIANT"``).

Seat view (``TinyGame.build_view``, only from the events the seat saw):

``private``
    ``seat``; ``role``: "fox" or "hen" (TG-2).
``public``
    ``day`` (the round), ``phase`` ("setup", "speeches", "vote", "over"),
    ``rounds`` (the limit), ``living``, ``speaking_order`` (who is still to
    speak this round), ``ejected`` (``[{seat, role}]``, TG-4).
``history``
    One ``HistoryItem`` per visible event: speeches carry ``speaker`` and
    ``speech`` (player text, quoted data); everything else the referee's
    ``facts`` (the event's fields); the seat's own decisions are ``core.decision``
    items with ``facts = {decision, payload, fallback}``.
"""

from tinygame.variant import TinyGame

VARIANT = TinyGame()

__all__ = ["VARIANT", "TinyGame"]
