"""Werewolf (WW-1..WW-24): werewolves against a village with a seer and a doctor.

``VARIANT`` is the instance the registry finds through the ``sandbox.variants``
entry point ``werewolf`` (see :mod:`sandbox.games.registry`). The rules are
stated in RULES-WEREWOLF (docs/rules-werewolf.md maps them to the code).

Seat view (``SeatView`` built by :mod:`sandbox.games.werewolf.variant`, only from the
events the seat was allowed to see):

``private``
    ``seat``; ``role`` ("werewolf", "seer", "doctor" or "villager"); ``team``
    ("werewolves" or "village").
    Werewolves: ``pack`` (every werewolf's seat, WW-4), ``fellow_werewolves``,
    ``kills`` (``[{night, target, how}]``, the pack's chosen targets, WW-7) and
    ``pack_votes_tonight`` (``{seat: target|None}``, the kill votes seen so far
    tonight).
    Seer: ``inspections`` (``[{night, seat, result}]``; ``result`` a role, or a
    team with ``seer_reveals = "team"``, WW-10).
    Doctor: ``protections`` (``[{night, seat}]``, WW-8) and ``saves``
    (``[{night, seat}]``, the nights its protection stopped the kill, WW-9).

``public``
    ``day`` (night n precedes day n), ``phase`` ("night", "dawn", "last_words",
    "bidding", "discussion", "vote", "over"), ``players``, ``lineup`` (role
    counts), ``rules`` (every active ruling, WW-4), ``living``, ``dead``
    (``[{seat, day, cause: "night"|"exile", revealed}]``; ``revealed`` is a role, a
    team or None per ``reveal_on_death``/``reveal_on_exile``), ``speaking_order``
    (speeches still to come today, the current speaker first), ``floor``
    (bidding: ``{turn, turns, bidders, speaker}``), ``vote`` (``{mode, order,
    candidates}``), ``ballots_today`` (``{seat: target|None}``, the ballots made
    public so far), ``roles`` (every seat's role, once announced at the end, WW-20).

``history``
    One ``HistoryItem`` per visible event. Speeches and last words carry
    ``speaker`` and ``speech`` (the text as shown, softened per WW-13; never what
    the seat wrote) and, in ``facts``, the structured claims as recorded
    (``claim``, ``accuse``, ``vouch``) plus ``turn`` (speeches) or ``cause`` (last
    words). A werewolf's pack messages carry ``speaker`` and ``speech``. Everything
    else carries the referee's ``facts`` (the event's fields, without the
    audience). The seat's own decisions appear as ``core.decision`` items with
    ``facts = {decision, payload, fallback}``.
"""

from sandbox.games.werewolf.variant import Werewolf

VARIANT = Werewolf()

__all__ = ["VARIANT", "Werewolf"]
