"""``python -m sandbox``: the command line."""

from sandbox.cli.main import main

if __name__ == "__main__":
    main()
