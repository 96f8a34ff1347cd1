#!/usr/bin/env python3
"""Builds the GPU correctness checks that bench/gpu/check.py runs on the lent
GPU machine: the examples (their reference searched, and each hand-written
μGraph as written, in f16, bf16 and f32), the front-end programs of
test/Integration and the programs of bench/beyond, each searched for sm_90.

Per check, under OUT/<label>/: the PTX and launch plan of the program as the
GPU runs it (`program`) and of the unfused reference (`unfused`), the
reference's outputs on this machine's CPU pipeline (MLIR's ExecutionEngine)
for the inputs of bench/gpu/inputs.py, and meta.json. A program that fails
to prepare gets a meta.json with its error, which check.py reports.

    PYTHONPATH=build/python python3 bench/gpu/prepare_checks.py \
        --build-dir build [--out build/bench/gpu-checks] [--only LABEL...]
"""

import argparse
import json
import pathlib
import re
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "gpu"))
import inputs as gpu_inputs  # noqa: E402

# Scales of bench/gpu/inputs.py's inputs, tried in order (prepare).
INPUT_SCALES = (1.0, 0.25, 0.0625)

EXAMPLE_FUNCTIONS = {
    "attention": ["fused", "fused_online_softmax", "flash_decoding"],
    "gated_mlp": ["fused"],
    "rmsnorm_matmul": ["fused"],
}


def checks():
    """(label, path, function, element type or None, search) per check."""
    out = []
    for stem, functions in EXAMPLE_FUNCTIONS.items():
        path = ROOT / "examples" / f"{stem}.mlir"
        for dtype in ("f16", "bf16", "f32"):
            out.append((f"example-{stem}-{dtype}", path, None, dtype, True))
            for function in functions:
                out.append((f"example-{stem}-{function}-{dtype}", path,
                            function, dtype, False))
    out.append(("example-linalg-rmsnorm_matmul",
                ROOT / "examples" / "linalg" / "rmsnorm_matmul.mlir", None,
                None, True))
    for path in sorted((ROOT / "test" / "Integration").glob("*.mlir")):
        out.append((f"integration-{path.stem}", path, None, None, True))
    for path in sorted((ROOT / "bench" / "beyond").glob("*.mlir")):
        out.append((f"beyond-{path.stem}", path, None, None, True))
    return out


def with_element_type(text, dtype):
    """The examples are written in f16; the same program in `dtype`."""
    return text if dtype in (None, "f16") else re.sub(r"(?<!b)f16\b", dtype, text)


def host_inputs(arrays, tensors):
    """bench/gpu/inputs.py's float32 arrays as the CPU pipeline takes them:
    a mask (bool) input as its nonzero elements and an integer input
    truncated toward zero, which is what the GPU run's conversion (torch's
    .to) and the emulator's make of the same floats."""
    out = []
    for array, tensor in zip(arrays, tensors):
        name = str(tensor.dtype)
        if name == "bool":
            array = array != 0
        elif name.startswith("int"):
            array = array.astype(np.int64)
        out.append(array)
    return out


def lowered(graph, directory, stem):
    (directory / f"{stem}.ptx").write_text(graph.ptx("sm_90"))
    plan = graph.launch_plan("sm_90")
    (directory / f"{stem}.plan.json").write_text(json.dumps(plan, indent=1))
    function = graph._core.function_name()
    (entry,) = [f for f in plan["functions"] if f["name"] == function]
    return function, len(entry["launches"])


def prepare(mi, label, path, function, dtype, search, out, timeout, cache):
    directory = out / label
    directory.mkdir(parents=True, exist_ok=True)
    meta = {"label": label, "source": str(path.relative_to(ROOT)),
            "dtype": dtype, "searched": search}
    try:
        text = with_element_type(path.read_text(), dtype)
        reference = mi.from_mlir(text)
        if search:
            start = time.monotonic()
            graph = reference.superoptimize(target="sm_90", timeout=timeout,
                                            cache_dir=str(cache))
            meta["search_seconds"] = round(time.monotonic() - start, 1)
        else:
            graph = mi.from_mlir(text, function)
        meta["function"], meta["launches"] = lowered(graph, directory,
                                                     "program")
        meta["unfused_function"], meta["unfused_launches"] = lowered(
            reference, directory, "unfused")
        shapes = [list(t.dims) for t in reference.inputs]
        start = time.monotonic()
        # Inputs at a scale where the reference stays finite, if one of
        # these is: an output that overflows (exp of large scores in f16)
        # compares only where it is finite, which can be almost nowhere.
        # Where none is, the first scale's inputs and outputs are kept.
        tried = []
        for scale in INPUT_SCALES:
            arrays = gpu_inputs.program_inputs(shapes, scale)
            tried.append((scale, arrays, reference(
                inputs=host_inputs(arrays, reference.inputs))))
            if all(np.isfinite(np.asarray(e, np.float32)).all()
                   for e in tried[-1][2]):
                break
        else:
            tried.append(tried[0])
        scale, arrays, expected = tried[-1]
        meta["input_scale"] = scale
        meta["cpu_seconds"] = round(time.monotonic() - start, 1)
        np.savez_compressed(directory / "expected.npz",
                            *[np.asarray(e, np.float32) for e in expected])
        meta["shapes"] = shapes
        meta["fingerprint"] = gpu_inputs.fingerprint(arrays)
        meta["estimated_us"] = graph.cost("sm_90").total_us
        meta["unfused_estimated_us"] = reference.cost("sm_90").total_us
        # With the latency term (docs/cost-model.md, "Latency"), which the
        # GPU run checks too.
        meta["estimated_latency_us"] = graph.cost(
            "sm_90", latency=True).total_us
        meta["unfused_estimated_latency_us"] = reference.cost(
            "sm_90", latency=True).total_us
    except Exception as e:  # reported by check.py, not hidden
        meta["error"] = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    (directory / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--out")
    parser.add_argument("--timeout", type=int, default=20,
                        help="search seconds per program")
    parser.add_argument("--only", nargs="*", help="labels to prepare")
    args = parser.parse_args()
    build = pathlib.Path(args.build_dir).resolve()
    sys.path.insert(0, str(build / "python"))
    import mlsopt as mi
    out = pathlib.Path(args.out or build / "bench" / "gpu-checks")
    cache = build / "bench" / "cache-checks"
    failed = 0
    for label, path, function, dtype, search in checks():
        if args.only and label not in args.only:
            continue
        start = time.monotonic()
        meta = prepare(mi, label, path, function, dtype, search, out,
                       args.timeout, cache)
        status = (f"error: {meta['error']}" if "error" in meta else
                  f"{meta['launches']} launches (unfused "
                  f"{meta['unfused_launches']})")
        failed += "error" in meta
        print(f"{label}: {status} [{time.monotonic() - start:.0f} s]",
              flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
