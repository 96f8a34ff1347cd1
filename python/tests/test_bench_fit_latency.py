"""bench/gpu/fit_latency.py: the cost model against the times an H200
measured (bench/gpu/measured/), and how it lists the variants it ranks
against the measurement."""

from conftest import REPO, load_bench_gpu_script

MEASURED = REPO / "bench" / "gpu" / "measured" / "h200-2026-12-04"


def test_misranked_lists_pairs_the_model_orders_wrongly():
    fit = load_bench_gpu_script("fit_latency")
    rows = [("a:program", 10.0, []), ("a:unfused", 20.0, []),
            ("a:roofline", 10.5, []), ("b:program", 5.0, []),
            ("b:unfused", 50.0, [])]
    # The model swaps a's program and unfused, and a's unfused and roofline
    # variants; a's program and roofline variant are within the 15% margin;
    # b is right.
    predicted = [30.0, 25.0, 26.0, 4.0, 40.0]
    pairs, total = fit.misranked(rows, predicted)
    assert total == 3 + 1
    assert [(label, a, b) for label, a, _, _, b, _, _ in pairs] == [
        ("a", "program", "unfused"), ("a", "unfused", "roofline")]


def test_compiled_model_ranks_the_measured_variants(build_dir):
    # The compiled constants against the 174 programs timed on 2026-12-04:
    # charging device runs of 64 bytes took the model from 13 mis-ranked
    # pairs and an rms log error of 0.387 to 12 and 0.366
    # (docs/cost-model.md, "Latency").
    import mlsopt as mi
    fit = load_bench_gpu_script("fit_latency")
    rows = fit.samples(mi, MEASURED)
    assert len(rows) == 174
    n = len(fit.KINDS)
    error, floor = fit.compiled_error(rows)
    assert error < 0.37
    predicted = fit.predict(rows, fit.COMPILED[:n], fit.COMPILED[n], floor)
    pairs, total = fit.misranked(rows, predicted)
    assert total == 110
    assert len(pairs) <= 12
    # The pairs the runs' charge set right: RMSNorm b1's schedule with
    # 16-byte weight rows measured 62 us against 50.5 unfused.
    assert not any(label == "rmsnorm_b1" for label, *_ in pairs)
