"""Review regression (R-F2, notes/R-for-F.md): under GITHUB_ACTIONS=true no text of a config
file found by searching (a pull request's .trainjob-migrate.yaml: its keys, its values, the
folder it is in) starts a workflow command on standard output or standard error — also in the
lines said before the run (``using config``, ``warning: ... not applied``) and in a usage
error — through both entries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.report.safety import has_command_line
from tests.security.support import JOB

ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import sys
import migrator.__main__ as entry
entry.FAST_PATH = sys.argv[1] == "fast"
sys.argv = ["trainjob-migrate", *sys.argv[2:]]
entry.run()
"""

CONFIGS = {
    "a key": '"x\\n::error::from-a-key": 1\n',
    "a baseline": 'baseline: "b\\n::error::from-a-baseline"\n',
    "the folder (applied)": "target: '2.3'\n",
    "the folder (passed over)": "target: '2.3'\n",
}


@pytest.mark.parametrize("path", ["fast", "click"])
@pytest.mark.parametrize("case", list(CONFIGS))
def test_config_text_starts_no_workflow_command(tmp_path: Path, path: str, case: str) -> None:
    folder = tmp_path / ("repo\n::error::from-a-folder" if "folder" in case else "repo")
    (folder / ".git").mkdir(parents=True)
    (folder / "job.yaml").write_text(JOB, encoding="utf-8")
    config = folder / ".trainjob-migrate.yaml"
    config.write_text(CONFIGS[case], encoding="utf-8")
    if "passed over" in case:
        config.chmod(0o666)
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LC_ALL": "C.UTF-8", "GITHUB_ACTIONS": "true",
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", DRIVER, path, "check", "job.yaml"],
                          cwd=folder, env=env, capture_output=True, text=True, check=False,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert "error::from-a-" in done.stderr  # (the text is shown, escaped or neutralised)
    # the job's own findings are annotations (R214, F530 since issue 28); nothing else may be
    own = "::warning file=job.yaml,"
    stdout = "\n".join(line for line in done.stdout.splitlines() if not line.startswith(own))
    assert not has_command_line(stdout), done.stdout
    assert not has_command_line(done.stderr), done.stderr
