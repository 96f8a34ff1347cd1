#!/usr/bin/env python3
"""Computes, with numpy, the numbers the run-*.mlir tests expect.

The reference is independent of the lowering: it rebuilds each test's inputs
with the formula of its @input2d/@input3d (in f32, as the test does), computes
every op in f64 from those inputs, and rounds to the result type at the end of
each op (f16 ops compute in f32 and round once). It prints, per test file, the
FileCheck lines of each printMemrefF32 call, in the order @main makes them.

Each number becomes a regex that accepts what printMemrefF32 (six significant
digits) prints for any value within a tolerance: a few f32 ulps for f32
results, one ulp for f16 results. Usage: python3 expected_values.py [file]
"""

import math
import os
import sys

import numpy as np

F32 = np.float32
F16 = np.float16


def input_nd(shape, phase):
    """sin(1.37 i + 0.71 j [+ 0.29 k] + phase), with the f32 roundings of the
    test's linalg.generic."""
    coeffs = [F32(1.37), F32(0.71), F32(0.29)][: len(shape)]
    out = np.empty(shape, dtype=F32)
    for idx in np.ndindex(*shape):
        t = F32(0)
        for n, (i, c) in enumerate(zip(idx, coeffs)):
            term = F32(F32(i) * c)
            t = term if n == 0 else F32(t + term)
        t = F32(t + F32(phase))
        out[idx] = F32(math.sin(float(t)))
    return out


def f64(x):
    return np.asarray(x, dtype=np.float64)


erf = np.vectorize(math.erf)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def silu(x):
    return x * sigmoid(x)


def gelu(x):
    return x * (1.0 + erf(x / math.sqrt(2.0))) / 2.0


def rms_norm(x, eps, axis=-1):
    x = f64(x)
    return x / np.sqrt(np.mean(x * x, axis=axis, keepdims=True) + eps)


def truncate(text, digits):
    """`text` (a number in %#g form) cut after `digits` significant digits."""
    out, seen = "", 0
    for ch in text:
        if seen == digits:
            break
        out += ch
        if ch.isdigit() and (seen or ch != "0"):
            seen += 1
    return out


def escape(text):
    """`text`, a number, as a regex: only the point is special."""
    return text.replace(".", "\\.")


def prefix_regex(prefix):
    """Matches what printMemrefF32 prints for a number whose %#g form starts
    with `prefix`: it drops trailing zeros (and then a trailing point), so the
    zeros that end `prefix` may be missing along with all that follows."""
    head = prefix.rstrip("0") if "." in prefix else prefix
    head = head.rstrip(".")
    tail = prefix[len(head):]
    if not tail:
        return escape(head) + "[0-9]*"
    return escape(head) + "(" + escape(tail) + "[0-9]*)?"


def number_regex(v, dtype):
    """A FileCheck regex for how printMemrefF32 prints `v` of `dtype`."""
    if v == 0:
        return "{{-?0}}"
    assert abs(v) > 1e-3, f"{v}: too close to 0 for a prefix match"
    if dtype == F16:
        # The f16 result is the rounding of the exact value, unless the f32
        # computation lands on the other side of a rounding boundary.
        near = {float(F16(v * (1 + e))) for e in (-1e-5, 0.0, 1e-5)}
        return "{{" + "|".join(escape(format(u, "g")) for u in sorted(near)) + "}}"
    # f32: a few ulps either way; keep the leading digits that all values in
    # that interval share, in at most two variants.
    tol = 4e-6 * abs(v) + 2e-6
    texts = {format(u, "#.6g") for u in np.linspace(v - tol, v + tol, 201)}
    # Prefer one prefix of at least four digits; near a boundary of the last
    # digits (0.8699.. vs 0.8700..) two variants keep the precision.
    for digits, variants in [(d, 1) for d in range(6, 3, -1)] + [
            (d, 2) for d in range(6, 1, -1)]:
        prefixes = sorted({truncate(t, digits) for t in texts})
        if len(prefixes) <= variants:
            return "{{" + "|".join(prefix_regex(p) for p in prefixes) + "}}"
    raise AssertionError(f"{v}: no stable leading digits")


def checks(label, value, dtype):
    """The CHECK lines of one printMemrefF32 call on `value` (of `dtype`)."""
    value = f64(np.asarray(value).astype(dtype))
    sizes = ", ".join(str(d) for d in value.shape)
    lines = [
        f"  // {label}",
        f"  // CHECK: rank = {value.ndim} offset = 0 sizes = [{sizes}] "
        "strides = {{.*}} data =",
    ]
    for row in value.reshape(-1, value.shape[-1]):
        numbers = ", ".join(number_regex(float(v), dtype) for v in row)
        lines.append("  // CHECK-NEXT: {{\\[}}" + numbers + "]")
    return "\n".join(lines)


def run_matmul():
    a, b = input_nd((3, 4), 0.25), input_nd((4, 5), 1.0)
    x, y = input_nd((2, 2, 3), 0.25), input_nd((2, 3, 2), 1.0)
    ah, bh, xh, yh = (t.astype(F16) for t in (a, b, x, y))
    yield checks("matmul_f32", f64(a) @ f64(b), F32)
    yield checks("matmul_f16", f64(ah) @ f64(bh), F16)
    yield checks("matmul_batch_f32", f64(x) @ f64(y), F32)
    yield checks("matmul_rank4_f16", f64(xh) @ f64(yh), F16)


def run_elementwise():
    a = f64(input_nd((2, 3), 0.25))
    r = f64(input_nd((1, 3), 1.0))
    c = f64(input_nd((2, 1), 2.0))
    yield checks("add_vector", a + r[0], F32)
    yield checks("sub_outer", c - r, F32)
    yield checks("div_column", a / c, F32)
    yield checks("exp", np.exp(a), F32)
    yield checks("silu", silu(a), F32)
    yield checks("gelu", gelu(a), F32)
    yield checks("sigmoid", sigmoid(a), F32)
    yield checks("tanh", np.tanh(a), F32)
    yield checks("erf", erf(a), F32)
    yield checks("relu", np.maximum(a, 0.0), F32)
    yield checks("neg", -a, F32)
    s = f64(F32(a * a + 0.5))
    yield checks("rsqrt", 1.0 / np.sqrt(s), F32)
    yield checks("sqrt", np.sqrt(s), F32)
    yield checks("log", np.log(s), F32)
    yield checks("mul_scalar", s * -2.5, F32)
    ah, ch = f64(a.astype(F16)), f64(c.astype(F16))
    silu_h = f64(silu(ah).astype(F16))
    yield checks("silu_scale_f16", silu_h * ch, F16)


def run_reduce():
    x = f64(input_nd((3, 4), 0.25))
    y = f64(input_nd((2, 3, 4), 0.5))
    w = input_nd((4, 8), 1.0)
    h = f64(w.astype(F16))
    yield checks("reduce_sum dim 1", x.sum(1, keepdims=True), F32)
    yield checks("reduce_sum dim 0", x.sum(0, keepdims=True), F32)
    yield checks("reduce_max dim 1", x.max(1, keepdims=True), F32)
    yield checks("reduce_sum dim 1 of 3-d", y.sum(1, keepdims=True), F32)
    yield checks("reduce_sum f16", h.sum(1, keepdims=True), F16)
    yield checks("reduce_max f16", h.max(0, keepdims=True), F16)
    yield checks("rms_norm f32", rms_norm(w, 1e-6), F32)
    yield checks("rms_norm f16", rms_norm(h, 0.25), F16)
    yield checks("rms_norm dim 1 of 3-d", rms_norm(y, 0.25, axis=1), F32)
    yield checks("rms_norm f16 dim 0", rms_norm(h, 0.25, axis=0), F16)


def run_concat_transpose():
    a = input_nd((2, 3), 0.25)
    b = input_nd((1, 3), 1.0)
    c = input_nd((2, 2), 2.0)
    d = input_nd((2, 1), 3.0)
    y = input_nd((2, 3, 4), 0.25)
    yield checks("concat dim 0", np.concatenate([a, b], 0), F32)
    yield checks("concat dim 1", np.concatenate([a, c, d], 1), F32)
    yield checks("transpose [2, 0, 1]", np.transpose(y, (2, 0, 1)), F32)
    yield checks("transpose f16", a.astype(F16).T, F16)


TESTS = {
    "run-matmul.mlir": run_matmul,
    "run-elementwise.mlir": run_elementwise,
    "run-reduce.mlir": run_reduce,
    "run-concat-transpose.mlir": run_concat_transpose,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or TESTS:
        print(f"// ===== {name}")
        for block in TESTS[name]():
            print(block)
