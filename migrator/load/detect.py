"""LOAD: cheap text checks before parsing a document: Kubeflow group, template syntax, kinds."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from migrator.settings import flow_list, mappings_dir

# Argo Workflows objects whose `resource` templates may carry a manifest (convert/argo.py)
ARGO_GROUP = "argoproj.io"
ARGO_KINDS = ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow")
TEMPLATE_MARKERS = (("{{", "Helm/Go template"), ("{%", "Jinja template"),
                    ("{#", "Jinja template"))


@functools.cache
def candidate_markers() -> tuple[str, ...]:
    """mappings/kinds.yaml ``candidateMarkers`` (one line, read as text: no YAML parser on
    the path of every file; the catalog checks it against the parsed file)."""
    return flow_list(mappings_dir() / "kinds.yaml", "candidateMarkers")


def is_candidate(text: str) -> bool:
    """Cheap prefilter: only documents that mention a Kubeflow group are parsed at all
    (mappings/kinds.yaml ``candidateMarkers``), however the group is spelled (``unescaped``)."""
    return any(marker in text for marker in candidate_markers()) or \
        (_SPELLING_ESCAPE.search(text) is not None and
         any(marker in unescaped(text) for marker in candidate_markers()))


# An escape of a double-quoted YAML or JSON string (``\u004a``, ``\x4a``, ``\U0000004a``,
# ``\/``, a line break escaped away), or a backslash and what it escapes otherwise
_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(/)|"
                     r"(\r?\n[ \t]*)|.)", re.S)
_SPELLING_ESCAPE = re.compile(r"\\[xuU/\r\n]")  # where ``unescaped`` may change a name
_SPELLING = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./:_-")


def unescaped(text: str) -> str:
    """``text`` with every escape that spells a character of a name (a letter, a digit,
    ``.``, ``/``, ``:``, ``_``, ``-``) decoded, and escaped line breaks joined: what the text
    checks read, so that ``"kind": "PyTorch\\u004aob"`` (valid JSON and YAML) is a PyTorchJob
    to them too. Other escapes are kept as written; a text without such an escape is
    returned as it is."""
    if _SPELLING_ESCAPE.search(text) is None:
        return text
    return _ESCAPE.sub(_decoded, text)


def _decoded(match: re.Match[str]) -> str:
    if match.group(4):
        return "/"
    if match.group(5):
        return ""
    digits = match.group(1) or match.group(2) or match.group(3)
    if digits is None:
        return match.group()
    code = int(digits, 16)
    return chr(code) if code < 128 and chr(code) in _SPELLING else match.group()


# the node properties YAML allows before a value: a tag (``!!str``) and an anchor (``&k``)
_PROPERTIES = r"(?:[!&][^\s,\[\]{}]*\s+)*"


def template_syntax(text: str) -> str | None:
    """The template language a document is written in, if any."""
    for marker, language in TEMPLATE_MARKERS:
        if marker in text:
            return language
    return None


@functools.cache
def kinds() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(legacy kinds, training kinds) as mappings/kinds.yaml lists them: ``trainingKinds``
    and the ``retired`` kinds, the legacy ones being those that are not Trainer kinds
    (``current``, ``prototypes``).

    Read once, only when a document already passed ``is_candidate``; no pydantic."""
    data = _kinds_file()
    training = tuple(str(kind) for key in ("trainingKinds", "retired")
                     for kind in data.get(key) or [])
    trainer = {str(item["kind"]) for key in ("current", "prototypes")
               for item in data.get(key) or []}
    return tuple(kind for kind in training if kind not in trainer), training


@functools.cache
def legacy_groups() -> tuple[str, ...]:
    """The API groups a legacy job's apiVersion names (mappings/kinds.yaml
    ``legacyGroups``): its one-line list read as text (``settings.flow_list``), else parsed."""
    return flow_list(mappings_dir() / "kinds.yaml", "legacyGroups") or \
        tuple(str(group) for group in _kinds_file()["legacyGroups"])


@functools.cache
def _kinds_file() -> Any:
    """mappings/kinds.yaml, parsed once."""
    return _data_file(mappings_dir() / "kinds.yaml")


def _data_file(path: Path) -> Any:
    """A mappings/ file parsed by libyaml (under a millisecond), or by ruamel's pure loader
    (a dozen milliseconds) if libyaml refuses it (YAML 1.1 rules: ``a:b`` in a flow list);
    the two build the same values from the files the catalog accepts. A file that cannot be
    read or parsed, or nests deeper than any parser can take, is a ``MappingFileError``."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from migrator.errors import MappingFileError
    from migrator.load.nesting import MAX_SCANNED_DEPTH, nesting_bound

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise MappingFileError(f"{path}: {exc}") from None
    if nesting_bound(text, MAX_SCANNED_DEPTH) > MAX_SCANNED_DEPTH:
        raise MappingFileError(f"{path}: nested more than {MAX_SCANNED_DEPTH} levels deep")
    try:
        return YAML(typ="safe").load(text)
    except YAMLError:
        pass
    try:
        return YAML(typ="safe", pure=True).load(text)
    except (YAMLError, RecursionError) as exc:
        raise MappingFileError(f"{path}: {exc}") from None


def legacy_kinds() -> tuple[str, ...]:
    """The legacy job kinds (PyTorchJob, TFJob, ...), from mappings/kinds.yaml."""
    return kinds()[0]


@functools.cache
def replica_fields() -> tuple[str, ...]:
    """The legacy jobs' replica-spec fields (``pytorchReplicaSpecs``, ...): the last part of
    each mapping file's ``replicaSpecs.path`` (mappings/legacy/*.yaml), no pydantic."""
    fields: list[str] = []
    for path in sorted((mappings_dir() / "legacy").glob("*.yaml")):
        data = _data_file(path)
        field = str(data["replicaSpecs"]["path"]).rpartition(".")[2]
        if field not in fields:
            fields.append(field)
    return tuple(fields)


@functools.cache
def legacy_kind_line() -> re.Pattern[str]:
    """A line that is exactly ``kind: <legacy kind>`` (maybe a list item, quoted, tagged,
    commented), or a ``"kind": "<legacy kind>"`` entry of a flow mapping (JSON) on its line."""
    names = "|".join(map(re.escape, legacy_kinds()))
    return re.compile(r"(?:^[ \t]*(?:-[ \t]*)?|[{,][ \t]*)[\"']?kind[\"']?[ \t]*:[ \t]*"
                      + r"(?:[!&][^\s,\[\]{}]*[ \t]+)*[\"']?(?P<kind>" + names
                      + r")[\"']?[ \t]*(?:#.*|[,}].*)?\r?$", re.M)


@functools.cache
def _kind_pattern(which: str) -> re.Pattern[str]:
    """A ``kind:`` naming a kind of ``which``: "legacy", "training" (legacy and Trainer) or
    "trainer" (TrainJob and the runtimes)."""
    legacy, training = kinds()
    names = {"legacy": legacy, "training": training,
             "trainer": tuple(kind for kind in training if kind not in legacy)}[which]
    return re.compile(r"kind[\"']?\s*:\s*" + _PROPERTIES + r"[\"']?("
                      + "|".join(map(re.escape, names)) + r")\b")


def _named_kind(which: str, text: str) -> str | None:
    """The first kind of ``which`` (see ``_kind_pattern``) that a ``kind`` key of ``text``
    names, however it is spelled: block or flow (JSON) style, quoted, tagged, escaped."""
    pattern = _kind_pattern(which)
    match = pattern.search(text)
    if match is None and _SPELLING_ESCAPE.search(text) is not None:
        match = pattern.search(unescaped(text))
    return match.group(1) if match else None


def trainer_kind(text: str) -> str | None:
    """The first Trainer kind (TrainJob, a runtime) a ``kind:`` of ``text`` names."""
    return _named_kind("trainer", text)


def mentions_training_kind(text: str) -> bool:
    return _named_kind("training", text) is not None


def training_kind(text: str) -> str | None:
    """The first training kind a (possibly unparseable) document names."""
    return _named_kind("training", text)


def embeds_legacy_job(text: str) -> str | None:
    return _named_kind("legacy", text)
