#!/usr/bin/env python3
"""`make bench`: every benchmark case searched, verified and lowered on the CPU.

For each bench/<name>_b<batch>.mlir: import it into the kernel dialect,
superoptimize it for sm_90 and lower the result to PTX when the GPU pipeline
is built. The pass verifies every subprogram it replaces over the finite
field at full shapes before it replaces it (a replacement that fails is a
warning and is not made), which proves the whole program equivalent.
Writes <build>/bench/search.json (one object per case) and search.md (the same
as a Markdown table, also printed).
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time

import report

REMARK = re.compile(
    r"remark: superoptimize: (?:"
    r"replaced (?P<ops>\d+) kernel ops \((?P<before>[\d.]+) us\) by "
    r"(?P<kernels>\d+) kernels \((?P<after>[\d.]+) us\)"
    r"|kept the subprogram of (?P<kept_ops>\d+) kernel ops \((?P<kept_us>[\d.]+) us\)[^;]*"
    # A search that gave up (give-up-after): its pieces' remarks follow.
    r"|searching the subprogram of (?P<split_ops>\d+) kernel ops "
    r"\([\d.]+ us\) in pieces[^;]*"
    r"); searched for (?P<seconds>[\d.]+) s(?P<timeout> \(timed out\))?"
    r"(?P<bound> \(stopped at the cost lower bound\))?"
    r"(?: \(ended at once: [^)]*\))?: "
    r"(?P<enumerated>\d+) ops enumerated, (?P<abstract>\d+) pruned by abstract "
    r"expression, (?P<cost>\d+) by cost, (?P<blocks>\d+) block graphs, "
    r"(?P<screened>\d+) candidates screened, (?P<passed>\d+) passed"
    r"(?:; \d+ oracle queries, \d+ from its cache)?"
    r"(?:; the best found after (?P<best>[\d.]+) s)?")

# A subprogram answered from the cache (another case had the same one).
CACHED = re.compile(
    r"remark: superoptimize: replaced \d+ kernel ops \((?P<before>[\d.]+) us\) "
    r"by \d+ kernels \((?P<after>[\d.]+) us\) with the result from the cache")

# Elementwise ops and transposes left alone by the cut, moved into the
# kernels that produce their operands or read their results once every
# subprogram was replaced, and kernels with one launch merged: the
# function's costs before the pass and after that replace the sums of the
# subprograms' (one function per case; the subprograms leave transposes
# out).
EPILOGUES = re.compile(
    r"remark: superoptimize: fused across the cut: \d+ launches fewer.* launches "
    r"\d+ kernels \((?P<after>[\d.]+) us\)"
    r"(?:, \d+ before \((?P<before>[\d.]+) us\))?")



def estimated_us(stderr):
    """The cost model's estimates (before, after) in microseconds for one
    function, from --superoptimize's remarks on stderr: the sum over its
    subprograms, and after them the function's total once elementwise ops
    were fused into the custom kernels."""
    before = after = 0.0
    for m in CACHED.finditer(stderr):
        before += float(m["before"])
        after += float(m["after"])
    for m in REMARK.finditer(stderr):
        # A subprogram searched in pieces is costed by its pieces' remarks.
        if m["split_ops"]:
            continue
        us = (float(m["before"]), float(m["after"])) if m["ops"] else \
            (float(m["kept_us"]),) * 2
        before += us[0]
        after += us[1]
    if m := EPILOGUES.search(stderr):
        after = float(m["after"])
        if m["before"]:
            before = float(m["before"])
    return round(before, 2), round(after, 2)


TOP_LEVEL_KERNEL_OP = re.compile(r"^    (?:%\S+ = )?kernel\.(\w+)")


def count_kernels(text, function):
    """Kernel launches (top-level kernel ops) in @function of `text`."""
    count, inside = 0, False
    for line in text.splitlines():
        if line.startswith("  func.func"):
            inside = re.search(r"@%s\(" % re.escape(function), line) is not None
        elif inside and TOP_LEVEL_KERNEL_OP.match(line):
            count += 1
    return count


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True)


def run_measured(cmd, stdin):
    """Runs `cmd` like run() and returns it with its peak resident memory
    in MiB (its own, from wait4, not the maximum over all children)."""
    with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        # Both pipes are drained by threads, so neither can fill and block.
        out, err = [], []
        readers = [threading.Thread(target=lambda f=f, b=b: b.append(f.read()))
                   for f, b in ((proc.stdout, out), (proc.stderr, err))]
        for r in readers:
            r.start()
        proc.stdin.write(stdin)
        proc.stdin.close()
        for r in readers:
            r.join()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    result = subprocess.CompletedProcess(cmd, proc.returncode, out[0], err[0])
    return result, round(usage.ru_maxrss / 1024)


def bench_case(opt, path, args):
    # bench/<name>_b<batch>.mlir; other programs (bench/beyond) have no batch.
    name, sep, batch = path.stem.rpartition("_b")
    if not sep or not batch.isdigit():
        name, batch = path.stem, None
    case = {"name": name, "batch": int(batch) if batch else None}
    imported = run([opt, str(path), "--convert-linalg-to-kernel"])
    if imported.returncode:
        raise RuntimeError(f"{path}: import failed:\n{imported.stderr}")
    case["kernels_before"] = count_kernels(imported.stdout, name)

    # The cache lets bench/gpu/prepare.sh reuse these searches.
    options = (f"target=sm_90 timeout={args.timeout} threads={args.threads} "
               f"cache-dir={args.cache_dir} {args.search_options}").strip()
    start = time.monotonic()
    searched, case["peak_rss_mib"] = run_measured(
        [opt, f"--superoptimize={options}",
         "--mlir-print-op-on-diagnostic=false"], imported.stdout)
    case["seconds"] = round(time.monotonic() - start, 2)
    if searched.returncode:
        raise RuntimeError(f"{path}: search failed:\n{searched.stderr}")
    case["kernels_after"] = count_kernels(searched.stdout, name)

    search_seconds = 0.0
    # When each subprogram's answer was found: a search that ran to its
    # timeout long after this had nothing left to find.
    best_found_seconds = 0.0
    totals = dict.fromkeys(
        ["enumerated", "pruned_abstract_expr", "pruned_cost", "block_graphs",
         "screened", "screen_passed"], 0)
    timed_out = False
    stopped_at_bound = True
    remarks = list(REMARK.finditer(searched.stderr))
    # A search remark this script cannot read would silently count as
    # nothing.
    if len(remarks) != len(re.findall(r"remark: superoptimize: .*searched for",
                                      searched.stderr)):
        raise RuntimeError(f"{path}: unrecognized superoptimize remark:\n"
                           f"{searched.stderr}")
    for m in remarks:
        timed_out |= bool(m["timeout"])
        stopped_at_bound &= bool(m["bound"])
        search_seconds += float(m["seconds"])
        best_found_seconds += float(m["best"] or 0)
        for key, group in [("enumerated", "enumerated"),
                           ("pruned_abstract_expr", "abstract"),
                           ("pruned_cost", "cost"), ("block_graphs", "blocks"),
                           ("screened", "screened"),
                           ("screen_passed", "passed")]:
            totals[key] += int(m[group])
    case["search_seconds"] = round(search_seconds, 2)
    case["best_found_seconds"] = round(best_found_seconds, 2)
    case["est_us_before"], case["est_us_after"] = estimated_us(searched.stderr)
    # The roofline ranks the search by default; the estimate with the
    # latency term is the one closer to measured times (docs/cost-model.md,
    # "Latency"), so both programs get it too.
    case["lat_us_before"], case["lat_us_after"] = (
        round(args.mlsopt.from_mlir(text, function=name).cost("sm_90",
                                                      latency=True).total_us, 2)
        for text in (imported.stdout, searched.stdout))
    # Every replacement was verified by the pass; a failed or impossible
    # verification is a warning and leaves its subprogram as it was.
    case["verified"] = "warning:" not in searched.stderr
    case.update(totals)
    case["timed_out"] = timed_out
    # Every subprogram's search ended at the cost model's lower bound.
    case["stopped_at_bound"] = stopped_at_bound and bool(remarks)

    if args.gpu_pipeline:
        lowered = run([opt, "--mlsopt-gpu-pipeline=chip=sm_90"],
                      searched.stdout)
        case["ptx"] = lowered.returncode == 0
    return case


def markdown(cases):
    headers = ["case", "batch", "search s", "total s", "peak MiB",
               "kernels before",
               "kernels after", "est. us before", "est. us after",
               "with latency before", "with latency after", "verified",
               "enumerated", "pruned (abstract)", "pruned (cost)", "screened",
               "PTX"]
    rows = [[c["name"], "-" if c["batch"] is None else c["batch"],
             c["search_seconds"], c["seconds"],
             c["peak_rss_mib"], c["kernels_before"], c["kernels_after"], c["est_us_before"],
             c["est_us_after"], c["lat_us_before"], c["lat_us_after"],
             "yes" if c["verified"] else "NO",
             c["enumerated"], c["pruned_abstract_expr"], c["pruned_cost"],
             c["screened"],
             {True: "ok", False: "FAILED"}.get(c.get("ptx"), "-")]
            for c in cases]
    return report.markdown_table(headers, rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--search-options", default="",
                        help="more --superoptimize options, such as "
                             "'latency-model=true'")
    parser.add_argument("--report", default="search",
                        help="writes <build>/bench/<report>.json and .md")
    parser.add_argument("cases", nargs="*",
                        help="bench files (default: bench/*_b*.mlir)")
    args = parser.parse_args()
    build = pathlib.Path(args.build_dir)
    # A fresh cache: every case is searched, so the figures are the search's.
    # The twelve cases' cache is the one bench/gpu/prepare.sh reuses.
    args.cache_dir = build / "bench" / (
        "cache" if args.report == "search" else f"cache-{args.report}")
    shutil.rmtree(args.cache_dir, ignore_errors=True)
    opt = str(build / "bin" / "mlsopt-opt")
    sys.path.insert(0, str(build.resolve() / "python"))
    import mlsopt
    args.mlsopt = mlsopt
    help_text = run([opt, "--help"]).stdout
    args.gpu_pipeline = "--mlsopt-gpu-pipeline" in help_text
    root = pathlib.Path(__file__).resolve().parent
    paths = ([pathlib.Path(p) for p in args.cases] if args.cases else
             sorted(root.glob("*_b*.mlir")))
    cases = []
    for path in paths:
        case = bench_case(opt, path, args)
        print(f"{path.name}: {json.dumps(case)}", file=sys.stderr, flush=True)
        cases.append(case)
    report.write_report(build / "bench", args.report, cases, markdown(cases))
    return 0 if all(c["verified"] for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
