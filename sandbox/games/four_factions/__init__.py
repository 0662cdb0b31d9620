"""Four Factions (FF-1..FF-29). Importing this package registers the variant."""

from sandbox.core.variant import register
from sandbox.games.four_factions.variant import FourFactions

VARIANT = FourFactions()
register(VARIANT)

__all__ = ["VARIANT", "FourFactions"]
