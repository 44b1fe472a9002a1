"""CLI: the entry point (``trainjob-migrate``, ``python -m migrator``): Ctrl-C while the
command line is still loading ends the run quietly with exit code 130; a plain ``check`` runs
without click (migrator/launch.py), every other command line through click (migrator/cli.py)."""

from __future__ import annotations

import signal
import sys

from migrator.errors import INTERRUPTED, exit_interrupted

FAST_PATH = True  # tests turn it off to run the same command line through click


def run() -> None:
    """Load and run the command line; until a command starts its run, Ctrl-C exits 130
    without a traceback (nothing has been written yet)."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, exit_interrupted)
        import migrator.launch

        migrator.launch.PROCESS_ENTRY = True
        migrator.launch.standard_streams()
        start = None
        if FAST_PATH:
            from migrator.launch import UsageError, fast_check

            start = fast_check(sys.argv[1:])
        if start is None:
            from migrator.cli import main
    except KeyboardInterrupt:  # landed before the handler was in place
        raise SystemExit(INTERRUPTED) from None
    if start is not None:
        try:
            start()
        except UsageError as exc:  # the run could not start: click shows it as its own
            from migrator.cli import show_usage_error

            show_usage_error(str(exc))
    main()


if __name__ == "__main__":
    run()
