"""Replays an mlsopt launch plan on the PTX emulator (test/ptxemu/ptxemu.py).

    run_plan(plan, ptx_text, function, inputs, poison=True) -> [np.ndarray]

reuses `LaunchPlan` and `split_ptx` of python/mlsopt/gpu.py, the code the
real GPU path runs, with emulated device memory: every input, result and
intermediate buffer is an allocation in one emulated global memory at a fake
device address. With `poison`, results and intermediate buffers start as
0xFF bytes (NaN in every float type; 0xAB bytes for integer types), so that
an element no kernel writes shows.

CLI:
    python3 test/ptxemu/run_plan.py --plan P.json --ptx K.ptx --function NAME \
        --inputs in.npz --out out.npz
(inputs: the npz's arrays in order arr_0, arr_1, ... or by sorted name.)
"""

import argparse
import importlib.util
import json
import pathlib
import sys
import time

import numpy as np

_HERE = pathlib.Path(__file__).resolve().parent
_REPO = _HERE.parents[1]
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import ptxemu  # noqa: E402
from ptxprofile import Profile  # noqa: E402


def load_script(path, name):
    """The Python file `path` as a module named `name` (python/mlsopt/gpu.py
    without the package's extension, bench/gpu's scripts, which are no
    package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_gpu = load_script(_REPO / "python" / "mlsopt" / "gpu.py",
                   "_mlsopt_gpu_for_ptxemu")
LaunchPlan = _gpu.LaunchPlan
split_ptx = _gpu.split_ptx

_NP = {"f16": np.float16, "f32": np.float32, "bf16": np.uint16,
       "i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32,
       "i64": np.int64}
_FLOATS = ("f16", "bf16", "f32")


def bf16_bits(a):
    """float array -> bf16 bits (uint16), round to nearest even."""
    a = np.ascontiguousarray(np.asarray(a, np.float32))
    u = a.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a), np.uint16(0x7FC0), r)


def bf16_to_f32(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def max_element_error(got, want):
    """max |got - want| over max |want| where `want` is finite (0 where
    nothing is): bench/gpu/check.py's norm error barely moves for a few
    wrong elements among many."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    finite = np.isfinite(want)
    if not finite.any():
        return 0.0
    return float(np.abs(got[finite] - want[finite]).max()
                 / max(np.abs(want[finite]).max(), 1e-30))


def to_device_bytes(array, dtype):
    """A host array as the bytes of plan element type `dtype`."""
    if dtype == "bf16":
        return bf16_bits(array)
    if dtype == "i1":
        return (np.asarray(array) != 0).astype(np.uint8)
    # np.array, not np.ascontiguousarray, which makes a 0-d array 1-d.
    return np.array(np.asarray(array).astype(_NP[dtype]), order="C")


def from_device_bytes(raw, dtype, shape):
    if dtype == "bf16":
        return bf16_to_f32(raw.view(np.uint16)).reshape(shape)
    if dtype == "i1":
        return (raw.view(np.uint8) != 0).reshape(shape)
    return raw.view(_NP[dtype]).reshape(shape).copy()


class _Tensor:
    """What LaunchPlan.run needs of a device tensor."""

    def __init__(self, addr, shape, dtype, nbytes):
        self.addr = addr
        self.shape = tuple(shape)
        self.dtype = dtype
        self.nbytes = nbytes

    def data_ptr(self):
        return self.addr


def _nbytes(entry):
    if "bytes" in entry:
        return int(entry["bytes"])
    n = 1
    for d in entry["shape"]:
        n *= d
    return n * {"f16": 2, "bf16": 2, "f32": 4, "i1": 1, "i8": 1, "i16": 2,
                "i32": 4, "i64": 8}[entry["dtype"]]


def _poison_byte(entry):
    return 0xFF if entry.get("dtype", "f32") in _FLOATS else 0xAB


def run_plan(plan, ptx_text, function, inputs, poison=True, stats=None,
             shared_fill=0xFF, memory=None, schedule="warps-descending",
             profile=None):
    """Runs host function `function` of the launch plan on the emulator;
    returns its results as numpy arrays (bf16 as float32, i1 as bool).
    `stats`, a list, receives one dict per launch (kernel, grid, steps,
    seconds). `schedule` (ptxemu.launch): "warps-descending" (default) or
    "warps-ascending" run the warps of a block one at a time between
    barriers, which exposes missing barriers; "lockstep" runs all threads
    together (faster, blind to missing barriers). `profile`: a
    test/ptxemu/ptxprofile.py `Profile` that counts every launch's memory
    traffic and instructions."""
    lp = LaunchPlan(plan, function)
    modules = {name: ptxemu.parse_ptx(text) for name, text in split_ptx(ptx_text).items()}
    if not modules:
        raise ptxemu.PTXEmulatorError("no `// gpu.binary @name` section in the PTX text")
    gmem = memory or ptxemu.GlobalMemory()
    device_inputs = []
    for i, (array, arg) in enumerate(zip(inputs, lp.inputs)):
        data = to_device_bytes(array, arg["dtype"])
        if list(data.shape) != list(arg["shape"]):
            raise ValueError(f"input {i} has shape {data.shape}; the plan takes {arg['shape']}")
        nb = _nbytes(arg)
        addr = gmem.alloc(nb, label=f"input {i}")
        gmem.write(addr, data)
        device_inputs.append(_Tensor(addr, arg["shape"], arg["dtype"], nb))

    def allocate_result(entry):
        nb = _nbytes(entry)
        addr = gmem.alloc(nb, label=f"result {entry['result_index']}",
                          fill=_poison_byte(entry) if poison else 0)
        return _Tensor(addr, entry["shape"], entry["dtype"], nb)

    def allocate_buffer(entry):
        nb = _nbytes(entry)
        addr = gmem.alloc(nb, label=f"buffer {entry['id']}",
                          fill=_poison_byte(entry) if poison else 0)
        return _Tensor(addr, (nb,), "i8", nb)

    def initialize(buffer, data):
        gmem.write(buffer.addr, data)

    def launch(entry, pointers):
        module = modules.get(entry["module"])
        if module is None:
            raise ptxemu.PTXEmulatorError(f"no PTX for binary @{entry['module']}")
        t0 = time.perf_counter()
        steps = ptxemu.launch(module, entry["kernel"], gmem, entry["grid"], entry["block"],
                              entry["dynamic_shared_memory_bytes"], pointers,
                              shared_fill=shared_fill, schedule=schedule,
                              profile=profile)
        if stats is not None:
            stats.append({"kernel": entry["kernel"], "grid": entry["grid"],
                          "block": entry["block"], "steps": steps,
                          "seconds": time.perf_counter() - t0})

    results = lp.run(device_inputs, allocate_result, allocate_buffer, launch,
                     initialize)
    return [from_device_bytes(gmem.read(t.addr, t.nbytes), t.dtype, t.shape)
            for t in results]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plan", required=True)
    ap.add_argument("--ptx", required=True)
    ap.add_argument("--function", required=True)
    ap.add_argument("--inputs", help=".npz of the inputs, in order (default: "
                    "normal(0, 0.1) floats and zero integers of the plan's shapes)")
    ap.add_argument("--out", help=".npz to write the results to")
    ap.add_argument("--no-poison", action="store_true")
    ap.add_argument("--profile", action="store_true",
                    help="print shared-memory wavefronts, global sectors and "
                         "instruction counts per kernel (ptxprofile.py)")
    ap.add_argument("--schedule", default="warps-descending",
                    choices=["warps-descending", "warps-ascending", "lockstep"])
    args = ap.parse_args(argv)
    plan = json.loads(pathlib.Path(args.plan).read_text())
    ptx = pathlib.Path(args.ptx).read_text()
    if args.inputs:
        npz = np.load(args.inputs)
        names = npz.files
        if all(n.startswith("arr_") for n in names):
            names = sorted(names, key=lambda n: int(n[4:]))
        else:
            names = sorted(names)
        inputs = [npz[n] for n in names]
    else:
        rng = np.random.default_rng(0)
        inputs = []
        for arg in LaunchPlan(plan, args.function).inputs:
            if arg["dtype"] in _FLOATS:
                inputs.append((rng.standard_normal(arg["shape"]) * 0.1).astype(np.float32))
            else:
                inputs.append(np.zeros(arg["shape"], _NP[arg["dtype"]]))
    stats = []
    profile = Profile() if args.profile else None
    results = run_plan(plan, ptx, args.function, inputs, poison=not args.no_poison,
                       stats=stats, schedule=args.schedule, profile=profile)
    if args.out:
        np.savez(args.out, *results)
    for s in stats:
        print(f"{s['kernel']}: grid {s['grid']} block {s['block']}: {s['steps']} steps, "
              f"{s['seconds']:.2f} s", file=sys.stderr)
    for i, r in enumerate(results):
        nan = int(np.isnan(r).sum()) if r.dtype.kind == "f" else 0
        print(f"result {i}: shape {r.shape} dtype {r.dtype}, {nan} NaN", file=sys.stderr)
    if profile is not None:
        print(profile.report())


if __name__ == "__main__":
    main()
