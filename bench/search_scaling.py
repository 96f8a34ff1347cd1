#!/usr/bin/env python3
"""Search time against max-block-ops, with pruning on and off.

The measurement behind the table in docs/search.md (the counterpart of
Mirage's Table 5): for each program and each max-block-ops, the search runs
with abstract-expression pruning on and off (cost pruning stays on) and the
seconds it searched and the ops it enumerated are read from its remark.
A run that hits the timeout is marked with ">", one that stopped at the cost
lower bound (before exhausting its space) with "(bound)".
"""

import argparse
import pathlib
import re
import subprocess
import sys

import report

REMARK = re.compile(r"searched for (?P<seconds>[\d.]+) s(?P<timeout> \(timed out\))?"
                    r"(?P<bound> \(stopped at the cost lower bound\))?: "
                    r"(?P<enumerated>\d+) ops enumerated")


def measure(opt, imported, max_block_ops, pruning, timeout):
    options = (f"max-block-ops={max_block_ops} abstract-pruning={pruning} "
               f"timeout={timeout} keep-reference=true threads=1")
    run = subprocess.run([opt, f"--superoptimize={options}", "-o", "/dev/null",
                          "--mlir-print-op-on-diagnostic=false"],
                         input=imported, capture_output=True, text=True)
    found = list(REMARK.finditer(run.stderr))
    if run.returncode or not found:
        raise RuntimeError(run.stderr)
    seconds = sum(float(m["seconds"]) for m in found)
    enumerated = sum(int(m["enumerated"]) for m in found)
    timed_out = any(m["timeout"] for m in found)
    # A search that ended at the cost lower bound did not exhaust its space.
    at_bound = all(m["bound"] for m in found)
    return ((">" if timed_out else "") + f"{seconds:.1f}" +
            (" (bound)" if at_bound else "")), enumerated


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--sizes", default="5,6,7,8,9,10,11")
    parser.add_argument("cases", nargs="+", help="bench files")
    args = parser.parse_args()
    opt = str(pathlib.Path(args.build_dir) / "bin" / "mlsopt-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(report.table_header(["program", "max-block-ops", "pruning on: s",
                               "enumerated", "pruning off: s", "enumerated"]))
    for case in args.cases:
        imported = subprocess.run([opt, case, "--convert-linalg-to-kernel"],
                                  capture_output=True, text=True,
                                  check=True).stdout
        for size in sizes:
            on = measure(opt, imported, size, "true", args.timeout)
            off = measure(opt, imported, size, "false", args.timeout)
            print(report.table_row([pathlib.Path(case).stem, size, *on,
                                    *off]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
