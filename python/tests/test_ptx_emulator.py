"""The generated PTX, run on a CPU emulator of the PTX subset mlsopt emits
(test/ptxemu), through the launch plan, against the CPU pipeline.

Small programs (f16/bf16/f32 matmuls on the tensor cores, RMSNorm + matmul,
gated MLP, LoRA, softmax, attention, an elementwise chain, a long argmax
split over two loop kernels) are superoptimized for sm_80 and sm_90, their
PTX runs on the emulator (tensor-core fragments, ldmatrix, cp.async groups,
warp shuffles, barriers, shared memory) with poisoned results and buffers,
and the results must match the CPU run of the same optimized graph on the
same inputs within bench/gpu/check.py's tolerances. No GPU needed.

`-k "not slow"` leaves out the slowest programs.
"""

import importlib.util
import json
import pathlib
import re
import sys

import numpy as np
import pytest

import mlsopt as mi
from conftest import load_bench_gpu_script

REPO = pathlib.Path(__file__).resolve().parents[2]
EMU_DIR = REPO / "test" / "ptxemu"


def _load(name):
    if str(EMU_DIR) not in sys.path:
        sys.path.insert(0, str(EMU_DIR))
    spec = importlib.util.spec_from_file_location(name, EMU_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return sys.modules[name]


ptxemu = _load("ptxemu")
run_plan_module = _load("run_plan")
run_plan = run_plan_module.run_plan

CHIPS = ("sm_80", "sm_90")
# The GPU run's comparison: bench/gpu/check.py's tolerances and norm error
# (||got - want|| / ||want||), and the largest element error.
_check_script = load_bench_gpu_script("check")
TOLERANCE = _check_script.TOLERANCE
relative_error = _check_script.relative_error
max_element_error = run_plan_module.max_element_error


def bf16(a):
    return run_plan_module.bf16_to_f32(run_plan_module.bf16_bits(a))


# ---------------------------------------------------------------------------
# Programs: (graph, inputs, dtype name)
# ---------------------------------------------------------------------------

DTYPES = {"f16": (mi.float16, np.float16), "bf16": (mi.bfloat16, None),
          "f32": (mi.float32, np.float32)}


def rand(rng, shape, dt, scale=1.0):
    a = rng.standard_normal(shape) * scale
    if dt == "f16":
        return a.astype(np.float16)
    if dt == "bf16":
        return bf16(a)
    return a.astype(np.float32)


def matmul(dt, M=16, K=64, N=64):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, K), dtype=DTYPES[dt][0])
        W = g.new_input(dims=(K, N), dtype=DTYPES[dt][0])
        g.mark_output(g.matmul(X, W))
        return g, [rand(rng, (M, K), dt), rand(rng, (K, N), dt, K ** -0.5)]
    return build


def rmsnorm_matmul(dt, M=16, K=128, N=64):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, K), dtype=DTYPES[dt][0])
        W = g.new_input(dims=(K, N), dtype=DTYPES[dt][0])
        g.mark_output(g.matmul(g.rms_norm(X, eps=1e-6), W))
        return g, [rand(rng, (M, K), dt), rand(rng, (K, N), dt, K ** -0.5)]
    return build


def gated_mlp(dt, M=8, K=64, N=64):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, K), dtype=DTYPES[dt][0])
        W1 = g.new_input(dims=(K, N), dtype=DTYPES[dt][0])
        W2 = g.new_input(dims=(K, N), dtype=DTYPES[dt][0])
        g.mark_output(g.mul(g.silu(g.matmul(X, W1)), g.matmul(X, W2)))
        return g, [rand(rng, (M, K), dt), rand(rng, (K, N), dt, K ** -0.5),
                   rand(rng, (K, N), dt, K ** -0.5)]
    return build


def lora(dt, M=16, K=64, N=64, R=16):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, K), dtype=DTYPES[dt][0])
        W = g.new_input(dims=(K, N), dtype=DTYPES[dt][0])
        A = g.new_input(dims=(K, R), dtype=DTYPES[dt][0])
        B = g.new_input(dims=(R, N), dtype=DTYPES[dt][0])
        g.mark_output(g.add(g.matmul(X, W), g.matmul(g.matmul(X, A), B)))
        return g, [rand(rng, (M, K), dt), rand(rng, (K, N), dt, K ** -0.5),
                   rand(rng, (K, R), dt, K ** -0.5),
                   rand(rng, (R, N), dt, R ** -0.5)]
    return build


def softmax(dt, M=16, N=256):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, N), dtype=DTYPES[dt][0])
        E = g.exp(X)
        g.mark_output(g.div(E, g.reduction(E, 1)))
        return g, [rand(rng, (M, N), dt)]
    return build


def attention(dt, H=2, Q=16, L=64, D=64):
    """O = exp(Q K) V / rowsum(exp(Q K)), K given transposed (Mirage's
    attention)."""
    def build(rng):
        g = mi.new_kernel_graph()
        Qt = g.new_input(dims=(H, Q, D), dtype=DTYPES[dt][0])
        Kt = g.new_input(dims=(H, D, L), dtype=DTYPES[dt][0])
        Vt = g.new_input(dims=(H, L, D), dtype=DTYPES[dt][0])
        E = g.exp(g.matmul(Qt, Kt))
        g.mark_output(g.div(g.matmul(E, Vt), g.reduction(E, 2)))
        return g, [rand(rng, (H, Q, D), dt, 0.5), rand(rng, (H, D, L), dt, D ** -0.5),
                   rand(rng, (H, L, D), dt)]
    return build


def elementwise(dt, M=16, N=256):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, N), dtype=DTYPES[dt][0])
        Y = g.new_input(dims=(M, N), dtype=DTYPES[dt][0])
        Z = g.mul(g.sigmoid(g.add(X, Y)), g.tanh(g.sub(X, g.mul(Y, Y))))
        g.mark_output(g.div(g.add(Z, g.exp(g.neg(g.square(X)))), g.add(g.square(Y), g.exp(Y))))
        return g, [rand(rng, (M, N), dt), rand(rng, (M, N), dt)]
    return build


def row_sums(dt, M=8, N=2048):
    def build(rng):
        g = mi.new_kernel_graph()
        X = g.new_input(dims=(M, N), dtype=DTYPES[dt][0])
        g.mark_output(g.reduction(g.mul(X, X), 1))
        return g, [rand(rng, (M, N), dt)]
    return build


LOADED_ROW_REDUCTIONS = """
func.func @reductions(%x: tensor<32x64xf16>) -> (tensor<32x1xf16>, tensor<32x64xf16>) {
  %o:2 = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x64xf16>) -> (tensor<32x1xf16>, tensor<32x64xf16>) {
  ^bb0(%in0: tensor<32x64xf16>, %out0: tensor<32x1xf16>, %out1: tensor<32x64xf16>):
    %r:2 = block.for_loop 1 iterations accumulate (sum, sum)
        : tensor<32x1xf16>, tensor<32x64xf16> {
      %t = block.load %in0 imap <> : tensor<32x64xf16> -> tensor<32x64xf16>
      %s = block.reduce_sum %t dim 1 : tensor<32x64xf16>
      %n = block.rms_norm %t {epsilon = 1.0e-06 : f64} : tensor<32x64xf16>
      block.yield %s, %n : tensor<32x1xf16>, tensor<32x64xf16>
    }
    block.store %r#0, %out0 omap <> : tensor<32x1xf16> into tensor<32x1xf16>
    block.store %r#1, %out1 omap <> : tensor<32x64xf16> into tensor<32x64xf16>
    block.return
  }
  return %o#0, %o#1 : tensor<32x1xf16>, tensor<32x64xf16>
}
"""


def loaded_row_reductions():
    def build(rng):
        return mi.from_mlir(LOADED_ROW_REDUCTIONS), [rand(rng, (32, 64), "f16")]
    return build


ARGMAX = """
#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @argmax(%logits: tensor<4x1024xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e1 = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i0 = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %amax:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<4x1024xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %max = arith.maximumf %in, %best : f32
    %greater = arith.cmpf ogt, %in, %best : f32
    %arg = arith.select %greater, %jj, %at : i64
    linalg.yield %max, %arg : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %amax#0, %amax#1 : tensor<4xf32>, tensor<4xi64>
}
"""


def argmax(dt="f32"):
    def build(rng):
        return mi.from_mlir(ARGMAX), [rng.standard_normal((4, 1024)).astype(np.float32)]
    return build


def decode_step(program, scalars):
    """One decode step of attention over 256 cached keys from
    test/Integration/`program`, whose mask reads the scalar arguments
    `scalars` (a position as an i64, or a position and a window as
    `index` arguments): a loop kernel computes the mask, the attention
    kernel loads it."""
    def build(rng):
        text = (REPO / "test" / "Integration" / program).read_text()
        shapes = [(8, 1, 64), (8, 256, 64), (8, 256, 64)]
        return mi.from_mlir(text), [
            rng.standard_normal(s).astype(np.float32) * 0.3 for s in shapes
        ] + [np.int64(x) for x in scalars]
    return build


def program_file(path, inputs, function=None):
    """The program of the lit test `path` (under test/), its `function`
    (by default the first), run on `inputs(rng)`."""
    def build(rng):
        return (mi.from_mlir((REPO / "test" / path).read_text(), function),
                inputs(rng))
    return build


def padding_ids(rng):
    """Decode-step inputs and 256 int64 ids, 30% of them the padding id 0."""
    ids = rng.integers(1, 1000, 256)
    ids[rng.random(256) < 0.3] = 0
    return [rng.standard_normal(s).astype(np.float32) * 0.3
            for s in [(8, 1, 64), (8, 256, 64), (8, 256, 64)]] + [ids]


def normal_then(shapes, *scalars):
    """normal(0, 1) f32 inputs of `shapes`, then the i64 `scalars`."""
    return lambda rng: [rng.standard_normal(s).astype(np.float32)
                        for s in shapes] + [np.int64(x) for x in scalars]


TWO_OUTPUTS = (REPO / "test" / "Conversion" / "CustomKernelToGPU" /
               "store-then-reuse.mlir")


def two_outputs_after_loop(dt="f16"):
    """A kernel whose second output (-x) the shared-memory plan computes
    into the first's (a softmax) bytes once that tile is stored: found by
    test/ptxemu/fuzz_programs.py, where warps stored -x into the softmax
    before the store ended with a barrier."""
    def build(rng):
        text = TWO_OUTPUTS.read_text().replace("4x64x", "40x128x").replace(
            "4x1x", "40x1x")
        return mi.from_mlir(text), [
            rand(rng, (40, 128), dt), rand(rng, (40, 1), dt)]
    return build


# (builder, element type of the tolerance)
PROGRAMS = {
    # Tensor-core matmuls: ldmatrix + mma.sync m16n8k16 (f16, bf16) and
    # m16n8k8 tf32, cp.async tiles.
    "matmul_f16": (matmul("f16"), "f16"),
    "matmul_bf16": (matmul("bf16", M=32, K=128, N=64), "bf16"),
    "matmul_f32_tf32": (matmul("f32"), "f32"),
    # Odd shapes: padded fragments loaded element by element.
    "matmul_odd_f16": (matmul("f16", M=5, K=72, N=40), "f16"),
    # A long k: the loop over k tiles, cp.async groups in flight.
    "matmul_long_k_f32": (matmul("f32", M=16, K=512, N=64), "f32"),
    "matmul_long_k_f16": (matmul("f16", M=16, K=1024, N=64), "f16"),
    "rmsnorm_matmul_f16": (rmsnorm_matmul("f16"), "f16"),
    "rmsnorm_matmul_bf16": (rmsnorm_matmul("bf16", M=4, K=512, N=96), "bf16"),
    "gated_mlp_f16": (gated_mlp("f16"), "f16"),
    "gated_mlp_bf16": (gated_mlp("bf16"), "bf16"),
    "gated_mlp_f32": (gated_mlp("f32", M=16, K=128, N=128), "f32"),
    "lora_f16": (lora("f16"), "f16"),
    "lora_bf16": (lora("bf16", M=16, K=128, N=96, R=8), "bf16"),
    "softmax_f32": (softmax("f32"), "f32"),
    "softmax_f16": (softmax("f16"), "f16"),
    # 4096-wide rows: split over two kernels on sm_80.
    "softmax_bf16_long": (softmax("bf16", M=4, N=4096), "bf16"),
    "attention_f16": (attention("f16"), "f16"),
    "attention_bf16": (attention("bf16", H=2, Q=16, L=128), "bf16"),
    "attention_f32": (attention("f32"), "f32"),
    # 1024 keys: flash decoding (a split kernel and a combine kernel) on
    # sm_80.
    "attention_long_f16": (attention("f16", H=1, Q=16, L=1024), "f16"),
    "elementwise_f32": (elementwise("f32"), "f32"),
    "row_sums_f32": (row_sums("f32"), "f32"),
    # A sum and an RMS norm of a loaded tile's 128-byte rows, 8 lanes a
    # row: the row groups of a warp start their walks at different places.
    "loaded_row_reductions_f16": (loaded_row_reductions(), "f16"),
    # A split sum (two kernels) of long rows.
    "row_sums_long_f16": (row_sums("f16", M=2, N=8192), "f16"),
    # torch-mlir's argmax over 1024 logits: two loop kernels.
    "argmax_f32": (argmax(), "f32"),
    # Two outputs after a loop, the second in the first's bytes.
    "two_outputs_after_loop_f16": (two_outputs_after_loop(), "f16"),
    # A mask computed at run time from an i64 position.
    "decode_position_f32": (
        decode_step("decode-position-attention.mlir", [100]), "f32"),
    # The same from two index arguments (a window of keys).
    "sliding_window_index_f32": (
        decode_step("sliding-window-decode.mlir", [200, 48]), "f32"),
    # A mask read from an int64 tensor (`ids == 0`), computed where the
    # attention kernel loads it.
    "padded_decode_f32": (
        program_file("Integration/padding-ids-decode.mlir", padding_ids),
        "f32"),
    # ... and one from a position computed over two loops, through a
    # collapse.
    "collapsed_mask_f32": (
        program_file("Conversion/CustomKernelToGPU/computed-mask-reshapes.mlir",
                     normal_then([(8, 256)], 150)), "f32"),
    # KV-cache writes at a run-time position (tensor.insert_slice, a kernel
    # per write, then the attention), and a row read at one (a
    # rank-reducing extract_slice at an index argument).
    "kv_cache_insert_f32": (
        program_file("Integration/kv-cache-insert.mlir",
                     normal_then([(1, 32)] * 3 + [(64, 32)] * 2, 17)), "f32"),
    "row_at_position_f32": (
        program_file("Conversion/CustomKernelToGPU/run-time-slices.mlir",
                     normal_then([(16, 64)], 11)), "f32"),
    # A function of one such write alone.
    "cache_update_f32": (
        program_file("Conversion/CustomKernelToGPU/run-time-slices.mlir",
                     normal_then([(64, 32), (1, 32)], 40), "update"), "f32"),
    # Pooling ops as loop kernels (whose windows, tensor.empty inputs the
    # payload never reads, are no kernel arguments), after a padding's
    # concatenations.
    "max_pool_stem_f32": (
        program_file("Integration/max-pool-stem.mlir",
                     normal_then([(1, 16, 16, 32)])), "f32"),
}
# Deselect with -k "not slow".
SLOW = {"attention_long_f16", "rmsnorm_matmul_bf16"}


class Lowered:
    """A program superoptimized for a chip, with its PTX, launch plan,
    inputs and the CPU pipeline's results."""

    def __init__(self, name, chip):
        build, self.dtype = PROGRAMS[name]
        rng = np.random.default_rng(sum(map(ord, name)))
        graph, self.inputs = build(rng)
        self.graph = graph.superoptimize(target=chip, timeout=5, threads=1,
                                         seed=1)
        self.ptx = self.graph.ptx(target=chip)
        self.plan = self.graph.launch_plan(target=chip)
        (self.function,) = [f["name"] for f in self.plan["functions"]
                            if not f["name"].endswith("_reference")][:1] or ["main"]
        self.expected = self.graph(inputs=self.inputs)


_LOWERED = {}


def lowered(name, chip):
    key = (name, chip)
    if key not in _LOWERED:
        _LOWERED[key] = Lowered(name, chip)
    return _LOWERED[key]


def check(results, expected, dtype, what=""):
    assert len(results) == len(expected)
    for i, (got, want) in enumerate(zip(results, expected)):
        assert got.shape == tuple(np.shape(want)), (what, i, got.shape, np.shape(want))
        if got.dtype.kind == "f":
            nan = np.isnan(got) & ~np.isnan(np.asarray(want, np.float64))
            assert not nan.any(), (
                f"{what}: result {i} has {int(nan.sum())} unwritten (poisoned) or NaN "
                f"elements, first at {np.argwhere(nan)[0].tolist()}")
            err = relative_error(got, want)
            elem = max_element_error(got, want)
            tol = TOLERANCE[dtype]
            assert err <= tol and elem <= 4 * tol, (
                f"{what}: result {i}: relative error {err:.3g}, max element error "
                f"{elem:.3g} (tolerance {tol})")
        else:
            np.testing.assert_array_equal(got, np.asarray(want).astype(got.dtype),
                                          err_msg=f"{what}: result {i}")


def _params():
    for name in PROGRAMS:
        for chip in CHIPS:
            suffix = "-slow" if name in SLOW else ""
            yield pytest.param(name, chip, id=f"{name}-{chip}{suffix}")


@pytest.mark.parametrize("name,chip", list(_params()))
def test_emulated_ptx_matches_cpu(name, chip):
    low = lowered(name, chip)
    results = run_plan(low.plan, low.ptx, low.function, low.inputs)
    check(results, low.expected, low.dtype, f"{name} on {chip}")


# ---------------------------------------------------------------------------
# The comparison can fail: broken PTX must not pass.
# ---------------------------------------------------------------------------

def _run_mutated(low, old, new, count=1):
    assert old in low.ptx, old
    ptx = low.ptx.replace(old, new, count)
    assert ptx != low.ptx
    return run_plan(low.plan, ptx, low.function, low.inputs)


def _fails(low, results):
    try:
        check(results, low.expected, low.dtype)
    except AssertionError:
        return True
    return False


def test_instruction_mix_is_covered():
    # The programs above run the instructions that matter.
    ptx = lowered("matmul_f16", "sm_80").ptx
    for op in ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.sync",
               "cp.async.cg.shared.global", "cp.async.wait_group", "bar.sync"):
        assert op in ptx, op
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in lowered("matmul_f32_tf32", "sm_80").ptx
    assert "bf16.bf16.f32" in lowered("matmul_bf16", "sm_80").ptx
    assert "shfl.sync.bfly" in lowered("softmax_f32", "sm_80").ptx


def test_swapped_mma_operand_fails():
    low = lowered("matmul_f16", "sm_80")
    m = re.search(r"mma\.sync\S+\s+\{[^}]*\},\s*\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}", low.ptx)
    assert m, "no mma.sync in the PTX"
    # a0 and a2: the same rows, k 0-7 against k 8-15 (a0 and a1, rows g
    # and g + 8, may hold the same row where a tile has fewer than 16).
    a0, a1, a2 = m.group(1), m.group(2), m.group(3)
    old = m.group(0)
    new = old.replace(f"{{{a0}, {a1}, {a2},", f"{{{a2}, {a1}, {a0},")
    assert _fails(low, _run_mutated(low, old, new))


def test_missing_cp_async_wait_fails():
    low = lowered("matmul_f16", "sm_80")
    waits = re.findall(r"\tcp\.async\.wait_group \t?\d+;", low.ptx)
    assert waits
    ptx = re.sub(r"\tcp\.async\.wait_group\s+\d+;", "", low.ptx)
    # The copies then only land at exit: the tiles the mma reads are the
    # poison shared memory starts with.
    results = run_plan(low.plan, ptx, low.function, low.inputs)
    assert _fails(low, results)


def test_one_group_too_few_waited_for_fails():
    # Double buffering: `wait_group 1` leaves the newest group in flight;
    # `wait_group 2` also the one the loop reads next.
    low = lowered("matmul_long_k_f32", "sm_80")
    assert "cp.async.wait_group \t1;" in low.ptx
    ptx = low.ptx.replace("cp.async.wait_group \t1;", "cp.async.wait_group \t2;")
    assert _fails(low, run_plan(low.plan, ptx, low.function, low.inputs))


@pytest.mark.parametrize("schedule", ["warps-descending", "warps-ascending"])
@pytest.mark.parametrize("name", ["softmax_f32", "matmul_f16"])
def test_missing_barrier_fails(name, schedule):
    low = lowered(name, "sm_80")
    assert "bar.sync" in low.ptx
    ptx = re.sub(r"\tbar\.sync\s+0;", "", low.ptx)
    try:
        results = run_plan(low.plan, ptx, low.function, low.inputs, schedule=schedule)
    except ptxemu.PTXEmulatorError:
        return  # a warp-collective op reached by part of a warp, say
    assert _fails(low, results)


def test_out_of_bounds_store_raises():
    low = lowered("elementwise_f32", "sm_80")
    m = re.search(r"st\.global(\.v\d)?\.b32\s+\[(%rd\d+)\]", low.ptx)
    assert m
    old = m.group(0)
    new = old.replace(f"[{m.group(2)}]", f"[{m.group(2)}+1048576]")
    with pytest.raises(ptxemu.PTXEmulatorError, match="out-of-bounds global"):
        _run_mutated(low, old, new)


def test_unknown_opcode_raises():
    low = lowered("elementwise_f32", "sm_80")
    ptx = low.ptx.replace("\tret;", "\tfrobnicate.b32 \t%r1, %r1;\n\tret;", 1)
    with pytest.raises(ptxemu.PTXEmulatorError, match="frobnicate"):
        run_plan(low.plan, ptx, low.function, low.inputs)


def test_unwritten_result_is_poisoned():
    low = lowered("elementwise_f32", "sm_80")
    # Drop the kernel's global stores: nothing writes the result.
    ptx = re.sub(r"\tst\.global[^\n]*\n", "", low.ptx)
    (out,) = run_plan(low.plan, ptx, low.function, low.inputs)
    assert np.isnan(out).all()


def test_cli(tmp_path):
    low = lowered("matmul_f16", "sm_80")
    (tmp_path / "plan.json").write_text(json.dumps(low.plan))
    (tmp_path / "k.ptx").write_text(low.ptx)
    np.savez(tmp_path / "in.npz", *low.inputs)
    run_plan_module.main(["--plan", str(tmp_path / "plan.json"), "--ptx", str(tmp_path / "k.ptx"),
                          "--function", low.function, "--inputs", str(tmp_path / "in.npz"),
                          "--out", str(tmp_path / "out.npz")])
    out = np.load(tmp_path / "out.npz")
    check([out["arr_0"]], low.expected, low.dtype)


# ---------------------------------------------------------------------------
# Emulator units: fragment layouts against the PTX ISA's tables.
# ---------------------------------------------------------------------------

def test_tf32_rounding_and_bf16_conversion():
    x = np.array([1.0 + 2 ** -11, 1.0 + 3 * 2 ** -12, -1.0 - 2 ** -11], np.float32)
    bits = x.view(np.uint32)
    r = ((bits.astype(np.uint64) + 0x1000).astype(np.uint32) & 0xFFFFE000).view(np.float32)
    assert r.tolist() == [1.0 + 2 ** -10, 1.0 + 2 ** -10, -1.0 - 2 ** -10]
    assert run_plan_module.bf16_bits(np.float32(1.0 + 2 ** -8)) == 0x3F80  # tie to even


# A loop whose latch the text puts above its header (as LLVM lays out some
# loops): lanes 1-31 branch back to the latch while lane 0 still has a block
# to run; a warp reconverges at the latch, and the shuffle of the next
# iteration needs all 32 lanes.
LATCH_ABOVE_HEADER = """
.version 7.0
.target sm_80
.address_size 64

.visible .entry k(
	.param .u64 .ptr .align 1 k_param_0
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<5>;

	ld.param.b64 	%rd4, [k_param_0];
	cvta.to.global.u64 	%rd1, %rd4;
	mov.u32 	%r1, %laneid;
	mov.b32 	%r2, 0;
	mov.b32 	%r5, 0;
	setp.ne.b32 	%p1, %r1, 0;
	bra.uni 	$L__head;
$L__latch:
	add.s32 	%r2, %r2, 1;
	setp.lt.u32 	%p2, %r2, 3;
	@%p2 bra 	$L__head;
	bra.uni 	$L__exit;
$L__head:
	add.s32 	%r3, %r1, %r2;
	shfl.sync.bfly.b32 	%r4, %r3, 1, 31, -1;
	@%p1 bra 	$L__latch;
	add.s32 	%r5, %r5, %r4;
	bra.uni 	$L__latch;
$L__exit:
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r5;
	ret;

}
"""


@pytest.mark.parametrize("schedule", ["warps-descending", "lockstep"])
def test_warps_reconverge_at_a_latch_above_the_header(schedule):
    memory = ptxemu.GlobalMemory()
    out = memory.alloc(32 * 4, fill=0xAB)
    ptxemu.launch(LATCH_ABOVE_HEADER, "k", memory, (1, 1, 1), (32, 1, 1), 0, [out],
                  schedule=schedule)
    got = memory.read(out, 32 * 4).view(np.int32)
    assert got.tolist() == [1 + 2 + 3] + [0] * 31


def test_partial_warp_collective_raises():
    # Lane 0 skips the shuffle: undefined behaviour on a GPU, an error here.
    ptx = LATCH_ABOVE_HEADER.replace(
        "\tshfl.sync.bfly.b32 \t%r4, %r3, 1, 31, -1;",
        "\t@%p1 shfl.sync.bfly.b32 \t%r4, %r3, 1, 31, -1;")
    memory = ptxemu.GlobalMemory()
    out = memory.alloc(32 * 4)
    with pytest.raises(ptxemu.PTXEmulatorError, match="part of a warp"):
        ptxemu.launch(ptx, "k", memory, (1, 1, 1), (32, 1, 1), 0, [out])


# Carry arithmetic and funnel shifts, as libdevice's sinf/cosf use them for
# large arguments, against exact integer arithmetic.
CARRY = """
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	ld.param.b64 %rd1, [k_param_0];
	ld.param.b64 %rd2, [k_param_1];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd4];
	add.cc.u32 %r6, %r2, %r4;
	addc.u32 %r7, %r3, %r5;
	sub.cc.u32 %r8, %r2, %r4;
	subc.u32 %r9, %r3, %r5;
	mad.lo.cc.u32 %r10, %r2, %r4, %r3;
	madc.hi.cc.u32 %r11, %r2, %r4, %r5;
	addc.u32 %r12, 0, 0;
	shf.r.clamp.b32 %r13, %r2, %r3, %r4;
	add.s64 %rd5, %rd2, %rd3;
	add.s64 %rd5, %rd5, %rd3;
	st.global.v4.b32 [%rd5], {%r6, %r7, %r8, %r9};
	st.global.v4.b32 [%rd5+16], {%r10, %r11, %r12, %r13};
	ret;
}
"""


def test_carry_arithmetic_and_funnel_shifts():
    rng = np.random.default_rng(1)
    n = 64
    a = rng.integers(0, 2**32, (n, 4), dtype=np.uint64).astype(np.uint32)
    a[:8] = [[0xFFFFFFFF, 1, 1, 2], [0, 5, 1, 5], [3, 3, 3, 3], [0, 0, 0, 0],
             [0xFFFFFFFF] * 4, [1, 0, 2, 0], [5, 7, 40, 1],
             [0x80000000, 0, 0xFFFFFFFF, 0xFFFFFFFF]]
    memory = ptxemu.GlobalMemory()
    inp = memory.alloc(a.nbytes)
    memory.write(inp, a.view(np.uint8).ravel())
    out = memory.alloc(n * 32, fill=0xAB)
    ptxemu.launch(CARRY, "k", memory, (1, 1, 1), (n, 1, 1), 0, [inp, out])
    got = memory.read(out, n * 32).view(np.uint32).reshape(n, 8)
    for i in range(n):
        x0, x1, y0, y1 = (int(v) for v in a[i])
        x, y = x0 | x1 << 32, y0 | y1 << 32
        s, d = (x + y) % 2**64, (x - y) % 2**64
        lo = x0 * y0 % 2**32 + x1
        hi = (x0 * y0 >> 32) + y1 + (lo >> 32)
        shifted = ((x1 << 32 | x0) >> min(y0, 32)) & 0xFFFFFFFF
        want = [s & 0xFFFFFFFF, s >> 32, d & 0xFFFFFFFF, d >> 32,
                lo & 0xFFFFFFFF, hi & 0xFFFFFFFF, hi >> 32, shifted]
        assert [int(v) for v in got[i]] == want, (i, a[i].tolist())


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_large_argument_trigonometry(op):
    """sin and cos of f32 arguments up to 3.4e38 run libdevice's argument
    reduction (carry chains, funnel shifts, local memory) on the
    emulator, within a few ulp of float64."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-1e6, 1e6, 500),
                        rng.uniform(-3e38, 3e38, 500),
                        [0.0, 1e5, 105615.0, -7e35, 3.4e38]]).astype(np.float32)
    g = mi.new_kernel_graph()
    X = g.new_input(dims=(x.size,), dtype=mi.float32)
    g.mark_output(getattr(g, op)(X))
    o = g.superoptimize(target="sm_80", timeout=3, threads=1, seed=1)
    ptx, plan = o.ptx(target="sm_80"), o.launch_plan(target="sm_80")
    assert "madc" in ptx and "shf.l" in ptx
    (got,) = run_plan(plan, ptx, "main", [x])
    want = getattr(np, op)(x.astype(np.float64))
    assert np.abs(got.astype(np.float64) - want).max() < 1e-6
