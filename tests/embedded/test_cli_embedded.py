"""The CLI over files that hold manifests without being YAML streams of them: Markdown
walked only when --include names it (always when named), shell scripts, kustomize
overlays, cluster dumps on standard input, and `check` over the whole corpus reporting
every legacy job an independent regex finds."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests import goldens

LEGACY = ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob")
JOB = goldens.FIXTURES / "pytorchjob" / "master-worker.in.yaml"
PAGE = goldens.FIXTURES / "markdown" / "snippets.in.md"


def run(*args: str, cwd: Path | None = None, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd, env=env, input=stdin, check=False)


def report(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def files_in(data: dict[str, Any]) -> set[str]:
    return {Path(d["file"]).name for d in data["documents"]}


def test_markdown_is_walked_only_when_included(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    tree.mkdir()
    shutil.copy(JOB, tree / "job.yaml")
    shutil.copy(PAGE, tree / "guide.md")
    run("check", str(tree), "--report", str(tmp_path / "plain.json"))
    assert files_in(report(tmp_path / "plain.json")) == {"job.yaml"}
    done = run("check", str(tree), "--include", "*.yaml", "--include", "*.md",
               "--report", str(tmp_path / "md.json"))
    assert done.returncode == 1
    assert files_in(report(tmp_path / "md.json")) == {"job.yaml", "guide.md"}
    named = run("check", str(tree / "guide.md"))
    assert named.returncode == 1
    assert "guide.md:49" in named.stdout  # the broken snippet's own line in the page


def test_convert_writes_pages_and_scripts_to_the_output_tree(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    tree.mkdir()
    shutil.copy(PAGE, tree / "guide.md")
    shutil.copy(goldens.FIXTURES / "text" / "deploy.in.sh", tree / "deploy.sh")
    out = tmp_path / "out"
    run("convert", str(tree), "--include", "*.md", "--include", "*.sh", "-o", str(out))
    page = (out / "guide.md").read_text(encoding="utf-8")
    assert page == (goldens.FIXTURES / "markdown" / "snippets.v2.2.out.md").read_text(
        encoding="utf-8")
    script = (out / "deploy.sh").read_text(encoding="utf-8")
    assert "kind: TrainJob" in script
    assert "  name: ${JOB_NAME}\n" in script


def test_many_files_in_parallel_still_route_pages(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    tree.mkdir()
    shutil.copy(PAGE, tree / "a-guide.md")
    for number in range(20):
        shutil.copy(JOB, tree / f"job-{number:02}.yaml")
    out = tmp_path / "out"
    run("convert", str(tree), "--include", "*.md", "--include", "*.yaml", "--jobs", "2",
        "-o", str(out))
    assert "kind: TrainJob" in (out / "a-guide.md").read_text(encoding="utf-8")
    assert (out / "a-guide.md").read_text(encoding="utf-8").startswith("---\ntitle:")


def test_live_namespace_recipe_on_standard_input() -> None:
    dump = (goldens.FIXTURES / "dumps" / "kubectl-get.in.yaml").read_text(encoding="utf-8")
    done = run("convert", "-", stdin=dump)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout.count("kind: TrainJob") == 2
    assert "K107" in done.stderr  # the finished job would train again
    running = (goldens.FIXTURES / "dumps" / "running.in.yaml").read_text(encoding="utf-8")
    blocked = run("check", "-", stdin=running)
    assert blocked.returncode == 1
    assert "K108" in blocked.stdout + blocked.stderr


def test_kustomize_overlay_in_an_output_tree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    overlay = goldens.FIXTURES / "kustomize" / "overlay"
    run("convert", str(overlay), "--include", "*.yaml", "-o", str(out))
    kustomization = (out / "dev" / "kustomization.yaml").read_text(encoding="utf-8")
    assert "kind: TrainJob" in kustomization
    assert "ImageTagTransformer" in kustomization
    assert "path: /spec/trainer/args" in (out / "dev" / "more-workers-args.yaml").read_text(
        encoding="utf-8")
    assert "kind: TrainJob" in (out / "base" / "pytorchjob.yaml").read_text(encoding="utf-8")


# --- check over the corpus: every legacy job an independent regex finds is reported ---

_API = re.compile(r"apiVersion:\s*[\"']?(?:xgboostjob\.)?kubeflow\.org/v\d")
_KIND = re.compile(r"^[ \t>]*(?:- )?kind:\s*[\"']?(" + "|".join(LEGACY)
                   + r")[\"']?\s*(?:#.*)?$", re.M)
_ROOT = re.compile(r"\.(?:spec|kind|metadata|apiVersion|status)(?=\.|\[|$)")


def regex_count(text: str) -> int:
    """Legacy jobs written out in a file: `kind:` lines of a legacy kind, in a file that
    names a Kubeflow training API version (written independently of the tool)."""
    return len(_KIND.findall(text)) if _API.search(text) else 0


def jobs_reported(document: dict[str, Any]) -> int:
    """Legacy jobs a report document accounts for: itself, or the distinct embedded jobs
    its mappings and findings point into."""
    if document["source"].get("kind") in LEGACY:
        return 1
    roots = set()
    for mapping in document.get("mappings", []):
        match = _ROOT.search(mapping["from"], 1)
        roots.add(mapping["from"][:match.start()] if match else mapping["from"])
    for finding in document["findings"]:
        if finding["code"] in ("E801", "E804", "E808") or finding["code"].startswith("K1"):
            match = _ROOT.search(finding["path"], 1)
            path = finding["path"][:match.start()] if match else finding["path"]
            roots.add(path or f"line {finding['line']}")
    return len(roots)


def test_check_reports_every_legacy_job_in_the_corpus(shared: Path, tmp_path: Path) -> None:
    corpus = shared / "corpus"
    done = run("check", str(corpus), "--include", "*", "--report", str(tmp_path / "r.json"))
    assert done.returncode == 1, done.stderr
    per_file: dict[str, int] = {}
    for document in report(tmp_path / "r.json")["documents"]:
        name = str(Path(document["file"]).resolve())
        per_file[name] = per_file.get(name, 0) + jobs_reported(document)
    expected, missing = 0, []
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        if path.name in ("index.json", "SOURCES.md"):
            continue
        count = regex_count(path.read_text(encoding="utf-8", errors="replace"))
        expected += count
        if count and per_file.get(str(path.resolve()), 0) < count:
            missing.append((str(path.relative_to(corpus)), count,
                            per_file.get(str(path.resolve()), 0)))
    assert missing == []
    assert expected >= 90  # the corpus really holds that many (Markdown pages included)
