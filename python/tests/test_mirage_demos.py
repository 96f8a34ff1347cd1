"""Mirage's demo graphs, built with the lines of Mirage's demo scripts
(demo/demo_group_query_attention.py, demo/demo_lora.py), run on the CPU to
numpy's numbers: what porting by changing the import gives."""

import numpy as np

import mlsopt as mi


def f16(a):
    return a.astype(np.float16).astype(np.float64)


def test_group_query_attention_demo():
    graph = mi.new_kernel_graph()
    Q = graph.new_input(dims=(2, 256, 64), dtype=mi.float16)
    K = graph.new_input(dims=(2, 64, 4096), dtype=mi.float16)
    V = graph.new_input(dims=(2, 4096, 64), dtype=mi.float16)
    A = graph.matmul(Q, K)
    E = graph.exp(A)
    S = graph.reduction(E, 2)
    D = graph.div(E, S)
    O = graph.matmul(D, V)
    graph.mark_output(O)

    rng = np.random.default_rng(21)
    # Scaled so that exp stays within f16's range, as a softmax's
    # 1/sqrt(d) and max subtraction would keep it.
    q = rng.standard_normal((2, 256, 64)) * 0.1
    k = rng.standard_normal((2, 64, 4096)) * 0.1
    v = rng.standard_normal((2, 4096, 64))
    (out,) = graph(inputs=[q, k, v])
    assert out.dtype == np.float16 and out.shape == (2, 256, 64)
    e = np.exp(f16(q) @ f16(k))
    expected = (e / e.sum(axis=2, keepdims=True)) @ f16(v)
    np.testing.assert_allclose(out, expected, rtol=5e-2, atol=5e-3)


def test_lora_demo():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(16, 256), dtype=mi.float16)
    W = graph.new_input(dims=(256, 4096), dtype=mi.float16)
    A = graph.new_input(dims=(256, 16), dtype=mi.float16)
    B = graph.new_input(dims=(16, 4096), dtype=mi.float16)
    D = graph.matmul(X, A)
    E = graph.matmul(D, B)
    C = graph.matmul(X, W)
    O = graph.add(C, E)
    graph.mark_output(O)
    assert graph.cost("sm_90").launches == 4

    rng = np.random.default_rng(22)
    x, w, a, b = (rng.standard_normal(t.dims) / 8 for t in graph.inputs)
    (out,) = graph(inputs=[x, w, a, b])
    expected = f16(x) @ f16(w) + f16(f16(x) @ f16(a)) @ f16(b)
    np.testing.assert_allclose(out, expected, rtol=2e-2,
                               atol=2e-2 * np.abs(expected).max())


def test_rms_norm_demo_generates_its_program(rms_norm_mugraph):
    # Mirage's demo/demo_rms_norm.py builds a threadblock graph and prints
    # mi.generate_cuda_program(graph.cygraph, ...)["code"], with no
    # mark_output: the customized op's result is named as output_tensors.
    import pytest
    graph, O = rms_norm_mugraph(mi.float16)
    with pytest.warns(UserWarning, match="generates no CUDA C\\+\\+"):
        p = mi.generate_cuda_program(graph.cygraph, target_cc=80,
                                     input_strides=[(4096, 1), (4096, 1)],
                                     output_tensors=O)
    assert "target sm_80" in p["code"] and ".entry" in p["code"]
    (function,) = p["launch_plan"]["functions"]
    assert len(function["launches"]) == 1
    assert function["launches"][0]["grid"] == [64, 1, 1]
    # Mirage's sizes: one launch, no buffers between launches.
    assert p["max_smem_size"] == \
        function["launches"][0]["dynamic_shared_memory_bytes"] > 0
    assert p["buf_size"] == 0
    # A layout other than the declared one is refused.
    with pytest.raises(ValueError, match="not the layout new_input declared"):
        mi.generate_cuda_program(graph.cygraph, target_cc=80,
                                 input_strides=[(4096, 1), (1, 4096)],
                                 output_tensors=O)
