"""Issue 12 item 5: nothing is written through a link that is already in the ``-o`` tree.

A file link, a dangling link or a folder link below the output folder is never followed:
the run refuses that one output (Y106, exit 2), writes the others, and changes nothing
outside the output folder. The output folder itself may be a link (the user named it).
"""

from __future__ import annotations

import os
import string
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from migrator.cli import main
from tests.security.support import JOB, converted, run, said, tree


def _layout(base: Path) -> tuple[Path, Path, Path]:
    source, out, outside = base / "in", base / "out", base / "outside"
    for folder in (source / "sub" / "deeper", out / "real", outside):
        folder.mkdir(parents=True)
    for name in ("file.yaml", "dangling.yaml", "good.yaml", "sub/b.yaml", "real/deeper/c.yaml",
                 "real/d.yaml"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(JOB)
    (outside / "victim").write_text("precious\n")
    (out / "file.yaml").symlink_to(outside / "victim")
    (out / "dangling.yaml").symlink_to(outside / "created")
    (out / "sub").symlink_to(outside, target_is_directory=True)
    (out / "real" / "deeper").symlink_to(outside, target_is_directory=True)
    (out / "real" / "d.yaml").symlink_to("../../outside/victim")
    return source, out, outside


def test_links_in_the_output_tree_are_never_followed(tmp_path: Path) -> None:
    _, out, outside = _layout(tmp_path)
    before = tree(outside)
    links = {k: v for k, v in tree(out).items() if isinstance(v, str) and v.startswith("->")}
    proc = run(["convert", "in", "-o", "out"], cwd=tmp_path)
    assert tree(outside) == before, "a file outside the output folder changed"
    assert proc.returncode == 2, said(proc)
    assert "Traceback" not in said(proc)
    for name in ("file.yaml", "dangling.yaml", "sub/b.yaml", "real/deeper/c.yaml", "real/d.yaml"):
        assert f"{name}: error Y106" in said(proc), said(proc)
    assert (out / "good.yaml").read_text() == converted()
    after = tree(out)
    for name, link in links.items():
        assert after[name] == link  # refused, not replaced
    assert not any(n.endswith(".tmp") or "/." in "/" + n for n in after if n not in links)


def test_the_output_folder_itself_may_be_a_link(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "job.yaml").write_text(JOB)
    (tmp_path / "real-out").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real-out", target_is_directory=True)
    proc = run(["convert", "in", "-o", "out"], cwd=tmp_path)
    assert proc.returncode == 0, said(proc)
    assert (tmp_path / "real-out" / "job.yaml").read_text() == converted()


# Hostile names: spaces, dashes, unicode, dots, newlines; never "/" or NUL (impossible).
_NAME = st.text(string.ascii_letters + string.digits + " -_.:;'\"$*?[]{}\\\n\tåß😀",
                min_size=1, max_size=12).filter(lambda n: n not in (".", "..")
                                                 and len(n.encode()) < 200)
_KIND = st.sampled_from(["file-link", "dangling-link", "dir-link", "none"])


_FOLDER = _NAME.filter(lambda n: not n.startswith("."))  # hidden folders are not walked


@given(entries=st.lists(st.tuples(st.lists(_FOLDER, min_size=0, max_size=3), _NAME, _KIND),
                        min_size=1, max_size=6))
def test_hostile_names_and_links_never_escape_the_output_tree(
        entries: list[tuple[list[str], str, str]]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        source, out, outside = base / "in", base / "out", base / "outside"
        for folder in (source, out, outside):
            folder.mkdir()
        (outside / "victim").write_text("precious\n")
        planted: dict[Path, str] = {}
        for folders, name, kind in entries:
            target = source.joinpath(*folders, name + ".yaml")
            if any(p.exists() and not p.is_dir() for p in target.parents) or target.is_dir():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(JOB)
            mirror = out.joinpath(*folders, name + ".yaml")
            if kind == "none" or os.path.lexists(mirror) or \
                    any(os.path.lexists(p) and not p.is_dir() for p in mirror.parents):
                continue
            mirror.parent.mkdir(parents=True, exist_ok=True)
            link_at = mirror if kind != "dir-link" or not folders else out.joinpath(*folders)
            if os.path.lexists(link_at):
                continue
            if kind == "dir-link" and folders:
                shutil_free_rmdirs(link_at, out)
                link_at.symlink_to(outside, target_is_directory=True)
            elif kind == "dangling-link":
                link_at.symlink_to(outside / "created-by-the-tool")
            else:
                link_at.symlink_to(outside / "victim")
            planted[link_at] = os.readlink(link_at)
        before = tree(outside)
        result = CliRunner().invoke(main, ["convert", str(source), "-o", str(out), "-j", "1",
                                           "-q"])
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            result.output
        assert tree(outside) == before
        for link, pointing in planted.items():
            assert os.readlink(link) == pointing
        assert result.exit_code == (2 if planted else 0), result.output
        for dirpath, _, filenames in os.walk(out):
            for name in filenames:
                path = Path(dirpath, name)
                if path not in planted:
                    assert not path.is_symlink()
                    assert path.read_text() == converted(), path


def shutil_free_rmdirs(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its empty parents up to ``stop`` (so a link can take its place)."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
