"""CHECK: what the legacy operators added to their pods (mappings/common/legacy-operators.yaml).

The converter reads it to carry an implicit MPI worker command and to rename the MPI
operator's volumes; the effective-pod comparison reads it to render the legacy pods as they
really ran. ``implicit`` evaluates a role's additions for one job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from migrator.knowledge import catalog
from migrator.knowledge.specs import Command as Command
from migrator.knowledge.specs import Condition as Condition
from migrator.knowledge.specs import EnvItem as EnvItem
from migrator.knowledge.specs import Operator as Operator
from migrator.knowledge.specs import Operators as Operators
from migrator.knowledge.specs import Port as Port
from migrator.knowledge.specs import RoleAdditions as RoleAdditions
from migrator.knowledge.specs import Volume as Volume
from migrator.results import Value

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
    from dataclasses import field
else:
    from migrator.results import field, fields_only


def _data() -> Operators:
    return catalog.load().operators


def load() -> dict[str, Operator]:
    """The operators' additions by mapping id (validated with the catalog)."""
    return _data().operators


def sshd_command() -> list[str]:
    """The command an MPI worker container needs on Trainer when it has none."""
    return list(_data().sshd_command)


@fields_only
class JobFacts(Value):
    """What the conditions and value templates of one legacy job depend on (a mutable
    value written by hand: see migrator/results.py)."""

    FIELDS = ("values", "conditions")
    values: dict[str, str] = field(default_factory=dict)  # {job}, {port}, {replicas}, ...
    conditions: set[str] = field(default_factory=set)

    def __init__(self, values: dict[str, str] | None = None,
                 conditions: set[str] | None = None) -> None:
        self.values = {} if values is None else values
        self.conditions = set() if conditions is None else conditions

    def holds(self, condition: str | None, container: Any = None) -> bool:
        if condition is None:
            return True
        if condition in ("noCommand", "noCommandOrArgs"):
            if not isinstance(container, dict):
                return False
            empty = not container.get("command")
            return empty and (condition == "noCommand" or not container.get("args"))
        return condition in self.conditions

    def render(self, template: str) -> str:
        for key, value in self.values.items():
            template = template.replace("{" + key + "}", value)
        return template


def implicit_command(operator: Operator | None, role: str, container: Any,
                     facts: JobFacts) -> list[str] | None:
    """The command the operator gave ``container`` (a role's main container), if any."""
    additions = operator.role(role) if operator is not None else None
    command = additions.command if additions is not None else None
    if command is None or not facts.holds(command.when, container):
        return None
    return list(command.value)


def renamed_volumes(operator: Operator | None) -> dict[str, Volume]:
    """The operator's volumes that Trainer provides under another name, by legacy name."""
    if operator is None:
        return {}
    return {volume.name: volume for additions in operator.roles.values()
            for volume in additions.volumes if volume.trainer and volume.trainer != volume.name}


def missing_files(operator: Operator | None) -> dict[str, str]:
    """Files of the operator's volumes that Trainer does not provide: file -> mount path."""
    if operator is None:
        return {}
    out = {}
    for additions in operator.roles.values():
        for volume in additions.volumes:
            for name in volume.files:
                if name not in volume.trainer_files:
                    out[name] = volume.mount_path
    return out
