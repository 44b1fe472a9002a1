"""Helpers of the fidelity tests: convert through the public API, read the written objects."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ruamel.yaml import YAML

from migrator import convert_text

SAFE = YAML(typ="safe", pure=True)


def convert(text: str, **options: Any) -> Any:
    """The one document result of converting ``text`` (a single legacy job)."""
    result = convert_text(text, **options)
    assert len(result.documents) == 1, result.documents
    return result.documents[0]


def objects(document: Any) -> dict[str, dict[str, Any]]:
    """The objects a converted document wrote, by kind."""
    out = {}
    for obj in SAFE.load_all(document.text):
        if isinstance(obj, dict):
            out[str(obj.get("kind"))] = obj
    return out


def pod(runtime: dict[str, Any], job: str) -> dict[str, Any]:
    """The pod template of replicated job ``job`` of a runtime."""
    for item in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
        if item["name"] == job:
            template: dict[str, Any] = item["template"]["spec"]["template"]
            return template
    raise AssertionError(f"no replicated job {job!r}")


def container(template: dict[str, Any], name: str = "node",
              kind: str = "containers") -> dict[str, Any]:
    for item in template["spec"].get(kind) or []:
        if item["name"] == name:
            found: dict[str, Any] = item
            return found
    raise AssertionError(f"no {kind} {name!r}")


def codes(document: Any) -> list[str]:
    return [f.code for f in document.findings]


def finding(document: Any, code: str) -> Any:
    hits = [f for f in document.findings if f.code == code]
    assert hits, f"no {code} among {[(f.code, f.path) for f in document.findings]}"
    return hits[0]


MODES: dict[str, dict[str, Any]] = {"builtin": {}, "companion": {"companion_runtimes": True}}


def check_everywhere(text: str, where: str, unnamed: Callable[..., list[str]]) -> None:
    """``unnamed(text, target, **mode)`` finds nothing on either target in either mode."""
    from tests import goldens

    problems = [f"{where} [{mode}, {target}] {line}"
                for target in goldens.TARGETS for mode, options in MODES.items()
                for line in unnamed(text, target, **options)]
    assert not problems, "\n".join(problems[:40])
