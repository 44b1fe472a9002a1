"""Template stage: ``helm template`` without a helm binary, through the helm-python-sdk extra.

Run as a child process (so the caller keeps its timeout and memory limit), from ``command``:
prints the chart rendered with its own values, like ``helm template``. The child is started
isolated (``python -I``: neither the working folder, the scanned repository nor PYTHONPATH is
on its import path), runs this very file (by its path, so the same migrator as its parent's),
and imports only from the folders the parent found ``helm_python`` and the standard library in.
"""

from __future__ import annotations

import os
import sys

# the child's first lines: its import path, then this file run as the renderer's main
_BOOT = ("import sys; sys.path[:] = [p for p in sys.argv[1].split(sys.argv[2]) if p]; "
         "import importlib.util as u; s = u.spec_from_file_location('_trainjob_helmsdk', "
         "sys.argv[3]); m = u.module_from_spec(s); s.loader.exec_module(m); "
         "sys.exit(m.main(sys.argv[4:]))")


def available() -> bool:
    """Whether the optional ``helm_python`` package (``trainjob-migrator[helm]``) is installed
    (where the child will look: never in the working folder)."""
    import importlib.machinery

    return importlib.machinery.PathFinder.find_spec("helm_python", _path()) is not None


def command(chart: str) -> list[str]:
    """The child that renders ``chart``: ``python -I`` with an explicit import path."""
    return [sys.executable, "-I", "-c", _BOOT, os.pathsep.join(_path()), os.pathsep,
            os.path.abspath(__file__), "--", os.path.abspath(chart)]


def _path() -> list[str]:
    """This process's import path without what the working folder could plant modules in: a
    relative entry (``''`` is the working folder) and the working folder itself."""
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = None
    return [entry for entry in sys.path if entry and os.path.isabs(entry)
            and os.path.realpath(entry) != cwd and os.pathsep not in entry]


def render(chart: str) -> str:
    """Every rendered manifest of ``chart``, as one stream with helm's ``# Source:`` lines."""
    import helm_python

    rendered = helm_python.Chart.load(chart).render(None, name="release-name",
                                                    namespace="default")
    parts = []
    for path in sorted(rendered):
        text = rendered[path]
        if path.endswith("NOTES.txt") or not text.strip():
            continue
        parts.append(f"---\n# Source: {path}\n{text.strip(chr(10))}\n")
    return "".join(parts)


def main(argv: list[str]) -> int:
    args = [a for a in argv if a != "--"]
    if len(args) != 1:
        print("usage: python -m migrator.template.helmsdk CHART", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(render(args[0]))
    except Exception as exc:
        print(f"Error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
