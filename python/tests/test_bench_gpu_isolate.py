"""bench/gpu/isolate.py: the GPU benchmark's jobs run in worker processes,
so that one that kills its process (as a faulting kernel does to its CUDA
context) costs that job only."""

import sys

from conftest import REPO, load_bench_gpu_script

WORKER = """
import os, sys
sys.path.insert(0, {gpu_dir!r})
import isolate

def run_job(label):
    if label == "raises":
        raise RuntimeError("bad launch")
    if label == "dies":
        os._exit(9)
    return {{"label": label, "status": "ok", "pid": os.getpid()}}

args = sys.argv[1:]
jsonl, only = args[1], args[args.index("--only") + 1:]
sys.exit(isolate.worker_loop([(l, l) for l in only], run_job, jsonl,
                             float(args[3])))
"""


def test_a_failing_job_costs_only_itself(tmp_path):
    isolate = load_bench_gpu_script("isolate")
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(gpu_dir=str(REPO / "bench" / "gpu")))
    labels = ["a", "raises", "b", "dies", "c"]
    rows = isolate.run_in_workers([sys.executable, str(script)], labels,
                                  tmp_path / "rows.jsonl", 60)
    assert [r["label"] for r in rows] == labels
    assert [r["status"] for r in rows] == ["ok", "ERROR", "ok", "CRASHED",
                                           "ok"]
    assert "bad launch" in rows[1]["error"]
    assert "exited with 9" in rows[3]["error"]
    # A new worker after each failure: "a" ran in the first, "b" after
    # "raises" ended that one, "c" after "dies".
    assert len({rows[i]["pid"] for i in (0, 2, 4)}) == 3


def test_jobs_past_the_deadline_are_not_run(tmp_path):
    isolate = load_bench_gpu_script("isolate")
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(gpu_dir=str(REPO / "bench" / "gpu")))
    rows = isolate.run_in_workers([sys.executable, str(script)], ["a", "b"],
                                  tmp_path / "rows.jsonl", 0)
    assert [r["status"] for r in rows] == ["NOT-RUN", "NOT-RUN"]


def test_workers_that_always_die_end_the_run(tmp_path):
    isolate = load_bench_gpu_script("isolate")
    script = tmp_path / "worker.py"
    script.write_text("import sys; sys.exit(1)\n")
    rows = isolate.run_in_workers([sys.executable, str(script)], list("abcde"),
                                  tmp_path / "rows.jsonl", 60)
    assert [r["status"] for r in rows] == ["CRASHED"] * 3 + ["NOT-RUN"] * 2
