"""``convert --shared-runtimes DIR`` end to end: the folder written, read back as an input
(a second run adds nothing, another tree adds only its new variants), an edited runtime never
overwritten, hostile folder content ignored, the same bytes whatever ``-j`` is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import goldens
from tests.test_cli import run

TORCH = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {{name: {name}, namespace: team}}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: {image}
            command: [python, train.py]
            env: [{{name: DATA, value: /data/{name}}}]
            volumeMounts: [{{name: data, mountPath: /data}}]
          volumes: [{{name: data, persistentVolumeClaim: {{claimName: {name}}}}}]
          nodeSelector: {{pool: {pool}}}
    Worker:
      replicas: {workers}
      template:
        spec:
          containers:
          - name: pytorch
            image: {image}
            command: [python, train.py]
            env: [{{name: DATA, value: /data/{name}}}]
            volumeMounts: [{{name: data, mountPath: /data}}]
          volumes: [{{name: data, persistentVolumeClaim: {{claimName: {name}}}}}]
          nodeSelector: {{pool: {pool}}}
"""


def _job(name: str, image: str = "img:1", pool: str = "gpu", workers: int = 2) -> str:
    return TORCH.format(name=name, image=image, pool=pool, workers=workers)


def _tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _convert(tree: Path, out: Path, shared: Path, *extra: str) -> str:
    result = run("convert", str(tree), "-o", str(out), "--shared-runtimes", str(shared),
                 "--no-cache", "-v", *extra)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def test_jobs_differing_in_trainjob_fields_share_one_runtime(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a", {"one.yaml": _job("one"),
                                  "two.yaml": _job("two", image="img:2", pool="cpu", workers=5),
                                  "three.yaml": _job("three", image="other:3")})
    shared = tmp_path / "runtimes"
    err = _convert(tree, tmp_path / "out", shared)
    runtimes = sorted(p.name for p in shared.glob("*.yaml"))
    assert len(runtimes) == 1, runtimes
    assert runtimes[0].startswith("torch-node-")
    name = runtimes[0].removesuffix(".yaml")
    index = json.loads((shared / "index.json").read_text())
    assert sorted(index["runtimes"][name]["jobs"]) == ["one.yaml: one", "three.yaml: three",
                                                      "two.yaml: two"]
    readme = (shared / "README.md").read_text()
    assert f"kubectl apply -f {name}.yaml" in readme
    for file in ("one.yaml", "two.yaml", "three.yaml"):
        text = (tmp_path / "out" / file).read_text()
        assert "kind: TrainingRuntime" not in text
        assert f"name: {name}\n    kind: ClusterTrainingRuntime" in text
    two = (tmp_path / "out" / "two.yaml").read_text()
    for value in ("pool: cpu", "claimName: two", "image: img:2", "value: /data/two"):
        assert value in two
    assert f"{name} (new): 3 jobs" in err
    assert "S101" in err


def test_the_folder_is_an_input_a_second_run_adds_nothing(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a", {"one.yaml": _job("one"), "two.yaml": _job("two")})
    shared = tmp_path / "runtimes"
    _convert(tree, tmp_path / "out1", shared)
    before = _snapshot(shared)
    err = _convert(tree, tmp_path / "out2", shared)
    assert _snapshot(shared) == before
    assert "0 new" in err
    assert _snapshot(tmp_path / "out1") == _snapshot(tmp_path / "out2")


def test_another_tree_adds_only_its_new_variants(tmp_path: Path) -> None:
    shared = tmp_path / "runtimes"
    _convert(_tree(tmp_path / "a", {"one.yaml": _job("one")}), tmp_path / "out1", shared)
    before = _snapshot(shared)
    mpi = (goldens.FIXTURES / "mpijob-v2beta1" / "pi.in.yaml").read_text(encoding="utf-8")
    _convert(_tree(tmp_path / "b", {"same.yaml": _job("same", image="x:9"), "pi.yaml": mpi}),
             tmp_path / "out2", shared)
    after = _snapshot(shared)
    new = sorted(set(after) - set(before))
    assert new
    assert all(n.startswith("openmpi-launcher-node-") for n in new), new
    assert all(after[n] == before[n] for n in before if n.endswith(".yaml"))
    index = json.loads(after["index.json"])
    torch = next(n for n in before if n.startswith("torch-node-")).removesuffix(".yaml")
    assert sorted(index["runtimes"][torch]["jobs"]) == ["one.yaml: one", "same.yaml: same"]


def test_an_edited_runtime_is_never_overwritten(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a", {"one.yaml": _job("one")})
    shared = tmp_path / "runtimes"
    _convert(tree, tmp_path / "out1", shared)
    (path,) = shared.glob("torch-node-*.yaml")
    edited = path.read_text().replace("spec:\n", "spec:\n  # edited by an administrator\n", 1)
    edited = edited.replace("torch: {}", "torch:\n      numProcPerNode: 4")
    assert edited != path.read_text()
    path.write_text(edited)
    err = _convert(tree, tmp_path / "out2", shared)
    assert path.read_text() == edited
    assert "S103" in err
    variants = sorted(shared.glob("torch-node-*.yaml"))
    assert len(variants) == 2
    new = next(p for p in variants if p != path).stem
    assert f"name: {new}" in (tmp_path / "out2" / "one.yaml").read_text()
    assert json.loads((shared / "index.json").read_text())["runtimes"][path.stem]["edited"]


def test_hostile_folder_content_is_ignored(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a", {"one.yaml": _job("one")})
    shared = tmp_path / "runtimes"
    _convert(tree, tmp_path / "out1", shared)
    (path,) = shared.glob("torch-node-*.yaml")
    outside = tmp_path / "outside.yaml"
    outside.write_text("precious\n")
    (shared / "junk.yaml").write_text("key: [unclosed\n")
    hostile = "x;touch pwned"  # a runtime whose name would run a command in the README's line
    (shared / f"{hostile}.yaml").write_text(
        f"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
        f"metadata: {{name: '{hostile}'}}\nspec: {{}}\n")
    (shared / "link.yaml").symlink_to(outside)
    path.unlink()
    path.symlink_to(outside)  # a link where the runtime belongs: replaced, never written through
    (shared / "index.json").write_text("{not json")
    err = _convert(tree, tmp_path / "out2", shared)
    assert outside.read_text() == "precious\n"
    assert "S104" in err
    assert "junk.yaml" in err
    assert hostile not in (shared / "README.md").read_text()
    assert hostile not in json.loads((shared / "index.json").read_text())["runtimes"]
    assert not path.is_symlink()  # the link was replaced by the runtime, not written through
    assert "kind: ClusterTrainingRuntime" in path.read_text()
    assert json.loads((shared / "index.json").read_text())["runtimes"]


def test_the_folder_does_not_depend_on_the_number_of_processes(tmp_path: Path) -> None:
    files = {f"job{i:02}.yaml": _job(f"job{i:02}", image=f"img:{i % 3}", pool=f"p{i % 2}")
             for i in range(18)}
    files["pi.yaml"] = (goldens.FIXTURES / "mpijob-v2beta1" / "pi.in.yaml").read_text()
    tree = _tree(tmp_path / "a", files)
    _convert(tree, tmp_path / "out1", tmp_path / "one", "-j", "1")
    _convert(tree, tmp_path / "out2", tmp_path / "two", "-j", "2")
    assert _snapshot(tmp_path / "one") == _snapshot(tmp_path / "two")
    assert _snapshot(tmp_path / "out1") == _snapshot(tmp_path / "out2")


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_corpus_catalog_is_smaller_and_valid(shared: Path, tmp_path: Path, crdcheck: object,
                                            target: str) -> None:
    """A sample of the corpus: fewer shared runtimes than companions, all CRD-valid."""
    from tests import corpus

    tree = tmp_path / "tree"
    for index, path in enumerate(corpus.sample(corpus.legacy_files(shared))):
        if path.is_file() and path.suffix in (".yaml", ".yml"):
            tree.mkdir(exist_ok=True)
            shutil.copy(path, tree / f"{index:03}-{path.name}")
    folder = tmp_path / "runtimes"
    _convert(tree, tmp_path / "out", folder, "--target", target)
    index = json.loads((folder / "index.json").read_text())
    jobs = sum(len(e["jobs"]) for e in index["runtimes"].values())
    assert 0 < len(index["runtimes"]) < jobs
    load = getattr(crdcheck, "load_crd")  # noqa: B009
    kind, api, validator = load(shared / "crds" / f"trainer-v{target}.0" /
                                "trainer.kubeflow.org_clustertrainingruntimes.yaml")
    from ruamel.yaml import YAML

    for path in folder.glob("*.yaml"):
        assert getattr(crdcheck, "problems")(YAML(typ="safe").load(path.read_text()), kind,  # noqa: B009
                                             api, validator) == [], path.name


def test_the_config_key_names_a_folder_beside_the_config(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "repo", {"one.yaml": _job("one")})
    config = tmp_path / "repo" / ".trainjob-migrate.yaml"
    config.write_text("shared-runtimes: platform/runtimes\n")
    result = run("convert", str(tree / "one.yaml"), "-o", str(tmp_path / "out"), "--config",
                 str(config), "--no-cache")
    assert result.returncode == 0, result.stderr
    assert len(list((tree / "platform" / "runtimes").glob("torch-node-*.yaml"))) == 1
    index = json.loads((tree / "platform" / "runtimes" / "index.json").read_text())
    assert "kind" not in index  # (never mistaken for a Kubernetes object by kubectl apply -f)
    config.write_text("shared-runtimes: ../elsewhere\n")
    refused = run("convert", str(tree / "one.yaml"), "--config", str(config), "--no-cache")
    assert refused.returncode == 2
    assert "shared-runtimes" in refused.stderr
    assert not (tmp_path / "elsewhere").exists()


def test_check_and_diff_never_write_the_folder(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "repo", {"one.yaml": _job("one")})
    config = tmp_path / "repo" / ".trainjob-migrate.yaml"
    config.write_text("shared-runtimes: runtimes\n")
    for command in (("check",), ("diff",)):
        result = run(*command, str(tree / "one.yaml"), "--config", str(config), "--no-cache")
        assert result.returncode == 1, result.stderr
    assert not (tree / "runtimes").exists()


def test_a_folder_holding_the_policy_as_written_is_reused(tmp_path: Path) -> None:
    """A folder written before default pull policies were dropped holds the shape with the
    policy as written: still exact for the job (it is the default), so it is reused and no
    variant is added; a new folder gets the shape without it."""
    from migrator.load import yamlio
    from migrator.shared_runtimes import share
    from tests.shared_runtimes.helpers import MANAGER, companions

    text = _job("one").replace("image: img:1\n", "image: img:1\n            imagePullPolicy: "
                               "IfNotPresent\n")
    assert text.count("IfNotPresent") == 2
    ((job, runtime, kind),) = companions(text, "2.2")
    old = share.split(job, runtime, share.rules("2.2"), kind, MANAGER, as_written=True)
    new = share.split(job, runtime, share.rules("2.2"), kind, MANAGER)
    assert not isinstance(old, str)
    assert not isinstance(new, str)
    assert old.name != new.name
    assert "IfNotPresent" in json.dumps(old.runtime)
    assert "IfNotPresent" not in json.dumps(new.runtime)
    tree = _tree(tmp_path / "a", {"one.yaml": text})
    shared = tmp_path / "runtimes"
    shared.mkdir()
    (shared / f"{old.name}.yaml").write_text(
        yamlio.dump(yamlio.from_plain(old.runtime), yamlio.Indent(2, 4, 2)))
    err = _convert(tree, tmp_path / "out", shared)
    assert sorted(p.stem for p in shared.glob("*.yaml")) == [old.name]
    assert f"name: {old.name}" in (tmp_path / "out" / "one.yaml").read_text()
    assert "0 new" in err
    fresh = tmp_path / "fresh"
    _convert(tree, tmp_path / "out2", fresh)
    assert sorted(p.stem for p in fresh.glob("*.yaml")) == [new.name]
