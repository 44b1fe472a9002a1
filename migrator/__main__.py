"""CLI: the entry point (``trainjob-migrate``, ``python -m migrator``): Ctrl-C while the
command line is still loading ends the run quietly with exit code 130; a plain ``check`` runs
without click (migrator/launch.py), every other command line through click (migrator/cli.py);
the process ends as soon as its output is written (``entry``)."""

from __future__ import annotations

import os
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


def entry() -> None:
    """The process entry (the ``trainjob-migrate`` script, ``python -m migrator``): ``run``,
    then end the process at once with its exit code once standard output and error are
    flushed (``_end_now``)."""
    try:
        run()
    except SystemExit as done:
        _end_now(done.code)
        raise


def _end_now(code: object) -> None:
    """Exit with ``code`` without the interpreter's teardown, which frees every object of the
    run module by module and writes nothing (4-7 ms of every run: more the larger the results
    cache entry it read). What the interpreter's exit does before that is done here: the exit
    handlers run, standard output and error are flushed; everything else the tool writes is
    written and closed by then (outputs, reports and cache entries, through ``atomic``).
    Returns (the interpreter ends the process as usual) for a code that is not a small
    integer, under a profiler or tracer, with ``-i``, ``-X dev`` or ``-W`` options (warnings of
    what is left open come at the teardown), while another thread runs, on a Python without
    ``atexit._run_exitfuncs``, or when a stream cannot be flushed (the interpreter then says
    so, as it always has)."""
    import atexit

    code = 0 if code is None else code
    threading = sys.modules.get("threading")
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if not isinstance(code, int) or not 0 <= code <= 255 or sys.getprofile() is not None or \
            sys.gettrace() is not None or sys.flags.inspect or sys.flags.dev_mode or \
            sys.warnoptions or \
            run_handlers is None or (threading is not None and threading.active_count() > 1):
        return
    run_handlers()  # (each runs once: the interpreter's exit would find none left)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:  # the interpreter's own exit reports it
        return
    os._exit(int(code))


if __name__ == "__main__":
    entry()
