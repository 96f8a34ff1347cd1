#!/usr/bin/env python3
"""Runs the checks bench/gpu/prepare_checks.py built on a GPU and compares
each program's outputs with the CPU pipeline's numbers for the same inputs.

Per check: the inputs are recomputed (bench/gpu/inputs.py) and their hash
compared with the one taken where the expected outputs were computed; the
program runs through its launch plan (python/mlsopt/gpu.py) with results and
intermediate buffers poisoned, so an element no kernel writes is NaN; it
runs again and must give the same bits (a race would not); the relative
error ||got - expected|| / ||expected|| of every output must stay under the
tolerance of its element type. The program and its unfused reference are
then timed (CUDA events around CUDA-graph replays, median). Writes
checks.json and checks.md under --out. Each check runs in a worker process
that a faulting kernel may end (bench/gpu/isolate.py).

    python3 bench/gpu/check.py --checks build/bench/gpu-checks --out OUT
    python3 bench/gpu/check.py --checks build/bench/gpu-checks --dry-run
"""

import argparse
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import inputs as gpu_inputs  # noqa: E402
import isolate  # noqa: E402
from run import load_gpu_module, report, time_with_fallback  # noqa: E402

# Relative error allowed per output element type. The expected numbers come
# from the CPU pipeline, which rounds each op's result to the element type
# as the GPU does, but sums in another order; f32 matmuls run on tf32 tensor
# cores (10-bit mantissa, like f16).
TOLERANCE = {"f16": 1e-2, "bf16": 4e-2, "f32": 5e-3}


def relative_error(got, want):
    """||got - want|| / ||want|| over the elements where the expected value
    is finite, and NaN unless every other element is the same infinity or
    NaN (a program that overflows its element type on the CPU must
    overflow in the same places on the GPU)."""
    got = got.float().cpu().numpy().astype(np.float64)
    want = want.astype(np.float64)
    finite = np.isfinite(want)
    if not np.array_equal(got[~finite], want[~finite], equal_nan=True):
        return float("nan")
    diff = np.linalg.norm(got[finite] - want[finite])
    return float(diff / max(np.linalg.norm(want[finite]), 1e-30))


def load(check_dir):
    meta = json.loads((check_dir / "meta.json").read_text())
    if "error" in meta:
        return meta, None
    variants = {}
    for stem, function in (("program", meta["function"]),
                           ("unfused", meta["unfused_function"])):
        variants[stem] = (json.loads((check_dir / f"{stem}.plan.json").read_text()),
                          (check_dir / f"{stem}.ptx").read_text(), function)
    with np.load(check_dir / "expected.npz") as npz:
        expected = [npz[f"arr_{i}"] for i in range(len(npz.files))]
    return meta, (variants, expected)


def prepared_inputs(meta):
    """The check's inputs, or None where they hash differently from those
    its expected outputs were computed from."""
    arrays = gpu_inputs.program_inputs(meta["shapes"],
                                       meta.get("input_scale", 1.0))
    return arrays if gpu_inputs.fingerprint(arrays) == meta["fingerprint"] \
        else None


def run_check(check_dir, gpu, torch, args):
    meta, loaded = load(check_dir)
    row = {"label": meta["label"], "dtype": meta.get("dtype"),
           "searched": meta["searched"]}
    if loaded is None:
        row.update(status="PREPARE-FAILED", error=meta["error"])
        return row
    variants, expected = loaded
    arrays = prepared_inputs(meta)
    if arrays is None:
        row.update(status="INPUTS-DIFFER",
                   error="the inputs hash differently from the prepared ones")
        return row
    plan, ptx, function = variants["program"]
    runner = gpu.GPURunner(plan, ptx, function, driver=args.driver,
                           poison=True)
    tensors = runner.device_inputs(arrays)
    first = runner(tensors)
    second = runner(tensors)
    torch.cuda.synchronize()
    row["launches"] = meta["launches"]
    row["unfused_launches"] = meta["unfused_launches"]
    errors = [relative_error(g, e) for g, e in zip(first, expected)]
    # (max() would hide a NaN behind a later number.)
    row["rel_error"] = float("nan") if any(np.isnan(errors)) else max(errors)
    row["finite"] = all(bool(torch.isfinite(g).all()) for g in first)
    # The element type overflows on these inputs on the CPU as well.
    row["expected_finite"] = all(bool(np.isfinite(e).all()) for e in expected)
    row["repeatable"] = all(torch.equal(a.view(torch.uint8), b.view(torch.uint8))
                            for a, b in zip(first, second))
    out_types = [r["dtype"] for r in runner.plan.results]
    tolerance = max(TOLERANCE[t] for t in out_types)
    row["tolerance"] = tolerance
    ok = (row["finite"] or not row["expected_finite"]) and \
        row["repeatable"] and row["rel_error"] <= tolerance
    row["status"] = ("ok" if row["expected_finite"] else
                     "ok (overflows as on the CPU)") if ok else "FAILED"
    runner.poison = False
    row["us"], note = time_with_fallback(lambda: runner(tensors), torch,
                                         args.iters)
    plan, ptx, function = variants["unfused"]
    unfused = gpu.GPURunner(plan, ptx, function, driver=args.driver)
    row["unfused_us"], unfused_note = time_with_fallback(
        lambda: unfused(tensors), torch, args.iters)
    if note or unfused_note:
        row["timing_note"] = note or unfused_note
    row["model_us"] = round(meta["estimated_us"], 2)
    row["unfused_model_us"] = round(meta["unfused_estimated_us"], 2)
    for key in ("estimated_latency_us", "unfused_estimated_latency_us"):
        if key in meta:
            row[key.replace("estimated_latency", "latency_model")] = round(
                meta[key], 2)
    return row


def markdown(rows):
    fmt = lambda v, f="{:.1f}": "-" if v is None else f.format(v)
    headers = ["check", "status", "launches", "rel. error", "us",
               "unfused us", "model us", "unfused model us",
               "latency model us", "unfused latency model us"]
    cells = [[r["label"], r["status"] if "error" not in r else
              f"{r['status']}: {r['error'][:120]}",
              f"{r.get('launches', '-')} (unfused {r.get('unfused_launches', '-')})",
              fmt(r.get("rel_error"), "{:.1e}"), fmt(r.get("us")),
              fmt(r.get("unfused_us")), fmt(r.get("model_us")),
              fmt(r.get("unfused_model_us")),
              fmt(r.get("latency_model_us")),
              fmt(r.get("unfused_latency_model_us"))] for r in rows]
    return report.markdown_table(headers, cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", default="build/bench/gpu-checks")
    parser.add_argument("--out", default="build/bench/gpu-results")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--driver", choices=["cupy", "cuda-python"])
    parser.add_argument("--only", nargs="*", help="labels to run")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds after which no further check starts")
    parser.add_argument("--worker", metavar="JSONL",
                        help="run the checks in this process, appending "
                             "their rows to JSONL (bench/gpu/isolate.py)")
    parser.add_argument("--dry-run", action="store_true",
                        help="check the prepared files and inputs; no GPU")
    args = parser.parse_args()
    checks = pathlib.Path(args.checks)
    dirs = sorted(p for p in checks.iterdir() if (p / "meta.json").exists()) \
        if checks.is_dir() else []
    if args.only:
        dirs = [d for d in dirs if d.name in args.only]
    if not dirs:
        print(f"error: no prepared checks in {checks} "
              "(run bench/gpu/prepare_checks.py)", file=sys.stderr)
        return 1
    gpu = load_gpu_module()
    if args.dry_run:
        failed = 0
        for d in dirs:
            meta, loaded = load(d)
            if loaded is None:
                print(f"{d.name}: PREPARE-FAILED: {meta['error']}")
                failed += 1
                continue
            same = prepared_inputs(meta) is not None
            for stem, (plan, _, function) in loaded[0].items():
                gpu.LaunchPlan(plan, function)
            print(f"{d.name}: {'ok' if same else 'INPUTS-DIFFER'}, "
                  f"{meta['launches']} launches (unfused "
                  f"{meta['unfused_launches']})")
            failed += not same
        return 1 if failed else 0
    if args.worker:
        import torch
        torch.empty(1, device="cuda")
        return isolate.worker_loop(
            [(d.name, d) for d in dirs],
            lambda d: run_check(d, gpu, torch, args), args.worker,
            args.deadline or float("inf"))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, __file__, "--checks", str(checks), "--iters",
            str(args.iters)] + (["--driver", args.driver] if args.driver else [])
    rows = isolate.run_in_workers(argv, [d.name for d in dirs],
                                  out / "checks.jsonl",
                                  args.deadline or float("inf"))
    report.write_report(out, "checks", rows, markdown(rows))
    failed = sum(not r["status"].startswith("ok") for r in rows)
    print(f"{len(rows) - failed} of {len(rows)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
