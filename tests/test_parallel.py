"""Worker processes (batch/parallel.py): the converter is loaded once per run, by the loader
process that forks the workers; a loader that dies is replaced and no file is lost."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from migrator.batch import files, parallel, pipeline
from migrator.results import FileResult
from migrator.settings import ConvertOptions
from tests.goldens import FIXTURES

_MAIN_PROCESS = os.getpid()


def _tree(tmp_path: Path, count: int = 40) -> list[tuple[str, str]]:
    tree = tmp_path / "many"
    tree.mkdir()
    cases = sorted(FIXTURES.glob("*/*.in.yaml"))
    for index in range(count):
        source = cases[index % len(cases)]
        shutil.copy(source, tree / f"{index:03d}-{source.parent.name}-{source.name}")
    (tree / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    return [(str(path), path.name) for path in sorted(tree.iterdir())]


def _texts(results: list[FileResult]) -> list[tuple[str, str | None, list[str]]]:
    return [(f.name, f.result.text if f.result else None, [x.code for x in f.findings])
            for f in results]


def _both(found: list[tuple[str, str]], **kwargs: Any) -> tuple[list[FileResult],
                                                                 list[FileResult]]:
    options = ConvertOptions()
    in_parallel = list(pipeline.process_paths(("many",), options, jobs=2, found=found,
                                              **kwargs))
    serial = list(pipeline.process_paths(("many",), options, jobs=1, found=found, **kwargs))
    return in_parallel, serial


def _noting_load(marker: Path) -> Any:
    real = parallel._load_converter

    def load() -> None:
        with marker.open("a") as out:
            out.write(f"{os.getpid()}\n")
        real()

    return load


@pytest.mark.parametrize("render", [True, False])
def test_the_converter_is_loaded_once_per_run_not_per_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, render: bool) -> None:
    """Two workers, one load: the workers are forked from the process that loaded it."""
    marker = tmp_path / "loaded"
    monkeypatch.setattr(parallel, "_load_converter", _noting_load(marker))
    found = _tree(tmp_path)
    in_parallel, serial = _both(found, render=render)
    assert _texts(in_parallel) == _texts(serial)
    loads = marker.read_text().split()
    assert len(loads) == 1
    assert int(loads[0]) != _MAIN_PROCESS


def test_a_run_over_ordinary_files_starts_no_process(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "loaded"
    monkeypatch.setattr(parallel, "_load_converter", _noting_load(marker))
    tree = tmp_path / "many"
    tree.mkdir()
    for index in range(40):
        (tree / f"cm{index}.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    found = [(str(path), path.name) for path in sorted(tree.iterdir())]
    in_parallel, serial = _both(found)
    assert _texts(in_parallel) == _texts(serial)
    assert not marker.exists()


def test_a_loader_that_dies_is_replaced(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader killed before it forked any worker (as the out-of-memory killer would): a
    new one is started and every file is converted as in a serial run."""
    marker = tmp_path / "died"
    real = parallel._load_converter

    def dying_load() -> None:
        if not marker.exists():
            marker.touch()
            os._exit(9)
        real()

    monkeypatch.setattr(parallel, "_load_converter", dying_load)
    in_parallel, serial = _both(_tree(tmp_path))
    assert marker.exists()
    assert _texts(in_parallel) == _texts(serial)


def dying_once(marker: Path) -> Any:
    """``files.convert_or_audit``, except that the first call in a process other than this
    one (a worker, the loader) kills that process, as the out-of-memory killer would."""
    real = files.convert_or_audit

    def dying(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() != _MAIN_PROCESS and not marker.exists():
            marker.touch()
            os._exit(9)
        return real(*args, **kwargs)

    return dying


def test_a_first_file_that_kills_the_loader_is_not_fatal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader converts the first file once to warm up; if that kills it, the next loader
    does not warm up, and the file is converted by a worker like any other."""
    marker = tmp_path / "died"
    monkeypatch.setattr(files, "convert_or_audit", dying_once(marker))
    in_parallel, serial = _both(_tree(tmp_path))
    assert marker.exists()
    assert _texts(in_parallel) == _texts(serial)


def test_an_error_in_a_worker_reaches_the_caller(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception raised by a conversion in a worker is raised here, as in a serial run
    (never a hang)."""
    monkeypatch.setattr(parallel, "_process_batch", _failing)
    with pytest.raises(ValueError, match="converter bug"):
        list(pipeline.process_paths(("many",), ConvertOptions(), jobs=2,
                                    found=_tree(tmp_path)))


def _failing(*args: Any) -> Any:
    raise ValueError("converter bug")


def _slow_load() -> None:
    time.sleep(1.0)  # still loading when the main process stops
    _REAL_LOAD()


_REAL_LOAD = parallel._load_converter


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_ending_while_the_loader_still_loads_ends_every_process(
        monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """The workers asked for are forked after this process has closed its end: each one's
    socket is closed with the loader's, so it ends, and so does the loader (this hung)."""
    monkeypatch.setattr(parallel, "_load_converter", _slow_load)
    task = parallel._Task(ConvertOptions(), True, 10**6, False, False, None)
    workers = parallel._Workers(2, task, None)
    workers.close()
    assert _no_children_left()


def _stuck_loader(*args: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:  # never ends by itself (as a loader stuck in a system call would not)
        time.sleep(1)


@pytest.mark.parametrize("pidfd", [True, False])
def test_a_loader_that_does_not_end_is_killed_after_the_grace(
        monkeypatch: pytest.MonkeyPatch, deadline: None, pidfd: bool) -> None:
    """The end of a run waits for the loader at most ``LOADER_GRACE`` seconds, then kills
    it; on a pidfd where there is one, else looking again and again."""
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("no os.pidfd_open here")
    monkeypatch.setattr(parallel, "_loader", _stuck_loader)
    monkeypatch.setattr(parallel, "LOADER_GRACE", 0.2)
    task = parallel._Task(ConvertOptions(), True, 10**6, False, False, None)
    workers = parallel._Workers(2, task, None)
    workers.close()
    assert _no_children_left()


def interrupted_at(name: str, pause: float = 0.0) -> Any:
    """``files.settled``, raising KeyboardInterrupt (Ctrl-C) at the file ``name``, after
    ``pause`` seconds."""
    real = files.settled

    def settled(path: str, relative: str, max_bytes: int) -> Any:
        if path == name:
            time.sleep(pause)
            raise KeyboardInterrupt
        return real(path, relative, max_bytes)

    return settled


def test_an_interrupted_run_ends_every_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               deadline: None) -> None:
    """Interrupted (here: an error reading a file) while the loader still loads: the run
    ends at once, every process with it."""
    monkeypatch.setattr(parallel, "_load_converter", _slow_load)
    found = _tree(tmp_path)
    monkeypatch.setattr(files, "settled", interrupted_at(found[20][0]))
    with pytest.raises(KeyboardInterrupt):
        list(pipeline.process_paths(("many",), ConvertOptions(), jobs=2, found=found))
    assert _no_children_left()


def test_this_process_reads_on_while_the_loader_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """While the loader imports the converter this process reads and settles the files ahead
    (beyond the ``AHEAD`` batches per worker it keeps waiting once workers are there): the
    loader here finishes loading only once the last file has been read (or gives up after
    20 s, and the test fails)."""
    monkeypatch.setattr(parallel, "AHEAD", 1)
    found = _tree(tmp_path)
    candidates = sum(files.settled(name, relative, 10**7) is not None
                     for name, relative in found)
    assert candidates > parallel.AHEAD * 2 * parallel.BATCH  # more than it may queue later
    last_read = tmp_path / "last-read"
    seen = tmp_path / "seen-by-the-loader"
    real_settled = files.settled

    def settled(name: str, relative: str, max_bytes: int) -> Any:
        if name == found[-1][0]:
            last_read.touch()
        return real_settled(name, relative, max_bytes)

    def load() -> None:
        waited = 0.0
        while not last_read.exists() and waited < 20:
            time.sleep(0.01)
            waited += 0.01
        seen.write_text(str(last_read.exists()))
        _REAL_LOAD()

    monkeypatch.setattr(files, "settled", settled)
    monkeypatch.setattr(parallel, "_load_converter", load)
    in_parallel, serial = _both(found, render=False, keep_text=False)
    assert seen.read_text() == "True"
    assert _texts(in_parallel) == _texts([f.slim() for f in serial])


class _Named(str):
    """A job as ``_Workers._dispatch`` sees it: equal to its name, no text of standard input."""

    read = None


class _Held:
    """A worker as ``_Workers._dispatch`` sees it: the jobs sent to it and not answered."""

    def __init__(self) -> None:
        self.held: list[Any] = []
        self.finished = False

    def send(self, job: Any) -> None:
        self.held.append(job)


def test_the_last_jobs_go_to_the_first_worker_that_is_done() -> None:
    """While the input lasts each worker holds a second job behind the one in hand (no wait
    between two); once it has ended, the last jobs wait here for the first worker that is
    done, instead of queueing behind a busy one while the other has nothing left."""
    workers: Any = object.__new__(parallel._Workers)  # only what _dispatch reads
    one, two = _Held(), _Held()
    workers.jobs, workers.workers, workers.ended = 2, [one, two], False
    workers.queue = deque(map(_Named, "abcd"))
    workers._dispatch()
    assert (one.held, two.held) == (["a", "c"], ["b", "d"])
    one.held, two.held = ["c"], ["d"]  # a and b answered
    workers.queue.extend(map(_Named, "efg"))
    workers.ended = True
    workers._dispatch()  # as before while as many jobs are left as workers; the last waits
    assert (one.held, two.held, list(workers.queue)) == (["c", "e"], ["d", "f"], ["g"])
    two.held = ["f"]  # d answered: two is busy with f
    workers._dispatch()
    assert list(workers.queue) == ["g"]
    two.held = []  # f answered first: g goes to two, not behind e
    workers._dispatch()
    assert (one.held, two.held, list(workers.queue)) == (["c", "e"], ["g"], [])


@pytest.mark.parametrize("every", [1, 3, 7, 20])
def test_results_come_in_the_order_of_the_walk(tmp_path: Path, every: int) -> None:
    """Ordinary files after a Kubeflow file whose batch is still filling wait for it (they
    were handed on first: the results cache then paired results with the wrong files)."""
    tree = tmp_path / "mixed"
    tree.mkdir()
    cases = sorted(FIXTURES.glob("*/*.in.yaml"))
    for index in range(90):
        path = tree / f"{index:03d}.yaml"
        if index % every == 0:
            shutil.copy(cases[index % len(cases)], path)
        else:
            path.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{index}}}\n")
    found = [(str(path), path.name) for path in sorted(tree.iterdir())]
    results = list(parallel.run(iter(found), ConvertOptions(), 2, False, 10**7, False, False))
    assert [f.name for f in results] == [name for name, _ in found]
    serial = list(pipeline.process_paths(("mixed",), ConvertOptions(), jobs=1, found=found,
                                         render=False, keep_text=False))
    assert _texts(results) == _texts([f.slim() for f in serial])


@pytest.mark.parametrize("delay", [0.3, 0.9])
def test_ctrl_c_ends_a_parallel_run_and_all_its_processes(tmp_path: Path, delay: float) -> None:
    """Ctrl-C (SIGINT to the process group) at some moment of a -j 2 run: it ends (exit 130,
    or done), and no process of it is left (R-J1: one in four such runs hung)."""
    import subprocess
    import sys

    from tests.goldens import ROOT

    _tree(tmp_path, count=120)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINJOB_MIGRATE_NO_CACHE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "migrator", "convert", "many", "-o", "out",
                             "-q", "-j", "2"], cwd=tmp_path, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=60) in (0, 1, 130)
    for _ in range(200):  # the workers finish the batch in hand (its writes are whole)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("processes of the run are left")
