"""ptx(), launch_plan() and running on a GPU.

Lowering runs everywhere; running needs a CUDA device, torch and CuPy or
cuda-python, and skips without them."""

import importlib.util
import pathlib
import re
import struct

import numpy as np
import pytest

import mlsopt as mi

REPO = pathlib.Path(__file__).resolve().parents[2]

def has_cuda():
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    if not torch.cuda.is_available():
        return False
    return any(importlib.util.find_spec(m) for m in ("cupy", "cuda"))


needs_cuda = pytest.mark.skipif(
    not has_cuda(), reason="needs a CUDA device, torch and CuPy or cuda-python")


def gated_mlp(dtype=mi.float16, n=256, k=512):
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, k), dtype=dtype)
    W1 = graph.new_input(dims=(k, n), dtype=dtype)
    W2 = graph.new_input(dims=(k, n), dtype=dtype)
    graph.mark_output(graph.mul(graph.silu(graph.matmul(X, W1)),
                                graph.matmul(X, W2)))
    return graph


@pytest.mark.parametrize("chip", ["sm_80", "sm_90"])
def test_ptx_of_a_custom_kernel(chip):
    text = (REPO / "examples" / "gated_mlp.mlir").read_text()
    fused = mi.from_mlir(text, function="fused")
    ptx = fused.ptx(target=chip)
    assert re.search(rf"^\.target {chip}\b", ptx, re.M), ptx[:500]
    assert re.search(r"^\.version \d+\.\d+", ptx, re.M)
    # One custom kernel: one entry point.
    assert len(re.findall(r"\.entry\s", ptx)) >= 1
    # f16 matmuls run on tensor cores.
    assert "mma.sync" in ptx or "wgmma" in ptx


def test_launch_plan_of_a_graph():
    graph = gated_mlp()
    plan = graph.launch_plan(target="sm_90")
    assert plan["version"] >= 1
    (function,) = [f for f in plan["functions"] if f["name"] == "main"]
    assert function["launches"], plan
    for launch in function["launches"]:
        assert len(launch["grid"]) == 3 and len(launch["block"]) == 3
        assert launch["kernel"]
    inputs = [a for a in function["arguments"] if a["role"] == "input"]
    assert [a["shape"] for a in inputs] == [[8, 512], [512, 256], [512, 256]]
    assert all(a["dtype"] == "f16" for a in inputs)


def test_an_output_marked_twice_or_an_input_output_gets_a_copy_launch():
    # A GPU host function writes each result buffer with a launch; the GPU
    # lowering rejected these graphs before.
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(64, 128), dtype=mi.float16)
    S = graph.reduction(X, 1)
    graph.mark_output(S)
    graph.mark_output(S)
    graph.mark_output(X)
    (function,) = graph.launch_plan(target="sm_80")["functions"]
    results = {a["index"]: a["result_index"] for a in function["arguments"]
               if a["role"] == "result"}
    written = [arg["index"] for launch in function["launches"]
               for arg in launch["args"][-1:]]
    assert sorted(written) == sorted(results), function["launches"]
    assert len(function["launches"]) == 3


def test_ptx_defaults_to_the_graphs_target():
    graph = mi.from_mlir((REPO / "examples" / "gated_mlp.mlir").read_text(),
                         function="fused")
    assert graph.target is None
    assert ".target sm_90" in graph.ptx()


# One block holds the whole 96x1024 f16 tile, 192 KiB: it fits sm_90's
# shared memory and not sm_80's.
SM90_ONLY = """
module attributes {mlsopt.target = "sm_90"} {
  func.func @main(%x: tensor<96x1024xf16>) -> tensor<96x1024xf16> {
    %0 = kernel.custom(%x) grid <1, 1, 1> block <128, 1, 1> : (tensor<96x1024xf16>) -> tensor<96x1024xf16> {
    ^bb0(%in0: tensor<96x1024xf16>, %out0: tensor<96x1024xf16>):
      %1 = block.for_loop 1 iterations accumulate (sum) : tensor<96x1024xf16> {
        %2 = block.load %in0 imap <> : tensor<96x1024xf16> -> tensor<96x1024xf16>
        %3 = block.exp %2 : tensor<96x1024xf16>
        block.yield %3 : tensor<96x1024xf16>
      }
      block.store %1, %out0 omap <> : tensor<96x1024xf16> into tensor<96x1024xf16>
      block.return
    }
    return %0 : tensor<96x1024xf16>
  }
}
"""


def test_lowering_for_another_chip_than_the_search_names_the_search_to_run():
    graph = mi.from_mlir(SM90_ONLY)
    assert graph.target == "sm_90"
    assert ".target sm_90" in graph.ptx()
    lowered = "more than the 166912 bytes a block of sm_80 can have"
    costed = "cannot be costed on sm_80"
    for call, why in ((graph.ptx, lowered), (graph.launch_plan, lowered),
                      (graph.cost, costed), (graph.kernel_costs, costed)):
        with pytest.raises(mi.MLIRError) as error:
            call(target="sm_80")
        message = str(error.value)
        assert why in message
        assert ("the graph was optimized for sm_90; "
                "superoptimize(target='sm_80') searches for one that fits "
                "sm_80") in message


def test_lowering_errors_unrelated_to_the_chip_get_no_search_advice():
    # The note on searching for the other chip is for errors about what a
    # chip has (shared memory, registers), not for any error of a graph
    # optimized for another chip. The lowering's errors are stood in for, so
    # that the test holds whichever of them the GPU lowering still has.
    graph = mi.from_mlir(SM90_ONLY)
    assert graph.target == "sm_90"
    unrelated = ("error: 'func.return' op returns the same tensor as "
                 "results 0 and 1; a GPU host function writes each result "
                 "with a kernel")
    resource = ("error: 'kernel.custom' op needs 200000 bytes of shared "
                "memory on the GPU (tiles, double buffers and f32 "
                "accumulators), more than the 166912 bytes a block of sm_80 "
                "can have")

    def failing(message):
        def emit(core, chip):
            raise mi.MLIRError(message)
        return emit

    with pytest.raises(mi.MLIRError) as error:
        graph._lowered(failing(unrelated), "sm_80")
    assert str(error.value) == unrelated
    with pytest.raises(mi.MLIRError) as error:
        graph._lowered(failing(resource), "sm_80")
    assert str(error.value).startswith(resource)
    assert ("superoptimize(target='sm_80') searches for one that fits "
            "sm_80") in str(error.value)
    # Lowering for the chip it was optimized for gets no note either.
    with pytest.raises(mi.MLIRError) as error:
        graph._lowered(failing(resource), "sm_90")
    assert str(error.value) == resource


@pytest.mark.parametrize("target", ["sm 80", "sm_xx", "sm_12", "80", ""])
def test_unknown_targets_are_rejected_before_any_pipeline(target, capfd):
    graph = gated_mlp()
    # An empty name is no chip either: only None means the default.
    for lower in (graph.ptx, graph.launch_plan, graph.cost,
                  graph.kernel_costs, graph.compile):
        with pytest.raises(ValueError,
                           match=rf"unknown target '{target}'; supported "
                                 r"targets: sm_80, sm_86, sm_89, sm_90"):
            lower(target=target)
    with pytest.raises(ValueError, match="unknown target"):
        graph.superoptimize(target=target)
    # MLIR's option parser printed nothing: no pipeline was built.
    assert capfd.readouterr().err == ""


@needs_cuda
def test_graph_runs_on_the_gpu_to_the_cpus_numbers():
    import torch
    graph = gated_mlp()
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal((8, 512)),
              rng.standard_normal((512, 256)) / 16,
              rng.standard_normal((512, 256)) / 16]
    (expected,) = graph(inputs=arrays)
    tensors = [torch.tensor(a, dtype=torch.float16, device="cuda:0")
               for a in arrays]
    (out,) = graph(inputs=tensors)
    assert out.is_cuda and out.dtype == torch.float16
    np.testing.assert_allclose(out.float().cpu().numpy(),
                               expected.astype(np.float32),
                               rtol=2e-2, atol=2e-2 * np.abs(expected).max())


@needs_cuda
def test_a_scalar_argument_takes_a_number_beside_cuda_tensors():
    """A linalg function's scalar argument is an input of shape (); beside
    CUDA tensors it may be a Python number, which goes to their device as a
    one-element tensor of the argument's type."""
    import torch
    graph = mi.from_mlir("""
      func.func @scale(%x: tensor<4x64xf32>, %alpha: f32) -> tensor<4x64xf32> {
        %e = tensor.empty() : tensor<4x64xf32>
        %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                              affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
            ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
        ^bb0(%v: f32, %o: f32):
          %m = arith.mulf %v, %alpha : f32
          linalg.yield %m : f32
        } -> tensor<4x64xf32>
        return %r : tensor<4x64xf32>
      }""")
    x = torch.arange(256, dtype=torch.float32, device="cuda").reshape(4, 64)
    (out,) = graph(inputs=[x, 2.5])
    assert out.is_cuda
    torch.testing.assert_close(out, x * 2.5)
    alpha = torch.tensor(-1.0, device="cuda")
    (out,) = graph(inputs=[x, alpha])
    torch.testing.assert_close(out, -x)


class FakeTensor:
    """A device tensor as the launch plan replay sees it: a shape and an
    address."""

    def __init__(self, shape, address):
        self.shape = tuple(shape)
        self.address = address

    def data_ptr(self):
        return self.address


# A launch plan in the format of docs/gpu.md (version 1) for a function
# @main(%x: 8x16xf16, %w: 16x4xf16, %out: 8x4xf16 result 0): a matmul into a
# buffer, then an epilogue from the buffer into the result.
PLAN = {
    "version": 1,
    "binaries": [{"name": "mlsopt_kernels",
                  "targets": [{"chip": "sm_90", "features": "+ptx80",
                               "format": "isa"}]}],
    "functions": [{
        "name": "main",
        "arguments": [
            {"index": 2, "role": "result", "result_index": 0, "shape": [8, 4],
             "dtype": "f16", "bytes": 64},
            {"index": 0, "role": "input", "shape": [8, 16], "dtype": "f16",
             "bytes": 256},
            {"index": 1, "role": "input", "shape": [16, 4], "dtype": "f16",
             "bytes": 128},
        ],
        "buffers": [{"id": 0, "shape": [8, 4], "dtype": "f32", "bytes": 128,
                     "first_launch": 0, "last_launch": 1}],
        "launches": [
            {"module": "mlsopt_kernels", "kernel": "matmul", "grid": [2, 1, 1],
             "block": [128, 1, 1], "dynamic_shared_memory_bytes": 4096,
             "args": [{"kind": "argument", "index": 0},
                      {"kind": "argument", "index": 1},
                      {"kind": "buffer", "id": 0}]},
            {"module": "mlsopt_kernels", "kernel": "epilogue",
             "grid": [1, 1, 1], "block": [32, 1, 1],
             "dynamic_shared_memory_bytes": 0,
             "args": [{"kind": "buffer", "id": 0},
                      {"kind": "argument", "index": 2}]},
        ],
    }],
}


def test_launch_plan_replay_passes_the_right_pointers_in_order():
    from mlsopt.gpu import LaunchPlan
    plan = LaunchPlan(PLAN, "main")
    allocated, launched = [], []

    def allocate_result(entry):
        allocated.append(("result", entry["shape"], entry["dtype"]))
        return FakeTensor(entry["shape"], 0x3000)

    def allocate_buffer(entry):
        allocated.append(("buffer", entry["bytes"]))
        return FakeTensor([entry["bytes"]], 0x4000)

    x, w = FakeTensor((8, 16), 0x1000), FakeTensor((16, 4), 0x2000)
    (out,) = plan.run([x, w], allocate_result, allocate_buffer,
                      lambda entry, pointers: launched.append(
                          (entry["kernel"], pointers)))
    assert out.address == 0x3000
    assert allocated == [("result", [8, 4], "f16"), ("buffer", 128)]
    assert launched == [("matmul", [0x1000, 0x2000, 0x4000]),
                        ("epilogue", [0x4000, 0x3000])]
    with pytest.raises(ValueError, match=r"input 1 has shape \(4, 16\)"):
        plan.run([x, FakeTensor((4, 16), 0)], allocate_result,
                 allocate_buffer, lambda *a: None)
    with pytest.raises(RuntimeError, match="no function @other"):
        LaunchPlan(PLAN, "other")
    with pytest.raises(RuntimeError, match="version 2"):
        LaunchPlan(dict(PLAN, version=2), "main")


def test_launch_plan_replay_copies_constants_into_their_buffers():
    # A weight the front end inlined is a buffer the plan gives the bytes
    # of (base64, as the device holds them): 0.5, -1.0 in f32.
    from mlsopt.gpu import LaunchPlan
    function = dict(PLAN["functions"][0])
    function["buffers"] = [dict(function["buffers"][0],
                                initializer="AAAAPwAAgL8=")]
    plan = LaunchPlan(dict(PLAN, functions=[function]), "main")
    x, w = FakeTensor((8, 16), 0x1000), FakeTensor((16, 4), 0x2000)
    copied = []
    plan.run([x, w], lambda r: FakeTensor(r["shape"], 0x3000),
             lambda b: FakeTensor([b["bytes"]], 0x4000), lambda *a: None,
             lambda buffer, data: copied.append((buffer.address, data)))
    assert copied == [(0x4000, struct.pack("<ff", 0.5, -1.0))]
    with pytest.raises(ValueError, match="needs `initialize`"):
        plan.run([x, w], lambda r: FakeTensor(r["shape"], 0x3000),
                 lambda b: FakeTensor([b["bytes"]], 0x4000), lambda *a: None)


def test_ptx_splits_by_binary():
    from mlsopt.gpu import split_ptx
    text = ("// gpu.binary @a, target #nvvm.target<chip = \"sm_90\">\n"
            ".version 8.0\n.target sm_90\n"
            "// gpu.binary @b\n.version 7.8\n.target sm_80\n")
    assert split_ptx(text) == {"a": ".version 8.0\n.target sm_90\n",
                               "b": ".version 7.8\n.target sm_80\n"}


def test_kernels_opt_in_to_large_shared_memory_once_per_size():
    from mlsopt.gpu import _opts_in
    opted = {}
    assert not _opts_in(opted, "k", 48 * 1024)
    assert _opts_in(opted, "k", 96 * 1024)
    assert not _opts_in(opted, "k", 64 * 1024)
    assert not _opts_in(opted, "k", 96 * 1024)
    assert _opts_in(opted, "k", 128 * 1024)
    assert _opts_in(opted, "other", 64 * 1024)


def test_runner_names_the_drivers_it_knows():
    from mlsopt.gpu import GPURunner
    with pytest.raises(ValueError, match="driver 'nvrtc'"):
        GPURunner(PLAN, "", "main", driver="nvrtc")


def test_device_inputs_take_the_plans_element_types():
    torch = pytest.importorskip("torch")
    from mlsopt.gpu import GPURunner, LaunchPlan
    # Without its driver, which needs a GPU: device_inputs reads the plan.
    runner = GPURunner.__new__(GPURunner)
    runner.plan = LaunchPlan(PLAN, "main")
    x, w = runner.device_inputs([np.ones((8, 16)), np.ones((16, 4))],
                                device="cpu")
    assert x.dtype == w.dtype == torch.float16
    assert x.shape == (8, 16) and w.shape == (16, 4)
