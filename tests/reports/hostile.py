"""Hostile input for every output channel: names, keys, values and file names that try to
inject workflow commands, Markdown/HTML, XML-forbidden characters and unencodable text."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import strategies as st

# Fragments an attacker would try; the property mixes them with ordinary text.
FRAGMENTS = [
    "::error::pwned", "\n::error::pwned", "\r::warning::pwned", "\r\n::add-mask::pwned",
    "  ::set-output name=x::pwned", "::stop-commands::pwned", "::pwned::", "%0A::error::pwned",
    "##[error]pwned", "##[add-mask]pwned", "@octocat", "@org/team", "GH-12", "o/r#3",
    "\u2028::notice::pwned", "\x85::debug::pwned", "`", "``", "```", "````", "~~~",
    "</details>", "</summary>", "<img src=x onerror=alert(1)>", "<b>bold</b>",
    "<script>alert(1)</script>", "]]>", "<!--", "&amp;", "&lt;", "|", "\\|", "*", "_", "#",
    "[link](https://example.com)", "\x1b[31m", "\x07", "\x00", "\x0b", "\ufffe",
    "\u202e", "😀", "日本", "%", "#1", " ", "\t", "'", '"', "$(id)", "${{ secrets.X }}",
]
HOSTILE_TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS),
                                  st.text(alphabet="abc-.:/ ", min_size=1, max_size=4)),
                        min_size=1, max_size=5).map("".join)
# File names: no "/" and no NUL (the file system refuses them); newlines and colons are fine.
FILE_NAME = HOSTILE_TEXT.map(lambda s: s.replace("/", "").replace("\x00", "")) \
    .filter(lambda s: s.strip(".") != "" and len(s.encode("utf-8", "surrogateescape")) < 180)


def quoted(text: str) -> str:
    """A YAML double-quoted scalar for any text (JSON escapes are YAML escapes)."""
    return json.dumps(text, ensure_ascii=True)


def block(text: str, indent: str) -> str:
    """A literal block scalar: raw lines in the output, exactly what reaches a terminal."""
    lines = [line for line in text.replace("\r", "\n").split("\n") if line.strip()] or ["x"]
    safe = [line.replace("\x00", "").replace("\ufffe", "").replace("\x85", "")
            .replace("\u2028", "").replace("\x07", "").replace("\x0b", "").replace("\x1b", "")
            for line in lines]
    return "|\n" + "".join(f"{indent}{line}\n" for line in safe)


def converting(name: str, key: str, value: str) -> str:
    """A PyTorchJob that converts (with warnings), carrying the hostile text in labels, env,
    an unknown field and a block scalar."""
    return f"""apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: job-ok
  labels:
    {quoted(key)}: {quoted(value)}
  annotations:
    note: {quoted(name)}
spec:
  runPolicy:
    {quoted(key)}: {quoted(value)}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example/train:1.0
              command: ["torchrun", {quoted(value)}]
              args:
                - {block(value, "                  ")}"""


def failing(name: str, key: str, value: str) -> str:
    """A PyTorchJob that fails (bad name), with hostile name, key and value in findings."""
    return f"""apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {quoted(name)}
spec:
  {quoted(key)}: {quoted(value)}
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: {quoted(value)}
"""


def write_config(root: Path, text: str, *, trusted: bool = True) -> Path:
    """A repository (``.git``) at ``root`` whose ``.trainjob-migrate.yaml`` holds ``text``
    (passed over with a warning unless ``trusted``), with a job to check."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "job.yaml").write_text(converting("n", "k", "v"), encoding="utf-8")
    config = root / ".trainjob-migrate.yaml"
    config.write_text(text, encoding="utf-8", errors="surrogateescape")
    config.chmod(0o644 if trusted else 0o666)
    return config


def write_tree(root: Path, name: str, key: str, value: str, file_name: str) -> list[Path]:
    """A folder with the hostile documents under a hostile file name (and a plain one)."""
    root.mkdir(parents=True, exist_ok=True)
    stream = converting(name, key, value) + "---\n" + failing(name, key, value)
    written = []
    for file in (f"{file_name}.yaml", "plain.yaml"):
        path = root / file
        path.write_text(stream, encoding="utf-8", errors="surrogateescape")
        written.append(path)
    raw = os.fsencode(root) + b"/bad-\xff-\xfe.yaml"  # not UTF-8: decoded with surrogates
    with open(raw, "w", encoding="utf-8") as handle:
        handle.write(stream)
    return written
