"""CONVERT (routing data): which reader a file goes to, by its name.

Kept apart so that routing an ordinary file imports none of the readers, and the readers
(markdown, kustomization) read the same names; load/textscan keeps its own shell and
snapshot suffixes below convert/, and a test keeps them equal.
"""

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
SHELL_SUFFIXES = (".sh", ".bash", ".zsh")
SNAPSHOT_SUFFIXES = (".snap",)
KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")
