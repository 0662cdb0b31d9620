"""``python -m sandbox``: the command line."""

from sandbox.cli.main import main

main()
