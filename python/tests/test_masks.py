"""Boolean mask inputs (torch.where(mask, scores, -inf) in linalg) and
integer ones (Hugging Face's int64 attention_mask): read by from_mlir,
searched into one attention kernel that loads the mask, and run on the CPU
to numpy's numbers (on the GPU where there is one)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import mlsopt as mi

REPO = pathlib.Path(__file__).resolve().parents[2]
PROGRAM = (REPO / "test" / "Integration" / "bool-mask-attention.mlir").read_text()
INT_PROGRAM = (REPO / "test" / "Integration" /
               "int-mask-attention.mlir").read_text()


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((2, 4, 32, 16)).astype(np.float32)
    kt = rng.standard_normal((2, 4, 16, 32)).astype(np.float32)
    v = rng.standard_normal((2, 4, 32, 16)).astype(np.float32)
    mask = rng.random((2, 1, 1, 32)) < 0.6
    mask[..., 0] = True  # every row keeps a key
    return q, kt, v, mask


def reference(q, kt, v, mask):
    s = np.einsum("bhik,bhkj->bhij", q, kt) * 0.25
    s = np.where(mask, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.fixture(scope="module")
def optimized():
    return mi.from_mlir(PROGRAM).superoptimize(timeout=10)


def test_a_mask_input_has_the_bool_dtype():
    graph = mi.from_mlir(PROGRAM)
    assert [t.dtype for t in graph.inputs] == [mi.float32] * 3 + [mi.bool_]
    assert graph.inputs[3].dims == (2, 1, 1, 32)
    assert "kernel.where %arg3, 0.000000e+00, 0xFFF0000000000000" in graph.mlir()


def test_masked_attention_is_one_kernel_that_loads_the_mask(optimized):
    assert optimized.cost().launches == 1
    text = optimized.mlir()
    assert "tensor<2x1x1x32xi1> -> tensor<1x1x1x32xi1>" in text
    assert "kernel.where" not in text
    (mask,) = [a for a in optimized.launch_plan()["functions"][0]["arguments"]
               if a["dtype"] == "i1"]
    assert mask["bytes"] == 64


@pytest.mark.parametrize("as_type", [bool, np.int32])
def test_masked_attention_runs_on_the_cpu_to_numpys_numbers(optimized,
                                                            as_type):
    q, kt, v, mask = inputs()
    (out,) = optimized(inputs=[q, kt, v, mask.astype(as_type)])
    np.testing.assert_allclose(out, reference(q, kt, v, mask), rtol=1e-5,
                               atol=1e-5)


def test_a_mask_takes_no_floats_and_new_input_no_bool(optimized):
    q, kt, v, mask = inputs()
    with pytest.raises(TypeError, match="input 3 has dtype float32; it is a "
                       "mask or integer input"):
        optimized(inputs=[q, kt, v, mask.astype(np.float32)])
    with pytest.raises(TypeError, match="new_input makes float16"):
        mi.new_kernel_graph().new_input(dims=(4,), dtype=mi.bool_)


def test_an_int64_attention_mask_runs_to_numpys_numbers():
    graph = mi.from_mlir(INT_PROGRAM)
    assert graph.inputs[3].dtype is mi.int64
    optimized = graph.superoptimize(timeout=10)
    assert optimized.cost().launches == 1
    q, kt, v, mask = inputs(2)
    mask = mask.reshape(2, 32).astype(np.int64)
    (out,) = optimized(inputs=[q, kt, v, mask])
    s = np.einsum("bhik,bhkj->bhij", q, kt) * np.float32(0.25)
    s = s + ((1 - mask) * np.finfo(np.float32).min)[:, None, None, :]
    p = np.exp(s - s.max(-1, keepdims=True))
    expected = (p / p.sum(-1, keepdims=True)) @ v
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="new_input makes float16|mlsopt "
                       "supports float16"):
        mi.new_kernel_graph().new_input(dims=(4,), dtype=mi.int64)


WINDOW_PROGRAM = (REPO / "test" / "Integration" /
                  "sliding-window-decode.mlir").read_text()


def window_reference(q, k, v, pos, window):
    s = np.einsum("hik,hjk->hij", q, k) * np.float32(0.125)
    j = np.arange(k.shape[1])
    s = np.where((j > pos) | (j <= pos - window), -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("pos,window", [(100, 16), (255, 256), (3, 8)])
def test_index_arguments_are_int64_inputs_to_numpys_numbers(pos, window):
    # A decode position and a window size as `index` arguments: 0-d int64
    # inputs, which a call takes as Python ints.
    graph = mi.from_mlir(WINDOW_PROGRAM)
    assert [t.dtype for t in graph.inputs[3:]] == [mi.int64] * 2
    assert [t.dims for t in graph.inputs[3:]] == [()] * 2
    optimized = graph.superoptimize(timeout=5)
    rng = np.random.default_rng(pos)
    q = rng.standard_normal((8, 1, 64)).astype(np.float32)
    k = rng.standard_normal((8, 256, 64)).astype(np.float32)
    v = rng.standard_normal((8, 256, 64)).astype(np.float32)
    (out,) = optimized(inputs=[q, k, v, pos, window])
    np.testing.assert_allclose(out, window_reference(q, k, v, pos, window),
                               rtol=1e-5, atol=1e-5)


def test_a_finite_fill_is_one_kernel_to_numpys_numbers():
    # GPT-2's torch.where(causal, scores, finfo.min): a row the mask drops
    # entirely averages V, where a fill of -inf would make it NaN, so the
    # fill is taken as given, not as -inf.
    program = (REPO / "test" / "Integration" /
               "finite-mask-fill-attention.mlir").read_text()
    optimized = mi.from_mlir(program).superoptimize(timeout=10)
    assert optimized.cost().launches == 1
    q, kt, v, _ = inputs(3)
    causal = np.tril(np.ones((1, 1, 32, 32), dtype=bool))
    causal[..., 5, :] = False
    (out,) = optimized(inputs=[q, kt, v, causal])
    s = np.einsum("bhik,bhkj->bhij", q, kt) * np.float32(0.25)
    s = np.where(causal, s, np.finfo(np.float32).min)
    p = np.exp(s - s.max(-1, keepdims=True))
    expected = (p / p.sum(-1, keepdims=True)) @ v
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[:, :, 5], v.mean(axis=2), rtol=1e-5,
                               atol=1e-5)


def has_cuda():
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return torch.cuda.is_available() and any(
        importlib.util.find_spec(m) for m in ("cupy", "cuda"))


@pytest.mark.skipif(not has_cuda(),
                    reason="needs a CUDA device, torch and CuPy or cuda-python")
def test_masked_attention_runs_on_the_gpu_to_numpys_numbers(optimized):
    import torch
    q, kt, v, mask = inputs(1)
    tensors = [torch.tensor(a, device="cuda:0") for a in (q, kt, v, mask)]
    assert tensors[3].dtype == torch.bool
    (out,) = optimized(inputs=tensors)
    np.testing.assert_allclose(out.cpu().numpy(), reference(q, kt, v, mask),
                               rtol=2e-2, atol=2e-2)
