"""Mirage's threadblock graphs (new_threadblock_graph, customized) as
kernel.custom ops: Mirage's reference μGraphs build, verify and run on the
CPU to numpy's numbers, and broken ones fail with located errors."""

import inspect

import numpy as np
import pytest

import mlsopt as mi


def this_line():
    return inspect.currentframe().f_back.f_lineno


def marked_rms_norm_mugraph(build, dtype=mi.float32):
    graph, (O,) = build(dtype)
    graph.mark_output(O)
    return graph


def test_rms_norm_mugraph_is_one_custom_kernel(rms_norm_mugraph):
    graph = marked_rms_norm_mugraph(rms_norm_mugraph)
    text = graph.mlir()
    assert text.count("kernel.custom") == 1
    assert "grid <64, 1, 1> block <128, 1, 1>" in text
    assert "block.for_loop 64 iterations accumulate (mean, sum)" in text
    assert "block.load %in0 imap <> fmap 1 : tensor<16x4096xf32> -> tensor<16x64xf32>" in text
    assert "block.load %in1 imap <x = 1> fmap 0 : tensor<4096x4096xf32> -> tensor<64x64xf32>" in text
    assert "block.store" in text and "omap <x = 1>" in text
    assert graph.outputs[0].dims == (16, 4096)
    assert graph.cost("sm_90").launches == 1


def test_rms_norm_mugraph_runs_to_numpys_numbers(rms_norm_mugraph):
    graph = marked_rms_norm_mugraph(rms_norm_mugraph)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 4096)).astype(np.float32)
    w = (rng.standard_normal((4096, 4096)) / 64).astype(np.float32)
    (out,) = graph(inputs=[x, w])
    expected = (x / np.sqrt((x * x).mean(axis=1, keepdims=True))) @ w
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_rms_norm_mugraph_in_f16_keeps_activations_near_40_in_range(
        rms_norm_mugraph):
    # The rows' mean square (about 1600) fits f16; the sum of a 64-wide
    # tile's squares (about 1e5) does not, and was summed first: zeros.
    graph = marked_rms_norm_mugraph(rms_norm_mugraph, mi.float16)
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((16, 4096)) * 40).astype(np.float16)
    w = (rng.standard_normal((4096, 4096)) / 64).astype(np.float16)
    (out,) = graph(inputs=[x, w])
    xf = x.astype(np.float64)
    expected = (xf / np.sqrt((xf * xf).mean(axis=1, keepdims=True))) @ w
    assert np.all(np.isfinite(out))
    error = np.abs(out - expected).max() / np.abs(expected).max()
    assert error < 5e-3


@pytest.mark.parametrize("acc, reference", [
    (None, lambda x: x.reshape(8, 4, 16).sum(axis=1)),
    ("sum", lambda x: x.sum(axis=1, keepdims=True)),
    ("mean", lambda x: x.mean(axis=1, keepdims=True)),
    ("rms", lambda x: np.sqrt((x * x).mean(axis=1, keepdims=True))),
])
def test_forloop_accumulators(acc, reference):
    """Mirage's accumulators over a loop of 4 iterations of 8x16 tiles of an
    8x64 input; "sum", "mean", "rms" also reduce the last dim."""
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(1, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tA = tb.forloop_accum(tX, acc)
    tb.new_output(stensor=tA, output_map=(-1, -1, -1))
    (O,) = graph.customized([X], tb)
    graph.mark_output(O)
    x = np.random.default_rng(2).standard_normal((8, 64)).astype(np.float32)
    (out,) = graph(inputs=[x])
    np.testing.assert_allclose(out, reference(x), rtol=1e-5, atol=1e-6)


def test_forloop_accum_max_reduction_max_and_mul_scalar():
    # Mirage's forloop_accum_max: the elementwise maximum over the loop's
    # 4 tiles of 8x16; reduction_max and mul_scalar of the result after it.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(1, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tM = tb.forloop_accum_max(tX)
    tb.new_output(stensor=tM, output_map=(-1, -1, -1))
    tb.new_output(stensor=tb.mul_scalar(tb.reduction_max(tM, -1), 0.5),
                  output_map=(-1, -1, -1))
    M, R = graph.customized([X], tb)
    graph.mark_output(M)
    graph.mark_output(R)
    assert "accumulate (max)" in graph.mlir()
    x = np.random.default_rng(5).standard_normal((8, 64)).astype(np.float32)
    tiles = x.reshape(8, 4, 16).max(axis=1)
    out, reduced = graph(inputs=[x])
    np.testing.assert_array_equal(out, tiles)
    np.testing.assert_array_equal(reduced, 0.5 * tiles.max(axis=1, keepdims=True))
    with pytest.raises(ValueError, match="already accumulated"):
        tb.forloop_accum_max(tM)


def test_gated_mlp_mugraph_in_f16():
    # Mirage's demo/reference_mugraphs/gated_mlp.py, smaller.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 512), dtype=mi.float16)
    W1 = graph.new_input(dims=(512, 256), dtype=mi.float16)
    W2 = graph.new_input(dims=(512, 256), dtype=mi.float16)
    tb_graph = mi.new_threadblock_graph(grid_dim=(8, 1, 1), block_dim=(256, 1, 1),
                                        forloop_range=16, reduction_dimx=64)
    tX = tb_graph.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tW1 = tb_graph.new_input(dtensor=W1, input_map=(1, -1, -1), forloop_dim=0)
    tW2 = tb_graph.new_input(dtensor=W2, input_map=(1, -1, -1), forloop_dim=0)
    tD1 = tb_graph.matmul(tX, tW1)
    tD2 = tb_graph.matmul(tX, tW2)
    tA1 = tb_graph.forloop_accum(tD1)
    tA2 = tb_graph.forloop_accum(tD2)
    tS = tb_graph.silu(tA1)
    tO = tb_graph.mul(tS, tA2)
    tb_graph.new_output(stensor=tO, output_map=(1, -1, -1))
    O = graph.customized([X, W1, W2], tb_graph)
    graph.mark_output(O[0])
    assert tO.dims == (8, 32) and O[0].dims == (8, 256)

    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 512))
    w1 = rng.standard_normal((512, 256)) / 16
    w2 = rng.standard_normal((512, 256)) / 16
    (out,) = graph(inputs=[x, w1, w2])
    assert out.dtype == np.float16
    x, w1, w2 = (a.astype(np.float16).astype(np.float64) for a in (x, w1, w2))
    d1 = x @ w1
    expected = d1 / (1 + np.exp(-d1)) * (x @ w2)
    np.testing.assert_allclose(out, expected, rtol=2e-2,
                               atol=2e-2 * np.abs(expected).max())


def test_attention_mugraph_two_outputs_and_a_second_kernel():
    """Attention in two kernels, as Mirage's GQA reference μGraph: the first
    writes exp(QK)V and the row sums, the second divides."""
    graph = mi.new_kernel_graph()
    Q = graph.new_input(dims=(2, 64, 32), dtype=mi.float32)
    K = graph.new_input(dims=(2, 32, 256), dtype=mi.float32)
    V = graph.new_input(dims=(2, 256, 32), dtype=mi.float32)
    tb1 = mi.new_threadblock_graph(grid_dim=(2, 4, 1), block_dim=(128, 1, 1),
                                   forloop_range=4)
    bQ = tb1.new_input(dtensor=Q, input_map=(0, 1, -1), forloop_dim=-1)
    bK = tb1.new_input(dtensor=K, input_map=(0, -1, -1), forloop_dim=2)
    bV = tb1.new_input(dtensor=V, input_map=(0, -1, -1), forloop_dim=1)
    bE = tb1.exp(tb1.matmul(bQ, bK))
    bO1 = tb1.forloop_accum(tb1.matmul(bE, bV))
    bO2 = tb1.forloop_accum(bE, "sum")
    tb1.new_output(stensor=bO1, output_map=(0, 1, -1))
    tb1.new_output(stensor=bO2, output_map=(0, 1, -1))
    O = graph.customized([Q, K, V], tb1)
    assert [t.dims for t in O] == [(2, 64, 32), (2, 64, 1)]

    tb2 = mi.new_threadblock_graph(grid_dim=(2, 1, 1), block_dim=(128, 1, 1),
                                   forloop_range=1)
    bA = tb2.new_input(dtensor=O[0], input_map=(0, -1, -1), forloop_dim=-1)
    bB = tb2.new_input(dtensor=O[1], input_map=(0, -1, -1), forloop_dim=-1)
    # One iteration: new_output accumulates in-loop tiles itself.
    tb2.new_output(stensor=tb2.div(bA, bB), output_map=(0, -1, -1))
    (out_t,) = graph.customized(O, tb2)
    graph.mark_output(out_t)
    assert graph.mlir().count("kernel.custom") == 2

    rng = np.random.default_rng(5)
    q = (rng.standard_normal((2, 64, 32)) * 0.3).astype(np.float32)
    k = (rng.standard_normal((2, 32, 256)) * 0.3).astype(np.float32)
    v = rng.standard_normal((2, 256, 32)).astype(np.float32)
    (out,) = graph(inputs=[q, k, v])
    p = np.exp(q @ k)
    np.testing.assert_allclose(out, (p @ v) / p.sum(axis=2, keepdims=True),
                               rtol=1e-4, atol=1e-5)


def chameleon_mugraph(dims, dtype):
    """Mirage's demo/demo_chameleon.py (and the customized μGraph of its GQA
    demo): the keys are split across the 16 blocks along y, each walking its
    chunk in 4 iterations (imap y and fmap on the same dim), so the first
    kernel writes a partial exp(QK)V per chunk; the second folds the chunks
    onto 64 columns (sum_todimx) and divides by the summed row sums."""
    b, n, d, keys = dims
    graph = mi.new_kernel_graph()
    Q = graph.new_input(dims=(b, n, d), dtype=dtype)
    K = graph.new_input(dims=(b, d, keys), dtype=dtype)
    V = graph.new_input(dims=(b, keys, d), dtype=dtype)
    tbgraph1 = mi.new_threadblock_graph(grid_dim=(b, 16, 4),
                                        block_dim=(128, 1, 1),
                                        forloop_range=4, reduction_dimx=d)
    bQ = tbgraph1.new_input(dtensor=Q, input_map=(0, -1, 1), forloop_dim=-1)
    bK = tbgraph1.new_input(dtensor=K, input_map=(0, 2, -1), forloop_dim=2)
    bV = tbgraph1.new_input(dtensor=V, input_map=(0, 1, -1), forloop_dim=1)
    bA = tbgraph1.matmul(bQ, bK)
    bE = tbgraph1.exp(bA)
    bS = tbgraph1.matmul(bE, bV)
    bO1 = tbgraph1.forloop_accum(bS)
    bO2 = tbgraph1.forloop_accum(bE, "sum")
    tbgraph1.new_output(stensor=bO1, output_map=(0, 2, 1))
    tbgraph1.new_output(stensor=bO2, output_map=(0, 2, 1))
    O = graph.customized([Q, K, V], tbgraph1)
    tbgraph2 = mi.new_threadblock_graph(grid_dim=(b, 16, 1),
                                        block_dim=(128, 1, 1),
                                        forloop_range=1, reduction_dimx=d)
    bA = tbgraph2.new_input(dtensor=O[0], input_map=(0, 1, -1), forloop_dim=-1)
    bB = tbgraph2.new_input(dtensor=O[1], input_map=(0, 1, -1), forloop_dim=-1)
    bA = tbgraph2.forloop_accum(bA, "sum_todimx")
    bB = tbgraph2.forloop_accum(bB, "sum")
    bO = tbgraph2.div(bA, bB)
    tbgraph2.new_output(stensor=bO, output_map=(0, 1, -1))
    return graph, O, graph.customized(O, tbgraph2)


def test_chameleon_mugraph_splits_the_keys_across_blocks():
    graph, partial, O = chameleon_mugraph((2, 256, 64, 4096), mi.float16)
    graph.mark_output(O[0])
    # 16 chunks of 256 keys: a numerator of 64 columns and a row sum each.
    assert [t.dims for t in partial] == [(2, 256, 1024), (2, 256, 16)]
    text = graph.mlir()
    assert "imap <x = 0, y = 2> fmap 2 : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>" in text
    # sum_todimx reads the 16 groups of 64 columns as windows and adds them.
    assert text.count("window [0, 0, ") == 16
    assert "window [0, 0, 960] [2, 256, 64]" in text

    rng = np.random.default_rng(31)
    q = (rng.standard_normal((2, 256, 64)) * 0.1).astype(np.float16)
    k = (rng.standard_normal((2, 64, 4096)) * 0.1).astype(np.float16)
    v = rng.standard_normal((2, 4096, 64)).astype(np.float16)
    (out,) = graph(inputs=[q, k, v], outputs=O)
    e = np.exp(q.astype(np.float64) @ k.astype(np.float64))
    expected = (e @ v.astype(np.float64)) / e.sum(axis=2, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=2e-2, atol=2e-3)
    # Each chunk's partial sums, as the first kernel stored them: block y
    # holds keys [256 y, 256 y + 256), not keys spread over the blocks.
    numerators, sums = graph(inputs=[q, k, v], outputs=partial)
    chunks = e.reshape(2, 256, 16, 256).sum(axis=3)
    np.testing.assert_allclose(sums[..., 5], chunks[..., 5], rtol=2e-2)
    launches = graph.launch_plan("sm_90")["functions"][0]["launches"]
    assert [l["grid"] for l in launches] == [[2, 16, 4], [2, 16, 1]]


def test_sum_todimx_folds_a_loaded_tile_only():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 256), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(2, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=1, reduction_dimx=64)
    tX = tb.new_input(dtensor=X, input_map=(0, -1, -1), forloop_dim=-1)
    with pytest.raises(ValueError, match="for a tile of an input"):
        tb.forloop_accum(tb.exp(tX), "sum_todimx")
    tb48 = mi.new_threadblock_graph(grid_dim=(2, 1, 1), block_dim=(128, 1, 1),
                                    forloop_range=1, reduction_dimx=48)
    with pytest.raises(ValueError, match=r"\(256\) is not a multiple of "
                                         r"reduction_dimx \(48\)"):
        tb48.forloop_accum(tb48.new_input(dtensor=X, input_map=(0, -1, -1),
                                          forloop_dim=-1), "sum_todimx")
    tbx = mi.new_threadblock_graph(grid_dim=(2, 1, 1), block_dim=(128, 1, 1),
                                   forloop_range=1, reduction_dimx=64)
    with pytest.raises(ValueError, match="do not split"):
        tbx.forloop_accum(tbx.new_input(dtensor=X, input_map=(1, -1, -1),
                                        forloop_dim=-1), "sum_todimx")
    # Folded: column c of each row sums columns c, c + 64, c + 128, c + 192.
    tb.new_output(stensor=tb.forloop_accum(tX, "sum_todimx"),
                  output_map=(0, -1, -1))
    (O,) = graph.customized([X], tb)
    x = np.random.default_rng(32).standard_normal((8, 256)).astype(np.float32)
    (out,) = graph(inputs=[x], outputs=[O])
    np.testing.assert_allclose(out, x.reshape(8, 4, 64).sum(axis=1),
                               rtol=1e-5, atol=1e-5)


def test_tile_shape_errors_are_located():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(2, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(0, -1, -1), forloop_dim=1)
    with pytest.raises(mi.MLIRError) as error:
        line = this_line(); tb.matmul(tX, tX)  # noqa: E702
    assert f"{__file__}:{line}: error: matmul contraction dims differ" in str(error.value)
    Y = graph.new_input(dims=(8, 66), dtype=mi.float32)
    with pytest.raises(ValueError, match=r"dim 1 of a tensor of dims \(8, 66\) "
                                         r"\(66\) does not split evenly by "
                                         r"the for-loop range \(4\)"):
        tb.new_input(dtensor=Y, input_map=(-1, -1, -1), forloop_dim=1)
    with pytest.raises(ValueError, match="forloop_accum first"):
        tb.add(tX, tb.forloop_accum(tX))
    with pytest.raises(ValueError, match="positive reduction_dimx"):
        tb.forloop_accum(tX, "sum_todimx")
    with pytest.raises(ValueError, match="still in the for-loop"):
        tb.new_output(stensor=tX, output_map=(0, -1, -1))


def test_mugraph_rule_violations_fail_in_the_verifier():
    """Blocks that would write the same output tile: the block dialect's
    verifier rejects the kernel, at the new_output line."""
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(2, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=1)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=-1)
    line = this_line(); tb.new_output(stensor=tb.forloop_accum(tX), output_map=(-1, -1, -1))  # noqa: E702
    with pytest.raises(mi.MLIRError) as error:
        graph.customized([X], tb)
    assert f"{__file__}:{line}: error:" in str(error.value)
    assert "kernel.custom" not in graph.mlir()
    with pytest.raises(ValueError, match="exactly the tensors"):
        graph.customized([], tb)


def test_kernel_wide_errors_point_at_the_customized_call():
    """Too much shared memory is no one op's fault: the error points at
    the script line that added the kernel."""
    graph = mi.new_kernel_graph()
    Y = graph.new_input(dims=(4096, 4096), dtype=mi.float32)
    tb = mi.new_threadblock_graph((1, 1, 1), (128, 1, 1), 1)
    t = tb.new_input(dtensor=Y, input_map=(-1, -1, -1), forloop_dim=-1)
    tb.new_output(stensor=tb.exp(t), output_map=(-1, -1, -1))
    with pytest.raises(mi.MLIRError) as error:
        line = this_line(); graph.customized([Y], tb)  # noqa: E702
    assert f"{__file__}:{line}: error: 'kernel.custom' op block graph needs" in str(error.value)


def test_clamp_in_a_threadblock_graph_runs_to_numpys_numbers():
    # Mirage's TBGraph.clamp: the product's tiles clamped before they are
    # stored, bounds given as an infinity too (its bit pattern in MLIR).
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 64), dtype=mi.float32)
    W = graph.new_input(dims=(64, 128), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(4, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tW = tb.new_input(dtensor=W, input_map=(1, -1, -1), forloop_dim=0)
    tM = tb.forloop_accum(tb.matmul(tX, tW))
    tC = tb.clamp(tb.clamp(tM, -0.5, 0.75), float("-inf"), 0.5)
    tb.new_output(stensor=tC, output_map=(1, -1, -1))
    graph.mark_output(graph.customized([X, W], tb)[0])
    text = graph.mlir()
    assert "block.max_scalar" in text and "block.min_scalar" in text
    assert "0xFFF0000000000000" in text
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((64, 128)).astype(np.float32)
    (out,) = graph(inputs=[x, w])
    np.testing.assert_allclose(out, np.clip(x @ w, -0.5, 0.5), rtol=1e-5,
                               atol=1e-5)


def test_store_in_dmem_tiles_are_staged_through_shared_memory():
    # Mirage keeps such a tile in device memory; the values are the same,
    # and mlsopt loads it like any other tile.
    def build(store_in_dmem):
        graph = mi.new_kernel_graph()
        X = graph.new_input(dims=(16, 64), dtype=mi.float32)
        W = graph.new_input(dims=(64, 128), dtype=mi.float32)
        tb = mi.new_threadblock_graph(grid_dim=(4, 1, 1),
                                      block_dim=(128, 1, 1), forloop_range=4)
        tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
        tW = tb.new_input(dtensor=W, input_map=(1, -1, -1), forloop_dim=0,
                          store_in_dmem=store_in_dmem)
        tb.new_output(stensor=tb.forloop_accum(tb.matmul(tX, tW)),
                      output_map=(1, -1, -1))
        graph.mark_output(graph.customized([X, W], tb)[0])
        return graph

    staged, plain = build(True), build(False)
    assert staged.mlir() == plain.mlir()
    rng = np.random.default_rng(5)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((64, 128)).astype(np.float32)
    (out,) = staged(inputs=[x, w])
    np.testing.assert_allclose(out, x @ w, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="store_in_dmem must be a bool"):
        mi.new_threadblock_graph((1, 1, 1), (128, 1, 1), 1).new_input(
            mi.new_kernel_graph().new_input(dims=(4, 4), dtype=mi.float32),
            (-1, -1, -1), -1, store_in_dmem="yes")


def test_input_read_after_the_loop_is_loaded_there_once():
    # A linear layer's bias and residual, inputs with forloop_dim=-1 read by
    # ops after forloop_accum: the kernel loads their tiles after the loop
    # (once, not in each of its 4 iterations) and adds them to the product.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 64), dtype=mi.float32)
    W = graph.new_input(dims=(64, 128), dtype=mi.float32)
    B = graph.new_input(dims=(1, 128), dtype=mi.float32)
    R = graph.new_input(dims=(16, 128), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(4, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tW = tb.new_input(dtensor=W, input_map=(1, -1, -1), forloop_dim=0)
    tB = tb.new_input(dtensor=B, input_map=(1, -1, -1), forloop_dim=-1)
    tR = tb.new_input(dtensor=R, input_map=(1, -1, -1), forloop_dim=-1)
    tM = tb.forloop_accum(tb.matmul(tX, tW))
    tO = tb.add(tb.relu(tb.add(tM, tB)), tR)
    tb.new_output(stensor=tO, output_map=(1, -1, -1))
    graph.mark_output(graph.customized([X, W, B, R], tb)[0])
    text = graph.mlir()
    loop_end = text.index("block.yield")
    for load in ("block.load %in2 imap <x = 1> : tensor<1x128xf32> -> tensor<1x32xf32>",
                 "block.load %in3 imap <x = 1> : tensor<16x128xf32> -> tensor<16x32xf32>"):
        assert text.count(load) == 1 and text.index(load) > loop_end, text
    rng = np.random.default_rng(4)
    x, w, b, r = (rng.standard_normal(s).astype(np.float32)
                  for s in ((16, 64), (64, 128), (1, 128), (16, 128)))
    (out,) = graph(inputs=[x, w, b, r])
    np.testing.assert_allclose(out, np.maximum(x @ w + b, 0) + r,
                               rtol=1e-4, atol=1e-5)


def test_float_sizes_and_maps_are_type_errors_not_truncated():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float16)
    with pytest.raises(TypeError, match="grid_dim must be an integer"):
        mi.new_threadblock_graph((2.5, 1, 1), (128, 1, 1), 1)
    with pytest.raises(TypeError, match="forloop_range must be an integer"):
        mi.new_threadblock_graph((2, 1, 1), (128, 1, 1), 4.0)
    tb = mi.new_threadblock_graph((2, 1, 1), (128, 1, 1), 4)
    with pytest.raises(TypeError, match="input_map must be an integer"):
        tb.new_input(dtensor=X, input_map=(0.0, -1, -1), forloop_dim=1)
    with pytest.raises(TypeError, match="forloop_dim must be an integer"):
        tb.new_input(dtensor=X, input_map=(0, -1, -1), forloop_dim=1.0)


def test_negative_dims_below_minus_one_are_refused_not_read_as_none():
    # forloop_dim=-2 (numpy's second to last) was read as -1: the loop then
    # summed the same tile forloop_range times, without a word.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 256), dtype=mi.float32)
    tb = mi.new_threadblock_graph((1, 1, 1), (128, 1, 1), 4)
    with pytest.raises(ValueError, match="forloop_dim entry -2: a tensor dim"):
        tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=-2)
    with pytest.raises(ValueError, match="input_map entry -5"):
        tb.new_input(dtensor=X, input_map=(-5, -1, -1), forloop_dim=1)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    with pytest.raises(ValueError, match="output_map entry -9"):
        tb.new_output(tb.forloop_accum(tX), output_map=(-9, -1, -1))


def test_a_tensor_dim_split_by_two_grid_dims_is_refused_where_it_is_mapped():
    # The block dialect's verifier refused it too, but pointed into the
    # threadblock graph's generated text instead of the script.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 256), dtype=mi.float32)
    tb = mi.new_threadblock_graph((2, 2, 1), (128, 1, 1), 4)
    with pytest.raises(ValueError, match=r"grid map \(1, 1, -1\) splits a "
                       "tensor dim by two grid dims"):
        tb.new_input(dtensor=X, input_map=(1, 1, -1), forloop_dim=0)
    tX = tb.new_input(dtensor=X, input_map=(0, 1, -1), forloop_dim=-1)
    with pytest.raises(ValueError, match="splits a tensor dim by two grid"):
        tb.new_output(tb.forloop_accum(tX), output_map=(0, 0, -1))


def test_hand_written_tiles_too_large_for_a_chip_say_how_to_shrink_them():
    # A 128 KiB tile fits sm_90's blocks, not sm_86's: the note names the
    # script's knobs, not only the command line's search.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(128, 512), dtype=mi.float16)
    tb = mi.new_threadblock_graph((1, 1, 1), (128, 1, 1), 1)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=-1)
    tb.new_output(tb.forloop_accum(tb.reduction(tX, 1)),
                  output_map=(-1, -1, -1))
    (O,) = graph.customized([X], tb)
    graph.mark_output(O)
    assert ".entry" in graph.ptx("sm_90")
    with pytest.raises(mi.MLIRError, match=r"(?s)more than the 101376 bytes "
                       r"a block of sm_86 can have.*written by hand, a larger "
                       r"grid_dim or forloop_range makes its tiles smaller"):
        graph.ptx("sm_86")


def test_an_input_the_loop_does_not_walk_is_stored_as_a_copy():
    # With one iteration, storing such a tile is a copy kernel (it failed in
    # the verifier: a load after a for-loop that was never written). With
    # more, nothing is accumulated, so there is no loop for the load to
    # follow: a ValueError says what to do.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph((2, 1, 1), (128, 1, 1), 1)
    tX = tb.new_input(dtensor=X, input_map=(0, -1, -1), forloop_dim=-1)
    tb.new_output(tX, output_map=(0, -1, -1))
    graph.mark_output(graph.customized([X], tb)[0])
    x = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)
    (out,) = graph(inputs=[x])
    np.testing.assert_array_equal(out, x)

    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph((2, 1, 1), (128, 1, 1), 4)
    tX = tb.new_input(dtensor=X, input_map=(0, -1, -1), forloop_dim=-1)
    tb.new_output(tX, output_map=(0, -1, -1))
    with pytest.raises(ValueError, match="has no for-loop: with forloop_range=4"):
        graph.customized([X], tb)


def test_column_major_inputs_feed_a_threadblock_graph():
    # Mirage's tests/python/test_tensor_program.py::test_rms_norm: X and W
    # declared column-major (strides (1, rows)), the RMS of X's rows
    # accumulated with acc="rms" and the product divided by it; the output
    # marked with row-major strides.
    graph = mi.new_kernel_graph()
    X = graph.new_input((8, 256), (1, 8), dtype=mi.float16)
    W = graph.new_input((256, 512), (1, 256), dtype=mi.float16)
    tb = mi.new_threadblock_graph(grid_dim=(8, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4, reduction_dimx=64)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tW = tb.new_input(dtensor=W, input_map=(1, -1, -1), forloop_dim=0)
    tAccX = tb.forloop_accum(tX, "rms")
    tAccM = tb.forloop_accum(tb.matmul(tX, tW))
    tb.new_output(stensor=tb.div(tAccM, tAccX), output_map=(1, -1, -1))
    O = graph.customized([X, W], tb)
    graph.mark_output(O[0], (512, 1))

    rng = np.random.default_rng(33)
    x = (rng.random((8, 256)) * -0.5 + 1).astype(np.float16)
    w = (rng.random((256, 512)) * -0.5 + 1).astype(np.float16)
    (out,) = graph(inputs=[np.asfortranarray(x), np.asfortranarray(w)],
                   outputs=O)
    xf = x.astype(np.float64)
    expected = (xf / np.sqrt((xf * xf).mean(axis=1, keepdims=True))) @ w
    np.testing.assert_allclose(out, expected, rtol=1e-2)
    # The layout is the graph's; an array of the same values in C order
    # gives the same numbers.
    (again,) = graph(inputs=[x, w], outputs=O)
    np.testing.assert_array_equal(again, out)
    with pytest.raises(ValueError, match=r"input 1 has shape \(512, 256\)"):
        graph(inputs=[x, w.T], outputs=O)


def test_ops_on_invariant_tiles_run_after_the_loop():
    """A LoRA-like μGraph (Mirage schedules an op by its operands' place, so
    it accepts this): relu(D B) reads only inputs the loop does not walk, so
    it is the same in every iteration and the add after the loop reads it
    computed there; the loop body keeps only what its accumulator needs."""
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 256), dtype=mi.float32)
    W = graph.new_input(dims=(256, 256), dtype=mi.float32)
    D = graph.new_input(dims=(16, 16), dtype=mi.float32)
    B = graph.new_input(dims=(16, 256), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(4, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tW = tb.new_input(dtensor=W, input_map=(1, -1, -1), forloop_dim=0)
    tD = tb.new_input(dtensor=D, input_map=(-1, -1, -1), forloop_dim=-1)
    tB = tb.new_input(dtensor=B, input_map=(1, -1, -1), forloop_dim=-1)
    low_rank = tb.relu(tb.matmul(tD, tB))
    acc = tb.forloop_accum(tb.matmul(tX, tW))
    tb.new_output(stensor=tb.add(acc, low_rank), output_map=(1, -1, -1))
    (O,) = graph.customized([X, W, D, B], tb)
    graph.mark_output(O)

    loop, after = graph.mlir().split("block.yield")
    assert loop.count("block.load") == 2 and loop.count("block.matmul") == 1
    assert "block.relu" not in loop
    assert after.count("block.load") == 2 and after.count("block.matmul") == 1
    assert "block.relu" in after

    rng = np.random.default_rng(8)
    x, w, d, b = (rng.standard_normal(s).astype(np.float32)
                  for s in [(16, 256), (256, 256), (16, 16), (16, 256)])
    (out,) = graph(inputs=[x, w, d, b])
    np.testing.assert_allclose(out, x @ w + np.maximum(d @ b, 0), rtol=1e-4,
                               atol=1e-4)


def test_a_loop_tile_read_after_the_loop_is_an_error_at_its_line():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 256), dtype=mi.float32)
    W = graph.new_input(dims=(256, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(1, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=4)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=1)
    tW = tb.new_input(dtensor=W, input_map=(-1, -1, -1), forloop_dim=0)
    product = tb.matmul(tX, tW)
    acc = tb.forloop_accum(product)
    with pytest.raises(mi.MLIRError,
                       match=r"test_threadblock\.py:\d+: error: add mixes "
                             r"tiles of the for-loop with accumulated ones"):
        tb.add(acc, product)
