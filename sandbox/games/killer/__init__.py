"""Killer (KG-1..KG-15). Importing this package registers the variant."""
