"""A run whose files hold no template never loads the template converter: the router and the
package's names load it on first use only."""

from __future__ import annotations

import subprocess
import sys

_JOB = ("apiVersion: kubeflow.org/v1\\nkind: PyTorchJob\\nmetadata: {name: a}\\n"
        "spec: {pytorchReplicaSpecs: {Worker: {replicas: 1, template: {spec: {containers: "
        "[{name: pytorch, image: x, args: [\\\"echo $HOME\\\"]}]}}}}}\\n")


def _loaded(code: str) -> bool:
    probe = code + "\nimport sys; print('migrator.template.convert' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.strip() == "True"


def test_routing_a_plain_legacy_job_does_not_load_the_template_converter() -> None:
    """A job holding a ``$`` (a shell variable in its args) reaches the router, which finds
    no template in it: the template converter stays unloaded."""
    assert not _loaded(
        "import sys\n"
        "from migrator.convert.text import convert_text\n"
        f"result = convert_text('{_JOB}')\n"
        "assert result.documents[0].status == 'converted', result.documents[0].status\n"
        "assert 'migrator.template.route' in sys.modules  # it did reach the router")


def test_the_package_names_still_load_it() -> None:
    assert _loaded("from migrator.template import convert_template")
    assert _loaded("from migrator.convert.text import convert_text\n"
                   "convert_text('apiVersion: kubeflow.org/v1\\nkind: PyTorchJob\\n"
                   "metadata:\\n  name: a\\nspec:\\n  replicas: ${N}\\n')")
