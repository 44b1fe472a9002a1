"""CHECK: what the legacy operators added to their pods (mappings/common/legacy-operators.yaml).

The converter reads it to carry an implicit MPI worker command and to rename the MPI
operator's volumes; the effective-pod comparison reads it to render the legacy pods as they
really ran. ``implicit`` evaluates a role's additions for one job.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from migrator.knowledge import catalog

Condition = Literal["master", "nproc", "notElastic", "openmpi", "intel", "mpich",
                    "launcherIsWorker", "launcherNotWorker", "noCommand", "noCommandOrArgs"]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)


class EnvItem(_Spec):
    name: str
    value: str
    when: Condition | None = None
    carry: bool = False  # a companion runtime sets it too (a literal Trainer does not set)


class Port(_Spec):
    name: str
    container_port: int


class Command(_Spec):
    value: list[str]
    when: Condition


class Volume(_Spec):
    name: str
    mount_path: str
    trainer: str | None = None
    files: list[str] = []
    trainer_files: list[str] = []


class RoleAdditions(_Spec):
    containers: Literal["main", "all"] = "main"
    env: list[EnvItem] = []
    command: Command | None = None
    volumes: list[Volume] = []


class Operator(_Spec):
    port: Port | None = None
    roles: dict[str, RoleAdditions]

    def role(self, name: str) -> RoleAdditions | None:
        return self.roles.get(name) or self.roles.get("*")


class Operators(_Spec):
    id: str
    sshd_command: list[str]
    operators: dict[str, Operator]


@functools.cache
def _data() -> Operators:
    from ruamel.yaml import YAML

    path = catalog.mappings_dir() / "common" / "legacy-operators.yaml"
    data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    return Operators.model_validate(data)


def load() -> dict[str, Operator]:
    """The operators' additions by mapping id (validated once per process)."""
    return _data().operators


def sshd_command() -> list[str]:
    """The command an MPI worker container needs on Trainer when it has none."""
    return list(_data().sshd_command)


@dataclass
class JobFacts:
    """What the conditions and value templates of one legacy job depend on."""

    values: dict[str, str] = field(default_factory=dict)  # {job}, {port}, {replicas}, ...
    conditions: set[str] = field(default_factory=set)

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
