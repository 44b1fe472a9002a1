"""Template stage: convert a Helm/Go template or an envsubst file into one of the same dialect."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from migrator.template import structure
from migrator.template.codec import _INT_TOKEN, LINE_TOKEN, STR_TOKEN, Codec, decode_int
from migrator.template.structure import Unsupported
from migrator.template.tokens import Dialect, TemplateSyntaxError, tokenize
from migrator.template.worlds import WorldFailed, fold, render_lines

Status = Literal["converted", "unchanged", "failed", "skipped"]
NOT_CARRIED = "Y110"
NOT_COMPUTABLE = "Y111"
_ENV = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Note:
    """A finding about a template, with its line in the template."""

    code: str
    path: str
    message: str
    line: int | None = None
    column: int | None = None
    severity: str = ""
    hint: str = ""


@dataclass
class Outcome:
    status: Status
    text: str
    dialect: Dialect
    notes: list[Note] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list)  # DocumentResults of the reference world
    provenance: list[dict[str, Any]] = field(default_factory=list)
    worlds: int = 0


def dialect_of(text: str) -> Dialect | None:
    if "{%" in text or "{#" in text:
        return None
    if "{{" in text:
        return "go"
    if _ENV.search(text):
        return "envsubst"
    return None


def convert_template(text: str, dialect: Dialect | None = None, options: Any = None,
                     render: bool = True) -> Outcome | None:
    """Convert ``text``; None when it is not a template this stage reads (Jinja, unparseable)."""
    from migrator import convert_text

    dialect = dialect or dialect_of(text)
    if dialect is None:
        return None
    try:
        actions = tokenize(text, dialect)
        template = structure.build(text, actions)
    except TemplateSyntaxError:
        return None
    except Unsupported as exc:
        return _refused(text, dialect, exc)
    codec = Codec(template, dialect)

    def convert(world_text: str) -> tuple[str, list[Any], bool]:
        result = convert_text(world_text, options=options)
        ok = not any(d.status == "failed" for d in result.documents)
        return result.text, list(result.documents), ok

    try:
        folded = fold(codec, convert)
        body = codec.decode("\n".join(render_lines(folded.pieces)))
    except WorldFailed as exc:
        return _world_failed(text, dialect, codec, exc)
    except Unsupported as exc:
        return _refused(text, dialect, exc)
    ref_out, ref_docs = folded.worlds[()]
    header = [a.text for a in template.root.neutral]
    out_text = "\n".join(header + [body]) if header else body
    if not out_text.endswith("\n") and text.endswith("\n"):
        out_text += "\n"
    notes = _notes(codec, folded)
    status: Status = "converted" if any(d.status == "converted" for d in ref_docs) else \
        ("skipped" if any(d.status == "skipped" for d in ref_docs) else "unchanged")
    if status != "converted":
        out_text = text
    outcome = Outcome(status, out_text if render else text, dialect, notes, ref_docs,
                      _provenance(codec, ref_out), len(folded.worlds))
    return outcome


def _refused(text: str, dialect: Dialect, exc: Unsupported) -> Outcome:
    note = Note(NOT_CARRIED, "", f"template construct not carried: {exc}"
                + (f" [{exc.construct}]" if exc.construct else "")
                + "; decide how the converted template should express it, or render first",
                exc.line or None)
    if "envsubst cannot" in str(exc):
        note.code = NOT_COMPUTABLE
    return Outcome("skipped", text, dialect, [note])


def _world_failed(text: str, dialect: Dialect, codec: Codec, exc: WorldFailed) -> Outcome:
    encoded = codec.encode(exc.world)
    notes: list[Note] = []
    for doc in exc.documents:
        for f in doc.findings:
            notes.append(_note(f, encoded.lines, codec))
    if exc.world:
        blocks = {b.id: b for b in codec.template.blocks}
        for bid in exc.world:
            block = blocks[bid]
            head = block.branches[0].header.text if block.branches[0].header else ""
            notes.append(Note(NOT_CARRIED, "", f"template construct not carried: when {head} "
                              "takes another branch the job cannot be converted (see the other "
                              "findings); the converted template could not express both",
                              block.line))
    return Outcome("failed", text, dialect, notes, list(exc.documents))


def _note(f: Any, lines: list[int], codec: Codec) -> Note:
    line = f.line
    if isinstance(line, int) and 0 < line <= len(lines):
        line = lines[line - 1]
    return Note(f.code, _untoken(codec, f.path), _untoken(codec, f.message), line, f.column,
                getattr(f.severity, "value", str(f.severity)), f.hint)


def _untoken(codec: Codec, text: str) -> str:
    text = _INT_TOKEN.sub(lambda m: next((s.action.text for s in codec.ints
                                          if s.token == m.group(1)), m.group(1)), text or "")
    text = STR_TOKEN.sub(lambda m: codec.by_id[int(m.group(1))].action.text
                         if int(m.group(1)) in codec.by_id else m.group(0), text or "")
    return LINE_TOKEN.sub(lambda m: codec.by_id[int(m.group(1))].action.text
                          if int(m.group(1)) in codec.by_id else m.group(0), text)


def _notes(codec: Codec, folded: Any) -> list[Note]:
    seen: dict[tuple[str, str], Note] = {}
    everywhere: set[tuple[str, str]] | None = None
    for world, (_out, docs) in folded.worlds.items():
        encoded = codec.encode(dict(world))
        keys: set[tuple[str, str]] = set()
        for doc in docs:
            for f in doc.findings:
                note = _note(f, encoded.lines, codec)
                key = (note.code, note.path)
                keys.add(key)
                if key not in seen or not world:
                    seen[key] = note
        everywhere = keys if everywhere is None else everywhere & keys
    notes = []
    for key, note in seen.items():
        if everywhere is not None and key not in everywhere:
            note.message += " (only for some values: the field sits in a template block)"
        notes.append(note)
    for slot in codec.by_id.values():
        if slot.kind == "int":
            continue
    return notes


def _provenance(codec: Codec, ref_out: str) -> list[dict[str, Any]]:
    paths = _line_paths(ref_out.split("\n"))
    found: dict[int, list[str]] = {}
    for i, line in enumerate(ref_out.split("\n")):
        for match in list(STR_TOKEN.finditer(line)) + list(LINE_TOKEN.finditer(line)):
            found.setdefault(int(match.group(1)), []).append(paths[i])
        for match in _INT_TOKEN.finditer(line):
            decoded = decode_int(int(match.group(1)), codec.ints)
            for slot in decoded[0] if decoded else []:
                found.setdefault(slot.id, []).append(paths[i])
    out = []
    for slot in sorted(codec.by_id.values(), key=lambda s: (s.line, s.id)):
        out.append({"action": slot.action.text, "line": slot.line,
                    "to": sorted(set(found.get(slot.id, [])))})
    return out


def _line_paths(lines: list[str]) -> list[str]:
    """A dotted path for every line of block-style YAML (from indentation; for reports only)."""
    stack: list[tuple[int, str]] = []
    paths: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped == "---":
            paths.append(".".join(k for _, k in stack))
            if stripped == "---":
                stack = []
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = stripped
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if body.startswith("- "):
            body = body[2:]
            stack.append((indent, "[]"))
            indent += 2
        key = body.split(":", 1)[0].strip("\"'") if ":" in body else ""
        if key:
            stack.append((indent, key))
        paths.append(".".join(k for _, k in stack if k))
    return paths
