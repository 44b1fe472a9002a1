"""CLI: ``python -m migrator`` runs the command-line interface."""

from migrator.cli import main

if __name__ == "__main__":
    main()
