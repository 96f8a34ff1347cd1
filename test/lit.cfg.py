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
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mlsopt_src_root", config.mlsopt_src_root))

llvm_config.use_default_substitutions()
# `not`, `count` and FileCheck live in the LLVM tools dir; Debian does not put
# it on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mlsopt_tools_dir, append_path=True)

tools = [
    ToolSubst("mlsopt-opt", unresolved="fatal"),
    ToolSubst("mlsopt-translate", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.mlsopt_tools_dir, config.llvm_tools_dir])

# ptxas checks the PTX we emit where the CUDA toolkit is installed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
