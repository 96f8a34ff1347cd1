#!/usr/bin/env python3
"""Launches prepared programs once each, for Nsight Compute to profile:

    ncu --clock-control none --section SpeedOfLight ... \\
        python3 bench/gpu/ncu_profile.py --artifacts build/bench/gpu gqa_b8 ...

Each name is a case of bench/gpu/prepare.sh (its searched program) or, with
--checks, a check of bench/gpu/prepare_checks.py (its program). A warm-up
run comes first, outside the profiled range (cudaProfilerStart/Stop), so
that ncu with --profile-from-start off sees one run of each.
"""

import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs as gpu_inputs  # noqa: E402
from run import load_gpu_module  # noqa: E402


def program(directory):
    """(plan, PTX, function) of a prepared case or check."""
    meta = json.loads((directory / "meta.json").read_text())
    stem = "searched" if (directory / "searched.plan.json").exists() else "program"
    return (json.loads((directory / f"{stem}.plan.json").read_text()),
            (directory / f"{stem}.ptx").read_text(), meta["function"])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--artifacts", default="build/bench/gpu")
    parser.add_argument("--checks", default="build/bench/gpu-checks")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    import torch
    gpu = load_gpu_module()
    runs = []
    for name in args.names:
        directory = pathlib.Path(args.artifacts) / name
        if not directory.exists():
            directory = pathlib.Path(args.checks) / name
        runner = gpu.GPURunner(*program(directory))
        tensors = runner.device_inputs(gpu_inputs.program_inputs(
            [a["shape"] for a in runner.plan.inputs]))
        runner(tensors)
        runs.append((runner, tensors))
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for runner, tensors in runs:
        runner(tensors)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
