"""Issue 31 item 8: a command line that says what it did — where outputs and reports went and
the target, readable config errors, validate's and diff's words, the report folder checked
before an --in-place run writes anything."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.goldens import FIXTURES
from tests.test_cli import run

MINIMAL = FIXTURES / "pytorchjob" / "minimal.in.yaml"


def _last(text: str) -> str:
    """The summary line, without its time."""
    return re.sub(r" \(\d+\.\d+s\)$", "", text.strip().splitlines()[-1])


def test_summary_names_the_target_outputs_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run("convert", str(MINIMAL), "-o", str(out), "--target", "2.3",
                 "--report", str(out / "r.json"))
    assert result.returncode == 0, result.stderr
    assert _last(result.stderr).endswith(
        f"; target: Kubeflow Trainer 2.3; wrote 1 file under {out}; report: {out / 'r.json'}")
    copy = tmp_path / "job.yaml"
    shutil.copy(MINIMAL, copy)
    in_place = run("convert", "--in-place", str(copy))
    assert _last(in_place.stderr).endswith("; target: Kubeflow Trainer 2.2; rewrote 1 file "
                                           "in place")
    stdout = run("convert", str(MINIMAL))
    assert _last(stdout.stderr).endswith("; target: Kubeflow Trainer 2.2; converted stream on "
                                         "standard output")


def test_diff_summary_does_not_say_converted() -> None:
    result = run("diff", str(MINIMAL))
    assert result.returncode == 1
    summary = _last(result.stderr)
    assert summary.startswith("1 file, 1 document: 1 would convert, "), summary
    assert " converted" not in summary


def test_a_missing_report_folder_stops_an_in_place_run_before_it_writes(tmp_path: Path) -> None:
    copy = tmp_path / "job.yaml"
    shutil.copy(MINIMAL, copy)
    missing = tmp_path / "no-such-folder" / "r.json"
    result = run("convert", "--in-place", str(copy), "--report", str(missing))
    assert result.returncode == 2
    assert f"{missing}: error Y107 cannot write the report: the folder {missing.parent} does " \
           "not exist; nothing was converted or written" in result.stderr
    assert copy.read_bytes() == MINIMAL.read_bytes()


def test_a_config_parse_error_is_one_readable_line(tmp_path: Path) -> None:
    shutil.copy(MINIMAL, tmp_path / "job.yaml")
    (tmp_path / ".trainjob-migrate.yaml").write_text("target: [2.2\nfoo: bar\n")
    result = run("check", "job.yaml", cwd=tmp_path)
    assert result.returncode == 2
    error = next(line for line in result.stderr.splitlines() if line.startswith("Error: "))
    assert "\\n" not in error
    assert error.endswith("cannot read config: while parsing a flow sequence (line 1, column "
                          "9); expected ',' or ']', but got ':' (line 2, column 4)")


def test_validate_speaks_of_valid_and_rejected_and_points_to_check(tmp_path: Path) -> None:
    converted = tmp_path / "trainjob.yaml"
    converted.write_text(run("convert", str(MINIMAL)).stdout)
    result = run("validate", str(converted), str(MINIMAL))
    assert result.returncode == 0, result.stderr
    assert "1 valid, 0 rejected" in _last(result.stderr)
    assert f"{MINIMAL}: 1 legacy job (PyTorchJob): validate checks TrainJobs and runtimes; run " \
           "`trainjob-migrate check` on legacy jobs" in result.stdout
    folder = tmp_path / "legacy"
    folder.mkdir()
    shutil.copy(MINIMAL, folder / "a.yaml")
    legacy_only = run("validate", str(folder))
    assert "0 valid, 0 rejected (no TrainJob or runtime found; `trainjob-migrate check` reads " \
           "legacy jobs)" in _last(legacy_only.stderr)


def test_pre_commit_failure_lines_keep_line_column_and_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "tf.yaml"
    shutil.copy(FIXTURES / "tfjob" / "no-companion.in.yaml", job)
    monkeypatch.setenv("PRE_COMMIT", "1")
    for command in (("check",), ("convert", "--in-place")):
        result = run(*command, str(job))
        assert result.returncode == 1
        said = [line for line in (result.stdout + result.stderr).splitlines()
                if line.startswith(str(job))]
        assert len(said) == 1, result.stdout + result.stderr
        assert re.match(re.escape(str(job)) + r":3:1: .*error K105 Trainer has no TensorFlow ML "
                        r"policy or runtime; .* — see: trainjob-migrate explain K105$", said[0])


def test_check_format_table_is_one_row_per_document(tmp_path: Path) -> None:
    shutil.copy(MINIMAL, tmp_path / "a.yaml")
    shutil.copy(FIXTURES / "tfjob" / "no-companion.in.yaml", tmp_path / "b.yaml")
    (tmp_path / "c.yaml").write_text("kind: ConfigMap\n")
    result = run("check", "--format", "table", ".", cwd=tmp_path)
    assert result.returncode == 1
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows == [["FILE", "OBJECT", "STATUS", "CODE"],
                    ["a.yaml:1", "PyTorchJob/minimal", "would", "convert", "R214"],
                    ["b.yaml:2", "TFJob/tf-simple", "needs", "manual", "work", "K105"]]
    header, first, _ = result.stdout.splitlines()
    assert header.index("OBJECT") == first.index("PyTorchJob")  # aligned


EMBEDDED_TFJOB = """\
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata:
  name: exp
spec:
  trialTemplate:
    primaryContainerName: tensorflow
    trialSpec:
      apiVersion: kubeflow.org/v1
      kind: TFJob
      spec:
        tfReplicaSpecs:
          Worker:
            replicas: 2
            template:
              spec:
                containers:
                - name: tensorflow
                  image: x
"""


@pytest.mark.parametrize("given", [(), ("--companion-runtimes",)])
def test_an_embedded_job_is_not_told_to_use_companion_runtimes(tmp_path: Path,
                                                               given: tuple[str, ...]) -> None:
    job = tmp_path / "exp.yaml"
    job.write_text(EMBEDDED_TFJOB)
    result = run("check", *given, str(job))
    assert result.returncode == 1
    k105 = next(line for line in result.stdout.splitlines() if " K105 " in line)
    assert "convert with --companion-runtimes" not in k105
    assert "--companion-runtimes does not apply to a job embedded in another object" in k105


def test_explain_diff_is_a_short_list_by_role_and_says_when_convert_refuses(
        tmp_path: Path) -> None:
    elastic = tmp_path / "elastic.yaml"
    elastic.write_text(MINIMAL.read_text().replace(
        "spec:\n", "spec:\n  elasticPolicy: {minReplicas: 1, maxReplicas: 4}\n", 1))
    result = run("explain-diff", str(MINIMAL), str(elastic),
                 str(FIXTURES / "tfjob" / "no-companion.in.yaml"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "{" not in result.stdout  # no dict dump
    assert "  worker (node-0, node-1):" in lines  # the legacy role, and its pods on Trainer
    assert "    + containers[node].env PET_MASTER_PORT=29500  [C407, F527]" in lines
    assert "    - containers[node].ports[pytorchjob-port]: 23456 (removed)  [C407, F527]" in lines
    refusals = [line for line in lines if "refuse" in line]
    assert len(refusals) == 2
    assert refusals[0].startswith("  convert would refuse this job (F501: elastic training")
    assert refusals[0].endswith("shown as --allow-lossy (or --allow F501=min|max|replicas) "
                                "would convert it")
    assert "TFJob/tf-simple: convert refuses this job (K105: " in refusals[1]
    assert not [line for line in lines if "minimal.in.yaml" in line and "refuse" in line]


def test_explain_diff_on_a_template_says_why_nothing_is_simulated(tmp_path: Path) -> None:
    """A template's jobs exist once rendered: explain-diff says so (it used to print nothing,
    exit 0, or a YAML error); of a template it leaves legacy it says why (the finding)."""
    converted = tmp_path / "job.yaml"
    converted.write_text(MINIMAL.read_text().replace("registry.example/train:1.0",
                                                     "{{ .Values.image }}"))
    kept = tmp_path / "kept.yaml"
    kept.write_text(MINIMAL.read_text().replace("replicas: 2",
                                                'replicas: "{{ .Values.workers }}"'))
    result = run("explain-diff", str(converted), str(kept))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines == [
        f"{converted}:1: PyTorchJob/minimal: a template; its jobs exist once rendered: render it"
        " (`helm template`, `envsubst`) and run explain-diff on the rendered jobs",
        lines[1]], lines
    assert lines[1].startswith(f"{kept}:1: PyTorchJob: not converted here (Y110: ")
    assert lines[1].endswith("; there are no pods to compare")


def test_check_fix_command_carries_the_options_of_the_check(tmp_path: Path) -> None:
    """A hint never contradicts the command typed: the fix converts as the check did (a TFJob
    converts only with --companion-runtimes; without it the fix would fail with K105)."""
    job = tmp_path / "tf.yaml"
    shutil.copy(FIXTURES / "tfjob" / "no-companion.in.yaml", job)
    checked = run("check", "--companion-runtimes", "--target", "2.3", str(job))
    assert checked.returncode == 1
    line = next(x for x in checked.stdout.splitlines() if "— fix: " in x)
    fix = line.split("— fix: ", 1)[1]
    assert fix == f"trainjob-migrate convert --in-place --target 2.3 --companion-runtimes {job}"
    import shlex

    done = run(*shlex.split(fix)[1:])
    assert done.returncode == 0, done.stderr
    assert "kind: TrainJob" in job.read_text()
