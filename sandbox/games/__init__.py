"""The built-in game variants, one subpackage each (everything a variant knows
lives in its folder), and the registry that finds every variant, built-in or
from another package (:mod:`sandbox.games.registry`)."""
