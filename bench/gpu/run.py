#!/usr/bin/env python3
"""The twelve benchmark cases on a GPU, against PyTorch.

Reads what bench/gpu/prepare.sh built (per case: PTX and launch plan of the
searched program and of the unfused one, and the cost model's estimates),
runs the kernels through their launch plans (python/mlsopt/gpu.py, CuPy or
cuda-python), checks them against PyTorch in fp32 and times them with CUDA
events (warm-up, then the median of --iters timings of RUNS_PER_TIMING
runs, each side captured in a CUDA graph) against PyTorch eager (cuBLAS
for the matmuls), torch.compile and, for the attention cases,
scaled_dot_product_attention. Writes results.json
and results.md under --out.

--dry-run checks the artifacts without a GPU: every launch plan parses,
names the function of its case with the shapes the case defines, and every
kernel it launches is an entry of its PTX.
"""

import argparse
import importlib.util
import json
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


def rms_norm(x, dim, torch):
    """RMS normalization of `x` over `dim`, as the cases define it."""
    return x * torch.rsqrt(x.pow(2).mean(dim=dim, keepdim=True) + 1e-6)


def case_formula(name, softmax, rms, silu):
    """The case's formula (bench/README.md) over one array library's
    `softmax` (exp / sum over the last dim), `rms(x, dim)` and `silu`."""
    if name == "gqa":
        return lambda q, k, v: softmax(q @ k) @ v
    if name == "qknorm":
        return lambda q, k, v: softmax(rms(q, 2) @ rms(k, 1)) @ v
    if name == "rmsnorm":
        return lambda x, w: rms(x, 1) @ w
    if name == "lora":
        return lambda x, w, a, b: x @ w + (x @ a) @ b
    if name == "gated_mlp":
        return lambda x, w1, w2: silu(x @ w1) * (x @ w2)
    if name == "ntrans":
        return lambda x, y, a: rms(x + a * (rms(y, 1) - x), 1)
    raise ValueError(name)


def reference(name, torch):
    """The case's formula in PyTorch."""
    def softmax(s):
        e = torch.exp(s)
        return e / e.sum(dim=-1, keepdim=True)

    return case_formula(name, softmax, lambda x, dim: rms_norm(x, dim, torch),
                        torch.nn.functional.silu)


def numpy_reference(name):
    """reference() in numpy (float32 in, float32 out), for the emulated
    check (check.py --emulate), which runs without torch."""
    import numpy as np

    def rms(x, axis):
        return x / np.sqrt(np.mean(x * x, axis=axis, keepdims=True) + 1e-6)

    def softmax(s):
        e = np.exp(s)
        return e / e.sum(axis=-1, keepdims=True)

    return case_formula(name, softmax, rms, lambda h: h / (1 + np.exp(-h)))


def load_module(name, path):
    """The Python file `path` as module `name`, imported by path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The writers the CPU benchmark shares (bench/report.py).
report = load_module("mlsopt_bench_report", ROOT / "bench" / "report.py")
isolate = load_module("mlsopt_bench_isolate", ROOT / "bench" / "gpu" / "isolate.py")


def load_gpu_module():
    """python/mlsopt/gpu.py on its own: the package's extension needs LLVM,
    which the GPU machine does not have."""
    return load_module("mlsopt_gpu", ROOT / "python" / "mlsopt" / "gpu.py")


def check_artifacts(case_dir, gpu):
    """The case's metadata, plans and PTX, checked; raises on a problem."""
    meta = json.loads((case_dir / "meta.json").read_text())
    expected = shapes(meta["name"], meta["batch"])
    variants = {}
    # "latency" (the search ranking with the latency term) and "roofline"
    # (the roofline alone, latency-veto=false) are missing from artifacts
    # prepared before they existed.
    for variant in ("searched", "latency", "roofline", "imported"):
        if (variant in ("latency", "roofline")
                and not (case_dir / f"{variant}.ptx").exists()):
            continue
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


# Runs of the timed function between one pair of CUDA events (captured
# back to back in one CUDA graph): on the lent H200 one graph replay of a
# one-element add measured 18.5 us (2026-12-04), which a single run per
# timing would add to every program and hide the small ones behind.
RUNS_PER_TIMING = 10


def time_us(fn, torch, iters, warmup=10, graph=True, runs=RUNS_PER_TIMING):
    """Median time of one run of `fn` in microseconds, from CUDA events
    around `runs` runs; with `graph`, those runs are captured once in a
    CUDA graph and replayed, which takes launch latency out of both sides
    alike."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()

    def run_all():
        for _ in range(runs):
            fn()
    run = run_all
    if graph:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            run_all()
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
        times.append(start.elapsed_time(end) * 1000.0 / runs)
    return statistics.median(times)


def time_with_fallback(fn, torch, iters):
    """time_us with a CUDA graph, or, where capturing `fn` fails, without
    one: (microseconds, None or why there was no graph)."""
    try:
        return time_us(fn, torch, iters), None
    except Exception as e:
        torch.cuda.synchronize()
        return (time_us(fn, torch, iters, graph=False),
                f"timed without a CUDA graph: {type(e).__name__}: {e}")


def relative_error(got, want):
    got, want = got.float(), want.float()
    return float((got - want).norm() / max(float(want.norm()), 1e-30))


def case_inputs(name, b, args, torch):
    gen = torch.Generator(device="cuda").manual_seed(0)
    return [(torch.randn(s, device="cuda", generator=gen) * args.scale)
            .half() for s in shapes(name, b)]


def attention_sdpa(name, inputs, torch):
    """The attention cases through scaled_dot_product_attention, which picks
    FlashAttention for these shapes, with QKNorm's norms in eager PyTorch
    first. K comes transposed to [batch, keys, head dim], FlashAttention's
    layout, outside the timed region, and each tensor gets a heads dim of 1,
    as SDPA's fused kernels expect [batch, heads, length, head dim]."""
    q, k, v = (x.unsqueeze(1) for x in inputs)
    kt = k.transpose(2, 3).contiguous()

    def sdpa():
        qq, kk = ((rms_norm(q, -1, torch), rms_norm(kt, -1, torch))
                  if name == "qknorm" else (q, kt))
        return torch.nn.functional.scaled_dot_product_attention(
            qq, kk, v, scale=1.0).squeeze(1)
    return sdpa


def run_case(case_dir, gpu, args, torch):
    meta, variants = check_artifacts(case_dir, gpu)
    name, b = meta["name"], meta["batch"]
    inputs = case_inputs(name, b, args, torch)
    ref = reference(name, torch)
    want = ref(*[x.float() for x in inputs])
    row = {"name": name, "batch": b,
           "est_us_before": meta["est_us_before"],
           "est_us_after": meta["est_us_after"],
           "est_latency_us_before": meta.get("est_latency_us_before"),
           "est_latency_us_after": meta.get("est_latency_us_after"),
           "est_latency_us_latency_searched":
               meta.get("est_latency_us_latency_searched"),
           "est_latency_us_roofline": meta.get("est_latency_us_roofline")}
    for variant, key in (("searched", "mlsopt"),
                         ("latency", "latency_searched"),
                         ("roofline", "roofline_searched"),
                         ("imported", "unfused")):
        if variant not in variants:
            continue
        plan, ptx, launches = variants[variant]
        # Checked with poisoned results and buffers (an unwritten element
        # reads NaN), twice (a race would not repeat bit for bit); timed
        # without the poisoning.
        runner = gpu.GPURunner(plan, ptx, meta["function"],
                               driver=args.driver, poison=True)
        (got,) = runner(inputs)
        (again,) = runner(inputs)
        row[f"{key}_launches"] = launches
        row[f"{key}_rel_error"] = relative_error(got, want)
        row[f"{key}_finite"] = bool(torch.isfinite(got).all())
        row[f"{key}_repeatable"] = torch.equal(got.view(torch.int16),
                                               again.view(torch.int16))
        runner.poison = False
        row[f"{key}_us"], note = time_with_fallback(lambda: runner(inputs),
                                                    torch, args.iters)
        if note:
            row[f"{key}_note"] = note
    eager = lambda: ref(*inputs)
    # The case's formula in f16 as PyTorch computes it: where it is not
    # finite, the formula itself overflows f16 on these inputs.
    row["torch_eager_finite"] = bool(torch.isfinite(eager()).all())
    row["torch_eager_us"] = time_us(eager, torch, args.iters)
    if name in ("gqa", "qknorm"):
        sdpa = attention_sdpa(name, inputs, torch)
        row["sdpa_rel_error"] = relative_error(sdpa(), want)
        row["sdpa_us"] = time_us(sdpa, torch, args.iters)
    nbytes = sum(x.numel() * 2 for x in inputs) + want.numel() * 2
    row["bytes"] = nbytes
    row["flops"] = flops(name, b)
    row["achieved_gbs"] = nbytes / (row["mlsopt_us"] * 1e-6) / 1e9
    row["achieved_tflops"] = row["flops"] / (row["mlsopt_us"] * 1e-6) / 1e12
    row["status"] = "ok" if (row["mlsopt_finite"] and row["mlsopt_repeatable"]
                             and row["mlsopt_rel_error"] <= 1e-2) else "FAILED"
    return row


def add_rooflines(row, ceilings):
    """The case's roofline time, from the spec sheet's rates and from the
    ones measured on this GPU, and the fraction of it mlsopt reaches."""
    for key, (bandwidth, rate) in (
            ("", (PEAK_BYTES_PER_S, PEAK_FLOPS)),
            ("measured_", (ceilings.get("copy_bytes_per_s", PEAK_BYTES_PER_S),
                           ceilings.get("f16_matmul_flops", PEAK_FLOPS)))):
        roofline_us = max(row["bytes"] / bandwidth, row["flops"] / rate) * 1e6
        row[f"{key}roofline_us"] = roofline_us
        row[f"{key}fraction_of_roofline"] = roofline_us / row["mlsopt_us"]


def finish_row(row):
    """The best baseline and the speedup over it, from what was timed."""
    baselines = [row[k] for k in ("torch_eager_us", "torch_compile_us",
                                  "sdpa_us") if k in row]
    row["best_baseline_us"] = min(baselines)
    row["speedup"] = row["best_baseline_us"] / row["mlsopt_us"]


def compiled_us(name, b, args, torch):
    """torch.compile's time for the case's formula."""
    inputs = case_inputs(name, b, args, torch)
    compiled = torch.compile(reference(name, torch))
    return time_us(lambda: compiled(*inputs), torch, args.iters)


def measure_ceilings(torch):
    """This GPU's copy bandwidth (bytes read plus written, 2 GiB copied) and
    f16 matmul rate (8192^3 through cuBLAS), each the median of 10 runs, and
    the time of the smallest graph as this script times it."""
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    copy_us = time_us(lambda: dst.copy_(src), torch, 10, warmup=3, graph=False)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    mm_us = time_us(lambda: a @ b, torch, 10, warmup=3, graph=False)
    # The least a case can measure: a one-element add timed as the cases
    # are, and alone in one graph replay between the two events (what the
    # runs of 2026-11-30 and 2026-12-04 timed each program with).
    tiny = torch.zeros(1, device="cuda")
    floor_us = time_us(lambda: tiny.add_(1), torch, 100)
    single_us = time_us(lambda: tiny.add_(1), torch, 100, runs=1)
    return {"copy_bytes_per_s": 2 * (1 << 30) / (copy_us * 1e-6),
            "f16_matmul_flops": 2 * 8192 ** 3 / (mm_us * 1e-6),
            "one_kernel_graph_us": floor_us,
            "one_kernel_single_replay_us": single_us,
            "runs_per_timing": RUNS_PER_TIMING}


def markdown(rows):
    fmt = lambda v: "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))
    headers = ["case", "b", "mlsopt us", "launches", "unfused us", "eager us",
               "compile us", "sdpa us", "speedup", "rel. error",
               "% roofline (spec)", "% roofline (measured)", "model us",
               "latency model us", "latency-searched us (launches)",
               "roofline-searched us (launches)"]
    cells = [[r["name"], r["batch"], fmt(r["mlsopt_us"]),
              r["mlsopt_launches"], fmt(r["unfused_us"]),
              fmt(r["torch_eager_us"]), fmt(r.get("torch_compile_us")),
              fmt(r.get("sdpa_us")), f"{r['speedup']:.2f}x",
              f"{r['mlsopt_rel_error']:.1e}"
              + ("" if r["mlsopt_finite"] else " (not finite)")
              + ("" if r["mlsopt_repeatable"] else " (not repeatable)"),
              f"{100 * r['fraction_of_roofline']:.0f}%",
              f"{100 * r['measured_fraction_of_roofline']:.0f}%",
              fmt(r["est_us_after"]), fmt(r.get("est_latency_us_after")),
              "-" if r.get("latency_searched_us") is None else
              f"{r['latency_searched_us']:.1f} "
              f"({r['latency_searched_launches']})",
              "-" if r.get("roofline_searched_us") is None else
              f"{r['roofline_searched_us']:.1f} "
              f"({r['roofline_searched_launches']})"]
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
    parser.add_argument("--driver", choices=["cupy", "cuda-python"])
    parser.add_argument("--deadline", type=float,
                        help="seconds after which no further job starts "
                             "(torch.compile's jobs come last)")
    parser.add_argument("--worker", metavar="JSONL",
                        help="run the jobs named by --only in this process, "
                             "appending their rows to JSONL "
                             "(bench/gpu/isolate.py)")
    parser.add_argument("--only", nargs="*", default=[])
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
            latency = "".join(
                f", {label} {variants[variant][2]}"
                for variant, label in (("latency", "with latency"),
                                       ("roofline", "roofline alone"))
                if variant in variants)
            print(f"{case_dir.name}: ok, {variants['searched'][2]} launches "
                  f"(unfused {variants['imported'][2]}{latency}), model "
                  f"{meta['est_us_after']} us (unfused {meta['est_us_before']} us)")
        return 0
    by_name = {d.name: d for d in case_dirs}
    jobs = ["ceilings"] + list(by_name)
    if args.compile:
        # Compiling takes seconds per case: after every case has its other
        # numbers, while the deadline allows.
        jobs += [f"compile:{name}" for name in by_name]
    if args.worker:
        import torch

        def run_job(label):
            if label == "ceilings":
                return {"label": label, **measure_ceilings(torch)}
            if label.startswith("compile:"):
                meta = json.loads((by_name[label[8:]] / "meta.json").read_text())
                return {"label": label, "torch_compile_us": compiled_us(
                    meta["name"], meta["batch"], args, torch)}
            return {"label": label, **run_case(by_name[label], gpu, args, torch)}
        return isolate.worker_loop([(label, label) for label in args.only],
                                   run_job, args.worker,
                                   args.deadline or float("inf"))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, __file__, "--artifacts", str(artifacts),
            "--iters", str(args.iters), "--scale", str(args.scale)] + \
        (["--driver", args.driver] if args.driver else [])
    results = {r["label"]: r for r in isolate.run_in_workers(
        argv, jobs, out / "results.jsonl", args.deadline or float("inf"))}
    ceilings = results.pop("ceilings")
    rows, failed = [], []
    for name in by_name:
        row = results[name]
        if "mlsopt_us" not in row:
            failed.append(row)
            continue
        compiled = results.get(f"compile:{name}", {})
        if "torch_compile_us" in compiled:
            row["torch_compile_us"] = compiled["torch_compile_us"]
        elif args.compile:
            row["torch_compile_note"] = compiled.get("error", "not run")
        add_rooflines(row, ceilings)
        finish_row(row)
        rows.append(row)
    (out / "ceilings.json").write_text(json.dumps(ceilings, indent=1) + "\n")
    report.write_report(out, "results", rows + failed, markdown(rows) +
                        "".join(f"\n{r['label']}: {r['status']}: "
                                f"{r.get('error')}\n" for r in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
