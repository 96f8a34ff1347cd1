#!/usr/bin/env python3
"""The twelve benchmark cases on a GPU, against PyTorch.

Reads what bench/gpu/prepare.sh built (per case: PTX and launch plan of the
searched program and of the unfused one, and the cost model's estimates),
runs the kernels through their launch plans (python/mlsopt/gpu.py, CuPy or
cuda-python), checks them against PyTorch in fp32 and times them with CUDA
events (warm-up, then the median of --iters runs, each side captured in a
CUDA graph) against PyTorch eager (cuBLAS for the matmuls), torch.compile and,
for the attention cases, scaled_dot_product_attention. Writes results.json
and results.md under --out.

--dry-run checks the artifacts without a GPU: every launch plan parses,
names the function of its case with the shapes the case defines, and every
kernel it launches is an entry of its PTX.
"""

import argparse
import importlib.util
import json
import math
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# H200 SXM: HBM3e bandwidth and dense fp16 tensor-core peak (spec sheet).
PEAK_BYTES_PER_S = 4.8e12
PEAK_FLOPS = 989e12


def shapes(name, b):
    """Input shapes of a case, in argument order (bench/README.md)."""
    if name in ("gqa", "qknorm"):
        return [[2 * b, 256, 64], [2 * b, 64, 4096], [2 * b, 4096, 64]]
    if name == "rmsnorm":
        return [[2 * b, 4096], [4096, 6144]]
    if name == "lora":
        return [[16 * b, 256], [256, 4096], [256, 16], [16, 4096]]
    if name == "gated_mlp":
        return [[8 * b, 4096], [4096, 4096], [4096, 4096]]
    if name == "ntrans":
        return [[8 * b, 4096]] * 3
    raise ValueError(f"unknown case {name}")


def flops(name, b):
    """Multiply-adds counted as 2 FLOPs, the matmuls only."""
    if name in ("gqa", "qknorm"):
        return 2 * (2 * b) * 256 * 4096 * 64 * 2
    if name == "rmsnorm":
        return 2 * (2 * b) * 4096 * 6144
    if name == "lora":
        m = 16 * b
        return 2 * m * 256 * 4096 + 2 * m * 256 * 16 + 2 * m * 16 * 4096
    if name == "gated_mlp":
        return 2 * 2 * (8 * b) * 4096 * 4096
    return 0


def reference(name, torch):
    """The case's formula in PyTorch (bench/README.md)."""
    def rms_norm(x, dim):
        return x * torch.rsqrt(x.pow(2).mean(dim=dim, keepdim=True) + 1e-6)

    def softmax(s):
        e = torch.exp(s)
        return e / e.sum(dim=-1, keepdim=True)

    if name == "gqa":
        return lambda q, k, v: softmax(q @ k) @ v
    if name == "qknorm":
        return lambda q, k, v: softmax(rms_norm(q, 2) @ rms_norm(k, 1)) @ v
    if name == "rmsnorm":
        return lambda x, w: rms_norm(x, 1) @ w
    if name == "lora":
        return lambda x, w, a, b: x @ w + (x @ a) @ b
    if name == "gated_mlp":
        return lambda x, w1, w2: torch.nn.functional.silu(x @ w1) * (x @ w2)
    if name == "ntrans":
        return lambda x, y, a: rms_norm(x + a * (rms_norm(y, 1) - x), 1)
    raise ValueError(name)


def load_module(name, path):
    """The Python file `path` as module `name`, imported by path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The writers the CPU benchmark shares (bench/report.py).
report = load_module("mlsopt_bench_report", ROOT / "bench" / "report.py")


def load_gpu_module():
    """python/mlsopt/gpu.py on its own: the package's extension needs LLVM,
    which the GPU machine does not have."""
    return load_module("mlsopt_gpu", ROOT / "python" / "mlsopt" / "gpu.py")


def check_artifacts(case_dir, gpu):
    """The case's metadata, plans and PTX, checked; raises on a problem."""
    meta = json.loads((case_dir / "meta.json").read_text())
    expected = shapes(meta["name"], meta["batch"])
    variants = {}
    for variant in ("searched", "imported"):
        plan = json.loads((case_dir / f"{variant}.plan.json").read_text())
        ptx = (case_dir / f"{variant}.ptx").read_text()
        launch_plan = gpu.LaunchPlan(plan, meta["function"])
        got = [a["shape"] for a in launch_plan.inputs]
        if got != expected:
            raise ValueError(f"{case_dir.name}/{variant}: input shapes {got}, "
                             f"the case defines {expected}")
        entries = set()
        for text in gpu.split_ptx(ptx).values():
            entries.update(line.split("(")[0].split()[-1]
                           for line in text.splitlines()
                           if ".entry" in line)
        for launch in launch_plan.launches:
            if launch["kernel"] not in entries:
                raise ValueError(f"{case_dir.name}/{variant}: kernel "
                                 f"{launch['kernel']} is not in the PTX")
        variants[variant] = (plan, ptx, len(launch_plan.launches))
    return meta, variants


def time_us(fn, torch, iters, warmup=10, graph=True):
    """Median time of `fn` in microseconds, from CUDA events around each
    run; with `graph`, `fn` is captured once in a CUDA graph and replayed,
    which takes launch latency out of both sides alike."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    run = fn
    if graph:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        run = g.replay
        for _ in range(warmup):
            run()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def relative_error(got, want):
    got, want = got.float(), want.float()
    return float((got - want).norm() / max(float(want.norm()), 1e-30))


def run_case(case_dir, gpu, args, torch):
    meta, variants = check_artifacts(case_dir, gpu)
    name, b = meta["name"], meta["batch"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    inputs = [(torch.randn(s, device="cuda", generator=gen) * args.scale)
              .half() for s in shapes(name, b)]
    ref = reference(name, torch)
    want = ref(*[x.float() for x in inputs])
    row = {"name": name, "batch": b,
           "est_us_before": meta["est_us_before"],
           "est_us_after": meta["est_us_after"]}
    for variant, key in (("searched", "mlsopt"), ("imported", "unfused")):
        plan, ptx, launches = variants[variant]
        runner = gpu.GPURunner(plan, ptx, meta["function"])
        (got,) = runner(inputs)
        row[f"{key}_launches"] = launches
        row[f"{key}_rel_error"] = relative_error(got, want)
        row[f"{key}_finite"] = bool(torch.isfinite(got).all())
        try:
            row[f"{key}_us"] = time_us(lambda: runner(inputs), torch, args.iters)
        except Exception as e:  # a capture the driver cannot do
            row[f"{key}_us"] = time_us(lambda: runner(inputs), torch,
                                       args.iters, graph=False)
            row[f"{key}_note"] = f"timed without a CUDA graph: {e}"
    eager = lambda: ref(*inputs)
    row["torch_eager_us"] = time_us(eager, torch, args.iters)
    if args.compile:
        compiled = torch.compile(ref)
        row["torch_compile_us"] = time_us(lambda: compiled(*inputs), torch,
                                          args.iters)
    if name == "gqa":
        q, k, v = inputs
        kt = k.transpose(1, 2).contiguous()
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(
            q, kt, v, scale=1.0)
        row["sdpa_us"] = time_us(sdpa, torch, args.iters)
    baselines = [row[k] for k in ("torch_eager_us", "torch_compile_us",
                                  "sdpa_us") if k in row]
    row["best_baseline_us"] = min(baselines)
    row["speedup"] = row["best_baseline_us"] / row["mlsopt_us"]
    nbytes = sum(x.numel() * 2 for x in inputs) + want.numel() * 2
    row["bytes"] = nbytes
    row["flops"] = flops(name, b)
    row["achieved_gbs"] = nbytes / (row["mlsopt_us"] * 1e-6) / 1e9
    row["achieved_tflops"] = row["flops"] / (row["mlsopt_us"] * 1e-6) / 1e12
    roofline_us = max(nbytes / PEAK_BYTES_PER_S, row["flops"] / PEAK_FLOPS) * 1e6
    row["roofline_us"] = roofline_us
    row["fraction_of_roofline"] = roofline_us / row["mlsopt_us"]
    return row


def markdown(rows):
    fmt = lambda v: "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))
    headers = ["case", "b", "mlsopt us", "launches", "unfused us", "eager us",
               "compile us", "sdpa us", "speedup", "rel. error", "% roofline",
               "model us"]
    cells = [[r["name"], r["batch"], fmt(r["mlsopt_us"]),
              r["mlsopt_launches"], fmt(r["unfused_us"]),
              fmt(r["torch_eager_us"]), fmt(r.get("torch_compile_us")),
              fmt(r.get("sdpa_us")), f"{r['speedup']:.2f}x",
              f"{r['mlsopt_rel_error']:.1e}",
              f"{100 * r['fraction_of_roofline']:.0f}%",
              fmt(r["est_us_after"])]
             for r in rows]
    return report.markdown_table(headers, cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--artifacts", default="build/bench/gpu")
    parser.add_argument("--out", default="build/bench/gpu-results")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--scale", type=float, default=0.1,
                        help="standard deviation of the random inputs")
    parser.add_argument("--no-compile", dest="compile", action="store_false")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    gpu = load_gpu_module()
    artifacts = pathlib.Path(args.artifacts)
    case_dirs = sorted(p for p in artifacts.iterdir()
                       if (p / "meta.json").exists()) if artifacts.is_dir() else []
    if not case_dirs:
        print(f"error: no prepared cases in {args.artifacts} "
              f"(run bench/gpu/prepare.sh)", file=sys.stderr)
        return 1
    if args.dry_run:
        for case_dir in case_dirs:
            meta, variants = check_artifacts(case_dir, gpu)
            print(f"{case_dir.name}: ok, {variants['searched'][2]} launches "
                  f"(unfused {variants['imported'][2]}), model "
                  f"{meta['est_us_after']} us (unfused {meta['est_us_before']} us)")
        return 0
    import torch
    rows = []
    for case_dir in case_dirs:
        row = run_case(case_dir, gpu, args, torch)
        print(json.dumps(row), flush=True)
        rows.append(row)
    report.write_report(pathlib.Path(args.out), "results", rows,
                        markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
