"""Built-in game variants. Importing this package registers them."""

from sandbox.games import four_factions, killer

__all__ = ["four_factions", "killer"]
