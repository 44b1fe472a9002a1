#!/usr/bin/env python3
"""Rewrite the finding-code table in README.md from mappings/codes.yaml."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from migrator.knowledge.catalog import load  # noqa: E402

MARKER = "<!-- generated from mappings/codes.yaml; tests check that every code is listed -->"


def table() -> str:
    rows = ["| code | name | severity | summary |", "|---|---|---|---|"]
    rows += [f"| {code} | {doc.name} | {doc.severity} | {doc.summary} |"
             for code, doc in sorted(load().codes.items())]
    return "\n".join(rows) + "\n"


def main() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    head, _, rest = text.partition(MARKER + "\n")
    if not rest:
        raise SystemExit("README.md has no code-table marker")
    lines = rest.splitlines(keepends=True)
    end = next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))
    readme.write_text(head + MARKER + "\n" + table() + "".join(lines[end:]), encoding="utf-8")


if __name__ == "__main__":
    main()
