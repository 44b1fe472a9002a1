"""Hostile and broken input files, each in a real batch next to a good file.

For every case: one clear line naming the file (with line:column where there is one), the
documented exit code, no traceback, the input untouched, and the good file of the same batch
still converted.
"""

from __future__ import annotations

import codecs
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.goldens import FIXTURES, ROOT

GOOD = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text()
HEAD = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: bad\n"
JOB = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text()
BOMB = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: bomb}\n"
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
                  f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
                  f"*{chr(97 + i)}]\n" for i in range(8)))
DEEP = HEAD + "spec: " + "[" * 5000 + "]" * 5000 + "\n"
LIVE = JOB.replace("metadata:\n  name: minimal\n", (
    "metadata:\n  name: minimal\n  uid: 0b6e\n  resourceVersion: '42'\n"
    "  managedFields:\n    - manager: kubectl\n      operation: Update\n"
    "  ownerReferences:\n    - {apiVersion: v1, kind: Pod, name: p, uid: u}\n")) + \
    "status:\n  conditions:\n    - {type: Succeeded, status: 'True'}\n"

CASES = [
    # (id, content, exit code, text expected on stderr)
    ("bad-indentation", HEAD + "spec:\n  a: 1\n   b: 2\n", 1, "bad.yaml:7:"),
    ("unclosed-flow", HEAD + "spec: {pytorchReplicaSpecs: [\n", 1, "Y101"),
    ("tabs", HEAD + "spec:\n\tpytorchReplicaSpecs: {}\n", 1, "bad.yaml:6:1: error Y101"),
    ("duplicate-keys", HEAD + "spec: {}\nspec: {}\n", 1, "duplicate"),
    ("latin-1", ("# caf\xe9\n" + JOB).encode("latin-1"), 2, "not valid UTF-8"),
    ("alias-bomb", BOMB, 1, "Y104"),
    ("deep-nesting", DEEP, 1, "Y104"),
    ("binary", b"\x00\x01\x02kubeflow.org\x00", 2, "binary file"),
    ("empty", "", 0, ""),
    ("comments-only", "# nothing here\n# kind: PyTorchJob\n", 0, ""),
    ("dashes-only", "---\n---\n", 0, ""),
    ("replicas-two", JOB.replace("replicas: 2", "replicas: two"), 1, "K103"),
    ("containers-mapping", JOB.replace("containers:\n            - name: pytorch",
                                       "containers:\n              name: pytorch"), 1, "K103"),
    ("env-string", JOB.replace("image: registry", "env: FOO=1\n              image: registry"),
     1, "K103"),
    ("no-containers", HEAD + "spec:\n  pytorchReplicaSpecs:\n    Worker:\n      template:\n"
     "        spec: {containers: []}\n", 1, "K103"),
    ("no-replica-specs", HEAD + "spec: {}\n", 1, "K103"),
    ("unknown-replica-type", JOB.replace("Worker:", "Boss:"), 1, "unknown replica type"),
    ("negative-replicas", JOB.replace("replicas: 2", "replicas: -3"), 1, "K103"),
]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(("content", "code", "expected"),
                         [pytest.param(c, e, t, id=i) for i, c, e, t in CASES])
def test_bad_file_in_a_batch(tmp_path: Path, content: str | bytes, code: int,
                             expected: str) -> None:
    bad = tmp_path / "bad.yaml"
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content, encoding="utf-8")
    before = bad.read_bytes()
    (tmp_path / "good.yaml").write_text(GOOD)
    proc = _run("convert", "bad.yaml", "good.yaml", "-o", "out", cwd=tmp_path)
    assert proc.returncode == max(code, 0), proc.stderr
    assert "Traceback" not in proc.stderr
    assert expected in proc.stderr
    assert bad.read_bytes() == before
    assert not (tmp_path / "out" / "bad.yaml").exists()
    assert "kind: TrainJob" in (tmp_path / "out" / "good.yaml").read_text()
    in_place = _run("convert", "--in-place", "bad.yaml", cwd=tmp_path)
    assert in_place.returncode == code
    assert bad.read_bytes() == before


def test_alias_bomb_is_bounded_in_time_and_memory(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(BOMB)
    assert len(BOMB) < 1200
    code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], "
            "capture_output=True); print(p.returncode, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "migrator",
                          "convert", "bomb.yaml"], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    elapsed = time.monotonic() - started
    returncode, peak_kib = (int(x) for x in out.stdout.split())
    assert returncode == 1
    assert elapsed < 10
    assert peak_kib < 300 * 1024  # far from the gigabytes a naive expansion would take
    assert resource  # POSIX


def test_huge_file_is_refused_with_a_configurable_cap(tmp_path: Path) -> None:
    huge = tmp_path / "huge.yaml"
    with huge.open("w") as handle:
        handle.write(JOB)
        handle.write("# " + "x" * 1000 + "\n" * 1)
        for _ in range(11 * 1024):
            handle.write("# " + "x" * 1021 + "\n")
    proc = _run("check", "huge.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "huge.yaml: error Y102" in proc.stdout + proc.stderr
    assert "larger than" in proc.stdout + proc.stderr
    assert _run("check", "huge.yaml", "--max-file-size", str(20 * 1024 * 1024),
                cwd=tmp_path).returncode == 1


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16-le", "utf-16-be"])
def test_bom_and_utf16_are_kept(tmp_path: Path, encoding: str) -> None:
    boms = {"utf-8-sig": b"", "utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}
    data = boms[encoding] + GOOD.replace("\n", "\r\n").encode(encoding)
    (tmp_path / "job.yaml").write_bytes(data)
    proc = _run("convert", "--in-place", "job.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    written = (tmp_path / "job.yaml").read_bytes()
    mark = codecs.BOM_UTF8 if encoding == "utf-8-sig" else boms[encoding]
    assert written.startswith(mark)
    text = written[len(mark):].decode(encoding.replace("-sig", ""))
    assert "kind: TrainJob\r\n" in text
    assert "\n" not in text.replace("\r\n", "")


def test_live_object_export_is_cleaned_with_findings(tmp_path: Path) -> None:
    (tmp_path / "live.yaml").write_text(LIVE)
    proc = _run("convert", "live.yaml", "-v", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for code in ("M104", "M105", "M106", "K107"):  # K107: applying it trains again
        assert code in proc.stderr
    for field in ("uid:", "resourceVersion", "managedFields", "ownerReferences", "status:"):
        assert field not in proc.stdout
