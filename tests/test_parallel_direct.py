"""A warm run's changed files (batch/parallel.py, ``direct``): the first worker is forked by the
main process at the first file to convert and converts while the rest of the tree is matched
against the results cache; the loader starts only when work piles up. Same results as a
serial run, whatever happens to the worker."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from migrator.batch import files, parallel, pipeline
from migrator.results import FileResult
from migrator.settings import ConvertOptions
from tests.goldens import FIXTURES, ROOT
from tests.test_parallel import _no_children_left, dying_once, interrupted_at

_MAIN_PROCESS = os.getpid()


def _tree(tmp_path: Path, count: int, every: int = 1) -> list[tuple[str, str]]:
    tree = tmp_path / "many"
    tree.mkdir()
    cases = sorted(FIXTURES.glob("*/*.in.yaml"))
    for index in range(count):
        path = tree / f"{index:03d}.yaml"
        if index % every == 0:
            shutil.copy(cases[index % len(cases)], path)
        else:
            path.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{index}}}\n")
    return [(str(path), path.name) for path in sorted(tree.iterdir())]


def _texts(results: list[FileResult]) -> list[tuple[str, list[str], list[str]]]:
    return [(f.name, [d.status for d in f.result.documents] if f.result else [],
             [x.code for x in f.findings]) for f in results]


def _serial(found: list[tuple[str, str]]) -> list[FileResult]:
    return [f.slim() for f in pipeline.process_paths(
        ("many",), ConvertOptions(), jobs=1, found=found, render=False, keep_text=False)]


def _direct(found: list[tuple[str, str]]) -> list[FileResult]:
    return list(parallel.run(iter(found), ConvertOptions(), 2, False, 10**7, False, False,
                             direct=True))


def _noting(marker: Path, real: Any) -> Any:
    def noted(*args: Any, **kwargs: Any) -> Any:
        with marker.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    return noted


@pytest.mark.parametrize("every", [1, 4, 13])
def test_a_few_changed_files_are_converted_by_one_worker_without_a_loader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every: int, deadline: None) -> None:
    loader = tmp_path / "loader"
    monkeypatch.setattr(parallel, "_loader", _noting(loader, parallel._loader))
    found = _tree(tmp_path, 26, every)
    results = _direct(found)
    assert [f.name for f in results] == [name for name, _ in found]
    assert _texts(results) == _texts(_serial(found))
    assert not loader.exists()
    assert _no_children_left()


_REAL_BATCH = parallel._process_batch
_SLOW: list[Path] = []


def _slow_first(*args: Any) -> Any:
    """``_process_batch``, one second late in the first worker to take a batch (a job's
    function crosses to the worker by name: it is a module's)."""
    if os.getpid() != _MAIN_PROCESS and not _SLOW[0].exists():
        _SLOW[0].touch()
        time.sleep(1.0)
    return _REAL_BATCH(*args)


def test_work_that_piles_up_starts_the_loader_for_more_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """The direct worker is slow to answer its first batch: the batches waiting reach
    ``AHEAD`` and the loader is started for the other workers; the results are the same."""
    loader = tmp_path / "loader"
    monkeypatch.setattr(parallel, "_loader", _noting(loader, parallel._loader))
    monkeypatch.setattr(parallel, "_process_batch", _slow_first)
    _SLOW[:] = [tmp_path / "slow"]
    found = _tree(tmp_path, 4 * parallel.BATCH * parallel.AHEAD)
    results = _direct(found)
    assert _texts(results) == _texts(_serial(found))
    assert loader.exists()
    assert _no_children_left()


def test_a_direct_worker_that_dies_loses_no_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """Killed (as the out-of-memory killer would) in its first conversion: its files are
    converted again one by one on workers of the loader's, the result is the serial one."""
    marker = tmp_path / "died"
    monkeypatch.setattr(files, "convert_or_audit", dying_once(marker))
    found = _tree(tmp_path, 12)
    results = _direct(found)
    assert marker.exists()
    assert _texts(results) == _texts(_serial(found))
    assert _no_children_left()


def test_workers_end_once_every_job_is_answered_not_after_the_last_result(
        tmp_path: Path, deadline: None) -> None:
    """Once the input has ended and every job is answered, the workers are told to end:
    they exit while this process hands on the results (and the run's end need not wait for
    them). Before, a worker waited for the run's end to be told."""
    found = _tree(tmp_path, 40, 7)
    run = parallel.run(iter(found), ConvertOptions(), 2, False, 10**7, False, False,
                       direct=True)
    results = [next(run) for _ in found]  # every result, the run not ended yet
    ended = 0
    give_up = time.monotonic() + 10
    while not ended and time.monotonic() < give_up:
        ended = os.waitpid(-1, os.WNOHANG)[0]  # a worker that ended (reaped here)
        time.sleep(0.01)
    assert ended, "no worker ended before the run did"
    assert list(run) == []
    assert _texts(results) == _texts(_serial(found))
    assert _no_children_left()


def test_an_interrupted_direct_run_ends_its_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    found = _tree(tmp_path, 30)
    monkeypatch.setattr(files, "settled", interrupted_at(found[20][0]))
    with pytest.raises(KeyboardInterrupt):
        _direct(found)
    assert _no_children_left()


def _check(tree: Path, cache: Path, *extra: str) -> tuple[int, str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINJOB_MIGRATE_CACHE_DIR": str(cache)}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "migrator", "check", ".", *extra],
                          capture_output=True, text=True, check=False, timeout=600, cwd=tree,
                          env=env)
    lines = done.stderr.splitlines()
    if lines and lines[-1].endswith("s)"):  # the summary's timing
        lines[-1] = lines[-1].rsplit(" (", 1)[0]
    return done.returncode, done.stdout, lines


def test_a_warm_check_with_changed_files_reports_what_a_cold_one_does(tmp_path: Path) -> None:
    """The CLI with two jobs: cold, then warm after changing some files (converted by the
    direct worker), against --no-cache."""
    found = _tree(tmp_path, 40, 2)
    tree, cache = tmp_path / "many", tmp_path / "cache"
    first = _check(tree, cache, "-j", "2")
    for name, _ in found[::5]:
        with open(name, "a", encoding="utf-8") as out:
            out.write("# changed\n")
    warm = _check(tree, cache, "-j", "2")
    assert warm == _check(tree, cache, "-j", "2", "--no-cache")
    assert warm == _check(tree, cache, "-j", "1")
    assert first[0] == warm[0]


_REAL_CONVERT = files.convert_or_audit
_DIED: list[Path] = []


def _dying_convert(*args: Any, **kwargs: Any) -> Any:
    """``files.convert_or_audit`` killing the first worker that runs it (a module's
    function: the job of standard input names it, and crosses to the worker by name)."""
    if os.getpid() != _MAIN_PROCESS and not _DIED[0].exists():
        _DIED[0].touch()
        os._exit(9)
    return _REAL_CONVERT(*args, **kwargs)


def test_standard_input_whose_worker_dies_is_converted_on_a_worker_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """The job of standard input (its text crosses to the worker) redone alone after its
    worker died: the result of a serial run (this raised a TypeError: the call's arguments
    were passed as one)."""
    import io

    text = (FIXTURES / "pytorchjob" / "full.in.yaml").read_bytes()
    _DIED[:] = [tmp_path / "died"]
    monkeypatch.setattr(files, "convert_or_audit", _dying_convert)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    results = _direct([("-", "-")])
    assert (tmp_path / "died").exists()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert _texts(results) == _texts(_serial([("-", "-")]))
    assert results[0].result is not None
    assert _no_children_left()


def test_ctrl_c_does_not_wait_for_a_direct_worker_stuck_in_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """A check writes nothing: interrupted, it ends its direct worker at once instead of
    waiting for the file in hand."""
    found = _tree(tmp_path, 30)
    monkeypatch.setattr(parallel, "_process_batch", _stuck_batch)
    # after half a second the worker has its first file
    monkeypatch.setattr(files, "settled", interrupted_at(found[20][0], 0.5))
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _direct(found)
    assert time.monotonic() - started < 20
    assert _no_children_left()


def _stuck_batch(*args: Any) -> Any:
    if os.getpid() != _MAIN_PROCESS:
        time.sleep(60)
    return _REAL_BATCH(*args)


def test_a_warm_check_with_two_jobs_converts_its_changes_direct(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    """The pipeline sends the changed files of a cached tree to a direct run (and a cold
    run, with no results recorded, to the loader)."""
    found = _tree(tmp_path, 20, 2)
    seen: list[bool] = []
    real = parallel.run

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("direct", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel, "run", spy)

    def check() -> list[FileResult]:
        return list(pipeline.process_paths(("many",), ConvertOptions(), jobs=2, found=found,
                                           render=False, keep_text=False))

    time.sleep(2.3)  # the files are no longer racy: their results are recorded
    cold = check()
    check()
    with open(found[0][0], "a", encoding="utf-8") as out:
        out.write("# changed\n")
    warm = check()
    assert seen == [False, True]  # the unchanged run converted nothing
    assert _texts(warm) == _texts(cold)


def _many_jobs(tmp_path: Path, copies: int) -> str:
    """A file of ``copies`` legacy jobs (its slim result is large: findings, sources)."""
    text = (FIXTURES / "pytorchjob" / "full.in.yaml").read_text(encoding="utf-8")
    path = tmp_path / "many-jobs.yaml"
    path.write_text("\n---\n".join([text] * copies), encoding="utf-8")
    return str(path)


def test_standard_input_after_a_large_answer_does_not_deadlock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """A file whose answer fills the pipe back (more than 64 KiB), then standard input of as
    much: the text of standard input waits for the worker to be reading instead of filling
    its pipe while the worker fills the other (both hung, review 11 F1)."""
    import io
    import pickle

    first = _many_jobs(tmp_path, 10)
    task = parallel._Task(ConvertOptions(), False, 10**7, False, False, None)
    answer = pickle.dumps((True, parallel._process_batch([(first, first)], task)), 5)
    assert len(answer) > 1 << 16
    job = (FIXTURES / "xgboostjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    stdin = "\n---\n".join([job] * (2 * (1 << 16) // len(job)))
    assert len(stdin) > 1 << 16
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    results = _direct([(first, first), ("-", "-")])
    assert [f.name for f in results] == [first, "-"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    assert _texts(results) == _texts(_serial([(first, first), ("-", "-")]))
    assert _no_children_left()


def test_ctrl_c_within_a_large_answer_ends_as_an_interruption(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: None) -> None:
    """Ctrl-C lands between two reads of one answer (larger than a pipe delivers at once):
    the run ends with the interruption and its worker; what is left of the answer is read
    as bytes, not as the length of another (a MemoryError, review 11 F2)."""
    first = _many_jobs(tmp_path, 10)
    real, calls = os.readv, [0]

    def readv(descriptor: int, buffers: Any) -> int:
        calls[0] += 1
        if calls[0] == 3:  # the answer's header, its first part, then Ctrl-C
            raise KeyboardInterrupt
        return real(descriptor, buffers)

    monkeypatch.setattr(os, "readv", readv)
    with pytest.raises(KeyboardInterrupt):
        _direct([(first, first)])
    monkeypatch.setattr(os, "readv", real)
    assert calls[0] >= 3
    assert _no_children_left()


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_direct_worker_that_cannot_be_forked_leaves_no_pipe_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def cannot_fork(child: Any) -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(parallel, "_fork", cannot_fork)
    found = _tree(tmp_path, 3)
    before = _open_descriptors()
    for _ in range(3):
        with pytest.raises(OSError, match="unavailable"):
            _direct(found)
    assert _open_descriptors() == before


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_channel_whose_second_pipe_cannot_be_made_leaves_the_first_closed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real, made = os.pipe, [0]

    def second_fails() -> tuple[int, int]:
        made[0] += 1
        if made[0] % 2 == 0:
            raise OSError(24, "Too many open files")
        return real()

    monkeypatch.setattr(os, "pipe", second_fails)
    before = _open_descriptors()
    for _ in range(3):
        with pytest.raises(OSError, match="Too many"):
            parallel._Channel.pipes()
    assert _open_descriptors() == before
