"""REPORT: GitLab Code Quality (``artifacts:reports:codequality``) — a JSON array with one
issue per finding: description, check_name (the code), a fingerprint stable across runs and
unique within the report, GitLab's severity (error → major, warning → minor, info → info) and
the file and line (paths as given: run from the repository root for the merge request view).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from migrator.report.review import ReviewDocument

SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def render(documents: Sequence[ReviewDocument]) -> str:
    issues: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for doc in documents:
        for finding in doc.ordered_findings():
            key = f"{doc.file}\0{doc.index}\0{finding.code}\0{finding.path}"
            number = seen[key] = seen.get(key, 0) + 1  # identical findings stay distinct
            digest = hashlib.sha256(f"{key}\0{number}".encode("utf-8", "surrogateescape"))
            where = f" [{finding.path}]" if finding.path else ""
            issues.append({
                "description": f"{finding.code} {finding.message}{where}",
                "check_name": finding.code,
                "fingerprint": digest.hexdigest(),
                "severity": SEVERITIES[finding.severity.value],
                "location": {"path": doc.file.replace("\\", "/"),
                             "lines": {"begin": finding.line or doc.line or 1}},
            })
    return json.dumps(issues, indent=2, ensure_ascii=True) + "\n"
