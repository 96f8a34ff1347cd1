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

--emulate runs each program (not the timing) on the CPU instead, through
the PTX emulator (test/ptxemu/run_plan.py; numpy, no torch, no GPU), with
the same inputs, poisoning and tolerances; the rows say "emulated" and how
many seconds each took. With --cases, the twelve benchmark cases that
bench/gpu/prepare.sh built (their searched program) are emulated too,
against run.py's formulas in numpy. With --profile, each row also gets
the share of shared-memory wavefronts beyond the ideal (bank conflicts)
and of loaded global sector bytes used (test/ptxemu/ptxprofile.py).

    python3 bench/gpu/check.py --checks build/bench/gpu-checks --out OUT
    python3 bench/gpu/check.py --checks build/bench/gpu-checks --dry-run
    python3 bench/gpu/check.py --checks build/bench/gpu-checks --emulate \
        [--cases build/bench/gpu] [--only LABEL...] [--time-limit S] [--profile]
"""

import argparse
import json
import pathlib
import signal
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import inputs as gpu_inputs  # noqa: E402
import isolate  # noqa: E402
from run import (load_gpu_module, numpy_reference, report,  # noqa: E402
                 time_with_fallback)

# Relative error allowed per output element type. The expected numbers come
# from the CPU pipeline, which rounds each op's result to the element type
# as the GPU does, but sums in another order; f32 matmuls run on tf32 tensor
# cores (10-bit mantissa, like f16).
TOLERANCE = {"f16": 1e-2, "bf16": 4e-2, "f32": 5e-3}


def relative_error(got, want):
    """||got - want|| / ||want|| over the elements where the expected value
    is finite, and NaN unless every other element is the same infinity or
    NaN (a program that overflows its element type on the CPU must
    overflow in the same places on the GPU). `got`: a torch tensor or a
    numpy array (the emulator's)."""
    if not isinstance(got, np.ndarray):
        got = got.float().cpu().numpy()
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
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


def open_check(check_dir, **fields):
    """(meta, row, variants, expected, inputs) of a check; inputs is None,
    and the row says why, where it failed to prepare or its inputs hash
    differently."""
    meta, loaded = load(check_dir)
    row = {"label": meta["label"], "dtype": meta.get("dtype"),
           "searched": meta["searched"], **fields}
    if loaded is None:
        row.update(status="PREPARE-FAILED", error=meta["error"])
        return meta, row, None, None, None
    variants, expected = loaded
    arrays = prepared_inputs(meta)
    if arrays is None:
        row.update(status="INPUTS-DIFFER",
                   error="the inputs hash differently from the prepared ones")
    return meta, row, variants, expected, arrays


def run_check(check_dir, gpu, torch, args):
    meta, row, variants, expected, arrays = open_check(check_dir)
    if arrays is None:
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
    judge(row, [g.float().cpu().numpy() for g in first], expected,
          [r["dtype"] for r in runner.plan.results],
          repeatable=all(torch.equal(a.view(torch.uint8), b.view(torch.uint8))
                         for a, b in zip(first, second)))
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


def judge(row, got, expected, out_types, repeatable=None):
    """Fills in `row`'s verdict on outputs `got` (numpy arrays) against
    `expected`; `repeatable` is None where the program ran once."""
    errors = [relative_error(g, e) for g, e in zip(got, expected)]
    # (max() would hide a NaN behind a later number.)
    row["rel_error"] = float("nan") if any(np.isnan(errors)) else max(errors)
    row["finite"] = all(bool(np.isfinite(g).all()) for g in got)
    # The element type overflows on these inputs on the CPU as well.
    row["expected_finite"] = all(bool(np.isfinite(e).all()) for e in expected)
    row["repeatable"] = repeatable
    row["result_dtypes"] = out_types
    tolerance = max(TOLERANCE[t] for t in out_types)
    row["tolerance"] = tolerance
    ok = (row["finite"] or not row["expected_finite"]) and \
        repeatable is not False and row["rel_error"] <= tolerance
    row["status"] = ("ok" if row["expected_finite"] else
                     "ok (overflows as on the CPU)") if ok else "FAILED"


# Set by --profile: count shared-memory wavefronts and global sectors while
# emulating (test/ptxemu/ptxprofile.py), about twice as slow.
PROFILE = False


def emulate(plan, ptx, function, arrays, row=None):
    """The program's outputs from the PTX emulator, results and buffers
    poisoned, and the seconds it took. With PROFILE, `row` gets the share
    of shared-memory wavefronts beyond the ideal (bank conflicts) and of
    loaded global sector bytes used, over all its launches."""
    if str(ROOT / "test" / "ptxemu") not in sys.path:
        sys.path.insert(0, str(ROOT / "test" / "ptxemu"))
    from run_plan import run_plan
    profile = None
    if PROFILE:
        from ptxprofile import Profile
        profile = Profile()
    start = time.monotonic()
    outputs = run_plan(plan, ptx, function, arrays, poison=True,
                       profile=profile)
    if profile is not None and row is not None:
        kernels = profile.kernels()
        wavefronts = sum(k["shared_wavefronts"] for k in kernels)
        ideal = sum(k["shared_ideal_wavefronts"] for k in kernels)
        sectors = sum(k["global_load_sectors"] for k in kernels)
        used = sum(k["global_load_bytes"] for k in kernels)
        row["excess_wavefronts"] = \
            round((wavefronts - ideal) / wavefronts, 4) if wavefronts else 0.0
        row["sector_use"] = round(used / (32 * sectors), 4) if sectors else 1.0
    return outputs, round(time.monotonic() - start, 1)


def emulate_check(check_dir):
    """run_check's correctness part on the emulator: no timing."""
    meta, row, variants, expected, arrays = open_check(check_dir,
                                                       emulated=True)
    if arrays is None:
        return row
    plan, ptx, function = variants["program"]
    row["launches"] = meta["launches"]
    row["unfused_launches"] = meta["unfused_launches"]
    got, row["emulated_seconds"] = emulate(plan, ptx, function, arrays, row)
    results = load_gpu_module().LaunchPlan(plan, function).results
    judge(row, got, expected, [r["dtype"] for r in results])
    row["model_us"] = round(meta["estimated_us"], 2)
    row["unfused_model_us"] = round(meta["unfused_estimated_us"], 2)
    return row


def emulate_case(case_dir, scale=0.1):
    """A benchmark case's searched program (bench/gpu/prepare.sh) on the
    emulator against run.py's formula in numpy (float32) on the same f16
    inputs: bench/gpu/inputs.py's, with standard deviation `scale` (run.py
    draws torch.randn * 0.1), and run.py's tolerance."""
    meta = json.loads((case_dir / "meta.json").read_text())
    row = {"label": f"case-{case_dir.name}", "dtype": "f16", "searched": True,
           "emulated": True}
    plan = json.loads((case_dir / "searched.plan.json").read_text())
    ptx = (case_dir / "searched.ptx").read_text()
    launch_plan = load_gpu_module().LaunchPlan(plan, meta["function"])
    arrays = [gpu_inputs.uniform_input(a["shape"], i, scale).astype(np.float16)
              for i, a in enumerate(launch_plan.inputs)]
    want = numpy_reference(meta["name"])(*[a.astype(np.float32)
                                           for a in arrays])
    row["launches"] = len(launch_plan.launches)
    got, row["emulated_seconds"] = emulate(plan, ptx, meta["function"], arrays,
                                           row)
    judge(row, got, [want], ["f16"])
    row["model_us"] = meta["est_us_after"]
    row["unfused_model_us"] = meta["est_us_before"]
    return row


def run_emulated(jobs, time_limit):
    """Runs `jobs` ((label, function) pairs) here, one after another; a job
    that raises (an emulator fault: out of bounds, misaligned, deadlock, an
    unsupported instruction) or runs past `time_limit` seconds gets an
    ERROR or TIMEOUT row."""
    def expired(*_):
        raise TimeoutError(f"emulation ran past {time_limit} s")
    signal.signal(signal.SIGALRM, expired)
    rows = []
    for label, job in jobs:
        start = time.monotonic()
        signal.alarm(int(time_limit or 0))
        try:
            row = job()
        except TimeoutError as e:
            row = {"label": label, "status": "TIMEOUT", "error": str(e)}
        except Exception as e:
            row = {"label": label, "status": "ERROR",
                   "error": f"{type(e).__name__}: {e}"}
        finally:
            signal.alarm(0)
        row.setdefault("emulated", True)
        row.setdefault("emulated_seconds",
                       round(time.monotonic() - start, 1))
        print(f"{label}: {row['status']}, rel. error "
              f"{row.get('rel_error', float('nan')):.1e}, "
              f"{row['emulated_seconds']} s"
              + (f": {row['error'][:300]}" if "error" in row else ""),
              flush=True)
        rows.append(row)
    return rows


def markdown(rows, emulated=False):
    fmt = lambda v, f="{:.1f}": "-" if v is None else f.format(v)
    if emulated:
        headers = ["check", "dtype", "status", "launches", "rel. error",
                   "tolerance", "emulated s", "model us"]
        cells = [[r["label"], r.get("dtype") or
                  "/".join(r.get("result_dtypes", [])) or "-",
                  r["status"] if "error" not in r else
                  f"{r['status']}: {r['error'][:120]}",
                  r.get("launches", "-"), fmt(r.get("rel_error"), "{:.1e}"),
                  fmt(r.get("tolerance"), "{:.0e}"),
                  fmt(r.get("emulated_seconds")), fmt(r.get("model_us"))]
                 for r in rows]
        if any("excess_wavefronts" in r for r in rows):
            headers += ["excess wavefronts", "sector use"]
            pct = lambda v: fmt(None if v is None else 100 * v, "{:.1f}%")
            for r, c in zip(rows, cells):
                c += [pct(r.get("excess_wavefronts")), pct(r.get("sector_use"))]
        return ("Emulated on the CPU (test/ptxemu), not timed.\n\n"
                + report.markdown_table(headers, cells))
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
    parser.add_argument("--out", help="default: build/bench/gpu-results, "
                        "with --emulate build/bench/gpu-emulated")
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
    parser.add_argument("--emulate", action="store_true",
                        help="run the programs on the PTX emulator "
                             "(test/ptxemu) on the CPU; no GPU, no timing")
    parser.add_argument("--cases", metavar="DIR",
                        help="with --emulate, also the benchmark cases "
                             "bench/gpu/prepare.sh built in DIR (labels "
                             "case-<name>)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="with --emulate, seconds one program may run")
    parser.add_argument("--profile", action="store_true",
                        help="with --emulate, also count bank conflicts and "
                             "global sector use (test/ptxemu/ptxprofile.py; "
                             "about twice as slow)")
    args = parser.parse_args()
    global PROFILE
    PROFILE = args.profile
    checks = pathlib.Path(args.checks)
    dirs = sorted(p for p in checks.iterdir() if (p / "meta.json").exists()) \
        if checks.is_dir() else []
    cases = sorted(p for p in pathlib.Path(args.cases).iterdir()
                   if (p / "meta.json").exists()) \
        if args.emulate and args.cases else []
    if args.only:
        dirs = [d for d in dirs if d.name in args.only]
        cases = [c for c in cases if f"case-{c.name}" in args.only]
    if args.emulate and (dirs or cases):
        out = pathlib.Path(args.out or "build/bench/gpu-emulated")
        rows = run_emulated(
            [(d.name, lambda d=d: emulate_check(d)) for d in dirs]
            + [(f"case-{c.name}", lambda c=c: emulate_case(c)) for c in cases],
            args.time_limit)
        report.write_report(out, "checks", rows, markdown(rows, emulated=True))
        failed = sum(not r["status"].startswith("ok") for r in rows)
        print(f"{len(rows) - failed} of {len(rows)} checks passed (emulated)")
        return 1 if failed else 0
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
    out = pathlib.Path(args.out or "build/bench/gpu-results")
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
