"""Baseline bots, one module per variant, each exporting ``BaselineBot(seed)``."""
