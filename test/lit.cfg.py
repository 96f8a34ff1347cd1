# -*- Python -*-
# lit configuration of the mlsopt regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MLSOPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlsopt_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mlsopt_src_root", config.mlsopt_src_root))

llvm_config.use_default_substitutions()
# `not`, `count` and FileCheck live in the LLVM tools dir; Debian does not put
# it on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mlsopt_tools_dir, append_path=True)

# Sanitized builds (`make check-asan`, docs/reliability.md). The options are
# defaults: ASAN_OPTIONS or UBSAN_OPTIONS set by the caller win.
if "asan" in config.available_features:
    # Tells test helpers not to cap the address space: ASan reserves its
    # shadow memory up front.
    config.environment["MLSOPT_SANITIZED"] = "1"
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons and unpoisons
    # its slabs in header code, which our sanitized code inlines and the
    # unsanitized libMLIR.so does not; memory that libMLIR hands out from a
    # slab poisoned on our side reads as use-after-poison (a false report).
    config.environment.setdefault(
        "ASAN_OPTIONS", "detect_leaks=1:allow_user_poisoning=0")
    symbolizer = os.path.join(config.llvm_tools_dir, "llvm-symbolizer")
    if os.path.exists(symbolizer):
        config.environment.setdefault("ASAN_SYMBOLIZER_PATH", symbolizer)
if "ubsan" in config.available_features:
    config.environment.setdefault(
        "UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")

tools = [
    ToolSubst("mlsopt-opt", unresolved="fatal"),
    ToolSubst("mlsopt-translate", unresolved="fatal"),
    ToolSubst("mlsopt-parse-fuzzer", unresolved="fatal"),
    ToolSubst("mlsopt-superoptimize-fuzzer", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.mlsopt_tools_dir, config.llvm_tools_dir])

# ptxas checks the PTX we emit where the CUDA toolkit is installed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    # The GPU pipeline finds libdevice through the toolkit the ptxas is from.
    config.environment["CUDA_HOME"] = os.path.dirname(
        os.path.dirname(os.path.realpath(ptxas)))
    config.substitutions.append(("%ptxas", ptxas))

# Execution tests JIT-compile the lowered program with mlir-runner and link the
# runtime libraries of printMemrefF32 and friends from the LLVM lib dir.
mlir_runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
mlir_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
if os.path.exists(mlir_runner) and os.path.exists(
        os.path.join(mlir_lib_dir, "libmlir_c_runner_utils.so")):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir_runner", mlir_runner))
    config.substitutions.append(("%mlir_lib_dir", mlir_lib_dir))

# Linalg on tensors -> LLVM dialect for the CPU, in one place so every
# execution test (and a CPU pipeline) lowers the same way. expand-strided-metadata
# leaves affine.apply for dynamic offsets, hence lower-affine; math ops without
# an LLVM intrinsic (erf, tanh) become libm calls, and so do log1p and
# expm1, whose intrinsics' lowering loses small arguments (as in
# --mlsopt-cpu-pipeline).
config.substitutions.append(("%lower_to_llvm", " ".join([
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--convert-linalg-to-loops",
    "--expand-strided-metadata",
    "--lower-affine",
    "--convert-scf-to-cf",
    "--finalize-memref-to-llvm",
    "--mlsopt-accurate-math-to-libm",
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-arith-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
])))

# Upstream mlir-opt, and mlsopt as a plugin for it (test/Plugin).
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
if config.mlsopt_plugin:
    config.available_features.add("mlsopt-plugin")
    config.substitutions.append(("%mlsopt_plugin", config.mlsopt_plugin))
