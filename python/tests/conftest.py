"""Shared fixtures: where the built tools are."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def build_dir() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("MLSOPT_BUILD_DIR", REPO / "build"))
    if not (path / "bin" / "mlsopt-opt").exists():
        pytest.fail(f"mlsopt-opt not built in {path}; run `make build`")
    return path


@pytest.fixture(scope="session")
def mlsopt_opt(build_dir) -> pathlib.Path:
    return build_dir / "bin" / "mlsopt-opt"
