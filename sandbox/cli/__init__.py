"""The ``sandbox`` command line (docs/cli.md)."""
