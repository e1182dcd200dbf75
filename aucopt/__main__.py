"""``python -m aucopt``: the command line."""

from aucopt.cli import main

if __name__ == "__main__":
    main()
