#!/usr/bin/env python3
"""Fits the cycles per step of the cost model's latency term
(docs/cost-model.md, "Latency") to the programs measured on a GPU.

The measurements (bench/gpu/measured/*-checks.json and *-cases.json, from
bench/gpu/device.sh) time each program and its unfused reference; the
programs themselves are kept beside them (*-programs.json), so the fit does
not depend on what today's search would find. For each program the model
gives, per kernel launch, the memory and compute times and the steps of one
block by kind (`KernelGraph.kernel_costs(latency=True)`); the fit chooses
the cycles per step of each kind and a fixed floor per timed program (the
timing's own overhead, the same for every program), with the launch
overhead held at the target table's, that minimize the squared log error of

    floor + sum over kernels of (launch + max(memory, compute, steps . cycles / clock))

against the measured times. It prints the fitted constants, the error with
them and with the constants compiled into lib/Search/CostModel.cpp, the fit
with the launch overhead free too, and each program's measured and
predicted times.

    PYTHONPATH=build/python python3 bench/gpu/fit_latency.py \\
        [--measured bench/gpu/measured/h200-2026-11-30]

`--snapshot` (once, after a GPU run, with the search cache of that run's
preparation) writes the programs file from the checks' sources and the
bench cases' build directories.
"""

import argparse
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "gpu"))

KINDS = ("shared_accesses", "reduction_steps", "mma_steps", "mma_issues",
         "transfers", "barriers")
# The constants compiled into lib/Search/CostModel.cpp, in KINDS order, then
# the launch overhead in us (lib/Support/Target.cpp).
COMPILED = (39, 46, 0, 27, 90, 0, 2.0)


def snapshot(mi, measured, build):
    """{label: {"program": text, "unfused": text}} for every measured
    program, rebuilt the way the run's preparation built it."""
    import prepare_checks
    programs = {}
    labels = {r["label"]: r for r in
              json.loads(measured.with_name(measured.name + "-checks.json")
                         .read_text())}
    cache = build / "bench" / "cache-checks"
    for label, path, function, dtype, search in prepare_checks.checks():
        if label not in labels:
            continue
        text = prepare_checks.with_element_type(path.read_text(), dtype)
        reference = mi.from_mlir(text)
        graph = (reference.superoptimize(target="sm_90", timeout=20,
                                         cache_dir=str(cache))
                 if search else mi.from_mlir(text, function))
        launches = graph.cost("sm_90").launches
        if launches != labels[label]["launches"]:
            raise SystemExit(f"{label}: {launches} launches, the run had "
                             f"{labels[label]['launches']}: not the measured "
                             "program")
        programs[label] = {"program": graph.mlir(),
                           "unfused": reference.mlir()}
    for case in sorted((build / "bench" / "gpu").iterdir()):
        if (case / "searched.mlir").exists():
            programs[case.name] = {
                "program": (case / "searched.mlir").read_text(),
                "unfused": (case / "imported.mlir").read_text()}
            # The same case searched with the latency term ranking, and
            # with the roofline alone, where the run timed them.
            for variant in ("latency", "roofline"):
                if (case / f"{variant}.mlir").exists():
                    programs[case.name][variant] = (
                        case / f"{variant}.mlir").read_text()
    return programs


def samples(mi, measured):
    """(label, measured us, per-kernel features) for every timed program.
    Features per kernel: memory us, compute us, steps by kind."""
    programs = json.loads(
        measured.with_name(measured.name + "-programs.json").read_text())
    rows = []
    timed = []
    for r in json.loads(measured.with_name(measured.name + "-checks.json")
                        .read_text()):
        if r.get("status", "").startswith("ok"):
            timed.append((r["label"], {"program": r["us"],
                                       "unfused": r["unfused_us"]}))
    for r in json.loads(measured.with_name(measured.name + "-cases.json")
                        .read_text()):
        if r.get("mlsopt_us") and r.get("unfused_us"):
            times = {"program": r["mlsopt_us"], "unfused": r["unfused_us"]}
            for which, key in (("latency", "latency_searched_us"),
                               ("roofline", "roofline_searched_us")):
                if r.get(key) and which in programs[r["label"]]:
                    times[which] = r[key]
            timed.append((r["label"], times))
    seen = set()
    for label, times in timed:
        for which, t in times.items():
            text = programs[label][which]
            # The examples' unfused references are the same program in
            # several checks, and a case's searches may agree: one sample
            # each.
            if text in seen:
                continue
            seen.add(text)
            graph = mi.from_mlir(text)
            kernels = [(k.memory_us, k.compute_us,
                        [getattr(k.steps, kind) for kind in KINDS])
                       for k in graph.kernel_costs("sm_90", latency=True)]
            rows.append((f"{label}:{which}", t, kernels))
    return rows


def predict(rows, cycles, launch, floor, clock_ghz=1.98):
    out = []
    for _, _, kernels in rows:
        total = floor
        for memory, compute, steps in kernels:
            latency = float(np.dot(steps, cycles)) / (clock_ghz * 1e3)
            total += launch + max(memory, compute, latency)
        out.append(total)
    return np.array(out)


def error(rows, params):
    measured = np.array([t for _, t, _ in rows])
    predicted = predict(rows, params[:len(KINDS)], params[len(KINDS)],
                        params[len(KINDS) + 1])
    return float(np.sqrt(np.mean(np.log(predicted / measured) ** 2)))


def misranked(rows, predicted, margin=1.15):
    """Pairs of one program's variants (searched, unfused, latency- or
    roofline-searched) that the measurement tells apart by more than
    `margin` and the model orders the other way: what would make the
    search keep the slower one."""
    by_label = {}
    for (name, t, _), p in zip(rows, predicted):
        label, which = name.rsplit(":", 1)
        by_label.setdefault(label, []).append((which, t, p))
    pairs = []
    for label, variants in sorted(by_label.items()):
        for i, (a, ta, pa) in enumerate(variants):
            for b, tb, pb in variants[i + 1:]:
                if max(ta, tb) / min(ta, tb) > margin and (ta < tb) != (pa < pb):
                    pairs.append((label, a, ta, pa, b, tb, pb))
    return pairs, sum(len(v) * (len(v) - 1) // 2 for v in by_label.values())


def ranking_picks(rows, factor, clock_ghz=1.98, margin=1.15, window=None):
    """What the search would keep of each program's measured variants with
    the compiled constants: the veto refuses a variant dearer with latency
    than the unfused program, and the rest are ranked by the roofline with
    latency past `factor` times it (None: the roofline alone, as the search
    ranks now; 1: the latency term, `latency-model=true`). With `window`,
    only the variants whose roofline is less than 1 + window times the
    lowest of those kept compete.
    Returns the picks more than `margin` slower than the program's fastest
    variant, as (label, variant, its us, the fastest us), and the sum of the
    picks' log slowdowns."""
    n = len(KINDS)
    cycles = np.array(COMPILED[:n])
    launch = COMPILED[n]

    def estimate(kernels, f):
        total = 0.0
        for memory, compute, steps in kernels:
            latency = float(np.dot(steps, cycles)) / (clock_ghz * 1e3)
            total += launch + max(memory, compute,
                                  latency / f if f else 0.0)
        return total

    by_label = {}
    for name, t, kernels in rows:
        label, which = name.rsplit(":", 1)
        by_label.setdefault(label, {})[which] = (t, kernels)
    slow, loss = [], 0.0
    for label, variants in sorted(by_label.items()):
        if "unfused" not in variants or len(variants) < 2:
            continue
        limit = estimate(variants["unfused"][1], 1)
        kept = {w: v for w, v in variants.items()
                if w == "unfused" or estimate(v[1], 1) <= limit}
        if window is not None:
            roofline = {w: estimate(v[1], None) for w, v in kept.items()}
            lowest = min(roofline.values())
            kept = {w: v for w, v in kept.items()
                    if roofline[w] <= lowest or
                    roofline[w] < (1 + window) * lowest}
        which = min(kept, key=lambda w: (estimate(kept[w][1], factor), w))
        fastest = min(t for t, _ in variants.values())
        t = variants[which][0]
        loss += float(np.log(t / fastest))
        if t > margin * fastest:
            slow.append((label, which, t, fastest))
    return slow, loss


def compiled_error(rows):
    """The rms log error of the compiled constants, with the floor (the
    timing's own overhead, which the model does not know) that suits
    them best, and that floor."""
    return min((error(rows, np.array(COMPILED + (f,))), f)
               for f in np.linspace(0, 20, 201))


def fit(rows, free):
    """Coordinate descent in log space over the parameters whose index is
    in `free` (cycles per step, launch overhead, floor), all kept positive;
    the others stay at the compiled values."""
    params = np.array(COMPILED + (8.0,), dtype=float)
    best = error(rows, params)
    step = 1.0
    while step > 1e-3:
        improved = False
        for i in free:
            for factor in (np.exp(step), np.exp(-step)):
                trial = params.copy()
                trial[i] = max(trial[i], 1e-3) * factor
                e = error(rows, trial)
                if e < best - 1e-12:
                    params, best, improved = trial, e, True
        if not improved:
            step /= 2
    # A parameter the data drives to nothing is nothing.
    params[params < 0.01] = 0.0
    return params, error(rows, params)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--measured",
                        default=str(ROOT / "bench" / "gpu" / "measured" /
                                    "h200-2026-11-30"),
                        help="prefix of the measurement files")
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--snapshot", action="store_true")
    args = parser.parse_args()
    build = pathlib.Path(args.build_dir).resolve()
    sys.path.insert(0, str(build / "python"))
    import mlsopt as mi
    measured = pathlib.Path(args.measured)
    if args.snapshot:
        programs = snapshot(mi, measured, build)
        out = measured.with_name(measured.name + "-programs.json")
        out.write_text(json.dumps(programs, indent=1, sort_keys=True) + "\n")
        print(f"{len(programs)} programs -> {out}")
        return 0
    rows = samples(mi, measured)
    n = len(KINDS)
    # The launch overhead stays at the target table's: the roofline-only
    # model, which the search ranks with by default, uses it too.
    params, best = fit(rows, list(range(n)) + [n + 1])
    free, free_error = fit(rows, list(range(n + 2)))
    compiled_rms, _ = compiled_error(rows)
    print(f"{len(rows)} timed programs")
    print(f"fitted cycles per step (launch overhead held at "
          f"{params[n]:.2f} us): " +
          ", ".join(f"{k} {v:.1f}" for k, v in zip(KINDS, params)) +
          f"; floor {params[n + 1]:.2f} us")
    print(f"rms log error: fitted {best:.3f}, compiled {compiled_rms:.3f}")
    print(f"with the launch overhead fitted too ({free[n]:.2f} us): " +
          ", ".join(f"{k} {v:.1f}" for k, v in zip(KINDS, free)) +
          f"; rms log error {free_error:.3f}")
    no_latency = np.append(np.zeros(n), params[n:])
    print(f"rms log error without the latency term: "
          f"{error(rows, no_latency):.3f}")
    predicted = predict(rows, params[:n], params[n], params[n + 1])
    compiled = predict(rows, COMPILED[:n], COMPILED[n], params[n + 1])
    for name, values in (("fitted", predicted), ("compiled", compiled)):
        pairs, total = misranked(rows, values)
        print(f"mis-ranked with the {name} constants: {len(pairs)} of "
              f"{total} pairs of one program's variants")
        for label, a, ta, pa, b, tb, pb in pairs:
            print(f"  {label}: {a} {ta:.1f} us (model {pa:.1f}) against "
                  f"{b} {tb:.1f} us (model {pb:.1f})")
    for factor in (None, 3, 2, 1.5, 1):
        slow, loss = ranking_picks(rows, factor)
        name = "the roofline" if factor is None else f"latency past {factor}x"
        print(f"ranked by {name} (with the veto): {len(slow)} picks more "
              f"than 15% slower than the fastest variant, log loss {loss:.2f}")
    for window in (0.25, 0.5, 1.0):
        for factor in (2, 1):
            slow, loss = ranking_picks(rows, factor, window=window)
            print(f"ranked by latency past {factor}x among the variants "
                  f"within {1 + window:g}x of the lowest roofline (with the "
                  f"veto): {len(slow)} picks more than 15% slower, log loss "
                  f"{loss:.2f}")
    for (label, t, kernels), p in sorted(zip(rows, predicted),
                                         key=lambda x: x[0][0]):
        print(f"  {label:55s} {len(kernels):2d} kernels  measured "
              f"{t:8.1f} us  fitted {p:8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
