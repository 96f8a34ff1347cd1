#!/usr/bin/env python3
"""Random differential tester of mlsopt's GPU code generation (no GPU).

From a seed it builds a random Mirage-style kernel graph (a DAG of 1-6 ops:
2-D and batched 3-D matmuls, elementwise unary/binary ops with
broadcasting, sum reductions, rms_norm, softmax-like exp/sum/div chains,
attention-like chains) with awkward shapes, in f16, bf16 or f32, and random
well-scaled inputs. For each chip it superoptimizes the graph
(`timeout=3, threads=1, seed=<seed>`, sometimes a small `max_block_ops` or
`latency_veto=False`), runs its PTX through the launch plan on the PTX
emulator (test/ptxemu/run_plan.py, results and buffers poisoned) and
compares with the CPU run of the same optimized graph on the same inputs
(bench/gpu/check.py's tolerances: ||got - want|| / ||want|| <= 1e-2 f16,
4e-2 bf16, 5e-3 f32; and no NaN where the CPU result is finite). Both are
also compared with a float64 numpy evaluation of the graph as built, and
the CPU run of the unoptimized graph, to tell which side is wrong.

Each (seed, chip) runs in a worker process of its own (a crash or a hang
is a row, not the end of the run); one JSON line per run goes to
OUT/results.jsonl, and a failing run's graph, optimized graph, PTX, launch
plan and inputs to OUT/fail-<seed>-<chip>/.

    PYTHONPATH=build/python MLSOPT_BUILD_DIR=$PWD/build \\
      python3 test/ptxemu/fuzz_programs.py --seeds 0:100 --out /tmp/fuzz22 \\
        [--chips sm_80,sm_90] [--minutes 60] [--per-run-limit 240]
    # one run in this process, verbose (--generator 1: the first run's programs):
    python3 test/ptxemu/fuzz_programs.py --one SEED CHIP [--show] [--generator 1]
    # run again the rows of some statuses (after an emulator fix):
    python3 test/ptxemu/fuzz_programs.py --out /tmp/fuzz22 --redo "emulator error"

f32 mismatches run again on an emulator whose tf32 is exact, so that tf32
precision on an ill-conditioned output (a sum that cancels) is told from a
wrong kernel: `exact_tf32_emu_vs_cpu` and `diagnosis` in the row.

A script, not part of `make check`.
"""

import argparse
import importlib.util
import json
import math
import os
import pathlib
import subprocess
import sys
import time
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import run_plan  # noqa: E402

DIMS = (1, 2, 3, 5, 7, 8, 16, 17, 24, 31, 40, 48, 63, 64, 72, 80, 96, 100, 127,
        128, 130, 192, 256, 320, 1000)
BATCH = (1, 2, 3, 5, 7, 8)
MAX_ELEMS = 300_000       # per tensor
MAX_FLOPS = 50_000_000    # per program (matmuls)
VALUE_LIMIT = 2.0e4       # no value of the float64 evaluation beyond this
CHIPS = ("sm_80", "sm_90")


# ---------------------------------------------------------------------------
# Numerics helpers
# ---------------------------------------------------------------------------

def bf16_round(a):
    a = np.ascontiguousarray(np.asarray(a, np.float32))
    u = a.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint32)
    return (r << 16).astype(np.uint32).view(np.float32)


def to_dtype(a, dt):
    if dt == "f16":
        return np.asarray(a).astype(np.float16)
    if dt == "bf16":
        return bf16_round(a)
    return np.asarray(a).astype(np.float32)


_ERF = np.vectorize(math.erf, otypes=[np.float64])


def np_gelu(x):
    return 0.5 * x * (1.0 + _ERF(x / math.sqrt(2.0)))


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# bench/gpu/check.py, whose tolerances and norm error the GPU run judges by.
_CHECK = run_plan.load_script(REPO / "bench" / "gpu" / "check.py",
                              "_bench_gpu_check")
TOLERANCE = _CHECK.TOLERANCE


def relative_error(got, want):
    """check.py's norm error; NaN, not an exception, for another shape."""
    if np.shape(got) != np.shape(want):
        return float("nan")
    return _CHECK.relative_error(np.asarray(got), want)


def max_element_error(got, want):
    if np.shape(got) != np.shape(want):
        return float("nan")
    return run_plan.max_element_error(got, want)


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

class Reject(Exception):
    """An op the generator decided against (values out of range)."""


class T:
    def __init__(self, h, v, desc):
        self.h = h              # the graph's DTensor
        self.used = False       # read by an op
        self.v = v              # float64 value (numpy evaluation)
        self.desc = desc

    @property
    def shape(self):
        return tuple(self.v.shape)


class Builder:
    def __init__(self, mi, rng, dt):
        self.mi = mi
        self.rng = rng
        self.dt = dt
        self.g = mi.new_kernel_graph()
        self.inputs = []
        self.input_colmajor = []
        self.output_colmajor = []
        self.steps = []
        self.pool = []
        self.nops = 0
        self.flops = 0

    # -- inputs ------------------------------------------------------------
    def input(self, shape, kind="normal", scale=1.0):
        """A new input, made part of the graph when an op first reads it
        (an op the generator rejects leaves no unused input behind)."""
        shape = tuple(int(d) for d in shape)
        if kind == "normal":
            a = self.rng.standard_normal(shape) * scale
        elif kind == "pos":           # in [0.5, 2]
            a = self.rng.uniform(0.5, 2.0, shape)
        else:
            raise ValueError(kind)
        a = to_dtype(a, self.dt)
        t = T(None, np.asarray(a, np.float64), None)
        t.array = a
        t.kind = f"{kind} x{scale:.3g}"
        t.colmajor = False
        return t

    def materialize(self, t):
        if t.h is not None:
            return
        dtype = {"f16": self.mi.float16, "bf16": self.mi.bfloat16,
                 "f32": self.mi.float32}[self.dt]
        if t.colmajor:
            t.h = self.g.new_input(dims=t.shape, strides=(1, t.shape[0]), dtype=dtype)
        else:
            t.h = self.g.new_input(dims=t.shape, dtype=dtype)
        self.inputs.append(t.array)
        self.input_colmajor.append(t.colmajor)
        t.desc = f"in{len(self.inputs) - 1}"
        self.steps.append(f"{t.desc} = input{list(t.shape)} {t.kind}"
                          + (" column-major" if t.colmajor else ""))
        self.pool.append(t)

    # -- ops -------------------------------------------------------------
    def _op(self, name, value, make, desc, operands):
        value = np.asarray(value, np.float64)
        if not np.all(np.isfinite(value)):
            raise Reject(f"{name}: non-finite")
        if value.size and np.abs(value).max() > VALUE_LIMIT:
            raise Reject(f"{name}: values up to {np.abs(value).max():.3g}")
        if value.size > MAX_ELEMS:
            raise Reject(f"{name}: {value.size} elements")
        for o in operands:
            self.materialize(o)
            o.used = True
        h = make()
        got = tuple(h.dims)
        if got != tuple(value.shape):
            raise RuntimeError(f"generator/API shape disagreement for {desc}: "
                               f"API {got}, numpy {value.shape}")
        self.nops += 1
        tname = f"t{self.nops}"
        self.steps.append(f"{tname} = {desc()}")
        t = T(h, value, tname)
        self.pool.append(t)
        return t

    def matmul(self, a, b):
        flops = 2 * int(np.prod(a.shape)) * b.shape[-1]
        if self.flops + flops > MAX_FLOPS:
            raise Reject("flops")
        t = self._op("matmul", np.matmul(a.v, b.v), lambda: self.g.matmul(a.h, b.h),
                     lambda: f"matmul({a.desc}, {b.desc})", (a, b))
        self.flops += flops
        return t

    UNARY = ("exp", "silu", "gelu", "relu", "sigmoid", "tanh", "neg", "square",
             "sqrt", "rsqrt", "mul_scalar", "log", "gelu_tanh", "softplus", "sin",
             "cos", "log1p", "clamp")

    def unary(self, op, a, c=None):
        x = a.v
        if op == "exp":
            if x.max() > 6:
                raise Reject("exp of large values")
            v = np.exp(x)
        elif op == "silu":
            v = x * np_sigmoid(x)
        elif op == "gelu":
            v = np_gelu(x)
        elif op == "relu":
            v = np.maximum(x, 0)
        elif op == "sigmoid":
            v = np_sigmoid(x)
        elif op == "tanh":
            v = np.tanh(x)
        elif op == "neg":
            v = -x
        elif op == "square":
            v = x * x
        elif op == "sqrt":
            if x.min() < 0:
                raise Reject("sqrt of negative")
            v = np.sqrt(x)
        elif op == "rsqrt":
            if x.min() < 0.05:
                raise Reject("rsqrt of small")
            v = 1 / np.sqrt(x)
        elif op == "log":
            if x.min() < 0.05:
                raise Reject("log of small")
            v = np.log(x)
        elif op == "log1p":
            if x.min() < -0.9:
                raise Reject("log1p near -1")
            v = np.log1p(x)
        elif op == "gelu_tanh":
            v = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        elif op == "softplus":
            v = np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))
        elif op == "sin":
            if np.abs(x).max() > 50:
                raise Reject("sin of large")
            v = np.sin(x)
        elif op == "cos":
            if np.abs(x).max() > 50:
                raise Reject("cos of large")
            v = np.cos(x)
        elif op == "clamp":
            lo, hi = -abs(c), abs(c) + 0.5
            v = np.minimum(np.maximum(x, lo), hi)
            return self._op(op, v, lambda: self.g.clamp(a.h, lo, hi),
                            lambda: f"clamp({a.desc}, {lo}, {hi})", (a,))
        elif op == "mul_scalar":
            v = x * c
            return self._op(op, v, lambda: self.g.mul_scalar(a.h, c),
                            lambda: f"mul_scalar({a.desc}, {c})", (a,))
        else:
            raise ValueError(op)
        return self._op(op, v, lambda: getattr(self.g, op)(a.h),
                        lambda: f"{op}({a.desc})", (a,))

    BINARY = ("add", "sub", "mul", "div", "max", "min")

    def binary(self, op, a, b):
        x, y = a.v, b.v
        if op == "div":
            if np.abs(y).min() < 0.1:
                raise Reject("div by small")
            v = x / y
        else:
            v = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                 "max": np.maximum, "min": np.minimum}[op](x, y)
        return self._op(op, v, lambda: getattr(self.g, op)(a.h, b.h),
                        lambda: f"{op}({a.desc}, {b.desc})", (a, b))

    def reduction(self, a, dim):
        return self._op("reduction", a.v.sum(axis=dim, keepdims=True),
                        lambda: self.g.reduction(a.h, dim),
                        lambda: f"reduction({a.desc}, {dim})", (a,))

    def rms_norm(self, a, eps=1e-6):
        x = a.v
        v = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
        return self._op("rms_norm", v, lambda: self.g.rms_norm(a.h, eps=eps),
                        lambda: f"rms_norm({a.desc}, eps={eps})", (a,))

    def weight(self, shape, scale):
        """A matmul's right operand; a 2-D one is sometimes column-major (a
        linear layer's [N, K] weight)."""
        t = self.input(shape, scale=scale)
        if GENERATOR[0] >= 2 and len(shape) == 2 and self.rng.random() < 0.2:
            t.colmajor = True
        return t

    def mark(self, t):
        if GENERATOR[0] >= 2 and len(t.shape) == 2 and self.rng.random() < 0.12:
            self.g.mark_output(t.h, strides=(1, t.shape[0]))
            self.output_colmajor.append(True)
            self.steps.append(f"output {t.desc} column-major")
        else:
            self.g.mark_output(t.h)
            self.output_colmajor.append(False)
            self.steps.append(f"output {t.desc}")


def pick(rng, seq, p=None):
    return seq[int(rng.choice(len(seq), p=p))]


# "large": dims weighted towards the big ones (long loops, many blocks,
# split reductions); set per program by generate().
SIZE_BIAS = ["uniform"]
# Generator version: 1 is the first one (no size bias, no column-major
# layouts, fewer unary ops); 2 (default) adds them. A seed gives the same
# program under the same version.
GENERATOR = [2]


def pick_dim(rng, lo=1, hi=1000, small_bias=False):
    cands = [d for d in DIMS if lo <= d <= hi]
    if not cands:
        return max(1, min(hi, lo))
    if SIZE_BIAS[0] == "large" and not small_bias:
        w = np.array([float(d) ** 0.6 for d in cands])
        return int(cands[int(rng.choice(len(cands), p=w / w.sum()))])
    if small_bias:
        w = np.array([1.0 / (1 + i) for i in range(len(cands))])
        return int(cands[int(rng.choice(len(cands), p=w / w.sum()))])
    return int(pick(rng, cands))


def broadcast_shape(rng, shape):
    """A shape that broadcasts to `shape`: some dims 1, maybe leading dims
    dropped, or the shape itself."""
    r = rng.random()
    if r < 0.35:
        return tuple(shape)
    s = list(shape)
    if r < 0.55 and len(s) > 1:          # drop leading dims: a bias
        return tuple(s[int(rng.integers(1, len(s))):])
    for i in range(len(s)):
        if rng.random() < 0.5:
            s[i] = 1
    return tuple(s)


def broadcasts_to(a, b):
    try:
        return np.broadcast_shapes(a, b) == tuple(b)
    except ValueError:
        return False


def random_epilogue(b, rng, t, budget):
    """Up to `budget` elementwise/reduction/norm ops on `t`."""
    for _ in range(budget):
        for _attempt in range(6):
            kind = pick(rng, ["unary", "binary_in", "binary_pool", "reduction",
                              "rms_norm", "softmax"],
                        p=[0.34, 0.28, 0.12, 0.1, 0.08, 0.08])
            try:
                if kind == "unary":
                    op = pick(rng, Builder.UNARY if GENERATOR[0] >= 2 else Builder.UNARY[:11])
                    c = float(pick(rng, [0.5, -1.5, 0.125, 3.0]))
                    t = b.unary(op, t, c)
                elif kind == "binary_in":
                    op = pick(rng, Builder.BINARY, p=[0.3, 0.2, 0.25, 0.1, 0.08, 0.07])
                    shape = broadcast_shape(rng, t.shape)
                    other = b.input(shape, "pos" if op == "div" else "normal")
                    t = b.binary(op, t, other) if rng.random() < 0.8 or op == "div" \
                        else b.binary(op, other, t)
                elif kind == "binary_pool":
                    same = [p for p in b.pool if p is not t and
                            broadcasts_to(p.shape, t.shape)]
                    if not same:
                        raise Reject("no partner")
                    other = same[int(rng.integers(len(same)))]
                    op = pick(rng, ["add", "sub", "mul", "div"])
                    t = b.binary(op, t, other)
                elif kind == "reduction":
                    dim = int(rng.integers(-1, len(t.shape))) if rng.random() < 0.5 \
                        else len(t.shape) - 1
                    if t.shape[dim] == 1:
                        raise Reject("reduction over 1")
                    t = b.reduction(t, dim)
                elif kind == "rms_norm":
                    if t.shape[-1] == 1:
                        raise Reject("rms_norm over 1")
                    t = b.rms_norm(t, eps=float(pick(rng, [1e-6, 1e-5, 0.0])))
                elif kind == "softmax":
                    if t.shape[-1] == 1:
                        raise Reject("softmax over 1")
                    e = b.unary("exp", t)
                    s = b.reduction(e, len(t.shape) - 1)
                    t = b.binary("div", e, s)
                break
            except Reject:
                continue
    return t


def gen_shape_mk(rng, rank3):
    """(batch or None, m, k) with m*k*batch within limits."""
    for _ in range(100):
        bt = pick_dim(rng, 1, 8) if rank3 else None   # unused; kept so seeds reproduce
        bt = int(pick(rng, BATCH)) if rank3 else None
        m = pick_dim(rng, 1, 320)
        k = pick_dim(rng, 1, 1000)
        if (bt or 1) * m * k <= MAX_ELEMS // 2:
            return bt, m, k
    return (2 if rank3 else None), 8, 64


def gen_n(rng, bt, m, k, flops_left):
    for _ in range(100):
        n = pick_dim(rng, 1, 1000)
        if (bt or 1) * k * n <= MAX_ELEMS // 2 and (bt or 1) * m * n <= MAX_ELEMS // 2 \
                and 2 * (bt or 1) * m * k * n <= flops_left:
            return n
    return 8


def template_mlp(b, rng):
    rank3 = rng.random() < 0.3
    bt, m, k = gen_shape_mk(rng, rank3)
    lead = (bt,) if rank3 else ()
    X = b.input(lead + (m, k))
    n = gen_n(rng, bt, m, k, MAX_FLOPS)
    W = b.weight(lead + (k, n), scale=k ** -0.5)
    Y = b.matmul(X, W)
    r = rng.random()
    if r < 0.25:      # gated: silu(X W1) * (X W2)
        W2 = b.weight(lead + (k, n), scale=k ** -0.5)
        try:
            Y = b.binary("mul", b.unary(pick(rng, ["silu", "gelu", "relu"]), Y),
                         b.matmul(X, W2))
        except Reject:
            pass
    elif r < 0.45:    # a second matmul
        n2 = gen_n(rng, bt, m, n, MAX_FLOPS - b.flops)
        W2 = b.weight(lead + (n, n2), scale=n ** -0.5)
        try:
            Y = b.matmul(b.unary(pick(rng, ["silu", "relu", "tanh", "gelu"]), Y), W2)
        except Reject:
            pass
    elif r < 0.6:     # LoRA
        rr = pick_dim(rng, 1, 16)
        A = b.input(lead + (k, rr), scale=k ** -0.5)
        B = b.input(lead + (rr, n), scale=rr ** -0.5)
        try:
            Y = b.binary("add", Y, b.matmul(b.matmul(X, A), B))
        except Reject:
            pass
    return random_epilogue(b, rng, Y, int(rng.integers(0, 4)))


def template_rmsnorm_mm(b, rng):
    bt, m, k = gen_shape_mk(rng, rng.random() < 0.2)
    lead = (bt,) if bt else ()
    if k == 1:
        k = 64
    X = b.input(lead + (m, k))
    Xn = b.rms_norm(X, eps=1e-6)
    if rng.random() < 0.4:
        G = b.input((k,), "pos")
        Xn = b.binary("mul", Xn, G)
    n = gen_n(rng, bt, m, k, MAX_FLOPS)
    W = b.weight(lead + (k, n), scale=k ** -0.5)
    Y = b.matmul(Xn, W)
    return random_epilogue(b, rng, Y, int(rng.integers(0, 3)))


def template_softmax(b, rng):
    rank = int(pick(rng, [1, 2, 3], p=[0.15, 0.6, 0.25]))
    for _ in range(100):
        shape = tuple(pick_dim(rng, 1, 1000) for _ in range(rank))
        if shape[-1] > 1 and np.prod(shape) <= MAX_ELEMS:
            break
    X = b.input(shape)
    if rng.random() < 0.3:
        X = b.unary("mul_scalar", X, float(pick(rng, [0.5, 0.125, 2.0])))
    E = b.unary("exp", X)
    S = b.reduction(E, rank - 1)
    Y = b.binary("div", E, S)
    return random_epilogue(b, rng, Y, int(rng.integers(0, 2)))


def template_attention(b, rng):
    for _ in range(200):
        h = int(pick(rng, BATCH))
        q = pick_dim(rng, 1, 128, small_bias=True)
        d = pick_dim(rng, 1, 256)
        l = pick_dim(rng, 1, 1000)
        d2 = d if rng.random() < 0.7 else pick_dim(rng, 1, 256)
        sizes = [h * q * d, h * d * l, h * l * d2, h * q * l]
        flops = 2 * h * q * l * (d + d2)
        if max(sizes) <= MAX_ELEMS // 2 and flops <= MAX_FLOPS:
            break
    else:
        h, q, d, l, d2 = 2, 16, 64, 64, 64
    Q = b.input((h, q, d), scale=0.7)
    K = b.input((h, d, l), scale=d ** -0.5)
    V = b.input((h, l, d2))
    S = b.matmul(Q, K)
    if rng.random() < 0.3:
        S = b.unary("mul_scalar", S, 0.5)
    E = b.unary("exp", S)
    O = b.matmul(E, V)
    Y = b.binary("div", O, b.reduction(E, 2))
    return random_epilogue(b, rng, Y, int(rng.integers(0, 2)))


def template_elementwise(b, rng):
    rank = int(pick(rng, [1, 2, 3], p=[0.2, 0.5, 0.3]))
    for _ in range(100):
        shape = tuple(pick_dim(rng, 1, 1000) for _ in range(rank))
        if np.prod(shape) <= MAX_ELEMS:
            break
    X = b.input(shape)
    return random_epilogue(b, rng, X, int(rng.integers(1, 7)))


def template_layernorm(b, rng):
    rank = int(pick(rng, [2, 3], p=[0.7, 0.3]))
    for _ in range(100):
        shape = tuple(pick_dim(rng, 1, 1000) for _ in range(rank))
        if shape[-1] > 1 and np.prod(shape) <= MAX_ELEMS:
            break
    n = shape[-1]
    X = b.input(shape)
    mean = b.unary("mul_scalar", b.reduction(X, rank - 1), 1.0 / n)
    C = b.binary("sub", X, mean)
    var = b.unary("mul_scalar", b.reduction(b.unary("square", C), rank - 1), 1.0 / n)
    eps = b.input((1,), "pos")
    try:
        Y = b.binary("div", C, b.unary("sqrt", b.binary("add", var, eps)))
    except Reject:
        Y = C
    return Y


def template_random_dag(b, rng):
    """A pool-based DAG: 2-6 ops on random pool members, matmuls among them."""
    rank = int(pick(rng, [2, 3], p=[0.7, 0.3]))
    bt, m, k = gen_shape_mk(rng, rank == 3)
    lead = (bt,) if bt else ()
    b.materialize(b.input(lead + (m, k)))
    nops = int(rng.integers(2, 7))
    for _ in range(nops * 4):
        if b.nops >= nops:
            break
        t = b.pool[-1] if rng.random() < 0.5 else b.pool[int(rng.integers(len(b.pool)))]
        try:
            r = rng.random()
            if r < 0.3 and len(t.shape) >= 2:
                kk = t.shape[-1]
                n = gen_n(rng, bt if len(t.shape) == 3 else None, t.shape[-2], kk,
                          MAX_FLOPS - b.flops)
                W = b.weight(t.shape[:-2] + (kk, n), scale=kk ** -0.5)
                b.matmul(t, W)
            elif r < 0.4:
                # matmul of two pool tensors where shapes chain
                partners = [p for p in b.pool if len(p.shape) == len(t.shape)
                            and len(t.shape) >= 2 and p.shape[:-2] == t.shape[:-2]
                            and p.shape[-2] == t.shape[-1]]
                if not partners:
                    raise Reject("no matmul partner")
                p = partners[int(rng.integers(len(partners)))]
                b.matmul(t, p)
            else:
                random_epilogue(b, rng, t, 1)
        except Reject:
            continue
    # Outputs: the newest tensor, maybe also another computed one.
    return b.pool[-1]


TEMPLATES = {
    "mlp": (template_mlp, 0.22),
    "rmsnorm_mm": (template_rmsnorm_mm, 0.1),
    "softmax": (template_softmax, 0.12),
    "attention": (template_attention, 0.14),
    "elementwise": (template_elementwise, 0.14),
    "layernorm": (template_layernorm, 0.08),
    "random_dag": (template_random_dag, 0.2),
}


def generate(mi, seed):
    """-> dict(graph, inputs, outputs_np (float64), dtype, template, steps,
    search options)."""
    rng = np.random.default_rng(seed)
    dt = pick(rng, ["f16", "bf16", "f32"])
    names = list(TEMPLATES)
    w = np.array([TEMPLATES[n][1] for n in names])
    template = names[int(rng.choice(len(names), p=w / w.sum()))]
    SIZE_BIAS[0] = "uniform"
    if GENERATOR[0] >= 2:
        SIZE_BIAS[0] = "large" if rng.random() < 0.6 else "uniform"
    for attempt in range(20):
        b = Builder(mi, np.random.default_rng([seed, attempt]), dt)
        try:
            out = TEMPLATES[template][0](b, b.rng)
        except Reject:
            continue
        if b.nops == 0:
            continue
        # Outputs: the template's result, and the computed tensors no op
        # reads (else their ops would be dead), at most four.
        leaves = [t for t in b.pool if t.desc.startswith("t") and not t.used
                  and t is not out]
        outs = [out] + leaves[-3:]
        for t in outs:
            b.mark(t)
        break
    else:
        raise RuntimeError("generator gave up")
    options = {"timeout": 3, "threads": 1, "seed": int(seed)}
    r = rng.random()
    if r < 0.2:
        options["max_block_ops"] = int(pick(rng, [3, 4, 5, 6]))
    elif r < 0.4:
        options["latency_veto"] = False
    return {"graph": b.g, "inputs": b.inputs, "expected64": [t.v for t in outs],
            "dtype": dt, "template": template, "steps": b.steps, "options": options,
            "nops": b.nops, "flops": b.flops, "size_bias": SIZE_BIAS[0],
            "input_colmajor": b.input_colmajor, "output_colmajor": b.output_colmajor}


# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------

def exact_tf32_run_plan(*args, **kwargs):
    """run_plan with an emulator whose tf32 is f32 (mma operands and
    cvt.rna.tf32 not rounded): tells tf32 precision from a wrong kernel."""
    import importlib.util
    import run_plan as rp
    src = (HERE / "ptxemu.py").read_text()
    patches = [
        ("v.astype(np.uint32) & np.uint32(0xFFFFE000)", "v.astype(np.uint32)"),
        ("rb = (bits.astype(np.uint64) + np.uint64(0x1000)).astype(np.uint32) & np.uint32(0xFFFFE000)",
         "rb = bits"),
        ("rb = bits & np.uint32(0xFFFFE000)", "rb = bits"),
        ("rb = (bits.astype(np.uint64) + np.uint64(0xFFF) + lsb).astype(np.uint32) & np.uint32(0xFFFFE000)",
         "rb = bits"),
    ]
    for old, new in patches:
        if old not in src:
            raise RuntimeError(f"exact-tf32 patch no longer applies: {old}")
        src = src.replace(old, new)
    spec = importlib.util.spec_from_loader("ptxemu_exact_tf32", loader=None)
    mod = importlib.util.module_from_spec(spec)
    exec(compile(src, "ptxemu_exact_tf32", "exec"), mod.__dict__)
    saved = rp.ptxemu
    rp.ptxemu = mod
    try:
        return rp.run_plan(*args, **kwargs)
    finally:
        rp.ptxemu = saved


def phase(name):
    print(f"PHASE {name} {time.time():.1f}", file=sys.stderr, flush=True)


def run_one(seed, chip, out_dir, show=False, schedule=None):
    import mlsopt as mi
    from run_plan import run_plan
    import ptxemu

    if schedule is None:   # mostly the default; a quarter the other order
        schedule = "warps-ascending" if (seed * 7 + len(chip)) % 4 == 0 \
            else "warps-descending"
    row = {"seed": seed, "chip": chip, "status": None, "timings": {},
           "schedule": schedule, "package": mi.__file__}
    tm = row["timings"]
    t0 = time.perf_counter()
    phase("generate")
    prog = generate(mi, seed)
    g = prog["graph"]
    tm["generate"] = time.perf_counter() - t0
    row.update(dtype=prog["dtype"], template=prog["template"], steps=prog["steps"],
               options=prog["options"], nops=prog["nops"], matmul_flops=prog["flops"],
               size_bias=prog["size_bias"], generator=GENERATOR[0],
               input_colmajor=prog["input_colmajor"],
               output_colmajor=prog["output_colmajor"],
               mlir=g.mlir(),
               input_shapes=[list(a.shape) for a in prog["inputs"]])
    if show:
        print("\n".join(prog["steps"]))
        print(g.mlir())
    tol = TOLERANCE[prog["dtype"]]
    inputs = prog["inputs"]

    def fail_dir():
        d = pathlib.Path(out_dir) / f"fail-{seed}-{chip}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "graph.mlir").write_text(row["mlir"])
        if row.get("optimized_mlir"):
            (d / "optimized.mlir").write_text(row["optimized_mlir"])
        np.savez(d / "inputs.npz", *[np.asarray(a, np.float32) for a in inputs])
        return d

    stage = "cpu-original"
    try:
        phase(stage)
        t = time.perf_counter()
        orig = g(inputs=inputs)
        tm["cpu_original"] = time.perf_counter() - t
        stage = "superoptimize"
        phase(stage)
        t = time.perf_counter()
        opt = g.superoptimize(target=chip, **prog["options"])
        tm["superoptimize"] = time.perf_counter() - t
        row["optimized_mlir"] = opt.mlir()
        stage = "ptx"
        phase(stage)
        t = time.perf_counter()
        ptx = opt.ptx(target=chip)
        stage = "launch_plan"
        plan = opt.launch_plan(target=chip)
        tm["lower"] = time.perf_counter() - t
        stage = "cpu-optimized"
        phase(stage)
        t = time.perf_counter()
        want = opt(inputs=inputs)
        tm["cpu_optimized"] = time.perf_counter() - t
    except Exception as e:  # noqa: BLE001
        row["status"] = "mlsopt error"
        row["stage"] = stage
        row["error"] = f"{type(e).__name__}: {e}"[:4000]
        d = fail_dir()
        (d / "error.txt").write_text(traceback.format_exc())
        return row

    functions = [f["name"] for f in plan["functions"]
                 if not f["name"].endswith("_reference")]
    function = functions[0] if functions else "main"
    launches = [f for f in plan["functions"] if f["name"] == function][0]["launches"]
    row["kernels"] = len(launches)
    row["launches"] = [{"kernel": L.get("kernel"), "grid": L.get("grid"),
                        "block": L.get("block"),
                        "smem": L.get("dynamic_shared_memory_bytes")}
                       for L in launches]
    stats = []
    phase("emulate")
    t = time.perf_counter()
    try:
        stored = [np.ascontiguousarray(a.T) if cm else a
                  for a, cm in zip(inputs, prog["input_colmajor"])]
        got = run_plan(plan, ptx, function, stored, stats=stats, schedule=schedule)
        # A column-major result comes back as stored: [N, M] for [M, N].
        got = [g_.T if cm else g_ for g_, cm in zip(got, prog["output_colmajor"])]
    except Exception as e:  # noqa: BLE001
        tm["emulate"] = time.perf_counter() - t
        row["status"] = "emulator error"
        row["error"] = f"{type(e).__name__}: {e}"[:4000]
        row["emulator_error_class"] = "PTXEmulatorError" if isinstance(
            e, ptxemu.PTXEmulatorError) else type(e).__name__
        d = fail_dir()
        (d / "kernels.ptx").write_text(ptx)
        (d / "plan.json").write_text(json.dumps(plan, indent=1))
        (d / "error.txt").write_text(traceback.format_exc())
        return row
    tm["emulate"] = time.perf_counter() - t
    row["launch_stats"] = [{"kernel": s["kernel"], "steps": s["steps"],
                            "seconds": round(s["seconds"], 3)} for s in stats]

    problems = []
    errs = []
    for i, (gv, wv) in enumerate(zip(got, want)):
        wv = np.asarray(wv, np.float64)
        e = {"emu_vs_cpu": relative_error(gv, wv),
             "emu_vs_cpu_elem": max_element_error(gv, wv),
             "emu_vs_np64": relative_error(gv, prog["expected64"][i]),
             "cpu_vs_np64": relative_error(wv, prog["expected64"][i]),
             "cpu_orig_vs_np64": relative_error(orig[i], prog["expected64"][i]),
             "shape": list(np.shape(wv))}
        nan = np.isnan(np.asarray(gv, np.float64)) & ~np.isnan(wv)
        e["poisoned"] = int(nan.sum())
        if e["poisoned"]:
            e["first_poisoned"] = np.argwhere(nan)[0].tolist()
            problems.append(f"result {i}: {e['poisoned']} NaN where the CPU is finite")
        if not (e["emu_vs_cpu"] <= tol):
            problems.append(f"result {i}: relative error {e['emu_vs_cpu']:.3g} > {tol}")
        errs.append(e)
    row["errors"] = errs
    # Not a failure of the emulated PTX, but worth a look: the CPU pipeline
    # (optimized or not) far from the float64 evaluation.
    row["cpu_suspect"] = any(not (e["cpu_vs_np64"] <= 3 * tol) or
                             not (e["cpu_orig_vs_np64"] <= 3 * tol) for e in errs)
    if problems and prog["dtype"] == "f32" and "mma.sync" in ptx and "tf32" in ptx:
        # tf32 tensor cores or a wrong kernel? Run again with f32 operands.
        try:
            exact = exact_tf32_run_plan(plan, ptx, function, stored, schedule=schedule)
            exact = [g_.T if cm else g_ for g_, cm in zip(exact, prog["output_colmajor"])]
            for e, gv, wv in zip(errs, exact, want):
                e["exact_tf32_emu_vs_cpu"] = relative_error(gv, wv)
            if all(e["exact_tf32_emu_vs_cpu"] <= tol / 10 for e in errs):
                row["diagnosis"] = ("tf32: with f32 mma operands the emulated PTX matches "
                                    "the CPU; the output is ill-conditioned for tf32")
        except Exception as e:  # noqa: BLE001
            row["diagnosis"] = f"exact-tf32 rerun failed: {type(e).__name__}: {e}"
    if problems:
        row["status"] = "mismatch"
        row["problems"] = problems
        d = fail_dir()
        (d / "kernels.ptx").write_text(ptx)
        (d / "plan.json").write_text(json.dumps(plan, indent=1))
        np.savez(d / "emulated.npz", *got)
        np.savez(d / "cpu.npz", *[np.asarray(w, np.float32) for w in want])
    else:
        row["status"] = "pass"
    if row["cpu_suspect"]:
        d = fail_dir()
        (d / "kernels.ptx").write_text(ptx)
        (d / "plan.json").write_text(json.dumps(plan, indent=1))
    return row


# ---------------------------------------------------------------------------
# Driver: one worker process per run
# ---------------------------------------------------------------------------

def parse_seeds(s):
    if ":" in s:
        a, b = s.split(":")
        return list(range(int(a), int(b)))
    return [int(x) for x in s.split(",")]


def driver(args):
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "results.jsonl"
    done = set()
    if jsonl.exists():
        for line in jsonl.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done.add((r["seed"], r["chip"]))
    start = time.monotonic()
    chips = args.chips.split(",")
    todo = [(seed, chip) for seed in parse_seeds(args.seeds) for chip in chips]
    if args.redo:
        # Run again the rows of these statuses (after an emulator fix, say);
        # the old rows move to results.replaced.jsonl.
        redo = set(args.redo.split(","))
        keep, old = [], []
        for line in jsonl.read_text().splitlines():
            if line.strip():
                (old if json.loads(line)["status"] in redo else keep).append(line)
        with (out / "results.replaced.jsonl").open("a") as f:
            f.writelines(line + "\n" for line in old)
        jsonl.write_text("".join(line + "\n" for line in keep))
        todo = [(json.loads(line)["seed"], json.loads(line)["chip"]) for line in old]
        versions = {(json.loads(line)["seed"], json.loads(line)["chip"]):
                    json.loads(line).get("generator", 1) for line in old}
        done = set()
    else:
        versions = {}
    for seed, chip in todo:
        if True:
            if (seed, chip) in done:
                continue
            if time.monotonic() - start > args.minutes * 60:
                print("time is up", flush=True)
                return
            t = time.perf_counter()
            row = run_worker(seed, chip, out, args.per_run_limit,
                             versions.get((seed, chip)))
            row["wall"] = round(time.perf_counter() - t, 2)
            with jsonl.open("a") as f:
                f.write(json.dumps(row) + "\n")
            em = row.get("timings", {}).get("emulate")
            print(f"seed {seed:5d} {chip} {row.get('dtype', '?'):4s} "
                  f"{row.get('template', '?'):12s} k={row.get('kernels', '?')} "
                  f"{row['status']:15s} emu={em if em is None else round(em, 1)} "
                  f"wall={row['wall']} "
                  + (row.get("error", "") or "; ".join(row.get("problems", [])))[:200]
                  + (" CPU-SUSPECT" if row.get("cpu_suspect") else "")
                  + (f" [{row['diagnosis'][:60]}]" if row.get("diagnosis") else ""),
                  flush=True)


def run_worker(seed, chip, out, limit, generator=None):
    cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--worker",
           str(seed), chip, "--out", str(out),
           "--generator", str(generator or GENERATOR[0])]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        phases = [ln.split()[1] for ln in err.splitlines() if ln.startswith("PHASE ")]
        return {"seed": seed, "chip": chip, "status": "timeout",
                "stage": phases[-1] if phases else None,
                "error": f"worker ran past {limit} s in phase "
                         f"{phases[-1] if phases else '?'}"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode == 0 and lines:
        return json.loads(lines[-1])
    phases = [ln.split()[1] for ln in p.stderr.splitlines() if ln.startswith("PHASE ")]
    tail = "\n".join(ln for ln in p.stderr.splitlines() if not ln.startswith("PHASE "))[-3000:]
    return {"seed": seed, "chip": chip, "status": "crash", "returncode": p.returncode,
            "stage": phases[-1] if phases else None,
            "error": f"worker exited with {p.returncode} in phase "
                     f"{phases[-1] if phases else '?'}: {tail}"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0:100")
    ap.add_argument("--chips", default=",".join(CHIPS))
    ap.add_argument("--out", default="/tmp/fuzz22")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--per-run-limit", type=float, default=240)
    ap.add_argument("--worker", nargs=2, metavar=("SEED", "CHIP"))
    ap.add_argument("--one", nargs=2, metavar=("SEED", "CHIP"))
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--generator", type=int, default=2, choices=(1, 2),
                    help="generator version (1: the first run's programs)")
    ap.add_argument("--redo", help="statuses to run again, e.g. 'emulator error,crash'")
    ap.add_argument("--gen-only", type=str, help="print the programs of these seeds")
    args = ap.parse_args(argv)
    GENERATOR[0] = args.generator
    if args.gen_only:
        import mlsopt as mi
        for s in parse_seeds(args.gen_only):
            p = generate(mi, s)
            print(f"seed {s}: {p['dtype']} {p['template']} {p['size_bias']} nops={p['nops']} "
                  f"flops={p['flops']} {p['options']}")
            for st in p["steps"]:
                print("   ", st)
        return
    if args.worker or args.one:
        seed, chip = (args.worker or args.one)
        row = run_one(int(seed), chip, args.out, show=args.show)
        if args.one:
            print(json.dumps({k: v for k, v in row.items() if k not in ("mlir", "optimized_mlir")},
                             indent=1))
        else:
            print(json.dumps(row))
        return
    driver(args)


if __name__ == "__main__":
    main()
