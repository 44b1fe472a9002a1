"""REPORT: unified diffs of what a conversion changes, coloured for terminals."""

from __future__ import annotations

from migrator.report.safety import printable_lines

RED, GREEN, CYAN, BOLD, RESET = "\033[31m", "\033[32m", "\033[36m", "\033[1m", "\033[0m"


def unified(name: str, before: str, after: str, *, color: bool = False) -> str:
    """The unified diff of one file (empty when nothing changed)."""
    if before == after:
        return ""
    import difflib

    lines = list(difflib.unified_diff(before.splitlines(keepends=True),
                                      after.splitlines(keepends=True),
                                      fromfile=f"a/{name}", tofile=f"b/{name}"))
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        # coloured means a terminal: escape sequences from the input are shown, not run
        out.append(_paint(printable_lines(line)) if color else line)
    return "".join(out)


def _paint(line: str) -> str:
    if line.startswith(("+++", "---")):
        return f"{BOLD}{line.rstrip(chr(10))}{RESET}\n"
    if line.startswith("@@"):
        return f"{CYAN}{line.rstrip(chr(10))}{RESET}\n"
    if line.startswith("+"):
        return f"{GREEN}{line.rstrip(chr(10))}{RESET}\n"
    if line.startswith("-"):
        return f"{RED}{line.rstrip(chr(10))}{RESET}\n"
    return line
