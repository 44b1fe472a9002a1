"""CHECK: when the order of a container's ``env`` list changes nothing in its environment.

What the kubelet does with the list (kubernetes/kubernetes pkg/kubelet/kubelet_pods.go,
``makeEnvironmentVariables``, read at commit 001a80e975bb: the repository is too large to
fetch at a release tag here): ``envFrom`` fills a map first ("Env will override EnvFrom
variables"), then each ``env`` entry, in list order, sets ``tmpEnv[envVar.Name]``, so of two
entries of one name the last wins; a non-empty ``value`` is first expanded with
``expansion.MappingFuncFor(tmpEnv, serviceEnv)``, i.e. against the entries *before* it (and
the envFrom and service variables), while a ``valueFrom`` is resolved, never expanded; the
container gets the map's contents (a Go map: in no particular order). The API says the same
(k8s.io/api core/v1/types.go@v0.34.0, Kubernetes v1.34.0's staging copy: EnvVar.Value, lines
2463-2471, "Variable references $(VAR_NAME) are expanded using the previously defined
environment variables in the container and any service environment variables"; Container
.EnvFrom, lines 2947-2949, "Values defined by an Env with a duplicate key will take
precedence"). The syntax (third_party/forked/golang/expansion/expand.go at commit
02604f7db394: ``Expand`` lines 38-73, ``tryReadVariableName`` lines 81-102): ``$$`` is a
literal ``$``, ``$(NAME)`` a reference, anything else (``$X``, ``${X}``, an unclosed ``$(``)
is text, and a name with no value (``MappingFuncFor``, lines 22-33) stays ``$(NAME)``.

So the order matters exactly through references and repeated names: two lists set the same
environment whatever their order when they hold the same entries, no name repeats, and no value
refers (``$(NAME)``) to a name the list defines. A reference to a name the list does not define
resolves against the envFrom and service variables, which are there before any entry in either
order.
"""

from __future__ import annotations

import json
from typing import Any

OPERATOR, OPENER, CLOSER = "$", "(", ")"


def references(value: str) -> list[str]:
    """The names ``value`` refers to, read as the kubelet's ``expansion.Expand`` reads them."""
    out: list[str] = []
    cursor = 0
    while cursor < len(value):
        if value[cursor] == OPERATOR and cursor + 1 < len(value):
            after = value[cursor + 1]
            if after == OPENER:
                closer = value.find(CLOSER, cursor + 2)
                if closer >= 0:
                    out.append(value[cursor + 2:closer])
                    cursor = closer + 1
                    continue
            cursor += 2 if after == OPERATOR else 1  # ($$ is an escaped $; else literal text)
            continue
        cursor += 1
    return out


def reordered(first: Any, second: Any) -> list[str] | None:
    """When ``first`` and ``second`` are env lists that differ only in an order that changes
    nothing (see the module doc), the names whose place differs, in ``first``'s order; else
    None (also when they are equal as written)."""
    if not isinstance(first, list) or not isinstance(second, list) or first == second:
        return None
    names: list[list[str]] = []
    for items in (first, second):
        seen: set[str] = set()
        for item in items:
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str) or name in seen:
                return None  # (a repeated name: the last one wins, so its place counts)
            seen.add(name)
        names.append(sorted(seen))
    if names[0] != names[1] or sorted(map(_key, first)) != sorted(map(_key, second)):
        return None
    defined = set(names[0])
    for item in (*first, *second):
        value = item.get("value")
        if isinstance(value, str) and defined.intersection(references(value)):
            return None
    theirs = [item["name"] for item in second]
    return [item["name"] for at, item in enumerate(first) if theirs[at] != item["name"]]


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=str)
