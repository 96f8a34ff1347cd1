"""Runs a list of GPU jobs so that one that breaks the CUDA context does not
take the others with it.

A kernel that faults (an illegal address, say) leaves its process's CUDA
context unusable: every later call fails. So the jobs run in a worker
process that appends one JSON line per job to a file and exits as soon as a
job raises; the parent starts a new worker for the jobs left. The GPU
machine is lent for minutes, and one bad kernel must not cost the rest of
the run.
"""

import json
import pathlib
import subprocess
import sys
import time
import traceback


def read_rows(path):
    path = pathlib.Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def run_in_workers(argv, labels, jsonl, deadline_s, key="label"):
    """Runs `argv + ["--worker", jsonl, "--only", *labels left]` until every
    label has a row in `jsonl`, `deadline_s` seconds have passed or three
    workers in a row died; a worker that dies without writing its job's row
    gets a CRASHED row for that job.
    Returns the rows in the order of `labels`."""
    start = time.monotonic()
    pathlib.Path(jsonl).unlink(missing_ok=True)
    crashes_in_a_row = 0
    while crashes_in_a_row < 3:
        done = {r[key] for r in read_rows(jsonl)}
        left = [label for label in labels if label not in done]
        if not left or time.monotonic() - start > deadline_s:
            break
        remaining = max(1.0, deadline_s - (time.monotonic() - start))
        worker = subprocess.run(
            argv + ["--worker", str(jsonl), "--deadline", str(remaining),
                    "--only", *left])
        after = {r[key] for r in read_rows(jsonl)}
        if worker.returncode == 0:
            break
        crashes_in_a_row = 0 if after - done else crashes_in_a_row + 1
        if not after - done:
            # It died before finishing its first job: that job is the cause,
            # unless workers die whatever they start with (three in a row
            # end the run).
            with open(jsonl, "a") as f:
                f.write(json.dumps({key: left[0], "status": "CRASHED",
                                    "error": f"the worker exited with "
                                             f"{worker.returncode}"}) + "\n")
    rows = {r[key]: r for r in read_rows(jsonl)}
    return [rows.get(label, {key: label, "status": "NOT-RUN",
                             "error": "not run (past the deadline, or the "
                                      "workers kept dying)"})
            for label in labels]


def worker_loop(jobs, run_job, jsonl, deadline_s, key="label"):
    """In a worker: runs `run_job(job)` for each (label, job) of `jobs`,
    appending its row to `jsonl`; returns 3 right after a job raises (the
    parent starts a new worker), else 0."""
    start = time.monotonic()
    for label, job in jobs:
        if time.monotonic() - start > deadline_s:
            return 0
        failed = False
        try:
            row = run_job(job)
        except Exception as e:
            row = {key: label, "status": "ERROR",
                   "error": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()}
            failed = True
        print(json.dumps({k: v for k, v in row.items() if k != "traceback"}),
              flush=True)
        with open(jsonl, "a") as f:
            f.write(json.dumps(row) + "\n")
        if failed:
            sys.stdout.flush()
            return 3
    return 0
