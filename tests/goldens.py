"""Golden fixture discovery and rendering, shared by the tests and scripts/regen_fixtures.py.

fixtures/<kind>/<case>.in.yaml is the input; a first line ``# options: key=value ...`` sets
ConvertOptions for the case (e.g. ``companion_runtimes=true runtime=my-mpi``). For each
target T:
  <case>.vT.out.yaml       the converted stream (for 2.3 only when it differs from 2.2)
  <case>.vT.findings.txt   one line per finding: CODE severity path
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from migrator import convert_text
from migrator.results import TextResult

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
TARGETS = ("2.2", "2.3")


def cases() -> list[Path]:
    return sorted(FIXTURES.glob("*/*.in.yaml"))


def options(text: str) -> dict[str, Any]:
    """The ConvertOptions keyword arguments named on the case's ``# options:`` line."""
    first = text.split("\n", 1)[0]
    if not first.startswith("# options:"):
        return {}
    values: dict[str, Any] = {}
    for pair in first[len("# options:"):].split():
        key, _, value = pair.partition("=")
        values[key] = {"true": True, "false": False}.get(value, value)
    return values


def convert(case: Path, target: str = "2.2") -> TextResult:
    """Convert a fixture input with the options its ``# options:`` line names."""
    text = case.read_text(encoding="utf-8")
    return convert_text(text, target=target, **options(text))


def render(case: Path, target: str) -> tuple[str, str]:
    result = convert(case, target)
    lines = [f"{f.code} {f.severity.value} {f.path}" for f in result.findings]
    return result.text, "".join(f"{line}\n" for line in lines)


def golden_paths(case: Path, target: str) -> tuple[Path, Path]:
    stem = case.name[: -len(".in.yaml")]
    return (case.with_name(f"{stem}.v{target}.out.yaml"),
            case.with_name(f"{stem}.v{target}.findings.txt"))


def expected(case: Path, target: str) -> tuple[str, str]:
    """Golden text and findings for ``target``; 2.3 falls back to the 2.2 goldens."""
    out, findings = golden_paths(case, target)
    base_out, base_findings = golden_paths(case, TARGETS[0])
    out = out if out.exists() else base_out
    findings = findings if findings.exists() else base_findings
    return out.read_text(encoding="utf-8"), findings.read_text(encoding="utf-8")


def regenerate() -> list[Path]:
    written = []
    for case in cases():
        base = render(case, TARGETS[0])
        for target in TARGETS:
            text, findings = render(case, target)
            out, found = golden_paths(case, target)
            if target != TARGETS[0]:
                for path, value, base_value in ((out, text, base[0]), (found, findings, base[1])):
                    if value == base_value:
                        path.unlink(missing_ok=True)
                    else:
                        path.write_text(value, encoding="utf-8")
                        written.append(path)
                continue
            out.write_text(text, encoding="utf-8")
            found.write_text(findings, encoding="utf-8")
            written += [out, found]
    return written
