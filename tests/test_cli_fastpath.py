"""The click-free ``check`` (migrator/launch.py, entered by migrator.__main__.run): it reads
exactly what click reads or hands the command line to click, and a run through it is the run
through click — same standard output, standard error, exit code and files written (the results
cache included) — for plain, legacy, config, pre-commit, CI, hostile-name and error cases;
Ctrl-C keeps its meaning on both paths. (Only a traceback, with --debug, shows other frames.)"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import random
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import pytest

from migrator import launch
from tests.goldens import ROOT
from tests.security.support import CONFIGMAP, JOB

# ---------------------------------------------------------------------------- the reader


def _click_values(argv: Sequence[str]) -> dict[str, Any] | None:
    """What click gives the check command for ``argv`` (after ``check``), or None when click
    stops there (a usage error, or help)."""
    from migrator import cli

    command = cli.main.get_command(click.Context(cli.main), "check")
    assert command is not None
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            return dict(command.make_context("check", list(argv)).params)
    except (click.exceptions.ClickException, click.exceptions.Exit):
        return None


def _agrees(argv: Sequence[str]) -> None:
    read = launch.read_check(["check", *argv], {})
    if read is not None:
        assert read == _click_values(argv), argv


TABLE: list[list[str]] = [
    ["a.yaml"], ["-"], [""], ["a.yaml", "b.yaml", "-"], ["a.yaml", "-q"], ["-q", "a.yaml"],
    ["-v", "-q", "a.yaml", "--quiet", "--verbose"], ["a.yaml", "--", "--quiet", "-v", "--"],
    ["--", "-"], ["--"], [], ["-q"], ["-qv", "a.yaml"], ["-vq", "a.yaml"], ["a.yaml", "-h"],
    ["a.yaml", "--help"], ["--version", "a.yaml"], ["a.yaml", "--quiet=1"], ["a.yaml", "-q=1"],
    ["--target", "2.3", "a.yaml"], ["--target=2.3", "a.yaml"], ["--target", "9.9", "a.yaml"],
    ["--target=", "a.yaml"], ["a.yaml", "--target"], ["--target", "--quiet", "a.yaml"],
    ["--target", "2.2", "--target", "2.3", "a.yaml"], ["-j", "2", "a.yaml"], ["-j2", "a.yaml"],
    ["-j=2", "a.yaml"], ["--jobs=2", "a.yaml"], ["--jobs", "02", "a.yaml"], ["-j", "0", "a"],
    ["-j", "-1", "a"], ["-j", "+1", "a"], ["-j", " 1", "a"], ["-j", "1_0", "a"], ["-j", "٣", "a"],
    ["-j", "9" * 30, "a"], ["-j", "2", "-j", "3", "a"], ["-j", "--", "a"], ["-jq", "a"],
    ["--max-file-size", "10", "a"], ["--max-file-size=0", "a"], ["--runtime-kind",
                                                                  "TrainingRuntime", "a"],
    ["--runtime-kind", "Pod", "a"], ["--companion-runtimes", "a"],
    ["--no-companion-runtimes", "--companion-runtimes", "a"],
    ["--companion-runtimes", "--no-companion-runtimes", "a"], ["--companion-runtimes=1", "a"],
    ["--allow-lossy", "--no-gitignore", "--helm", "--debug", "--no-cache", "a"],
    ["--allow-lossy", "--allow-lossy", "a"], ["--tar", "2.2", "a"], ["---quiet", "a"],
    ["-x", "a"], ["--nope", "a"], ["--config", "c.yaml", "a"], ["--include", "*.yml", "a"],
    ["--report", "r.json", "a"], ["--runtime", "x", "a"], ["a", "-", "--", "-"],
    ["\u2014quiet", "a"], ["a\x1b[31m", "-v"], ["a", "-\udcff"], ["-\x00", "a"],
]


@pytest.mark.parametrize("argv", TABLE, ids=[repr(a)[:40] for a in TABLE])
def test_the_reader_gives_what_click_gives_or_hands_over(argv: list[str]) -> None:
    _agrees(argv)


def test_random_command_lines_read_as_click_reads_them() -> None:
    words = ["a.yaml", "b", "-", "", "--", "x=y", "2", "0", "01", "2.2", "2.3", "-1",
             "ClusterTrainingRuntime", "TrainingRuntime", "-qv", "-j2", "-j0", "--jobs=3",
             "--target=2.3", "--target=", "--quiet=1", "-h", "--help", "--unknown", "-x",
             "--tar", "---q", *launch._BY_NAME]
    chance = random.Random(18)
    taken = 0
    for _ in range(3000):
        argv = [chance.choice(words) for _ in range(chance.randint(0, 7))]
        _agrees(argv)
        taken += launch.read_check(["check", *argv], {}) is not None
    assert taken > 300  # the reader takes a good share of them (the test compares something)


def test_the_reader_knows_every_option_of_check() -> None:
    from migrator import cli

    command = cli.main.get_command(click.Context(cli.main), "check")
    assert command is not None
    read = launch.read_check(["check", "a.yaml"], {})
    assert read is not None
    assert set(read) == {param.name for param in command.params}
    for option in launch.OPTIONS.values():  # click's option is built from the declaration
        built = next(param for param in command.params if param.name == option.dest)
        assert isinstance(built, click.Option)
        assert (*built.opts, *built.secondary_opts) == option.names
        assert built.help == option.help


@pytest.mark.parametrize("argv", [["convert", "a"], ["validate", "a"], ["diff", "a"], ["check"],
                                  ["--help"], ["check", "--help", "a"], []])
def test_other_command_lines_go_to_click(argv: list[str]) -> None:
    assert launch.read_check(argv, {}) is None


def test_shell_completion_goes_to_click() -> None:
    assert launch.read_check(["check", "a"], {}) is not None
    assert launch.read_check(["check", "a"], {"_TRAINJOB_MIGRATE_COMPLETE": "bash_source"}) \
        is None


# ---------------------------------------------------------------------------- both paths

DRIVER = """
import atexit, os, sys
def record():
    with open(os.environ["FASTPATH_PROBE"], "w", encoding="utf-8") as probe:
        probe.write(" ".join(m for m in ("click", "ruamel.yaml", "pydantic") if m in sys.modules))
atexit.register(record)
import migrator.__main__ as entry
entry.FAST_PATH = sys.argv[1] == "fast"
sys.argv = ["trainjob-migrate", *sys.argv[2:]]
entry.run()
"""

SUMMARY_TIME = re.compile(r" \(\d+\.\d+s\)$", re.M)
# progress lines of a run longer than progress.TICK_SECONDS (a loaded machine): timing only
PROGRESS = re.compile(r"^(?:checking|converting): \d+(?: of \d+)? files? done \(\d+s\)\n", re.M)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folders for every case, written once and aged past the results cache's racy window
    (so both paths record the same files)."""
    from migrator.batch.resultcache import RACY_SECONDS

    root = tmp_path_factory.mktemp("fastpath")
    plain = root / "plain"
    for folder in ("plain", "configured", "warned", "badconfig", "latebase", "\x1b[31mred"):
        (root / folder / ".git").mkdir(parents=True)  # the config search stops here
        (root / folder / "job.yaml").write_text(JOB, encoding="utf-8")
        (root / folder / "ok.yaml").write_text(CONFIGMAP, encoding="utf-8")
    (plain / "tree" / "deep").mkdir(parents=True)
    (plain / "tree" / "a.yaml").write_text(CONFIGMAP, encoding="utf-8")
    (plain / "tree" / "deep" / "legacy.yaml").write_text(JOB, encoding="utf-8")
    (plain / "tree" / "notes.txt").write_text("kind: PyTorchJob\n", encoding="utf-8")
    (plain / "tree" / "broken.yaml").write_text("a: [\n", encoding="utf-8")
    (plain / "-v").write_text(JOB, encoding="utf-8")
    (plain / "--quiet").write_text(CONFIGMAP, encoding="utf-8")
    (plain / "big.yaml").write_text(JOB + "# " + "x" * 200 + "\n", encoding="utf-8")
    (root / "configured" / ".trainjob-migrate.yaml").write_text("target: '2.3'\n")
    warned = root / "warned" / ".trainjob-migrate.yaml"
    warned.write_text("target: '2.3'\n")
    warned.chmod(0o666)
    (root / "badconfig" / ".trainjob-migrate.yaml").write_text("nonsense: 1\n")
    (root / "latebase" / ".trainjob-migrate.yaml").write_text("baseline: base.json\n")
    (root / "latebase" / "base.json").write_text("{not json")
    (root / "\x1b[31mred" / ".trainjob-migrate.yaml").write_text("allow-lossy: true\n")
    import time

    time.sleep(RACY_SECONDS + 0.3)
    return root


# (name, folder, argv, extra environment, standard input, the fast path takes it, warm run too)
Case = tuple[str, str, list[str], dict[str, str], str | None, bool, bool]
CASES: list[Case] = [
    ("clean file", "plain", ["check", "ok.yaml"], {}, None, True, True),
    ("legacy file", "plain", ["check", "job.yaml"], {}, None, True, True),
    ("tree", "plain", ["check", "tree"], {}, None, True, True),
    ("tree, -j 2", "plain", ["check", "-j", "2", "tree", "job.yaml"], {}, None, True, False),
    ("cwd tree, verbose", "plain", ["check", ".", "-v", "--no-gitignore"], {}, None, True, True),
    ("stdin", "plain", ["check", "-"], {}, JOB, True, False),
    ("missing path", "plain", ["check", "missing.yaml", "ok.yaml"], {}, None, True, False),
    ("option-named files", "plain", ["check", "ok.yaml", "--", "-v", "--quiet"], {}, None, True,
     False),
    ("an option after the paths", "plain", ["check", "ok.yaml", "-q"], {}, None, True, False),
    ("config", "configured", ["check", "job.yaml"], {}, None, True, True),
    ("config, quiet", "configured", ["check", "-q", "ok.yaml"], {}, None, True, False),
    ("config, option wins", "configured", ["check", "--target", "2.2", "job.yaml"], {}, None,
     True, False),
    ("untrusted config", "warned", ["check", "ok.yaml"], {}, None, True, False),
    ("bad config", "badconfig", ["check", "ok.yaml"], {}, None, False, False),
    ("bad baseline (the run cannot start)", "latebase", ["check", "ok.yaml"], {}, None, False,
     False),
    ("escape in the config path", "\x1b[31mred", ["check", "ok.yaml"], {}, None, True, False),
    ("pre-commit", "plain", ["check", "job.yaml", "ok.yaml"], {"PRE_COMMIT": "1"}, None, True,
     True),
    ("GitHub Actions", "plain", ["check", "job.yaml"], {"GITHUB_ACTIONS": "true"}, None, True,
     False),
    ("quiet and verbose", "plain", ["check", "-q", "-v", "tree"], {}, None, True, False),
    ("repeated flags", "plain", ["check", "-v", "--verbose", "-v", "ok.yaml", "-q", "-q"], {},
     None, True, False),
    ("every flag", "plain", ["check", "--allow-lossy", "--no-gitignore", "--no-cache",
                             "--companion-runtimes", "--runtime-kind", "TrainingRuntime",
                             "-j1", "--target=2.3", "job.yaml"], {}, None, True, False),
    ("--debug", "plain", ["check", "--debug", "ok.yaml"], {}, None, True, False),
    ("size cap", "plain", ["check", "--max-file-size", "300", "big.yaml", "ok.yaml"], {}, None,
     True, False),
    ("FORCE_COLOR", "plain", ["check", "job.yaml"], {"FORCE_COLOR": "1"}, None, True, False),
    ("ASCII standard error", "plain", ["check", "ok.yaml"], {"PYTHONIOENCODING": "ascii"}, None,
     False, False),
    ("clustered flags", "plain", ["check", "-qv", "ok.yaml"], {}, None, False, False),
    ("unknown option", "plain", ["check", "--nope", "ok.yaml"], {}, None, False, False),
    ("bad value", "plain", ["check", "-j", "0", "ok.yaml"], {}, None, False, False),
    ("no paths", "plain", ["check", "-q"], {}, None, False, False),
    ("help", "plain", ["check", "ok.yaml", "--help"], {}, None, False, False),
    ("no mappings", "plain", ["check", "ok.yaml"],
     {"TRAINJOB_MIGRATE_MAPPINGS": "/nonexistent/mappings"}, None, False, False),
]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` and its bytes."""
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _run(path: str, folder: Path, argv: list[str], extra: dict[str, str], stdin: str | None,
         cache: Path) -> tuple[int, str, str, str]:
    probe = cache.parent / f"probe-{path}"
    environment = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                   "HOME": os.environ.get("HOME", "/nonexistent"), "LC_ALL": "C.UTF-8",
                   "TRAINJOB_MIGRATE_CACHE_DIR": str(cache), "FASTPATH_PROBE": str(probe),
                   **extra}
    proc = subprocess.run([sys.executable, "-c", DRIVER, path, *argv], cwd=folder,
                          env=environment, input=stdin, capture_output=True, text=True,
                          timeout=120, check=False)
    return (proc.returncode, proc.stdout,
            SUMMARY_TIME.sub(" (TIME)", PROGRESS.sub("", proc.stderr)),
            probe.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_the_fast_path_runs_as_click_does(workspace: Path, tmp_path: Path, case: Case) -> None:
    _, folder, argv, extra, stdin, fast, warm = case
    before = _files(workspace / folder)
    outcomes = {}
    for round_ in ("cold", "warm") if warm else ("cold",):
        for path in ("fast", "click"):
            code, out, err, modules = _run(path, workspace / folder, argv, extra, stdin,
                                           tmp_path / f"cache-{path}")
            outcomes[round_, path] = (code, out, err)
            assert ("click" in modules.split()) == (path == "click" or not fast), (path, err)
        assert outcomes[round_, "fast"] == outcomes[round_, "click"], round_
    assert "Traceback" not in outcomes["cold", "fast"][2]
    assert _files(tmp_path / "cache-fast") == _files(tmp_path / "cache-click")
    assert _files(workspace / folder) == before


def test_the_late_usage_error_follows_the_config_line(workspace: Path, tmp_path: Path) -> None:
    code, out, err, modules = _run("fast", workspace / "latebase", ["check", "job.yaml"], {},
                                   None, tmp_path / "cache")
    assert code == 2
    assert out == ""
    assert "click" in modules.split()  # click shows the error of a run started without it
    assert err.startswith(f"using config {workspace / 'latebase' / '.trainjob-migrate.yaml'}\n"
                          "Usage: trainjob-migrate check [OPTIONS] PATHS...\n")
    assert "Error: baseline " in err


def test_an_ordinary_check_imports_no_click_nor_converter(workspace: Path,
                                                          tmp_path: Path) -> None:
    for argv in (["check", "ok.yaml"], ["check", "tree/a.yaml", "tree/notes.txt"]):
        code, _, err, modules = _run("fast", workspace / "plain", argv, {}, None,
                                     tmp_path / "cache")
        assert code == 0, err
        assert modules == "", argv


@pytest.mark.parametrize("raised", [KeyboardInterrupt, EOFError, BrokenPipeError])
def test_the_rare_ends_of_a_run_are_click_s(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            raised: type[BaseException]) -> None:
    """What escapes the run (Ctrl-C before its handler, end of input, a closed pipe) ends the
    process as click's main ends it: "Aborted!" or a quiet exit 1."""
    from migrator import cli

    (tmp_path / ".git").mkdir()
    (tmp_path / "ok.yaml").write_text(CONFIGMAP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PRE_COMMIT", raising=False)

    def escaping(settings: Any, *, debug: bool, say: Any) -> None:
        raise raised(errno.EPIPE, "Broken pipe") if raised is BrokenPipeError else raised()

    monkeypatch.setattr(launch, "execute", escaping)
    ends = {}
    for path in ("fast", "click"):
        err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        monkeypatch.setattr(sys, "stderr", err)
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
        monkeypatch.setattr(sys, "argv", ["trainjob-migrate", "check", "ok.yaml"])
        start = launch.fast_check(sys.argv[1:]) if path == "fast" else cli.main
        assert start is not None
        with pytest.raises(SystemExit) as end:
            start()
        err.flush()
        ends[path] = (end.value.code, err.buffer.getvalue(),
                      hasattr(sys.stdout, "wrapped"), hasattr(sys.stderr, "wrapped"))
    assert ends["fast"] == ends["click"]
    assert ends["fast"][0] == 1


def test_a_removed_working_directory_is_a_usage_error(tmp_path: Path) -> None:
    """The config search starts in the working directory: when it is gone the command line
    cannot be used (one line, exit 2) — on both paths, never a traceback (R-F1)."""
    gone = tmp_path / "gone"
    code = ("import os, sys\n"
            f"os.mkdir({str(gone)!r}); os.chdir({str(gone)!r}); os.rmdir({str(gone)!r})\n"
            "import migrator.__main__ as entry\n"
            "entry.FAST_PATH = sys.argv[1] == 'fast'\n"
            "sys.argv = ['trainjob-migrate', 'check', sys.argv[2]]\n"
            "entry.run()\n")
    (tmp_path / "ok.yaml").write_text(CONFIGMAP, encoding="utf-8")
    ends = []
    for path in ("fast", "click"):
        proc = subprocess.run([sys.executable, "-c", code, path, str(tmp_path / "ok.yaml")],
                              env={"PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8",
                                   "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")},
                              capture_output=True, text=True, timeout=120, check=False)
        ends.append((proc.returncode, proc.stdout, proc.stderr))
    assert ends[0] == ends[1]
    assert ends[0][0] == 2
    assert ends[0][2].endswith("Error: the working directory: No such file or directory\n")


# ---------------------------------------------------------------------------- Ctrl-C

WHILE_LOADING = """
import builtins, os, signal, sys
path, job = sys.argv[1], sys.argv[2]
real = builtins.__import__
def interrupting(name, *args, **kwargs):  # the first import after the handler is in place
    if name.startswith("migrator") and signal.getsignal(signal.SIGINT) is not \\
            signal.default_int_handler:
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **kwargs)
builtins.__import__ = interrupting
"""

WHILE_PARSING = """
import os, signal, sys
path, job = sys.argv[1], sys.argv[2]
from migrator import launch
def interrupting(options):  # called while the options become settings (both paths)
    os.kill(os.getpid(), signal.SIGINT)
launch.preload = interrupting
"""

DURING_THE_RUN = """
import os, signal, sys, time
path, job = sys.argv[1], sys.argv[2]
from migrator.batch import runner
def interrupted(settings):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
    return 0
runner.run = interrupted
"""

ENTER = """
sys.argv = ["trainjob-migrate", "check", job]
import migrator.__main__ as entry
entry.FAST_PATH = path == "fast"
entry.run()
"""


@pytest.mark.parametrize("path", ["fast", "click"])
@pytest.mark.parametrize("moment", ["loading", "parsing", "run"])
def test_ctrl_c_keeps_its_meaning(tmp_path: Path, path: str, moment: str) -> None:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    code = {"loading": WHILE_LOADING, "parsing": WHILE_PARSING, "run": DURING_THE_RUN}[moment]
    proc = subprocess.run([sys.executable, "-c", code + ENTER, path, str(tmp_path / "job.yaml")],
                          env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", ""),
                               "LC_ALL": "C.UTF-8",
                               "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")},
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 130, proc.stderr
    assert proc.stdout == ""
    if moment == "run":
        assert proc.stderr == ("interrupted: files already written are complete, the rest are "
                               "unchanged\n")
    else:
        assert proc.stderr == ""
