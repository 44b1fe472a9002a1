"""A run whose files hold no template never loads the template converter: the router and the
package's names load it on first use only."""

from __future__ import annotations

import subprocess
import sys


def _loaded(code: str) -> bool:
    probe = code + "\nimport sys; print('migrator.template.convert' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.strip() == "True"


def test_routing_a_plain_legacy_job_does_not_load_the_template_converter() -> None:
    assert not _loaded(
        "from migrator.convert.text import convert_text\n"
        "result = convert_text('apiVersion: kubeflow.org/v1\\nkind: PyTorchJob\\n"
        "metadata: {name: a}\\nspec: {pytorchReplicaSpecs: {Worker: {replicas: 1, template: "
        "{spec: {containers: [{name: pytorch, image: x}]}}}}}\\n')\n"
        "assert result.documents[0].status == 'converted', result.documents[0].status")


def test_the_package_names_still_load_it() -> None:
    assert _loaded("from migrator.template import convert_template")
    assert _loaded("from migrator.convert.text import convert_text\n"
                   "convert_text('apiVersion: kubeflow.org/v1\\nkind: PyTorchJob\\n"
                   "metadata:\\n  name: a\\nspec:\\n  replicas: ${N}\\n')")
