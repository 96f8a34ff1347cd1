"""Shared fixtures: where the built tools and the built package are."""

import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("MLSOPT_BUILD_DIR", REPO / "build"))

# `make build` puts the package in build/python/mlsopt; `make check-python`
# sets PYTHONPATH to it, and this makes a bare `pytest python/tests` work too.
if str(BUILD_DIR / "python") not in sys.path:
    sys.path.insert(0, str(BUILD_DIR / "python"))


@pytest.fixture(scope="session")
def build_dir() -> pathlib.Path:
    if not (BUILD_DIR / "bin" / "mlsopt-opt").exists():
        pytest.fail(f"mlsopt-opt not built in {BUILD_DIR}; run `make build`")
    return BUILD_DIR


@pytest.fixture(scope="session")
def mlsopt_opt(build_dir) -> pathlib.Path:
    return build_dir / "bin" / "mlsopt-opt"

