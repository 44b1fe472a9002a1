"""Golden fixtures for files that are not YAML streams (Markdown pages, shell scripts, test
snapshots): fixtures/<folder>/<case>.in.<ext> against <case>.v<T>.out.<ext> and
<case>.v<T>.findings.txt (one line per finding: CODE severity line path). 2.3 falls back to
the 2.2 goldens. Regenerate with ``python -m tests.embedded.goldens`` and review the diff.
(fixtures/<folder>/<case>.in.yaml cases are YAML and belong to tests/goldens.py.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from migrator.convert import routing as files
from migrator.results import TextResult
from migrator.settings import ConvertOptions
from tests import goldens

FIXTURES = goldens.FIXTURES
TARGETS = goldens.TARGETS


def cases() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*/*.in.*")
                  if files.handles(p.name) and not p.name.endswith(".yaml"))


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # keeps CRLF


def convert(case: Path, target: str = "2.2") -> TextResult:
    text = read(case)
    values: dict[str, Any] = goldens.options(text)
    result = files.convert(case.name, text, ConvertOptions(target=target, **values))
    assert result is not None
    return result


def render(case: Path, target: str) -> tuple[str, str]:
    result = convert(case, target)
    lines = [f"{f.code} {f.severity.value} {f.line} {f.path}".rstrip()
             for f in result.findings]
    return result.text, "".join(f"{line}\n" for line in lines)


def golden_paths(case: Path, target: str) -> tuple[Path, Path]:
    stem, _, ext = case.name.partition(".in.")
    return (case.with_name(f"{stem}.v{target}.out.{ext}"),
            case.with_name(f"{stem}.v{target}.findings.txt"))


def expected(case: Path, target: str) -> tuple[str, str]:
    out, found = golden_paths(case, target)
    base_out, base_found = golden_paths(case, TARGETS[0])
    out = out if out.exists() else base_out
    found = found if found.exists() else base_found
    return read(out), read(found)


def regenerate() -> list[Path]:
    written = []
    for case in cases():
        base = render(case, TARGETS[0])
        for target in TARGETS:
            text, findings = render(case, target)
            out, found = golden_paths(case, target)
            if target != TARGETS[0] and (text, findings) == base:
                out.unlink(missing_ok=True)
                found.unlink(missing_ok=True)
                continue
            out.write_bytes(text.encode("utf-8"))
            found.write_bytes(findings.encode("utf-8"))
            written += [out, found]
    return written


if __name__ == "__main__":
    for path in regenerate():
        print(path)
