"""Built-in game variants (four_factions/, killer/) and the registry that finds
every variant, built-in or from another package (:mod:`sandbox.games.registry`)."""
