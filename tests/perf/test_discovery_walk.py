"""BATCH discovery: the walk lists each folder once with ``os.scandir`` and makes no system
call per file; it selects the same files, in the same order, as the ``os.walk`` form it
replaced (kept below as the reference): hidden folders, folder and file links (inside and
out), nested .gitignore files, include/exclude globs, overlapping and explicit paths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from migrator.batch import discovery
from migrator.batch.discovery import Selection


def _reference_walk(root: Path, selection: Selection,
                    globs: Any) -> Iterator[tuple[str, str, str]]:
    """The walk of session 5 (os.walk, a realpath per folder, an lstat per file)."""
    ignores = discovery._IgnoreStack(root) if selection.gitignore else None
    base = os.path.abspath(root)
    inside = os.path.join(os.path.realpath(root), "")
    cwd = os.getcwd()
    for dirpath, dirnames, filenames in os.walk(root):
        real = os.path.realpath(dirpath)
        rel_dir = os.path.relpath(dirpath, root)
        key = discovery._key_of(os.path.normpath(os.path.join(base, rel_dir)), cwd)
        if ignores is not None:
            ignores.enter(real)
        kept = []
        for name in sorted(dirnames):
            if name.startswith(".") or globs.excluded(discovery._join(key, name) + "/") or \
                    (ignores is not None and ignores.ignored(real, name, directory=True)):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not (globs.wanted(discovery._join(key, name), name) if globs.any else
                    name.endswith(discovery.YAML_SUFFIXES)):
                continue
            if ignores is not None and ignores.ignored(real, name, directory=False):
                continue
            path = os.path.join(dirpath, name)
            if os.path.islink(path) and not os.path.realpath(path).startswith(inside):
                continue
            yield dirpath, name, name if rel_dir == "." else os.path.join(rel_dir, name)


def _reference(paths: tuple[str, ...], selection: Selection) -> list[tuple[str, str]]:
    globs = discovery._Globs(selection)
    seen: set[str] = set()
    found = []
    for position, given in enumerate(paths):
        remember = position < len(paths) - 1
        root = Path(given)
        walking = root.is_dir()
        items = _reference_walk(root, selection, globs) if walking else \
            iter([(os.path.dirname(str(root)) or ".", root.name,
                   discovery._relative_for_file(root))])
        # among other paths, a folder keeps its own place below an output folder
        placed = discovery._relative_for_file(root) if walking and len(paths) > 1 else "."
        for folder, name, relative in items:
            if placed != ".":
                relative = os.path.join(placed, relative)
            key = os.path.join(os.path.realpath(folder), name)
            if key in seen or (selection.only is not None and key not in selection.only):
                continue
            if not walking and globs.excluded(discovery._key(root)):
                continue
            if remember:
                seen.add(key)
            found.append((os.path.join(folder, name) if walking else str(root), relative))
    return found


def _tree(top: Path) -> Path:
    repo = top / "repo"
    for folder in ("a/b/c", "a/d", "b", ".hidden/x", "build/out", "z/deep/er", "e m p t y"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
    for index, file in enumerate(("a/one.yaml", "a/b/two.yml", "a/b/c/three.yaml",
                                  "a/d/skip.txt", "a/d/four.yaml", "b/five.yaml",
                                  ".hidden/x/six.yaml", "build/out/seven.yaml",
                                  "z/deep/er/eight.yaml", "z/gen.yaml", "top.yaml",
                                  "e m p t y/nine.yaml", "a/b/keep.gen.yaml")):
        (repo / file).write_text(f"kind: ConfigMap # {index}\n", encoding="utf-8")
    (repo / ".git").mkdir()
    (repo / ".gitignore").write_text("build/\n*.gen.yaml\n!keep.gen.yaml\n", encoding="utf-8")
    (repo / "z" / ".gitignore").write_text("gen.yaml\n", encoding="utf-8")
    (repo / "a" / "b" / ".gitignore").write_text("c/\n", encoding="utf-8")
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("kind: Secret\n", encoding="utf-8")
    (repo / "leak.yaml").symlink_to(outside / "secret.yaml")
    (repo / "a" / "alias.yaml").symlink_to("one.yaml")
    (repo / "a" / "dangling.yaml").symlink_to("nowhere.yaml")
    (repo / "linked").symlink_to(outside, target_is_directory=True)
    (repo / "a" / "up").symlink_to(repo / "b", target_is_directory=True)
    return repo


@pytest.mark.parametrize("selection", [
    Selection(), Selection(gitignore=False), Selection(include=("**/*.yaml", "*.yml")),
    Selection(exclude=("a/b/",)), Selection(include=("z/**",), exclude=("*.gen.yaml",)),
    Selection(exclude=("top.yaml",), gitignore=False)], ids=str)
def test_the_walk_selects_what_the_os_walk_form_did(tmp_path: Path, selection: Selection,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _tree(tmp_path)
    monkeypatch.chdir(repo)
    for paths in ((".",), (str(repo),), ("a", "."), (".", "a"), ("a/", "a/one.yaml"),
                  ("a/one.yaml", "a"), ("top.yaml",), ("./a/../b",), ("linked",),
                  ("a/up", "b"), ("z/gen.yaml", "z"), (str(repo / "a" / "b"),)):
        expected = _reference(paths, selection)
        assert list(discovery.discover(paths, selection)) == expected, paths
    only = frozenset({os.path.realpath(repo / "a" / "one.yaml"),
                      os.path.realpath(repo / "b" / "five.yaml")})
    narrowed = Selection(selection.include, selection.exclude, selection.gitignore, "HEAD",
                         only)
    assert list(discovery.discover((".",), narrowed)) == _reference((".",), narrowed)


def test_the_walk_asks_nothing_per_file(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _tree(tmp_path)
    for index in range(50):
        (repo / "b" / f"m{index}.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    calls: list[str] = []
    for name in ("stat", "lstat"):
        real = getattr(os, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, counted)
    found = list(discovery.discover((str(repo),), Selection(gitignore=False)))
    assert len(found) > 50
    assert len(calls) < 40  # folders and links only (the os.walk form: > 100)


def test_a_removed_working_directory_is_no_error(tmp_path: Path) -> None:
    """R-W7: with the working directory removed while the run starts, discovery sees paths as
    given (globs match absolute ones as outside it) instead of raising."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    gone = tmp_path / "gone"
    gone.mkdir()
    before = os.getcwd()
    os.chdir(gone)
    gone.rmdir()
    try:
        assert [r for _, r in discovery.discover((str(tree),))] == ["a.yaml"]
        assert [n for n, _ in discovery.discover((str(tree / "a.yaml"),))] == \
            [str(tree / "a.yaml")]
        assert [n for n, _ in discovery.discover(("rel.yaml",))] == ["rel.yaml"]
        excluded = Selection(exclude=(f"{tree.as_posix()}/a.yaml",))
        assert list(discovery.discover((str(tree),), excluded)) == []
        assert list(discovery.discover((str(tree / "a.yaml"),), excluded)) == []
    finally:
        os.chdir(before)
