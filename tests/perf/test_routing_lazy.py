"""The router decides without loading the readers (issue 18: a warm or hook-style check of
ordinary files imports nearly nothing), and decides exactly as the readers would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from migrator.convert import filekinds, kustomization, routing
from migrator.load import textscan
from tests.goldens import ROOT


def test_the_routers_constants_are_the_readers() -> None:
    assert filekinds.SHELL_SUFFIXES == textscan.SHELL_SUFFIXES
    assert filekinds.SNAPSHOT_SUFFIXES == textscan.SNAPSHOT_SUFFIXES


def _reference(name: str) -> bool:
    """The routing decision as the readers make it (the router's former code)."""
    return name.lower().endswith(routing.SUFFIXES) or kustomization.is_kustomization(name) or (
        name.lower().endswith((".yaml", ".yml", ".json")) and kustomization.owner(name)
        is not None)


def test_handles_decides_as_the_readers(tmp_path: Path) -> None:
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(
        "resources: [job.yaml]\npatches:\n  - path: patch.yaml\n", encoding="utf-8")
    plain = tmp_path / "plain"
    plain.mkdir()
    names = [overlay / n for n in ("kustomization.yaml", "patch.yaml", "job.yaml", "x.json",
                                   "README.md", "run.sh", "a.snap")]
    names += [plain / n for n in ("job.yaml", "Kustomization", "x.yml", "notes.MD")]
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        relative = ["overlay/patch.yaml", "plain/job.yaml", "job.yaml", "kustomization.yml"]
        for name in [*map(str, names), *relative]:
            assert routing.handles(name) == _reference(name), name
            with routing.run_of((str(tmp_path),), [(name, name)]):
                assert routing.handles(name) == _reference(name), name
    finally:
        os.chdir(cwd)
    assert routing.handles(str(overlay / "patch.yaml"))
    assert not routing.handles(str(plain / "job.yaml"))


def test_kustomize_first_picks_the_same_files(tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("patches:\n  - path: p.yaml\n",
                                                 encoding="utf-8")
    found = [(str(tmp_path / n), n) for n in ("a.yaml", "kustomization.yaml", "p.yaml")]
    first, rest = routing.kustomize_first(found)
    assert [n for _, n in first] == ["kustomization.yaml", "p.yaml"]
    assert [n for _, n in rest] == ["a.yaml"]
    assert routing.kustomize_first(found[:1]) == ([], found[:1])


def test_routing_an_ordinary_file_loads_no_reader(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    probe = ("import sys\nfrom migrator.convert import routing\n"
             f"names = [({str(tmp_path / 'a.yaml')!r}, 'a.yaml')]\n"
             f"with routing.run_of(({str(tmp_path)!r},), names):\n"
             "    assert not routing.handles(names[0][0])\n"
             "print(sorted(m for m in sys.modules if m.startswith(('migrator.convert.kustom', "
             "'migrator.convert.markdown', 'migrator.convert.shell', 'migrator.load.textscan'))))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout.strip().splitlines()[-1:] == ["[]"], proc.stdout + proc.stderr


def test_split_is_os_path_split_for_folders() -> None:
    for name in ("/m.yaml", "a/b.yaml", "b.yaml", "a/b/c.yml", "./x.yaml"):
        folder, base = routing.split(name)
        assert (os.path.normpath(folder or "."), base) == \
            (os.path.normpath(os.path.split(name)[0] or "."), os.path.split(name)[1])


class _Counted(list[tuple[str, str]]):
    """A file list that counts how often it is iterated."""

    iterations = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.iterations += 1
        return super().__iter__()


def test_a_run_is_not_listed_until_a_kustomization_is_met(tmp_path: Path) -> None:
    plain, overlay = tmp_path / "plain", tmp_path / "overlay"
    plain.mkdir()
    overlay.mkdir()
    (plain / "a.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    (overlay / "kustomization.yaml").write_text("resources: [job.yaml]\n", encoding="utf-8")
    (overlay / "job.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    found = _Counted([(str(plain / "a.yaml"), "a.yaml"),
                      (str(overlay / "kustomization.yaml"), "kustomization.yaml")])
    with routing.run_of((str(tmp_path),), found):
        assert not routing.handles(found[0][0])
        assert found.iterations == 0  # an ordinary file: the run is not read
        assert routing.handles(found[1][0])  # the first kustomization hands the run over
        assert kustomization._CONTEXT.roots  # the reader knows the named folders now
    assert kustomization._CONTEXT.roots == ()  # and forgets them after the run
