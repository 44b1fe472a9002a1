"""The template contract: render(convert(T), V) == convert(render(T, V)), same findings."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from migrator import convert_text
from migrator.template import Outcome, convert_template

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "charts"
# the Y112 of a replica count that must render a whole number >= 1 (0 or a word: legacy)
COUNT_GUARD = "must render a whole number of at least 1"
LEGACY = ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob")


def parse(text: str) -> list[Any]:
    return [d for d in YAML(typ="safe", pure=True).load_all(text) if d is not None]


def finding_keys(findings: Any) -> set[tuple[str, str]]:
    return {(f.code, f.path) for f in findings}


@dataclass
class Verdict:
    ok: bool
    problems: list[str] = field(default_factory=list)
    direct: str = ""  # convert(render(T, V))


def compare(converted_then_rendered: str, rendered: str, outcome: Outcome,
            options: Any = None) -> Verdict:
    """Objects equal; every finding of the rendered job is one of the template's findings."""
    direct = convert_text(rendered, options=options)
    problems = []
    want, got = parse(direct.text), parse(converted_then_rendered)
    if want != got:
        problems.append(f"objects differ:\n--- convert(render)\n{direct.text}\n"
                        f"--- render(convert)\n{converted_then_rendered}")
    template_keys = {(n.code, n.path) for n in outcome.notes}
    for code, path in sorted(finding_keys(direct.findings) - template_keys):
        if "{{" in path or "$" in path:
            continue
        if any(path == v or path.startswith((v + ".", v + "["))
               or v.startswith((path + ".", path + "[")) for v in outcome.value_paths):
            continue  # judged on the rendered value (the template says so, Y113)
        if not any("{{" in p or "$" in p for c, p in template_keys if c == code):
            problems.append(f"finding {code} at {path} of the rendered job is not reported for "
                            "the template")
    return Verdict(not problems, problems, direct.text)


def render_chart(chart: Path, values: dict[str, Any], replace: dict[str, str] | None = None
                 ) -> dict[str, str]:
    """Render ``chart`` (a temporary copy with ``replace`` applied when given) with helm_python."""
    import helm_python

    if not replace and (chart / "templates").is_dir():
        return dict(helm_python.Chart.load(str(chart)).render(values, name="rel",
                                                              namespace="team"))
    with tempfile.TemporaryDirectory(prefix="tjm-chart-") as tmp:
        copy = Path(tmp) / chart.name
        shutil.copytree(chart, copy)
        if not (chart / "templates").is_dir():
            # NeMo launcher charts keep their templates next to Chart.yaml (the launcher moves
            # them at run time): render them as the launcher does, from templates/
            (copy / "templates").mkdir()
            for path in template_files(chart):
                (copy / path.name).rename(copy / "templates" / path.name)
        for rel, text in (replace or {}).items():
            (copy / rel).write_text(text, encoding="utf-8")
        return dict(helm_python.Chart.load(str(copy)).render(values, name="rel",
                                                             namespace="team"))


def template_files(chart: Path) -> list[Path]:
    if (chart / "templates").is_dir():
        return sorted((chart / "templates").glob("*.yaml"))
    return sorted(p for p in chart.glob("*.yaml") if p.name not in ("Chart.yaml", "values.yaml"))


def legacy_templates(chart: Path) -> list[Path]:
    out = []
    for path in template_files(chart):
        text = path.read_text(encoding="utf-8")
        if any(f"kind: {k}" in text or f'kind: "{k}"' in text for k in LEGACY):
            out.append(path)
    return out


def value_sets(name: str, base: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any]]]:
    sets = []
    for path in sorted((FIXTURES / name).glob("values-*.yaml")):
        values = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8")) or {}
        sets.append((path.name, {**(base or {}), **values}))
    return sets


def envsubst(text: str, env: dict[str, str]) -> str:
    """GNU envsubst: $VAR and ${VAR} become the variable's value, or nothing when unset."""
    import re

    return re.sub(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))",
                  lambda m: env.get(m.group(1) or m.group(2), ""), text)


def convert_template_text(text: str, options: Any = None) -> Outcome | None:
    return convert_template(text, options=options)


_CRDS: dict[Path, Any] = {}


def crd_problems(crdcheck: Any, shared: Path, text: str, target: str) -> list[str]:
    """Strict upstream-CRD problems of the Trainer objects in a rendered stream."""
    found = []
    for crd in sorted((shared / "crds" / f"trainer-v{target}.0").glob("*.yaml")):
        if crd not in _CRDS:  # compiling a CRD's schema takes seconds: once per session
            _CRDS[crd] = crdcheck.load_crd(crd)
        kind, api, validator = _CRDS[crd]
        for doc in parse(text):
            if isinstance(doc, dict) and doc.get("kind") == kind:
                found.extend(crdcheck.problems(doc, kind, api, validator))
    return found


def check_inline_chart(tmp: Path, template: str, sets: dict[str, dict[str, Any]],
                       crdcheck: Any, shared: Path, options: Any = None,
                       targets: tuple[str, ...] = ("2.2", "2.3")) -> dict[str, Outcome]:
    """Convert ``template`` (a chart of one template) for every target, render it and the
    original with each values set (helm_python), and hold the contract: objects equal,
    findings accounted for, the rendered Trainer objects CRD-valid on the target. The
    outcome per target."""
    from migrator import ConvertOptions

    chart = tmp / "chart"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n",
                                      encoding="utf-8")
    outcomes = {}
    for target in targets:
        opts = ConvertOptions(target=target, **(options or {}))
        outcome = convert_template(template, options=opts)
        assert outcome is not None
        assert outcome.status == "converted", [(n.code, n.line, n.message)
                                               for n in outcome.notes]
        outcomes[target] = outcome
        for label, values in sets.items():
            (chart / "templates" / "job.yaml").write_text(template, encoding="utf-8")
            rendered = render_chart(chart, values)["chart/templates/job.yaml"]
            (chart / "templates" / "job.yaml").write_text(outcome.text, encoding="utf-8")
            after = render_chart(chart, values)["chart/templates/job.yaml"]
            verdict = compare(after, rendered, outcome, opts)
            assert verdict.ok, f"{target} {label}:\n" + "\n".join(verdict.problems)
            assert crd_problems(crdcheck, shared, after, target) == [], (target, label, after)
    return outcomes


KEPT = re.compile(r"for values where \{\{ (.*?) \}\} holds the template still emits")


def kept_for(chart: Path, outcome: Outcome, values: dict[str, Any]) -> bool:
    """Whether a Y112 of ``outcome`` names ``values`` (its condition rendered by Helm)."""
    for note in outcome.notes:
        found = KEPT.search(note.message) if note.code == "Y112" else None
        if found is None:
            continue
        (chart / "templates" / "job.yaml").write_text(
            "{{- if " + found.group(1) + " }}kept{{- end }}\n", encoding="utf-8")
        if render_chart(chart, values)["chart/templates/job.yaml"].strip() == "kept":
            return True
    return False


def check_every_combination(tmp: Path, template: str, sets: dict[str, dict[str, Any]],
                            crdcheck: Any, shared: Path, options: Any = None,
                            converts: tuple[str, ...] = ()) -> Outcome:
    """The template converts; for every values set, render(convert(T)) == convert(render(T)),
    or render(convert(T)) is the legacy job rendered, for values a Y112 names (never for the
    sets ``converts`` names)."""
    from migrator import ConvertOptions

    opts = options or ConvertOptions(target="2.2", companion_runtimes=True, allow_lossy=True)
    outcome = convert_template(template, options=opts)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    chart = tmp / "chart"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n",
                                      encoding="utf-8")
    converted = 0
    for label, values in sets.items():
        (chart / "templates" / "job.yaml").write_text(template, encoding="utf-8")
        rendered = render_chart(chart, values)["chart/templates/job.yaml"]
        (chart / "templates" / "job.yaml").write_text(outcome.text, encoding="utf-8")
        after = render_chart(chart, values)["chart/templates/job.yaml"]
        verdict = compare(after, rendered, outcome, opts)
        if verdict.ok:
            converted += parse(after) != parse(rendered)
            assert crd_problems(crdcheck, shared, after, "2.2") == [], (label, after)
            continue
        # the legacy job kept for these values: allowed where a Y112 says so
        assert label not in converts, f"{label}:\n" + "\n".join(verdict.problems)
        assert parse(after) == parse(rendered), f"{label}:\n" + "\n".join(verdict.problems)
        assert kept_for(chart, outcome, values), f"{label}: the legacy job kept, no Y112 says so"
    assert converted, "no values set converts"
    return outcome
