#!/usr/bin/env python3
"""Checks that a prepared program launches on torch's current stream, which
is how the Python package honours Mirage's `stream=` (kernel.py runs the
graph inside `torch.cuda.stream(stream)`).

The default stream is kept busy with a sleeping kernel; the program then
runs inside `torch.cuda.stream(side)`. If its kernels went to the side
stream, the side stream finishes while the default one still sleeps, and
the result has the same bits as a run on the default stream.

    python3 bench/gpu/stream_check.py --checks build/bench/gpu-checks \\
        example-gated_mlp-fused-f16
"""

import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs as gpu_inputs  # noqa: E402
from ncu_profile import program  # noqa: E402
from run import load_gpu_module  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checks", default="build/bench/gpu-checks")
    parser.add_argument("name")
    args = parser.parse_args()
    import torch
    gpu = load_gpu_module()
    runner = gpu.GPURunner(*program(pathlib.Path(args.checks) / args.name))
    tensors = runner.device_inputs(gpu_inputs.program_inputs(
        [a["shape"] for a in runner.plan.inputs]))
    want = runner(tensors)
    torch.cuda.synchronize()
    default = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    # About half a second at the H200's clock: far longer than the program.
    torch.cuda._sleep(1_000_000_000)
    with torch.cuda.stream(side):
        got = runner(tensors)
    side.synchronize()
    default_still_busy = not default.query()
    torch.cuda.synchronize()
    same = all(torch.equal(a.view(torch.uint8), b.view(torch.uint8))
               for a, b in zip(want, got))
    ok = default_still_busy and same
    print(json.dumps({"stream_check": args.name, "status": "ok" if ok else
                      "FAILED", "ran_on_the_side_stream": default_still_busy,
                      "same_bits": same}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
