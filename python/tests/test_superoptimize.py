"""superoptimize(): the --superoptimize pass behind Mirage's entry point.

The pass comes from the search issue; until this build has it, the tests that
need it are strict xfails (they start passing, and must then be un-marked,
when it lands), and superoptimize() must say clearly that it is missing."""

import warnings

import numpy as np
import pytest

import mlsopt as mi
from mlsopt import _mlsopt

HAS_SUPEROPTIMIZE = _mlsopt.is_pass_registered("superoptimize")
needs_superoptimize = pytest.mark.xfail(
    not HAS_SUPEROPTIMIZE, strict=True, raises=mi.UnavailableError,
    reason="the --superoptimize pass (search issue) is not in this build yet")


def gated_mlp(n=64, k=128):
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, k), dtype=mi.float32)
    W1 = graph.new_input(dims=(k, n), dtype=mi.float32)
    W2 = graph.new_input(dims=(k, n), dtype=mi.float32)
    graph.mark_output(graph.mul(graph.silu(graph.matmul(X, W1)),
                                graph.matmul(X, W2)))
    return graph


def test_options_become_pass_options():
    from mlsopt.kernel import _pipeline
    assert _pipeline("superoptimize", {
        "target": "sm_90", "timeout": 30.0, "max-kernel-ops": 4,
        "threads": None, "keep-reference": False,
    }) == "superoptimize{target=sm_90 timeout=30 max-kernel-ops=4 keep-reference=false}"
    assert _pipeline("superoptimize", {"target": None}) == "superoptimize"
    with pytest.raises(ValueError, match="cannot pass"):
        _pipeline("superoptimize", {"cache-dir": "a b"})


@pytest.mark.skipif(HAS_SUPEROPTIMIZE, reason="the pass is registered")
def test_missing_pass_is_a_clear_error():
    with pytest.raises(mi.UnavailableError, match="no --superoptimize pass"):
        gated_mlp().superoptimize(target="sm_90", timeout=5)
    # It is a NotImplementedError to code that does not know mlsopt.
    assert issubclass(mi.UnavailableError, NotImplementedError)


def test_bad_arguments_are_rejected_before_searching():
    with pytest.raises(TypeError, match="unexpected keyword"):
        gated_mlp().superoptimize(frobnicate=1)
    with pytest.raises(ValueError, match="backend 'nki'"):
        gated_mlp().superoptimize(backend="nki")


@needs_superoptimize
def test_superoptimize_fuses_the_gated_mlp_and_keeps_its_numbers():
    graph = gated_mlp()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Mirage's config is ignored
        optimized = graph.superoptimize(target="sm_90", timeout=60,
                                        max_kernel_ops=4, max_block_ops=8,
                                        threads=2, config="mlp")
    # The input graph is untouched; the result is a graph of its own.
    assert "kernel.custom" not in graph.mlir()
    assert optimized is not graph
    text = optimized.mlir()
    assert "kernel.custom" in text
    assert optimized.cost("sm_90").total_us < graph.cost("sm_90").total_us
    assert optimized.cost("sm_90").launches < 4
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 128)).astype(np.float32)
    w1 = (rng.standard_normal((128, 64)) / 8).astype(np.float32)
    w2 = (rng.standard_normal((128, 64)) / 8).astype(np.float32)
    (expected,) = graph(inputs=[x, w1, w2])
    (out,) = optimized(inputs=[x, w1, w2])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    assert "cluster" in optimized.to_dot()
