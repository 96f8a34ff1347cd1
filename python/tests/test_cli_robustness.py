"""mlsopt-opt on damaged input: a diagnostic and exit code 1, never a crash.

Every example and round-trip test is cut short at many points and has digits
and keywords mutated; each variant must either parse and verify (exit 0) or
fail with an `error:` diagnostic (exit 1). A signal, an abort or an `LLVM
ERROR` fails the test.
"""

import pathlib
import random
import re
import resource
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCES = sorted(
    list((REPO / "examples").glob("*.mlir"))
    + [p for p in (REPO / "test" / "Dialect").rglob("ops.mlir")]
)


def run(tool, text, *passes):
    return subprocess.run(
        [str(tool), "-", "-o", "/dev/null", *passes],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )


def check_clean(result, what):
    assert result.returncode in (0, 1), (
        f"{what}: exit code {result.returncode}\n{result.stderr[-2000:]}"
    )
    assert "LLVM ERROR" not in result.stderr, what
    assert "Stack dump" not in result.stderr, what
    if result.returncode == 1:
        assert "error:" in result.stderr, f"{what}: no diagnostic"


def truncations(text, count=40):
    step = max(1, len(text) // count)
    return [text[:n] for n in range(step, len(text), step)]


def mutations(text, seed, count=40):
    rng = random.Random(seed)
    digits = [m.start() for m in re.finditer(r"\d", text)]
    words = [m.span() for m in re.finditer(r"\b(sum|max|rescale|x|y|z|f16|f32|bf16|dim|imap|fmap|omap)\b", text)]
    out = []
    for _ in range(count):
        if digits and rng.random() < 0.6:
            i = rng.choice(digits)
            out.append(text[:i] + rng.choice("0123456789") + text[i + 1:])
        elif words:
            a, b = rng.choice(words)
            out.append(text[:a] + rng.choice(["sum", "mean", "z", "i8", "q", ""]) + text[b:])
    return out


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name if p.parent.name == "examples" else p.parent.name + "/" + p.name)
def test_source_is_valid(mlsopt_opt, source):
    result = run(mlsopt_opt, source.read_text())
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name if p.parent.name == "examples" else p.parent.name + "/" + p.name)
def test_truncated_input_is_diagnosed(mlsopt_opt, source):
    text = source.read_text()
    failures = 0
    for cut in truncations(text):
        result = run(mlsopt_opt, cut)
        check_clean(result, f"{source.name} cut at {len(cut)} bytes")
        failures += result.returncode == 1
    # Most cuts leave an unterminated region or op: they must be rejected.
    assert failures > 0


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name if p.parent.name == "examples" else p.parent.name + "/" + p.name)
def test_mutated_input_is_diagnosed(mlsopt_opt, source):
    text = source.read_text()
    for i, variant in enumerate(mutations(text, seed=source.name)):
        check_clean(run(mlsopt_opt, variant), f"{source.name} mutation {i}")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name if p.parent.name == "examples" else p.parent.name + "/" + p.name)
def test_valid_input_lowers_for_the_cpu(mlsopt_opt, source):
    result = run(mlsopt_opt, source.read_text(), "--mlsopt-cpu-pipeline")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name if p.parent.name == "examples" else p.parent.name + "/" + p.name)
def test_passes_on_mutated_input_are_clean(mlsopt_opt, source):
    # Whatever the verifier lets through, the conversions must handle.
    text = source.read_text()
    for i, variant in enumerate(mutations(text, seed="passes-" + source.name, count=12)):
        check_clean(run(mlsopt_opt, variant, "--thread-fuse-elementwise",
                        "--convert-custom-kernel-to-loops", "--convert-kernel-to-linalg"),
                    f"{source.name} mutation {i} through the conversions")


def test_unknown_op_is_an_error(mlsopt_opt):
    result = run(mlsopt_opt, "func.func @f(%a: tensor<8xf16>) {\n"
                 "  %b = kernel.frobnicate %a : tensor<8xf16>\n  return\n}\n")
    assert result.returncode == 1
    assert "error: custom op 'kernel.frobnicate' is unknown" in result.stderr


def test_wrong_shapes_are_an_error(mlsopt_opt):
    result = run(mlsopt_opt, "func.func @f(%a: tensor<8x64xf16>, %b: tensor<32x16xf16>) {\n"
                 "  %c = kernel.matmul %a, %b : tensor<8x64xf16>, tensor<32x16xf16>\n  return\n}\n")
    assert result.returncode == 1
    assert "<stdin>:2:8: error: matmul contraction dims differ" in result.stderr


def test_version_names_mlsopt(mlsopt_opt):
    result = subprocess.run([str(mlsopt_opt), "--version"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "mlsopt version" in result.stdout


def test_verify_equivalence_out_of_memory_is_a_diagnostic(mlsopt_opt):
    # Two orders of an add whose [8192, 8192] intermediate takes 1 GiB of
    # field elements, checked under a 2.5 GB address-space limit: the field
    # JIT's malloc fails inside the compiled code, which wrote through the
    # null pointer. Now each function's check is an error naming the size.
    text = """
func.func @f(%x: tensor<8192x1xf32>, %y: tensor<1x8192xf32>) -> tensor<8192x1xf32> attributes {mlsopt.equivalent_to = @f_reference} {
  %s = kernel.add %x, %y : tensor<8192x1xf32>, tensor<1x8192xf32>
  %e = kernel.exp %s : tensor<8192x8192xf32>
  %r = kernel.reduce_sum %e dim 1 : tensor<8192x8192xf32>
  return %r : tensor<8192x1xf32>
}
func.func @f_reference(%x: tensor<8192x1xf32>, %y: tensor<1x8192xf32>) -> tensor<8192x1xf32> {
  %s = kernel.add %y, %x : tensor<1x8192xf32>, tensor<8192x1xf32>
  %e = kernel.exp %s : tensor<8192x8192xf32>
  %r = kernel.reduce_sum %e dim 1 : tensor<8192x8192xf32>
  return %r : tensor<8192x1xf32>
}
"""
    limit = 2500 << 20

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    result = subprocess.run(
        [str(mlsopt_opt), "-", "-o", "/dev/null",
         "--verify-equivalence=max-elements=1000000000"],
        input=text, capture_output=True, text=True, timeout=120,
        preexec_fn=limit_memory)
    check_clean(result, "verify-equivalence under a memory limit")
    assert result.returncode == 1
    assert re.search(r"error: running the finite-field program failed: the "
                     r"host could not allocate \d+ bytes", result.stderr), \
        result.stderr[-2000:]
