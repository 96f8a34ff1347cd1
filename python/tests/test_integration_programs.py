"""The front-end programs of test/Integration (linalg on tensors, as
torch-mlir emits them) on the CPU: imported, and superoptimized for a short
while, each against numpy's numbers. The lit tests there check the stages
(import, search, verification, GPU lowering, ptxas); these check that the
numbers survive them."""

import math

import numpy as np
import pytest

import mlsopt as mi

from conftest import REPO

PROGRAMS = REPO / "test" / "Integration"


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layernorm_matmul(x, g, b, w):
    c = x - x.mean(1, keepdims=True)
    return [(c / np.sqrt((c * c).mean(1, keepdims=True) + 1e-5) * g + b) @ w]


def residual_rmsnorm(x, r, g):
    h = x + r
    return [h, h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * g]


def sdpa(q, k, v):
    return [softmax(q @ k.transpose(0, 2, 1) / math.sqrt(48), 2) @ v]


def causal_attention(q, k, v, past):
    # Query i sits at position past + i and sees keys j <= past + i.
    s = q @ k.transpose(0, 2, 1) * 0.125
    future = (np.arange(k.shape[1])[None, :] >
              np.arange(q.shape[1])[:, None] + past)
    return [softmax(np.where(future, -np.inf, s), 2) @ v]


def bias_relu_mlp(x, w1, b1, w2, b2):
    return [np.maximum(np.maximum(x @ w1 + b1, 0) @ w2 + b2, 0)]


def bf16(a):
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def bf16_silu_mlp(x, w1, b1, w2):
    h = bf16(bf16(bf16(x) @ bf16(w1)) + bf16(b1))
    return [bf16(h / (1 + np.exp(-h))) @ bf16(w2)]


def mlp_block_3d(x, g, w1, w2, w3):
    n = x / np.sqrt((x * x).mean(2, keepdims=True) + 1e-6) * g
    a = n @ w1
    return [x + (a / (1 + np.exp(-a)) * (n @ w2)) @ w3]


def rms(x, g):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g


def llama_decoder_layer(x, ln1, wq, wk, wv, wo, ln2, w1, w3, w2, cos, sin,
                        mask):
    x = x[0]
    h = rms(x, ln1)
    heads = lambda t, n: t.reshape(8, n, 16).transpose(1, 0, 2)
    q, k, v = heads(h @ wq, 4), heads(h @ wk, 2), heads(h @ wv, 2)
    half = lambda t: np.concatenate([-t[..., 8:], t[..., :8]], -1)
    q, k = q * cos + half(q) * sin, k * cos + half(k) * sin
    k, v = np.repeat(k, 2, 0), np.repeat(v, 2, 0)
    o = (softmax(q @ k.transpose(0, 2, 1) / 4 + mask, 2) @ v)
    r = x + o.transpose(1, 0, 2).reshape(8, 64) @ wo
    h = rms(r, ln2)
    g = h @ w1
    return [(r + (g / (1 + np.exp(-g)) * (h @ w3)) @ w2)[None]]


def heads_layout(q, k, v):
    # q, k, v in [b, s, h, d]; heads to [b, h, s, d] and back, merged.
    qh, kh, vh = (t.transpose(0, 2, 1, 3) for t in (q, k, v))
    o = softmax(qh @ kh.transpose(0, 1, 3, 2) / 4, 3) @ vh
    return [o.transpose(0, 2, 1, 3).reshape(64, 64)]


def f16(a):
    return np.asarray(a).astype(np.float16).astype(np.float64)


def tanh_sigmoid_gated_mlp(x, w1, w2):
    # The gate 0.5 * tanh(a / 2) + 0.5 is the logistic function.
    a, b = f16(f16(x) @ f16(w1)), f16(f16(x) @ f16(w2))
    return [f16(f16(1 / (1 + np.exp(-a))) * b)]


CASES = {
    "softmax-dim0": ([(96, 80)], lambda x: [softmax(x, 0)], 1e-5),
    "layernorm-matmul": ([(24, 96), (96,), (96,), (96, 80)],
                         layernorm_matmul, 1e-4),
    "residual-rmsnorm": ([(12, 80), (12, 80), (80,)], residual_rmsnorm, 1e-5),
    "row-sums": ([(32, 96), (32, 96)],
                 lambda x, a: [np.exp(x) * a, np.exp(x).sum(1)], 1e-5),
    "sdpa": ([(2, 64, 48), (2, 80, 48), (2, 80, 48)], sdpa, 1e-4),
    "causal-attention": ([(2, 128, 64), (2, 512, 64), (2, 512, 64)],
                         lambda q, k, v: causal_attention(q, k, v, 384),
                         1e-4),
    "causal-prefill": ([(2, 512, 64), (2, 512, 64), (2, 512, 64)],
                       lambda q, k, v: causal_attention(q, k, v, 0), 1e-4),
    "bias-relu-mlp": ([(8, 48), (48, 80), (80,), (80, 48), (48,)],
                      bias_relu_mlp, 1e-4),
    "bf16-silu-mlp": ([(8, 96), (96, 48), (48,), (48, 96)], bf16_silu_mlp,
                      2e-2),
    "mlp-block-3d": ([(2, 4, 64), (64,), (64, 128), (64, 128), (128, 64)],
                     mlp_block_3d, 1e-4),
    "heads-layout-attention": ([(2, 32, 4, 16)] * 3, heads_layout, 1e-4),
    "mean-middle-dim-gain": ([(4, 64, 128), (128,)],
                             lambda x, w: [x.mean(1) * w], 1e-5),
    "column-softmax-matmul": ([(128, 64), (128, 256)],
                              lambda x, v: [softmax(x, 0).T @ v], 1e-4),
    "tanh-sigmoid-gated-mlp": ([(16, 256), (256, 256), (256, 256)],
                               tanh_sigmoid_gated_mlp, 2e-2),
    "llama-decoder-layer": ([(1, 8, 64), (64,), (64, 64), (64, 32), (64, 32),
                             (64, 64), (64,), (64, 128), (64, 128), (128, 64),
                             (8, 16), (8, 16), (8, 8)],
                            llama_decoder_layer, 1e-4),
}


def check(outputs, expected, tolerance):
    assert len(outputs) == len(expected)
    for out, ref in zip(outputs, expected):
        assert out.shape == ref.shape
        error = np.abs(out.astype(np.float64) - ref).max()
        assert error <= tolerance * np.abs(ref).max(), error


@pytest.mark.parametrize("name", sorted(CASES))
def test_imported_and_superoptimized_match_numpy(name):
    shapes, reference, tolerance = CASES[name]
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal(s) * (0.3 if len(s) > 1 else 1.0)
              for s in shapes]
    inputs = [a.astype(np.float32) for a in inputs]
    expected = reference(*[a.astype(np.float64) for a in inputs])
    graph = mi.from_mlir((PROGRAMS / f"{name}.mlir").read_text())
    check(graph(inputs=inputs), expected, tolerance)
    optimized = graph.superoptimize(timeout=2)
    check(optimized(inputs=inputs), expected, tolerance)


def test_mirage_style_attention_with_odd_sizes():
    """Mirage's API on sizes that are no powers of two (head dim 48, 80
    keys), with the 1/sqrt(d) scale: the optimized graph matches numpy and
    has PTX and a launch plan."""
    graph = mi.new_kernel_graph()
    Q = graph.new_input(dims=(2, 16, 48), dtype=mi.float16)
    K = graph.new_input(dims=(2, 48, 80), dtype=mi.float16)
    V = graph.new_input(dims=(2, 80, 48), dtype=mi.float16)
    A = graph.mul_scalar(graph.matmul(Q, K), 1 / math.sqrt(48))
    E = graph.exp(A)
    O = graph.matmul(graph.div(E, graph.reduction(E, 2)), V)
    graph.mark_output(O)

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal(t.dims) * 0.3 for t in graph.inputs)
    f16 = [a.astype(np.float16).astype(np.float64) for a in (q, k, v)]
    e = np.exp(f16[0] @ f16[1] / math.sqrt(48))
    expected = (e / e.sum(2, keepdims=True)) @ f16[2]

    optimized = graph.superoptimize(timeout=2)
    (out,) = optimized(inputs=[q, k, v])
    np.testing.assert_allclose(out, expected, rtol=2e-2, atol=2e-2)
    assert ".entry" in optimized.ptx("sm_90")
    plan = optimized.launch_plan("sm_80")
    (function,) = [f for f in plan["functions"] if f["launches"]]
    assert 1 <= len(function["launches"]) <= 4


def test_gather_runs_as_a_loop_kernel():
    """An embedding's gather (a payload that extracts a table row at the
    token's id), which the kernel dialect cannot express, before an RMSNorm
    and a projection: the CPU numbers match numpy before and after the
    search, and the GPU lowering runs the gather as a kernel of its own that
    reads the int64 ids and the table (the function was refused before)."""
    graph = mi.from_mlir((PROGRAMS / "embedding-gather.mlir").read_text())
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 50, size=(3, 7)).astype(np.int64)
    table = rng.standard_normal((50, 96)).astype(np.float32)
    gain = rng.standard_normal(96).astype(np.float32)
    w = (rng.standard_normal((96, 80)) * 0.1).astype(np.float32)
    h = table.astype(np.float64)[ids].reshape(21, 96)
    expected = h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * gain @ w
    check(graph(inputs=[ids, table, gain, w]), [expected], 1e-4)
    optimized = graph.superoptimize(timeout=2)
    check(optimized(inputs=[ids, table, gain, w]), [expected], 1e-4)

    assert ".visible .entry embed_norm_proj_kernel0(" in optimized.ptx("sm_90")
    plan = optimized.launch_plan("sm_90")
    (function,) = [f for f in plan["functions"] if f["launches"]]
    gather = function["launches"][0]
    assert [a["dtype"] for a in gather["args"]] == ["i64", "f32", "f32"]
    assert gather["block"] == [256, 1, 1]
    assert len(function["launches"]) >= 2


def test_argmax_result_is_int64():
    """Greedy decoding's argmax after an LM head: the indices (an i64 result
    of a linalg op the import leaves) come back as an int64 array, equal to
    numpy's argmax before and after the search, and the launch plan gives
    the result's dtype."""
    graph = mi.from_mlir((PROGRAMS / "embedding-gather.mlir").read_text(),
                         function="lm_head_argmax")
    assert [t.dtype for t in graph.outputs] == [mi.int64]
    rng = np.random.default_rng(5)
    h = rng.standard_normal((3, 96)).astype(np.float32)
    w = rng.standard_normal((96, 500)).astype(np.float32)
    expected = np.argmax(h.astype(np.float64) @ w, axis=1)
    (out,) = graph(inputs=[h, w])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, expected)
    optimized = graph.superoptimize(timeout=2)
    (out,) = optimized(inputs=[h, w])
    np.testing.assert_array_equal(out, expected)
    plan = optimized.launch_plan("sm_90")
    (function,) = [f for f in plan["functions"] if f["launches"]]
    assert function["arguments"][-1]["dtype"] == "i64"


SCALAR_ARGUMENTS = """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @scaled_linear(%x: tensor<16x32xf32>, %w: tensor<32x24xf32>,
                         %alpha: f32, %n: i32) -> tensor<16x24xf32> {
  %nf = arith.sitofp %n : i32 to f32
  %inv = arith.divf %alpha, %nf : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %s = linalg.generic {indexing_maps = [#map, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x24xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %r = linalg.matmul ins(%s, %w : tensor<16x32xf32>, tensor<32x24xf32>)
                     outs(%f : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}
"""


def test_scalar_arguments_are_zero_d_inputs():
    """A linalg function that takes scalars (an f32 scale and an i32 count,
    combined above the op) has inputs of shape (), which take numpy scalars
    or Python numbers; the CPU numbers match numpy before and after the
    search, which fuses the scale into the matmul, and the launch plan lists
    each scalar as an input of one element."""
    graph = mi.from_mlir(SCALAR_ARGUMENTS)
    assert [t.dims for t in graph.inputs] == [(16, 32), (32, 24), (), ()]
    assert [t.dtype for t in graph.inputs][2:] == [mi.float32, mi.int32]
    rng = np.random.default_rng(11)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w = rng.standard_normal((32, 24)).astype(np.float32)
    expected = (x.astype(np.float64) * (3.0 / 4)) @ w
    (out,) = graph(inputs=[x, w, np.float32(3.0), 4])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    optimized = graph.superoptimize(timeout=10)
    assert optimized.mlir().count("kernel.custom") == 1
    (out,) = optimized(inputs=[x, w, 3.0, np.array(4, np.int32)])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    (function,) = [f for f in optimized.launch_plan("sm_90")["functions"]
                   if f["launches"]]
    scalars = [a for a in function["arguments"] if a["shape"] == []]
    assert [(a["index"], a["dtype"], a["bytes"]) for a in scalars] == [
        (2, "f32", 4), (3, "i32", 4)]
    with pytest.raises(ValueError, match=r"input 2 has shape \(1,\)"):
        graph(inputs=[x, w, np.ones(1, np.float32), 4])


def test_a_kv_cache_written_at_run_time_positions():
    """A decode step that writes its key and value rows into the caches at
    `%pos` (tensor.insert_slice at a run-time offset), then attends over
    the slots up to it: searched (the slices stay where they are), run on
    the CPU at three positions, each matching numpy."""
    graph = mi.from_mlir((PROGRAMS / "kv-cache-insert.mlir").read_text())
    optimized = graph.superoptimize(timeout=5)
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((1, 32)).astype(np.float32)
               for _ in range(3))
    kc, vc = (rng.standard_normal((64, 32)).astype(np.float32)
              for _ in range(2))
    for pos in (0, 17, 63):
        keys, values = kc.copy(), vc.copy()
        keys[pos], values[pos] = k[0], v[0]
        s = (q.astype(np.float64) @ keys.T.astype(np.float64))
        s[:, pos + 1:] = -np.inf
        p = np.exp(s - s.max(-1, keepdims=True))
        expected = [(p / p.sum(-1, keepdims=True)) @ values, keys, values]
        check(optimized(inputs=[q, k, v, kc, vc, pos]), expected, 1e-4)


def test_decode_position_is_read_at_run_time():
    """A decode step masks the cache slots past `%past`, an i64 argument:
    the import computes the mask in a generic of its own, so one optimized
    graph (the attention fused into one kernel, which on the GPU computes
    the mask where it loads it: one launch) serves every position, each
    matching numpy."""
    graph = mi.from_mlir((PROGRAMS / "decode-position-attention.mlir")
                         .read_text())
    assert [t.dims for t in graph.inputs][3] == ()
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal(s).astype(np.float32) * 0.3
               for s in [(8, 1, 64), (8, 256, 64), (8, 256, 64)])
    optimized = graph.superoptimize(timeout=5)
    assert optimized.mlir().count("kernel.custom") == 1
    (function,) = [f for f in optimized.launch_plan("sm_90")["functions"]
                   if f["name"] == "decode_attention"]
    assert len(function["launches"]) == 1
    for past in (0, 100, 255):
        expected = causal_attention(*(a.astype(np.float64) for a in (q, k, v)),
                                    past)
        check(optimized(inputs=[q, k, v, past]), expected, 1e-4)
