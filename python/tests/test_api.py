"""The Mirage-style graph API: building, shapes, errors, mlir() text,
from_mlir, cost() and Graphviz output."""

import inspect
import pathlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mlsopt as mi

REPO = pathlib.Path(__file__).resolve().parents[2]


def this_line():
    return inspect.currentframe().f_back.f_lineno


def test_dtypes_and_shapes_are_known_as_built():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float16)
    W = graph.new_input(dims=(64, 32), dtype=mi.float16)
    O = graph.matmul(X, W)
    assert O.dims == (8, 32) and O.num_dims == 2 and O.dim(1) == 32
    assert O.dtype is mi.float16
    S = graph.reduction(O, 1)
    assert S.dims == (8, 1)
    assert graph.reduction(O, -2).dims == (1, 32)
    B = graph.new_input(dims=(32,), dtype=mi.float16)
    assert graph.add(O, B).dims == (8, 32)  # numpy broadcasting
    assert graph.div(O, S).dims == (8, 32)
    for op in ("exp", "silu", "gelu", "relu", "sqrt", "square"):
        assert getattr(graph, op)(O).dims == (8, 32)
    assert graph.rms_norm(X, normalized_shape=(64,)).dims == (8, 64)
    # Batched matmul over a leading dim.
    Q = graph.new_input(dims=(2, 16, 8), dtype=mi.bfloat16)
    K = graph.new_input(dims=(2, 8, 4), dtype=mi.bfloat16)
    assert graph.matmul(Q, K).dims == (2, 16, 4)
    assert graph.matmul(Q, K).dtype is mi.bfloat16
    assert [t.dims for t in graph.inputs] == [(8, 64), (64, 32), (32,),
                                              (2, 16, 8), (2, 8, 4)]


def test_dtype_spellings():
    graph = mi.new_kernel_graph()
    assert graph.new_input(dims=(4,), dtype="float32").dtype is mi.float32
    assert graph.new_input(dims=(4,), dtype="bf16").dtype is mi.bfloat16
    import numpy as np
    assert graph.new_input(dims=(4,), dtype=np.float16).dtype is mi.float16
    # Mirage's default input dtype is float16.
    assert graph.new_input(dims=(4,)).dtype is mi.float16
    with pytest.raises(TypeError, match="unsupported dtype"):
        graph.new_input(dims=(4,), dtype="int8")


def test_mlir_text_is_the_kernel_dialect_program():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 4096), dtype=mi.float16)
    W1 = graph.new_input(dims=(4096, 4096), dtype=mi.float16)
    W2 = graph.new_input(dims=(4096, 4096), dtype=mi.float16)
    O1 = graph.silu(graph.matmul(X, W1))
    O = graph.mul(O1, graph.matmul(X, W2))
    graph.mark_output(O)
    text = graph.mlir()
    assert re.search(
        r"func.func @main\(%arg0: tensor<8x4096xf16>, %arg1: tensor<4096x4096xf16>, "
        r"%arg2: tensor<4096x4096xf16>\) -> tensor<8x4096xf16>", text), text
    ops = re.findall(r"= (kernel\.\w+)", text)
    assert ops == ["kernel.matmul", "kernel.silu", "kernel.matmul", "kernel.mul"]
    assert re.search(r"return %\d+ : tensor<8x4096xf16>", text)
    # The text is a valid module: it parses back to the same program.
    again = mi.from_mlir(text)
    assert again.mlir() == text
    # As a file read in binary mode gives it; anything else is a TypeError
    # that says what from_mlir() takes.
    assert mi.from_mlir(text.encode()).mlir() == text
    with pytest.raises(TypeError, match=r"from_mlir\(\) takes MLIR text "
                                        r"\(str or bytes\), got int"):
        mi.from_mlir(42)


def test_rms_norm_and_reduction_attributes_reach_the_ir():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(4, 16), dtype=mi.float32)
    graph.mark_output(graph.rms_norm(X, normalized_shape=(16,), eps=1e-6))
    graph.mark_output(graph.reduction(X, 0))
    text = graph.mlir()
    assert "kernel.rms_norm %arg0 {epsilon = 9.9999999999999995E-7 : f64}" in text
    assert "kernel.reduce_sum %arg0 dim 0 : tensor<4x16xf32>" in text
    assert "-> (tensor<4x16xf32>, tensor<1x16xf32>)" in text


def test_shape_error_carries_the_diagnostic_and_the_callers_line():
    graph = mi.new_kernel_graph()
    A = graph.new_input(dims=(8, 64), dtype=mi.float16)
    B = graph.new_input(dims=(32, 16), dtype=mi.float16)
    with pytest.raises(mi.MLIRError) as error:
        line = this_line(); graph.matmul(A, B)  # noqa: E702
    message = str(error.value)
    assert f"{__file__}:{line}: error: matmul contraction dims differ" in message
    assert "(64)" in message and "(32)" in message
    # The failed op left nothing behind.
    assert "kernel.matmul" not in graph.mlir()
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("build, message", [
    (lambda g, a, b: g.add(a, b), "broadcast"),
    (lambda g, a, b: g.reduction(a, 5), "dim"),
    (lambda g, a, b: g.matmul(a, g.new_input(dims=(4,), dtype=mi.float16)),
     "rank"),
    (lambda g, a, b: g.mul(a, g.new_input(dims=(8, 64), dtype=mi.float32)),
     "element type"),
])
def test_invalid_ops_raise_mlir_errors(build, message):
    graph = mi.new_kernel_graph()
    A = graph.new_input(dims=(8, 64), dtype=mi.float16)
    B = graph.new_input(dims=(32, 16), dtype=mi.float16)
    with pytest.raises(mi.MLIRError, match=message):
        build(graph, A, B)


def test_invalid_arguments_raise_python_errors():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float16)
    with pytest.raises(ValueError, match="last dim only"):
        graph.rms_norm(X, normalized_shape=(8, 64))
    with pytest.raises(ValueError, match="neither row-major"):
        graph.new_input(dims=(8, 64), strides=(1, 16))
    # Row-major and column-major strides, as Mirage scripts spell them, are
    # accepted; a column-major input is stored with its dims reversed.
    graph.new_input(dims=(8, 64), strides=(64, 1))
    T = graph.new_input(dims=(8, 64), strides=(1, 8))
    assert T.dims == (8, 64)
    assert graph.inputs[-1].dims == (64, 8)
    assert "kernel.transpose %arg2 [1, 0] : tensor<64x8xf16>" in graph.mlir()
    with pytest.raises(mi.MLIRError, match="positive"):
        graph.new_input(dims=(8, 0))
    other = mi.new_kernel_graph()
    Y = other.new_input(dims=(8, 64))
    with pytest.raises(ValueError, match="another graph"):
        graph.add(X, Y)
    with pytest.raises(TypeError, match="DTensor"):
        graph.exp(3.0)


def test_from_mlir_kernel_dialect_example():
    text = (REPO / "examples" / "gated_mlp.mlir").read_text()
    reference = mi.from_mlir(text)
    assert [t.dims for t in reference.inputs] == [(8, 4096), (4096, 4096),
                                                  (4096, 4096)]
    assert [t.dims for t in reference.outputs] == [(8, 4096)]
    assert reference.outputs[0].dtype is mi.float16
    fused = mi.from_mlir(text, function="fused")
    assert "kernel.custom" in fused.mlir()
    # The graph is one program: the module's other function, and the link
    # to it, are gone (passes such as --superoptimize see every function).
    assert "@reference" not in fused.mlir()
    assert "@fused" not in reference.mlir()
    with pytest.raises(mi.MLIRError, match="no function @nope"):
        mi.from_mlir(text, function="nope")


def test_from_mlir_keeps_the_functions_the_graph_calls():
    graph = mi.from_mlir("""
      func.func private @gate(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
        %s = kernel.silu %x : tensor<4x8xf32>
        return %s : tensor<4x8xf32>
      }
      func.func @unrelated(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
        return %x : tensor<4x8xf32>
      }
      func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
        %g = func.call @gate(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
        %e = kernel.exp %g : tensor<4x8xf32>
        return %e : tensor<4x8xf32>
      }""", function="f")
    text = graph.mlir()
    assert "@gate" in text and "@unrelated" not in text
    import numpy as np
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_allclose(graph(inputs=[x])[0],
                               np.exp(x / (1 + np.exp(-x))), rtol=1e-6)


def test_from_mlir_takes_the_entry_point_and_superoptimize_inlines_calls():
    """A private function is a helper (StableHLO's func.call): the graph is
    the public function after it, and the search sees through the calls."""
    graph = mi.from_mlir("""
      func.func private @act(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
        %t = kernel.tanh %x : tensor<8x16xf32>
        return %t : tensor<8x16xf32>
      }
      func.func @f(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
        %m = kernel.matmul %x, %w : tensor<8x32xf32>, tensor<32x16xf32>
        %a = func.call @act(%m) : (tensor<8x16xf32>) -> tensor<8x16xf32>
        return %a : tensor<8x16xf32>
      }""")
    assert [t.dims for t in graph.inputs] == [(8, 32), (32, 16)]
    optimized = graph.superoptimize(timeout=10)
    text = optimized.mlir()
    assert "call" not in text and "@act" not in text
    assert text.count("kernel.custom") == 1
    import numpy as np
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    w = rng.standard_normal((32, 16)).astype(np.float32)
    np.testing.assert_allclose(optimized(inputs=[x, w])[0], np.tanh(x @ w),
                               rtol=1e-5, atol=1e-6)


def test_a_graph_of_a_private_function_survives_superoptimize():
    """All functions private: the graph is the first, which nothing calls,
    so superoptimize() keeps it (the inliner used to erase it with the
    helpers, leaving "no function @f")."""
    graph = mi.from_mlir("""
      func.func private @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
        %t = kernel.tanh %x : tensor<8x16xf32>
        %e = kernel.exp %t : tensor<8x16xf32>
        return %e : tensor<8x16xf32>
      }""")
    import numpy as np
    x = np.linspace(-1, 1, 128, dtype=np.float32).reshape(8, 16)
    (out,) = graph.superoptimize(timeout=5)(inputs=[x])
    np.testing.assert_allclose(out, np.exp(np.tanh(x)), rtol=1e-5)


def test_from_mlir_converts_linalg():
    text = (REPO / "examples" / "linalg" / "rmsnorm_matmul.mlir").read_text()
    graph = mi.from_mlir(text)
    ir = graph.mlir()
    assert "kernel.matmul" in ir
    assert "linalg.matmul" not in ir
    assert graph.outputs[0].dims == (8, 6144)


def test_from_mlir_imports_arith_on_whole_tensors():
    # arith/math on tensors stayed as they were: cost() said 0 us and the
    # CPU run failed with "op was not bufferized".
    graph = mi.from_mlir("""
      func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
        %s = arith.addf %a, %b : tensor<4x8xf32>
        %e = math.exp %s : tensor<4x8xf32>
        return %e : tensor<4x8xf32>
      }""")
    text = graph.mlir()
    assert "kernel.add" in text and "kernel.exp" in text, text
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no op is left out of the cost
        assert graph.cost().total_us > 0
    a = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_allclose(graph(inputs=[a, 2 * a])[0], np.exp(3 * a),
                               rtol=1e-6)


def test_from_mlir_rejects_a_recursive_graph():
    # Running it never returned.
    with pytest.raises(mi.MLIRError) as error:
        mi.from_mlir("""
      func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
        %r = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
        return %r : tensor<4xf32>
      }
      func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
        %r = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
        return %r : tensor<4xf32>
      }""", function="f")
    assert "<mlir>:3:14: error: recursive call of @f" in str(error.value)


def test_from_mlir_parse_error_is_located():
    with pytest.raises(mi.MLIRError) as error:
        mi.from_mlir("func.func @f(%a: tensor<8xf16>) {\n"
                     "  %b = kernel.frobnicate %a : tensor<8xf16>\n"
                     "  return\n}\n")
    assert "<mlir>:2:8: error: custom op 'kernel.frobnicate' is unknown" in str(
        error.value)


@pytest.mark.parametrize("argument_type, message", [
    ("vector<4xf32>", "expected a statically shaped tensor, got "
     "'vector<4xf32>'"),
    ("f64", "element type 'f64' is not supported"),
    ("tensor<?x4xf32>", "expected a statically shaped tensor"),
    ("tensor<4xf64>", "element type 'f64' is not supported"),
    ("tensor<4xui32>", "element type 'ui32' is not supported"),
    ("tensor<4xi4>", "element type 'i4' is not supported"),
    ("tensor<0x4xf32>", "tensor 'tensor<0x4xf32>' has a zero-sized dim"),
])
def test_from_mlir_rejects_what_a_graph_input_cannot_be(argument_type,
                                                       message):
    # A scalar argument once aborted the interpreter when `inputs` read
    # its shape.
    with pytest.raises(mi.MLIRError) as error:
        mi.from_mlir(f"func.func @f(%a: {argument_type}, %b: tensor<4xf32>)"
                     " -> tensor<4xf32> {\n  return %b : tensor<4xf32>\n}\n")
    assert f"<mlir>:1:14: error: {message}" in str(error.value)


def test_inputs_may_differ_by_unit_dims_as_in_mirages_demos():
    # Mirage reads an input's data pointer alone: its demos pass
    # torch.randn(1, 1, K) or torch.randn(K) for a (1, K) input.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(1, 64), dtype=mi.float32)
    W = graph.new_input(dims=(64, 8), dtype=mi.float32)
    graph.mark_output(graph.matmul(X, W))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 64)).astype(np.float32)
    w = rng.standard_normal((64, 8)).astype(np.float32)
    (expected,) = graph(inputs=[x, w])
    for shaped in (x.reshape(1, 1, 64), x.reshape(64), x.reshape(64, 1)):
        (out,) = graph(inputs=[shaped, w])
        np.testing.assert_array_equal(out, expected)
    graph.compile(inputs=[x.reshape(64), w])
    # Another shape of as many elements is still an error.
    with pytest.raises(ValueError, match=r"input 1 has shape \(8, 64\); the "
                       r"graph expects \(64, 8\)"):
        graph(inputs=[x, w.reshape(8, 64)])
    # cuda_call, which Mirage's __call__ forwards to, is the same call.
    (out,) = graph.cuda_call(inputs=[x, w])
    np.testing.assert_array_equal(out, expected)


def test_a_graph_runs_while_another_thread_grows_it():
    # The CPU run releases the GIL; the graph's runner then belongs to the
    # run, so that ops added meanwhile (which compile anew) do not free it
    # under the run. Before, this aborted the interpreter ("corrupted
    # double-linked list") in two runs of three; a subprocess keeps a crash
    # from taking pytest with it.
    script = """
import threading, numpy as np, mlsopt as mi
g = mi.new_kernel_graph()
X = g.new_input(dims=(64, 256), dtype=mi.float32)
g.mark_output(g.exp(X))
x = np.random.default_rng(0).random((64, 256)).astype(np.float32)
def run():
    for _ in range(100):
        (out,) = g(inputs=[x])
        assert np.allclose(out, np.exp(x), rtol=1e-5)
def grow():
    for _ in range(400):
        g.relu(X)
threads = [threading.Thread(target=run), threading.Thread(target=grow)]
[t.start() for t in threads]
[t.join() for t in threads]
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


def test_graphs_grow_after_from_mlir():
    graph = mi.from_mlir("""
      func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
        %e = kernel.exp %x : tensor<4x8xf32>
        return %e : tensor<4x8xf32>
      }""")
    (E,) = graph.outputs
    graph.mark_output(graph.reduction(E, 1))
    text = graph.mlir()
    assert "kernel.reduce_sum" in text
    assert "-> (tensor<4x8xf32>, tensor<4x1xf32>)" in text


def test_cost_is_the_cost_models_estimate():
    def gated_mlp(n):
        graph = mi.new_kernel_graph()
        X = graph.new_input(dims=(8, n), dtype=mi.float16)
        W1 = graph.new_input(dims=(n, n), dtype=mi.float16)
        W2 = graph.new_input(dims=(n, n), dtype=mi.float16)
        graph.mark_output(graph.mul(graph.silu(graph.matmul(X, W1)),
                                    graph.matmul(X, W2)))
        return graph

    cost = gated_mlp(4096).cost(target="sm_90")
    assert cost.launches == 4
    # Both weight matrices are read once: 2 x 4096 x 4096 x 2 bytes at least.
    assert cost.device_bytes >= 2 * 4096 * 4096 * 2
    assert cost.tensor_core_flops == 2 * (2 * 8 * 4096 * 4096)
    assert cost.tf32_flops == 0
    assert cost.total_us > 0 and float(cost) == cost.total_us
    assert cost.is_memory_bound()
    # Smaller problems cost less; an older chip is slower.
    assert gated_mlp(1024).cost("sm_90").total_us < cost.total_us
    assert gated_mlp(4096).cost("sm_80").total_us > cost.total_us
    with pytest.raises(ValueError, match="unknown target 'sm_12'"):
        gated_mlp(64).cost("sm_12")
    with pytest.raises(ValueError, match="unknown target 'sm_70'"):
        gated_mlp(64).kernel_costs("sm_70")

    # f32 matmuls run as tf32 on the tensor cores (the GPU lowering's
    # default), at half the f16 rate.
    def matmul(dtype):
        graph = mi.new_kernel_graph()
        A = graph.new_input(dims=(4096, 4096), dtype=dtype)
        B = graph.new_input(dims=(4096, 4096), dtype=dtype)
        graph.mark_output(graph.matmul(A, B))
        return graph.cost(target="sm_90")

    f16, f32 = matmul(mi.float16), matmul(mi.float32)
    assert f32.tf32_flops == 2 * 4096 ** 3 and f32.tensor_core_flops == 0
    assert f32.compute_us == pytest.approx(2 * f16.compute_us)


def test_cost_warns_about_what_it_leaves_out():
    # A linalg op the kernel dialect cannot express (a product over a dim)
    # stays linalg after from_mlir.
    graph = mi.from_mlir("""
      func.func @f(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
        %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>)
            dimensions = [1]
          (%a: f32, %b: f32) {
            %m = arith.mulf %a, %b : f32
            linalg.yield %m : f32
          }
        return %r : tensor<4xf32>
      }""")
    assert "linalg.reduce" in graph.mlir()
    with pytest.warns(UserWarning, match="leaves out 1 ops outside the kernel "
                                         "dialect: linalg.reduce"):
        assert graph.cost("sm_90").launches == 0
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mi.from_mlir((REPO / "examples" / "gated_mlp.mlir").read_text()).cost()


def test_cost_counts_slices_and_broadcasts_as_copy_kernels():
    # The GPU pipeline launches a broadcast, and a slice that something other
    # than a kernel reads (here the return), as copy kernels, so the cost
    # model counts what the launch plan runs; slices that only kernels read
    # are read in place (windows), and reshapes are views.
    graph = mi.from_mlir("""
      func.func @f(%q: tensor<8x64xf32>, %k: tensor<2x8x16xf32>)
          -> (tensor<8x64xf32>, tensor<2x2x8x16xf32>, tensor<4x64xf32>) {
        %lo = tensor.extract_slice %q[0, 0] [8, 32] [1, 1]
            : tensor<8x64xf32> to tensor<8x32xf32>
        %hi = tensor.extract_slice %q[0, 32] [8, 32] [1, 1]
            : tensor<8x64xf32> to tensor<8x32xf32>
        %e = tensor.empty() : tensor<8x32xf32>
        %n = linalg.negf ins(%hi : tensor<8x32xf32>)
            outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
        %r = tensor.concat dim(1) %n, %lo
            : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x64xf32>
        %eb = tensor.empty() : tensor<2x2x8x16xf32>
        %b = linalg.broadcast ins(%k : tensor<2x8x16xf32>)
            outs(%eb : tensor<2x2x8x16xf32>) dimensions = [1]
        %rows = tensor.extract_slice %q[4, 0] [4, 64] [1, 1]
            : tensor<8x64xf32> to tensor<4x64xf32>
        return %r, %b, %rows
            : tensor<8x64xf32>, tensor<2x2x8x16xf32>, tensor<4x64xf32>
      }""")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cost = graph.cost("sm_90")
    (function,) = graph.launch_plan("sm_90")["functions"]
    # The negation, the concat, the broadcast and the returned slice.
    assert cost.launches == len(function["launches"]) == 4
    # Each copy writes its result and reads what it copies.
    rows = 2 * (4 * 64 * 4)
    broadcast = 2 * 8 * 16 * 4 + 2 * 2 * 8 * 16 * 4
    assert cost.device_bytes >= rows + broadcast


def test_kernel_costs_add_up_to_the_cost():
    text = (REPO / "examples" / "attention.mlir").read_text()
    reference = mi.from_mlir(text, function="reference")
    for latency in (False, True):
        kernels = reference.kernel_costs("sm_90", latency=latency)
        total = reference.cost("sm_90", latency=latency)
        assert len(kernels) == total.launches == 5
        assert sum(k.total_us for k in kernels) == pytest.approx(total.total_us)
    # Pre-defined ops are costed as their default block graphs, whose
    # latency is reported either way and charged only with latency=True.
    roofline = reference.kernel_costs("sm_90")
    charged = reference.kernel_costs("sm_90", latency=True)
    assert all(k.latency_us > 0 for k in roofline + charged)
    assert [k.latency_us for k in roofline] == [k.latency_us for k in charged]
    for r, c in zip(roofline, charged):
        assert c.total_us == pytest.approx(max(r.total_us,
                                               r.launch_us + c.latency_us))


def test_kernel_costs_has_one_entry_per_launch():
    # A matmul with few output tiles and a long k runs as a split pair (the
    # partial sums, then the kernel that adds them): two launches, two
    # entries (it was one entry for the op).
    g = mi.new_kernel_graph()
    A = g.new_input(dims=(16, 4096), dtype=mi.float16)
    B = g.new_input(dims=(4096, 64), dtype=mi.float16)
    g.mark_output(g.matmul(A, B))
    (function,) = g.launch_plan("sm_90")["functions"]
    kernels = g.kernel_costs("sm_90")
    assert len(kernels) == len(function["launches"]) == 2
    assert all(k.launches == 1 for k in kernels)
    assert sum(k.total_us for k in kernels) == pytest.approx(
        g.cost("sm_90").total_us)


def test_latency_ranks_the_long_loop_last():
    # On an H200, @fused (8 blocks x 64 iterations) took 391 us and
    # @flash_decoding 32 us (docs/benchmarks.md).
    text = (REPO / "examples" / "attention.mlir").read_text()
    fused = mi.from_mlir(text, function="fused")
    split = mi.from_mlir(text, function="flash_decoding")
    (kernel,) = fused.kernel_costs("sm_90", latency=True)
    assert kernel.latency_us > max(kernel.memory_us, kernel.compute_us)
    assert kernel.steps.mma_steps > 0 and kernel.steps.reduction_steps > 0
    # Dependent mma.syncs are some of those issued.
    assert 0 < kernel.steps.mma_steps <= kernel.steps.mma_issues
    assert kernel.steps.cycles() == pytest.approx(kernel.latency_us * 1980)
    # Reported either way, charged only with latency=True.
    assert fused.cost("sm_90").latency_us == pytest.approx(kernel.latency_us)
    assert fused.cost("sm_90").total_us < kernel.total_us
    assert (fused.cost("sm_90", latency=True).total_us >
            5 * split.cost("sm_90", latency=True).total_us)


def test_fused_example_costs_less_than_its_reference():
    text = (REPO / "examples" / "rmsnorm_matmul.mlir").read_text()
    reference = mi.from_mlir(text, function="reference").cost("sm_90")
    fused = mi.from_mlir(text, function="fused").cost("sm_90")
    assert reference.launches == 2 and fused.launches == 1
    assert fused.total_us < reference.total_us
    # Estimates order by their totals, against each other or a number.
    assert fused < reference and reference > fused
    assert fused <= fused and fused >= fused
    assert not reference < fused
    assert fused < reference.total_us and reference > 0.0


def test_to_dot_and_visualize(tmp_path):
    text = (REPO / "examples" / "rmsnorm_matmul.mlir").read_text()
    fused = mi.from_mlir(text, function="fused")
    dot = fused.to_dot()
    assert dot.startswith("digraph")
    assert 'label="kernel.custom grid <96,1,1> block <128,1,1>"' in dot
    assert 'label="for_loop 64 iterations"' in dot
    assert "block.matmul" in dot
    # Only the graph's function, not the module's other one (@reference).
    assert 'label="fused"' in dot and 'label="reference"' not in dot
    path = fused.visualize(str(tmp_path / "fused"))
    assert path.endswith("fused.dot")
    assert pathlib.Path(path).read_text() == dot


def test_mirage_module_helpers():
    # Mirage scripts call these at the top level (demo/qwen_*.py,
    # demo/reference_mugraphs/*.py).
    mi.set_gpu_device_id(2)
    assert mi.gpu_device_id == 2
    mi.set_gpu_device_id(0)
    with pytest.raises(ValueError, match="negative"):
        mi.set_gpu_device_id(-1)


def test_mirage_dtype_conversion_to_torch():
    torch = pytest.importorskip("torch")
    assert mi.convert_dtype_to_torch_type(mi.bfloat16) is torch.bfloat16
    assert mi.convert_dtype_to_torch_type(mi.float16) is torch.float16


def test_torch_cpu_inputs_get_outputs_of_the_graphs_dtype():
    # numpy has no bfloat16, torch has: a bf16 graph's outputs are bf16
    # tensors for torch inputs, as a GPU run returns them (and Mirage).
    torch = pytest.importorskip("torch")
    for dtype, torch_dtype in ((mi.bfloat16, torch.bfloat16),
                               (mi.float16, torch.float16),
                               (mi.float32, torch.float32)):
        graph = mi.new_kernel_graph()
        x = graph.new_input(dims=(2, 3), dtype=dtype)
        graph.mark_output(graph.exp(x))
        (out,) = graph(inputs=[torch.zeros(2, 3, dtype=torch_dtype)])
        assert out.dtype == torch_dtype
        assert torch.equal(out.float(), torch.ones(2, 3))


def test_input_dims_must_be_integers_of_rank_one_or_more():
    import numpy as np
    graph = mi.new_kernel_graph()
    # 8.5 is not truncated to 8.
    with pytest.raises(TypeError, match=r"dims must be integers, got 8\.5"):
        graph.new_input(dims=(8.5, 8))
    with pytest.raises(TypeError, match="dims must be"):
        graph.new_input(dims=8)
    # Rank 0 is rejected here, not by the GPU lowering later.
    with pytest.raises(ValueError, match="at least one dim"):
        graph.new_input(dims=())
    with pytest.raises(ValueError, match="64 bits"):
        graph.new_input(dims=(2**70, 2))
    # Dims that fit while their product does not.
    with pytest.raises(ValueError, match="more than 64 bits count"):
        graph.new_input(dims=(2**40, 2**40))
    assert graph.inputs == []
    # numpy integers (a shape taken from an array) are integers.
    X = graph.new_input(dims=(np.int64(8), np.int32(4)), dtype=mi.float32)
    assert X.dims == (8, 4) and all(type(d) is int for d in X.dims)
    assert graph.new_input(dims=np.zeros((2, 3)).shape).dims == (2, 3)


def test_mirages_older_names_and_verifier_option():
    # mi.new_graph is what Mirage's earlier demos call.
    assert mi.new_graph is mi.new_kernel_graph
    graph = mi.new_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float16)
    graph.mark_output(graph.exp(X))
    with pytest.warns(UserWarning, match="verification option"):
        graph.superoptimize(is_formal_verified=True, timeout=1, threads=1)


def test_reduction_error_names_the_dim_given():
    graph = mi.new_kernel_graph()
    A = graph.new_input(dims=(8, 64), dtype=mi.float16)
    with pytest.raises(mi.MLIRError,
                       match="reduction dim -3 is out of range for rank 2"):
        graph.reduction(A, -3)
    # An in-range negative dim counts from the end.
    assert graph.reduction(A, -1).dims == (8, 1)
    assert graph.reduction(A, -2).dims == (1, 64)


def test_graph_without_outputs_says_to_mark_one():
    graph = mi.new_kernel_graph()
    graph.new_input(dims=(4, 4), dtype=mi.float32)
    import numpy as np
    calls = {
        "call": lambda: graph(inputs=[np.ones((4, 4), np.float32)]),
        "superoptimize": lambda: graph.superoptimize(timeout=5),
        "ptx": lambda: graph.ptx("sm_80"),
        "launch_plan": lambda: graph.launch_plan(),
        "cost": lambda: graph.cost(),
        "kernel_costs": lambda: graph.kernel_costs(),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError,
                           match=r"the graph has no outputs; call "
                                 r"mark_output") as error:
            call()
        assert "--mlsopt-gpu-pipeline" not in str(error.value), name


def test_a_graph_without_mark_output_takes_the_unread_tensors():
    # Mirage's demo_search.py builds a gated MLP and calls superoptimize()
    # with no mark_output: the tensors nothing reads are the outputs.
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(8, 64), dtype=mi.float32)
    W1 = g.new_input(dims=(64, 32), dtype=mi.float32)
    W2 = g.new_input(dims=(64, 32), dtype=mi.float32)
    O = g.mul(g.silu(g.matmul(X, W1)), g.matmul(X, W2))
    S = g.exp(X)
    with pytest.warns(UserWarning, match=r"superoptimize\(\) takes the 2 "
                      "tensors no op reads as its outputs"):
        optimized = g.superoptimize(timeout=5, threads=1)
    assert [t.dims for t in optimized.outputs] == [O.dims, S.dims]
    # The graph itself keeps no outputs: a later mark_output chooses them
    # (the defaults were kept and the marked one added to them).
    assert g.outputs == []
    x = np.random.rand(8, 64).astype(np.float32)
    w1 = np.random.rand(64, 32).astype(np.float32)
    w2 = np.random.rand(64, 32).astype(np.float32)
    got = optimized(inputs=[x, w1, w2])
    h = x @ w1
    np.testing.assert_allclose(got[0], h / (1 + np.exp(-h)) * (x @ w2),
                               rtol=1e-4)
    np.testing.assert_allclose(got[1], np.exp(x), rtol=1e-5)


def test_default_outputs_leave_the_choice_to_mark_output():
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(4, 8), dtype=mi.float32)
    # An unused column-major input is an input, not a result (its transpose
    # was taken as one).
    g.new_input(dims=(8, 16), strides=(1, 8), dtype=mi.float32)
    A, B = g.exp(X), g.relu(X)
    with pytest.warns(UserWarning, match="takes the 2 tensors"):
        assert g.cost("sm_90").launches == 2
    C = g.silu(A)
    g.mark_output(C)
    assert [t.dims for t in g.outputs] == [C.dims]
    # exp and silu; relu is read by nothing (with the defaults kept, A and
    # B were outputs too: 3 launches).
    assert g.cost("sm_90").launches == 2
    # A graph whose only tensor is a column-major input computes nothing.
    h = mi.new_kernel_graph()
    h.new_input(dims=(8, 16), strides=(1, 8), dtype=mi.float32)
    with pytest.raises(ValueError, match="the graph has no outputs"):
        h.cost()


def test_mirage_dtype_names_exist_but_graphs_hold_floats():
    import numpy as np
    names = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
             "uint64", "float64")
    graph = mi.new_kernel_graph()
    for name in names:
        dt = getattr(mi, name)
        assert isinstance(dt, mi.dtype) and name in mi.__all__
        with pytest.raises(TypeError,
                           match="mlsopt supports float16, bfloat16 and "
                                 "float32"):
            graph.new_input(dims=(4,), dtype=dt)
    with pytest.raises(TypeError, match="supports float16, bfloat16"):
        graph.new_input(dims=(4,), dtype=np.float64)
    assert graph.inputs == []


def test_mirage_dtype_names_and_tests():
    # Mirage's dtype: short names, str() the name, is_fp16() and kin.
    assert (mi.float16.name, mi.bfloat16.name, mi.float32.name,
            mi.float64.name, mi.int8.name) == ("fp16", "bf16", "fp32",
                                               "fp64", "int8")
    assert str(mi.bfloat16) == "bf16" and repr(mi.bfloat16) == "mlsopt.bfloat16"
    assert mi.float16.is_fp16() and not mi.float16.is_bf16()
    assert mi.bfloat16.is_bf16() and mi.float32.is_fp32()
    assert mi.int8.is_int8() and mi.uint16.is_uint16() and mi.float64.is_fp64()
    # A graph's tensors carry them, and the names select them too.
    graph = mi.new_kernel_graph()
    x = graph.new_input(dims=(4, 8), dtype="bf16")
    assert x.dtype is mi.bfloat16 and x.dtype.is_bf16()


def test_mirage_global_config():
    config = mi.global_config
    assert config.verbose is False and config.bypass_compile_errors is False
    # gpu_device_id is the one set_gpu_device_id keeps, both ways.
    mi.set_gpu_device_id(3)
    assert config.gpu_device_id == 3
    config.gpu_device_id = 1
    assert mi.gpu_device_id == 1
    config.gpu_device_id = 0
    config.bypass_compile_errors = True  # accepted, and ignored
    config.bypass_compile_errors = False


def test_owner_independent_hash_and_int_normalized_shape():
    def build(dim, normalized_shape):
        graph = mi.new_kernel_graph()
        X = graph.new_input(dims=(8, dim), dtype=mi.float16)
        graph.mark_output(graph.rms_norm(X, normalized_shape=normalized_shape))
        return graph
    # An int normalized_shape is the last dim, as torch takes it.
    a, b = build(64, 64), build(64, (64,))
    assert a.get_owner_independent_hash() == b.get_owner_independent_hash()
    assert isinstance(a.get_owner_independent_hash(), int)
    assert (build(32, 32).get_owner_independent_hash()
            != a.get_owner_independent_hash())
    with pytest.raises(ValueError, match="normalizes over the last dim"):
        build(64, 8)


def test_graphs_without_a_kernel_still_lower_and_run():
    # An output that is an input, and a sum over a dim of size 1, which the
    # search finds is a reshape: no kernel op is left, and each result buffer
    # is filled by a copy kernel, so ptx(), launch_plan() and a GPU call
    # work on the optimized graph as on the original.
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(6, 10), dtype=mi.float32)
    g.mark_output(X)
    h = mi.new_kernel_graph()
    Y = h.new_input(dims=(7, 1, 5), dtype=mi.float32)
    h.mark_output(h.reduction(Y, 1))
    x = np.arange(60, dtype=np.float32).reshape(6, 10)
    y = np.arange(35, dtype=np.float32).reshape(7, 1, 5)
    for graph, value in ((g, x), (h, y)):
        opt = graph.superoptimize(timeout=5, threads=1)
        assert "kernel." not in opt.mlir()
        np.testing.assert_array_equal(opt(inputs=[value])[0],
                                      value.reshape(opt.outputs[0].dims))
        assert ".entry" in opt.ptx("sm_90")
        (function,) = opt.launch_plan("sm_90")["functions"]
        assert len(function["launches"]) == 1
        # The cost model counts the copy the GPU runs.
        cost = opt.cost("sm_90")
        assert cost.launches == 1
        assert cost.device_bytes == 2 * value.nbytes


def test_cost_of_a_long_row_rms_norm_counts_its_launches():
    # A row of 65536 f16 values fits no block's shared memory, so the GPU
    # pipeline computes the ops rms_norm stands for; the cost model counts
    # the same launches (it said 1).
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(3, 65536), dtype=mi.float16)
    g.mark_output(g.rms_norm(X, normalized_shape=(65536,)))
    (function,) = g.launch_plan("sm_90")["functions"]
    launches = len(function["launches"])
    assert launches > 1
    assert g.cost("sm_90").launches == launches


def test_a_concat_along_rows_too_long_for_a_block_is_one_launch():
    # 40000 + 30000 f32 values per row fit no chip's shared memory: the
    # concat joins [4, 10000] and [3, 10000] views of its inputs (it had no
    # block graph, so neither a launch plan nor a cost).
    g = mi.from_mlir("""
      func.func @f(%a: tensor<2x40000xf32>, %b: tensor<2x30000xf32>) -> tensor<2x70000xf32> {
        %c = kernel.concat %a, %b dim 1 : tensor<2x40000xf32>, tensor<2x30000xf32>
        return %c : tensor<2x70000xf32>
      }""")
    for target in ("sm_80", "sm_90"):
        (function,) = g.launch_plan(target)["functions"]
        assert len(function["launches"]) == 1
        assert g.cost(target).launches == 1
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 40000)).astype(np.float32)
    b = rng.standard_normal((2, 30000)).astype(np.float32)
    (out,) = g(inputs=[a, b])
    np.testing.assert_array_equal(out, np.concatenate([a, b], axis=1))


def test_ops_no_output_reads_are_neither_launched_nor_costed():
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(64, 256), dtype=mi.float16)
    g.exp(g.exp(X))  # read by no output
    g.mark_output(g.neg(X))
    (function,) = g.launch_plan("sm_90")["functions"]
    assert len(function["launches"]) == 1
    assert g.cost("sm_90").launches == 1


def test_scalar_and_dim_arguments_are_checked():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(4, 8), dtype=mi.float32)
    # 1.7 is not truncated to dim 1, as 8.5 is not a dim of new_input.
    with pytest.raises(TypeError, match="reduction's dim must be an integer"):
        graph.reduction(X, 1.7)
    with pytest.raises(TypeError, match="reduction's dim must be an integer"):
        graph.reduction(X, "x")
    with pytest.raises(TypeError,
                       match="mul_scalar's scalar must be a real number"):
        graph.mul_scalar(X, "x")
    with pytest.raises(TypeError, match="clamp's max_val must be a real"):
        graph.clamp(X, 0.0, None)
    with pytest.raises(TypeError, match="rms_norm's eps must be a real"):
        graph.rms_norm(X, 8, eps="1e-6")
    # numpy scalars and 0-d arrays are numbers; a bool is not.
    assert graph.reduction(X, np.int64(1)).dims == (4, 1)
    graph.mul_scalar(X, np.float32(0.5))
    graph.mul_scalar(X, np.array(0.5))
    with pytest.raises(TypeError, match="got True"):
        graph.mul_scalar(X, True)
    # A target is checked wherever the graph runs, the CPU included.
    graph.mark_output(graph.exp(X))
    with pytest.raises(ValueError, match="unknown target 'bogus'"):
        graph(inputs=[np.ones((4, 8), np.float32)], target="bogus")
    with pytest.raises(ValueError, match="unknown target 'sm_75'"):
        graph(inputs=[np.ones((4, 8), np.float32)], target_cc=75)


def test_a_column_major_input_of_the_wrong_shape_names_the_declared_dims():
    g = mi.new_kernel_graph()
    W = g.new_input(dims=(4, 6), strides=(1, 4), dtype=mi.float32)
    g.mark_output(g.exp(W))
    # The message named the transposed argument's shapes, (5, 4) and (6, 4).
    with pytest.raises(ValueError, match=r"input 0 has shape \(4, 5\); the "
                       r"graph expects \(4, 6\) \(column-major\)"):
        g(inputs=[np.zeros((4, 5), np.float32)])
    assert g(inputs=[np.ones((4, 6), np.float32)])[0].shape == (4, 6)


def test_mirage_input_helpers_give_the_declared_dims_and_strides():
    # Mirage's cygraph helpers, which scripts (its qwen_mlp demo) and its
    # own kernel.py use to allocate inputs: dims and strides as declared,
    # which is what a call takes, also for a column-major input.
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(4, 6), dtype=mi.float32)
    W = g.new_input(dims=(6, 8), strides=(1, 6), dtype=mi.float32)
    g.mark_output(g.matmul(X, W))
    cy = g.cygraph
    assert cy.get_num_inputs() == 2
    stored = cy.get_input_dtensors()
    assert stored[1].dims == (8, 6)
    assert cy.get_input_dtensor_shape_and_stride(stored[0]) == ((4, 6), (6, 1))
    assert cy.get_input_dtensor_shape_and_stride(stored[1]) == ((6, 8), (1, 6))
    # The tensor new_input returned names the same input.
    assert cy.get_input_dtensor_shape_and_stride(W) == ((6, 8), (1, 6))
    assert cy.get_input_dtensor_layout(W) == (1, 6)
    inputs = [np.ones(cy.get_input_dtensor_shape_and_stride(t)[0], np.float32)
              for t in stored]
    (out,) = g(inputs=inputs)
    np.testing.assert_allclose(out, np.full((4, 8), 6.0))
    with pytest.raises(ValueError, match="is not an input of this graph"):
        cy.get_input_dtensor_layout(g.exp(X))
    with pytest.raises(ValueError, match="is not a tensor of this graph"):
        cy.get_input_dtensor_layout(mi.new_kernel_graph().new_input(dims=(2,)))


def test_mirage_call_options_for_profiling_and_online_softmax():
    # Mirage's demo/reference_mugraphs/group_query_attention_online.py calls
    # graph(inputs=..., enable_online_softmax=True); compile() takes
    # profiling=; stream= is a GPU run's stream. On the CPU none of them
    # changes the result, and a misspelt option is still refused, by
    # generate_cuda_program too.
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(4, 8), dtype=mi.float32)
    g.mark_output(g.exp(X))
    x = np.zeros((4, 8), np.float32)
    (out,) = g(inputs=[x], enable_online_softmax=True, profiling=False,
               stream=None)
    np.testing.assert_allclose(out, np.ones((4, 8)))
    g.compile(inputs=[x], profiling=True, enable_online_softmax=True)
    with pytest.raises(TypeError, match=r"unexpected keyword arguments "
                                        r"\['totally_bogus'\]"):
        mi.generate_cuda_program(g.cygraph, target_cc=90, totally_bogus=1)


def test_mirage_tutorial_forms_of_rms_norm_and_superoptimize():
    # Mirage's tutorials: graph.rms_norm(X, G) with a weight tensor,
    # graph.rms_norm(K) over the last dim, mi.superoptimize(graph).
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    G = graph.new_input(dims=(1, 64), dtype=mi.float32)
    W = graph.new_input(dims=(64, 32), dtype=mi.float32)
    N = graph.rms_norm(X, G)
    assert N.dims == (8, 64)
    assert graph.rms_norm(X).dims == (8, 64)
    graph.mark_output(graph.matmul(N, W))
    assert isinstance(graph, mi.KNGraph)
    optimized = mi.superoptimize(graph, timeout=2)
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    g = rng.standard_normal((1, 64)).astype(np.float32)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    (out,) = optimized(inputs=[x, g, w])
    expected = x / np.sqrt((x * x).mean(axis=1, keepdims=True)) * g @ w
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(TypeError, match="takes a kernel graph"):
        mi.superoptimize(X)
    # A weight that cannot scale the rows adds nothing to the graph (a norm
    # left behind would be taken as an output of a graph without any).
    ops = graph.mlir().count("kernel.")
    with pytest.raises(ValueError, match="does not broadcast"):
        graph.rms_norm(X, graph.new_input(dims=(32,), dtype=mi.float32))
    other = mi.new_kernel_graph().new_input(dims=(64,), dtype=mi.float32)
    with pytest.raises(ValueError, match="belongs to another graph"):
        graph.rms_norm(X, other)
    assert graph.mlir().count("kernel.") == ops


@pytest.mark.parametrize("call, error, message", [
    (lambda g, X: g.rms_norm(X, normalized_shape="64"), TypeError,
     "must be an int or a tuple of ints"),
    (lambda g, X: g.rms_norm(X, normalized_shape=64.5), TypeError,
     "must be an int or a tuple of ints"),
    (lambda g, X: g.rms_norm(X, eps=-1.0), ValueError,
     "eps must be a finite number >= 0"),
    (lambda g, X: g.rms_norm(X, eps=float("nan")), ValueError,
     "eps must be a finite number >= 0"),
])
def test_rms_norm_arguments_are_checked(call, error, message):
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    with pytest.raises(error, match=message):
        call(graph, X)


def test_customized_wants_a_list_of_inputs():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float32)
    tb = mi.new_threadblock_graph(grid_dim=(1, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=1)
    tX = tb.new_input(dtensor=X, input_map=(-1, -1, -1), forloop_dim=-1)
    tb.new_output(stensor=tb.exp(tX), output_map=(-1, -1, -1))
    with pytest.raises(TypeError, match="takes a list of the tensors"):
        graph.customized(X, tb)


def test_compile_checks_inputs_and_lowers_now():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 64), dtype=mi.float16)
    W = graph.new_input(dims=(64, 32), dtype=mi.float16)
    graph.mark_output(graph.matmul(X, W))
    x, w = np.zeros((8, 64)), np.zeros((64, 32))
    with pytest.raises(RuntimeError, match="after compile"):
        graph.valid_kernels()
    assert graph.compile(inputs=[x, w], target_cc=80, async_=False) is None
    assert graph.valid_kernels() is True
    # Mirage's scripts wait on the handle of an asynchronous build.
    handle = graph.compile(inputs=[x, w], async_=True)
    assert handle.wait() is None and handle.done()
    with pytest.raises(ValueError, match=r"input 1 has shape \(32, 64\)"):
        graph.compile(inputs=[x, w.T])
    with pytest.raises(ValueError, match="got 1 inputs; the graph has 2"):
        graph.compile(inputs=[x])
    with pytest.raises(ValueError, match="sm_70"):
        graph.compile(target="sm_70")
    with pytest.raises(TypeError, match="unexpected keyword"):
        graph.compile(bogus=1)


@pytest.mark.parametrize("dtype", [mi.float16, mi.bfloat16])
def test_split_matmul_multiplies_narrow_operands_on_the_tensor_cores(dtype):
    # One row by a [4096, 256] weight: few output tiles, so the default
    # block graph splits k across the grid. Its chunk products multiply the
    # f16/bf16 tiles as loaded, summing into f32; they were f32 tiles,
    # multiplied as tf32 at half the rate.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(1, 4096), dtype=dtype)
    W = graph.new_input(dims=(4096, 256), dtype=dtype)
    graph.mark_output(graph.matmul(X, W))
    cost = graph.cost("sm_90")
    assert cost.launches == 2
    assert cost.tf32_flops == 0
    assert cost.tensor_core_flops == 2 * 4096 * 256
    assert "mma.sync.aligned.m16n8k16" in graph.ptx("sm_90")
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 4096)).astype(np.float32)
    w = (rng.standard_normal((4096, 256)) / 64).astype(np.float32)
    (out,) = graph(inputs=[x, w])
    rounded = np.float16 if dtype is mi.float16 else np.float32
    expected = x.astype(rounded).astype(np.float64) @ w.astype(
        rounded).astype(np.float64)
    np.testing.assert_allclose(out, expected, rtol=2e-2,
                               atol=2e-2 * np.abs(expected).max())


def test_dtensors_handed_back_by_the_graph_are_the_ones_it_built():
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(4, 8), dtype=mi.float32)
    Y = graph.new_input(dims=(4, 8), dtype=mi.float32)
    O = graph.relu(X)
    graph.mark_output(O)
    assert graph.inputs == [X, Y] and graph.inputs[0] != Y
    assert O in graph.outputs and X not in graph.outputs
    assert {X: "x", O: "o"}[graph.inputs[0]] == "x"
    other = mi.new_kernel_graph()
    assert other.new_input(dims=(4, 8), dtype=mi.float32) != X


def test_shared_memory_capacity_is_the_limit_kernels_are_sized_to():
    # Mirage's scripts size their threadblock graphs by it.
    assert mi.get_shared_memory_capacity(90) == 227 * 1024
    assert mi.get_shared_memory_capacity(80) == 163 * 1024
    with pytest.raises(ValueError, match="unknown target_cc 70"):
        mi.get_shared_memory_capacity(70)


def test_older_mirage_entry_points_name_their_replacement():
    with pytest.raises(AttributeError, match="use graph.superoptimize"):
        mi.optimize
    with pytest.raises(AttributeError, match="persistent kernels"):
        mi.PersistentKernel
    with pytest.raises(AttributeError, match=r"\(Mirage has it\); use "
                       r"graph\.superoptimize\(target=\.\.\.\), which "
                       "takes the chip .*persistent kernels"):
        mi.get_configurations_from_gpu


def test_misused_arguments_say_what_was_wrong():
    graph = mi.new_kernel_graph()
    x = graph.new_input(dims=(4, 6), dtype=mi.float32)
    graph.mark_output(graph.exp(x))
    with pytest.raises(IndexError, match=r"dim\(5\) of a tensor with 2 dims"):
        x.dim(5)
    assert x.dim(-1) == 6
    with pytest.raises(TypeError, match="latency must be True or False"):
        graph.cost(latency="yes")
    with pytest.raises(TypeError, match="latency must be True or False"):
        graph.kernel_costs(latency="yes")
    assert repr(graph.cost(None, None)) == repr(graph.cost())
    # One array is not a list of them (its rows would be taken as inputs).
    with pytest.raises(TypeError, match=r"got one ndarray of shape \(4, 6\)"):
        graph(inputs=np.ones((4, 6), np.float32))
    # Mirage's second positional argument is strides, not the dtype.
    with pytest.raises(TypeError, match="second argument is strides"):
        graph.new_input((4, 4), mi.float16)


def test_mirage_methods_not_provided_say_what_to_use_instead():
    graph = mi.new_kernel_graph()
    x = graph.new_input(dims=(2, 3), dtype=mi.float32)
    with pytest.raises(AttributeError, match="no power op; use square"):
        graph.pow(x, x)
    with pytest.raises(AttributeError, match=r"g\.mlir\(\)"):
        graph.to_json("graph.json")
    with pytest.raises(AttributeError, match="raises MLIRError"):
        graph.get_error_message()
    tb = mi.new_threadblock_graph(grid_dim=(1, 1, 1), block_dim=(128, 1, 1),
                                  forloop_range=1, reduction_dimx=64)
    with pytest.raises(AttributeError, match="follows a running maximum"):
        tb.forloop_accum_rescale
    # Any other missing name is Python's usual error.
    with pytest.raises(AttributeError,
                       match="'KernelGraph' object has no attribute 'nope'"):
        graph.nope
    assert not hasattr(graph, "nope")
