"""Killer (KG-1..KG-15): police, killers and civilians; the judge is the referee.

``VARIANT`` is the instance the registry finds through the ``sandbox.variants``
entry point ``killer`` (see :mod:`sandbox.games.registry`).

Seat view (``SeatView`` built by :mod:`sandbox.games.killer.variant`, only from the
events the seat was allowed to see):

``private``
    ``seat``: own seat number. ``role``: "killer", "police" or "civilian".
    ``fellow_killers`` (killers only): the other killers' seats.
    ``kills`` (killers only): ``[{night, target}]``, the victims the killers chose.
    ``fellow_police`` (police only): the other police seats.
    ``checks`` (police only): ``[{night, suspect, answer}]``, the judge's answers;
    ``answer`` is a role, or "killer"/"not killer" with ``check_answer = "killer_or_not"``.
    ``my_opinions``: ``[{night, about, target}]``, the seat's own night opinions
    (``about`` is "killer" or "police"; ``target`` None = no opinion).

``public``
    ``day`` (night n precedes day n), ``phase`` ("night", "dawn", "last_words",
    "speeches", "vote", "over"), ``players``, ``rules`` (line-up counts, quota,
    day limit, check mode, reveal option, the KG-5 barred seat, the KG-13 concede
    scope), ``living``,
    ``dead`` (``[{seat, day, cause: "night"|"vote", role}]``; ``role`` is None unless
    roles are revealed), ``last_words_quota``, ``last_words_used``,
    ``ballots_today`` (``[{round, ballots: {seat: target|None}}]``, announced votes
    of the current day), ``speaking_order`` (speakers still to speak in the current
    phase, the current speaker first), ``vote_candidates`` (who may be voted for).

``history``
    One ``HistoryItem`` per visible event: speeches and last words carry
    ``speaker`` and ``speech`` (player text, quoted data) and, in ``facts``, the
    speaker's structured claims as recorded, never confirmed (KG-14): ``claim``
    ("none", "police", "killer" or "civilian"), ``accuse`` and ``vouch`` (sorted
    seat lists); a speech also has ``context``. Everything else carries
    the referee's ``facts`` (the event's fields; group events without their
    audience). The seat's own accepted decisions appear as ``core.decision``
    items with ``facts = {decision, payload, fallback}``.
"""

from sandbox.games.killer.variant import Killer

VARIANT = Killer()

__all__ = ["VARIANT", "Killer"]
