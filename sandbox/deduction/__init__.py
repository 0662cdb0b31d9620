"""Deduction for reference bots, whatever the variant (issue 37, items 1 and 2).

- :mod:`.evidence`: what a speech or a ballot says, as typed evidence.
- :mod:`.tables`: a variant's roles and its words for them, given as data.
- :mod:`.speech`: free speech in English and Chinese turned into evidence.
- :mod:`.space`: the role assignments a seat's knowledge allows (count, list, draw).
- :mod:`.likelihood`: how each side behaves, its parameters loaded from data.
- :mod:`.belief`: a belief over role assignments, exact or sampled, and its score.
- :mod:`.mind`: one seat's belief kept from its view, the levels, a hidden seat's cover.
- :mod:`.talk`: a speech from the belief, with a grounded reason (``talk.toml``).
- :mod:`.bot`: the frame of a bot that plays a ladder of levels (its mind, talker, answer).

Nothing here names a variant: a variant's roles and words come in as a
:class:`~sandbox.deduction.tables.RoleTable` (the tables shipped in
``sandbox/deduction/tables/`` are data). The variants' bots use it at ``level``
1..4, each through a small adapter of its own events (docs/deduction.md).
"""
