"""Shared fixtures: where the built tools and the built package are."""

import importlib.util
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


def load_bench_gpu_script(name):
    """bench/gpu/<name>.py as a module (bench/gpu is not a package)."""
    spec = importlib.util.spec_from_file_location(
        name, REPO / "bench" / "gpu" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def build_dir() -> pathlib.Path:
    if not (BUILD_DIR / "bin" / "mlsopt-opt").exists():
        pytest.fail(f"mlsopt-opt not built in {BUILD_DIR}; run `make build`")
    return BUILD_DIR


@pytest.fixture(scope="session")
def mlsopt_opt(build_dir) -> pathlib.Path:
    return build_dir / "bin" / "mlsopt-opt"



@pytest.fixture
def rms_norm_mugraph():
    """Builds Mirage's demo/reference_mugraphs/rms_norm.py μGraph, line for
    line, in a dtype (demo_rms_norm.py is the same graph): returns the graph,
    without outputs marked, and the customized op's outputs."""
    import mlsopt as mi

    def build(dtype):
        graph = mi.new_kernel_graph()
        X = graph.new_input(dims=(16, 4096), dtype=dtype)
        W = graph.new_input(dims=(4096, 4096), dtype=dtype)
        tb_graph = mi.new_threadblock_graph(grid_dim=(64, 1, 1),
                                            block_dim=(128, 1, 1),
                                            forloop_range=64,
                                            reduction_dimx=64)
        tX = tb_graph.new_input(dtensor=X, input_map=(-1, -1, -1),
                                forloop_dim=1)
        tW = tb_graph.new_input(dtensor=W, input_map=(1, -1, -1),
                                forloop_dim=0)
        tM = tb_graph.matmul(tX, tW)
        tAccX = tb_graph.forloop_accum(tX, "rms")
        tAccM = tb_graph.forloop_accum(tM)
        tO = tb_graph.div(tAccM, tAccX)
        tb_graph.new_output(stensor=tO, output_map=(1, -1, -1))
        return graph, graph.customized([X, W], tb_graph)

    return build
