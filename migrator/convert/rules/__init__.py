"""CONVERT stage, rules: one module per rule family, run by the engine in the order of ``RULES``.

Every rule module has an ``ID`` and ``apply(ctx: RuleContext, draft: Draft) -> None`` (the
``Rule`` protocol of context.py): it fills draft slots and records on ``ctx.ledger`` what
became of each source field. Order matters: a rule reads what earlier rules wrote (the
pod-templates rule finds the trainer's main container that contract, version-hazards and
launch adjust; replicas and mpi-nodes count the nodes launch and pod-names use).

Modules that are not rules: transforms.py and frameworks.py (the ``TRANSFORMS`` functions
the mapping-rules rule calls by name), roles.py (the role merge of the pod-templates rule),
companion.py (companion runtime templates, and the runtime document built from them).
"""

from __future__ import annotations

from migrator.convert.rules import (
    contract,
    hazards,
    launch,
    mapping,
    metadata,
    mpinodes,
    mpioperator,
    notes,
    podnames,
    podtemplate,
    replicas,
    success,
)
from migrator.convert.rules.context import Rule, RuleContext

RULES: tuple[Rule, ...] = (
    metadata,  # name, namespace, labels, annotations → draft metadata slots
    replicas,  # replica counts → numNodes; restart policies
    podtemplate,  # pod templates → trainer slots, job patches, companion templates
    mpioperator,  # what mpi-operator did implicitly (worker command, mounts, env)
    mapping,  # the mapping file's copy / unsupported / transform rules
    mpinodes,  # MPI numNodes (launcher as a host or not)
    success,  # the legacy success rule: the trainer Job's successPolicy, or F531
    contract,  # env Trainer reserves or no longer sets; legacy references in commands
    hazards,  # documented Trainer behaviour of the target version
    launch,  # TF_CONFIG / PADDLE_* rebuilt on a plain companion runtime
    notes,  # the mapping file's notes on the kind
    podnames,  # pod host-name length
)

__all__ = ["RULES", "Rule", "RuleContext"]
