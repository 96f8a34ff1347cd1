"""bench/gpu/check.py --emulate: a check that bench/gpu/prepare_checks.py
builds runs on the PTX emulator (test/ptxemu) instead of a GPU, against the
CPU pipeline's numbers, and writes the GPU run's report with "emulated"
rows, with --profile also its bank conflicts and sector use. One small
program (test/Integration/bias-relu-mlp.mlir, unsearched, sm_90), a few
seconds."""

import json
import subprocess
import sys

import numpy as np

import mlsopt as mi

from conftest import REPO, load_bench_gpu_script

CHECK = REPO / "bench" / "gpu" / "check.py"
LABEL = "integration-bias-relu-mlp"


def run_check(checks, out, *extra):
    return subprocess.run(
        [sys.executable, str(CHECK), "--checks", str(checks), "--emulate",
         "--only", LABEL, "--out", str(out), *extra],
        capture_output=True, text=True, timeout=300)


def test_check_emulate_passes_and_fails_on_wrong_numbers(tmp_path):
    prepare_checks = load_bench_gpu_script("prepare_checks")
    checks = tmp_path / "checks"
    meta = prepare_checks.prepare(
        mi, LABEL, REPO / "test" / "Integration" / "bias-relu-mlp.mlir",
        None, None, False, checks, 5, tmp_path / "cache")
    assert "error" not in meta, meta.get("error")

    done = run_check(checks, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads((tmp_path / "out" / "checks.json").read_text())
    assert row["label"] == LABEL and row["emulated"] is True
    assert row["status"] == "ok", row
    assert row["rel_error"] <= row["tolerance"] == 5e-3
    assert "emulated s" in (tmp_path / "out" / "checks.md").read_text()
    assert "excess_wavefronts" not in row

    # --profile adds the counts (test/ptxemu/ptxprofile.py): the MLP's
    # tiles move in whole sectors.
    done = run_check(checks, tmp_path / "profiled", "--profile")
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads((tmp_path / "profiled" / "checks.json").read_text())
    assert row["status"] == "ok", row
    assert 0.0 <= row["excess_wavefronts"] < 1.0
    assert row["sector_use"] == 1.0
    assert "excess wavefronts | sector use" in \
        (tmp_path / "profiled" / "checks.md").read_text()

    # Wrong expected numbers fail the check: the comparison is live.
    with np.load(checks / LABEL / "expected.npz") as npz:
        expected = [npz[f"arr_{i}"] for i in range(len(npz.files))]
    np.savez_compressed(checks / LABEL / "expected.npz",
                        *[e * 1.1 for e in expected])
    done = run_check(checks, tmp_path / "out")
    assert done.returncode == 1, done.stdout + done.stderr
    (row,) = json.loads((tmp_path / "out" / "checks.json").read_text())
    assert row["status"] == "FAILED", row


def test_relative_error_takes_numpy_arrays():
    check = load_bench_gpu_script("check")
    want = np.array([1.0, 2.0, np.inf], np.float32)
    assert check.relative_error(np.array([1.0, 2.0, np.inf]), want) == 0.0
    assert np.isnan(check.relative_error(np.array([1.0, 2.0, 3.0]), want))
