"""Four Factions (FF-1..FF-29).

``VARIANT`` is the instance the registry finds through the ``sandbox.variants``
entry point ``four_factions`` (see :mod:`sandbox.games.registry`).
"""

from sandbox.games.four_factions.variant import FourFactions

VARIANT = FourFactions()

__all__ = ["VARIANT", "FourFactions"]
