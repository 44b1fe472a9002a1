"""Nesting is bounded before parsing (issue 12.7): the pre-scan never understates the depth,
deep documents are refused with Y104 in both loaders, and a batch survives them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, reject
from hypothesis import strategies as st

from migrator.load import fastload, nesting, yamlio
from tests.goldens import FIXTURES, ROOT

SHARED = ROOT.parent / "shared"
HEADER = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: deep}\nspec:"


def depth(node: Any) -> int:
    """Collections nested in ``node`` (a scalar: 0), keys included."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        current, level = stack.pop()
        if isinstance(current, (dict, list)):
            level += 1
            deepest = max(deepest, level)
            items = [*current.keys(), *current.values()] if isinstance(current, dict) \
                else current
            stack.extend((item, level) for item in items)
    return deepest


def _texts() -> list[Path]:
    paths = sorted(FIXTURES.glob("**/*.yaml")) + sorted((ROOT / "mappings").glob("**/*.yaml"))
    if SHARED.is_dir():
        paths += sorted((SHARED / "corpus").glob("**/*.y*ml"))
        paths += sorted((SHARED / "crds").glob("**/*.yaml"))
    return paths


def _scan(text: str) -> int:
    """The bound from the line-by-line scan (the quick count would answer for small texts)."""
    saved = nesting._LEADING
    try:
        nesting._LEADING = _Huge()  # type: ignore[assignment]
        return nesting.nesting_bound(text, 10**9)
    finally:
        nesting._LEADING = saved


class _Huge:
    """Stands in for the leading-run pattern so the quick bound never answers."""

    def findall(self, text: str) -> list[range]:
        return [range(10**10)]  # "a leading run" of 10**10 columns, without the memory


def test_the_bound_never_understates_the_depth() -> None:
    from ruamel.yaml import YAML

    checked = 0
    for path in _texts():
        if path.stat().st_size > 100_000:
            continue  # the pure loader takes seconds on a CRD; the smaller files suffice
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            documents = list(YAML(typ="rt", pure=True).load_all(text))
        except Exception:  # only texts that parse say what their depth is
            continue
        actual = max([depth(d) for d in documents] + [0])
        assert _scan(text) >= actual, path
        assert nesting.nesting_bound(text, 10**9) >= actual, path
        assert _scan(text) <= actual + 4, path  # close enough not to refuse real documents
        checked += 1
    assert checked > 100


@given(st.recursive(st.one_of(st.integers(), st.text(max_size=5)),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text("abc", min_size=1, max_size=3), inner,
                                      max_size=3), max_leaves=30),
       st.sampled_from([None, True, False]))
@example(value="?0", flow=None)  # dumped as {root: ?0}, which ruamel cannot read back
def test_the_bound_holds_for_generated_documents(value: Any, flow: bool | None) -> None:
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    yaml = YAML(typ="rt", pure=True)
    yaml.default_flow_style = flow
    out = io.StringIO()
    yaml.dump({"root": value}, out)
    text = out.getvalue()
    try:
        parsed = yaml.load(text)
    except YAMLError:  # ruamel's emitter writes some texts its parser refuses ({root: ?0})
        reject()
    assert _scan(text) >= depth(parsed)


@pytest.mark.parametrize("body", [
    " " + "[" * 30_000 + "]" * 30_000,  # 60 KB: crashed libyaml (exit 139)
    " " + "{a: " * 20_000 + "b" + "}" * 20_000,
    "\n  " + "- " * 30_000 + "x",  # compact nested sequences
    "\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 600)) + " " * 600 + "v",
])
def test_deep_documents_are_refused_before_parsing(body: str) -> None:
    text = HEADER + body + "\n"
    with pytest.raises(yamlio.DocumentError) as caught:
        yamlio.load(text)
    assert caught.value.code == "Y104"
    assert fastload.load(text, yamlio._load_pure) is None  # never handed to libyaml


def test_quoted_and_commented_brackets_do_not_count() -> None:
    many = "[" * 5_000
    for text in (f"a: '{many}'\n", f'a: "{many}"\n', f"a: b # {many}\n", f"a: |\n  {many}\n",
                 f"a: >-\n  {many}\n  {many}\nb: c\n"):
        assert nesting.nesting_bound(text, 1_000) <= 3, text[:20]
        yamlio.load(text)


def test_depth_at_the_limit_still_loads() -> None:
    levels = nesting.MAX_DEPTH - 1
    yamlio.load("a: " + "[" * levels + "]" * levels + "\n")
    with pytest.raises(yamlio.DocumentError):
        yamlio.load("a: " + "[" * (nesting.MAX_DEPTH + 5) + "]" * (nesting.MAX_DEPTH + 5) + "\n")


def test_aliases_deeper_than_the_text_are_refused_after_parsing() -> None:
    """The text nests 2 levels, the tree its aliases make 250: the exact check after parsing
    (skipped only for texts without aliases, whose bound is never below their depth)."""
    text = "a0: &a0\n  - x\n" + "".join(f"a{i}: &a{i}\n  - *a{i - 1}\n" for i in range(1, 250))
    assert nesting.nesting_bound(text, nesting.MAX_SCANNED_DEPTH) <= nesting.MAX_DEPTH
    with pytest.raises(yamlio.DocumentError) as caught:
        yamlio.load(text)
    assert caught.value.code == "Y104"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_batch_survives_a_deeply_nested_file(tmp_path: Path, jobs: str) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text(HEADER + " " + "[" * 30_000 + "]" * 30_000 + "\n", encoding="utf-8")
    legacy = FIXTURES / "pytorchjob" / "minimal.in.yaml"
    names = []
    for index in range(20):
        names.append(tmp_path / f"job{index:02d}.yaml")
        names[-1].write_text(legacy.read_text(encoding="utf-8").replace(
            "name: ", f"name: j{index}-", 1), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "migrator", "check", "--no-cache", "-j", jobs,
                           str(deep), *map(str, names)], capture_output=True, text=True,
                          check=False, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1, said[-2000:]
    assert "Traceback" not in said
    assert "Y104" in said
    assert said.count("would convert to TrainJob") == 20
