"""Legacy jobs in text: string values, heredocs, snapshots."""

from __future__ import annotations

from migrator.load import textscan as scan

JOB = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: a\n"


def test_legacy_jobs_by_line() -> None:
    text = "x\n" + JOB + "---\napiVersion: \"kubeflow.org/v2beta1\"\nkind: 'MPIJob'\n"
    assert scan.legacy_jobs(text) == [(2, "PyTorchJob"), (7, "MPIJob")]
    assert scan.legacy_jobs("kind: PyTorchJob\n") == []  # no Kubeflow apiVersion
    assert scan.legacy_jobs("apiVersion: kubeflow.org/v1\nkind: Experiment\n") == []


def test_heredocs() -> None:
    script = ("set -e\nkubectl apply -f - <<EOF\n" + JOB + "EOF\n"
              "cat <<-'END' > x\n\tkind: none\n\tEND\necho done\n")
    lines, docs = scan.heredocs(script)
    assert [d.body for d in docs] == [JOB, "\tkind: none\n"]
    assert (docs[0].strip_tabs, docs[0].quoted) == (False, False)
    assert (docs[1].strip_tabs, docs[1].quoted) == (True, True)
    assert lines[docs[0].last] == "EOF\n"


def test_an_unterminated_heredoc_runs_to_the_end() -> None:
    lines, docs = scan.heredocs("cat <<EOF\na\nb\n")
    assert docs[0].body == "a\nb\n"
    assert docs[0].last == len(lines)


def test_in_strings_with_lines() -> None:
    from ruamel.yaml import YAML

    text = "suite: x\nsnap:\n  1: |\n    " + JOB.replace("\n", "\n    ").rstrip() + "\n"
    text += "  2: plain\n"
    root = YAML().load(text)
    hits = list(scan.in_strings(root))
    assert [(h.path, h.kind) for h in hits] == [(("snap", "1"), "PyTorchJob")]
    assert text.splitlines()[hits[0].line - 1].strip() == "kind: PyTorchJob"
