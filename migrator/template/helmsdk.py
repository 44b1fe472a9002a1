"""Template stage: ``helm template`` without a helm binary, through the helm-python-sdk extra.

Run as ``python -m migrator.template.helmsdk CHART`` (a child process, so the caller keeps its
timeout): prints the chart rendered with its own values, like ``helm template``.
"""

from __future__ import annotations

import sys


def available() -> bool:
    """Whether the optional ``helm_python`` package (``trainjob-migrator[helm]``) is installed."""
    import importlib.util

    return importlib.util.find_spec("helm_python") is not None


def command(chart: str) -> list[str]:
    return [sys.executable, "-m", "migrator.template.helmsdk", "--", chart]


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
