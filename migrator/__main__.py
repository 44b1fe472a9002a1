"""CLI: the entry point (``trainjob-migrate``, ``python -m migrator``): Ctrl-C while the
command line is still loading ends the run quietly with exit code 130, then the CLI runs."""

from __future__ import annotations

import signal

from migrator.errors import INTERRUPTED, exit_interrupted


def run() -> None:
    """Load and run the command line; until a command starts its run, Ctrl-C exits 130
    without a traceback (nothing has been written yet)."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, exit_interrupted)
        from migrator.cli import main
    except KeyboardInterrupt:  # landed before the handler was in place
        raise SystemExit(INTERRUPTED) from None
    main()


if __name__ == "__main__":
    run()
