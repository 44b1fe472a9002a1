"""Shared test fixtures: hypothesis profiles and access to ../shared (skipped when absent)."""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", max_examples=20_000, deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The tool's per-user cache goes to a folder of this test session (inherited by the CLI
# processes the tests start), never to the user's own cache.
_CACHE = tempfile.mkdtemp(prefix="trainjob-migrate-cache-")
os.environ["TRAINJOB_MIGRATE_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def shared() -> Path:
    if not (SHARED / "crds").is_dir():
        pytest.skip("../shared is not available")
    return SHARED


@pytest.fixture(scope="session")
def crdcheck(shared: Path) -> ModuleType:
    """The upstream-CRD strict validator shipped in ../shared/tools (read, never copied)."""
    path = shared / "tools" / "crdcheck.py"
    spec = importlib.util.spec_from_file_location("crdcheck", path)
    if spec is None or spec.loader is None:
        pytest.skip("crdcheck.py is not available")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    load = getattr(module, "load_crd")  # noqa: B009 (a module loaded from a file)
    loaded: dict[tuple[Path, bytes], Any] = {}

    def load_crd(path: Path) -> Any:
        """``load_crd`` once per CRD file and contents in the session: parsing a CRD's schema
        takes seconds, and many tests check objects against the same upstream CRDs (the
        validator it returns holds no state between checks)."""
        key = (Path(path), Path(path).read_bytes())
        if key not in loaded:
            loaded[key] = load(path)
        return loaded[key]

    setattr(module, "load_crd", load_crd)  # noqa: B010 (a module loaded from a file)
    return module


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private, empty cache folder for the test (the catalog re-read from it)."""
    from migrator.knowledge import catalog

    folder = tmp_path / "cache"
    monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(folder))
    monkeypatch.delenv("TRAINJOB_MIGRATE_NO_CACHE", raising=False)
    catalog.load.cache_clear()
    yield folder
    catalog.load.cache_clear()


class Hung(BaseException):
    """Raised by ``deadline``: not an OSError (as TimeoutError is), which the code under test
    may take for a worker that died and recover from, hiding the hang."""


@pytest.fixture
def deadline() -> Iterator[None]:
    """A hang fails the test (SIGALRM) instead of stalling the suite."""
    import signal

    def expired(number: int, frame: object) -> None:
        raise Hung("the run did not end")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(120)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
