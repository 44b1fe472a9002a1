"""CONVERT (rules): what every rule gets (``RuleContext``) and the one rule signature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from migrator import paths
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container, LegacyJob
from migrator.knowledge.specs import MappingSpec, PodRules, RuntimeSpec, TargetSpec
from migrator.results import Value
from migrator.settings import ConvertOptions

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only


class Rule(Protocol):
    """A rule family: a module with an ``ID`` (kebab-case) and ``apply``.

    ``apply`` fills slots of the draft and records on ``ctx.ledger`` what happened to each
    source field (mapped, defaulted, or a finding). Rules run in the order of
    ``migrator.convert.rules.RULES``; a rule may read what the rules before it wrote.
    """

    ID: str

    def apply(self, ctx: RuleContext, draft: Draft) -> None: ...


@fields_only
class RuleContext(Value):
    """The legacy job being converted, the knowledge it is converted with, and the ledger
    (a mutable value written by hand: see migrator/results.py)."""

    FIELDS = ("job", "spec", "pod_rules", "target", "options", "ledger", "runtime", "embedded",
              "trainer_main")
    job: LegacyJob
    spec: MappingSpec
    pod_rules: PodRules
    target: TargetSpec
    options: ConvertOptions
    ledger: Ledger
    runtime: RuntimeSpec
    embedded: bool = False  # inside a Katib Experiment or an AppWrapper: the name may be absent
    trainer_main: Container | None = None  # written by the pod-templates rule

    def __init__(self, job: LegacyJob, spec: MappingSpec, pod_rules: PodRules,
                 target: TargetSpec, options: ConvertOptions, ledger: Ledger,
                 runtime: RuntimeSpec, embedded: bool = False,
                 trainer_main: Container | None = None) -> None:
        self.job = job
        self.spec = spec
        self.pod_rules = pod_rules
        self.target = target
        self.options = options
        self.ledger = ledger
        self.runtime = runtime
        self.embedded = embedded
        self.trainer_main = trainer_main

    @property
    def main(self) -> Container:
        """The container that feeds ``spec.trainer`` (known after the pod-templates rule)."""
        if self.trainer_main is None:
            raise ValueError("the trainer's main container is set by the pod-templates rule")
        return self.trainer_main

    @property
    def main_name(self) -> str | None:
        """The name of each replica's main container, as the mapping file names it."""
        main = self.spec.main_container
        if main.name_field is not None:
            value = paths.get(self.job.root, paths.parse(main.name_field))
            return value if isinstance(value, str) else None
        return main.name
