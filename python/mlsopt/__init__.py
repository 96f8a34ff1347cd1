"""mlsopt: a multi-level superoptimizer for tensor programs, in Python.

The API follows Mirage's (``import mirage as mi``), so that a Mirage script
ports by changing its import::

    import mlsopt as mi

    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 4096), dtype=mi.float16)
    W = graph.new_input(dims=(4096, 4096), dtype=mi.float16)
    O = graph.silu(graph.matmul(X, W))
    graph.mark_output(O)
    optimized = graph.superoptimize(target="sm_90", timeout=60)
    print(optimized.mlir())

Graphs are MLIR modules in the kernel dialect, built and transformed by
mlsopt's C++ libraries through the ``_mlsopt`` extension; see docs/python.md.
"""

from ._mlsopt import Cost, MLIRError, UnavailableError, __version__
from . import kernel as _kernel
from .kernel import (
    DTensor,
    GlobalConfig,
    KernelGraph,
    MLSOptWarning,
    bfloat16,
    bool_,
    convert_dtype_to_torch_type,
    dtype,
    float16,
    float32,
    from_mlir,
    generate_cuda_program,
    get_shared_memory_capacity,
    global_config,
    new_kernel_graph,
    set_gpu_device_id,
    superoptimize,
)
# Mirage's other element types: they exist so that scripts naming them
# import; new_input rejects them (mlsopt holds float16, bfloat16, float32).
from .kernel import (
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .threadblock import STensor, TBGraph, new_threadblock_graph

# Mirage's earlier name of new_kernel_graph, which its older demos call.
new_graph = new_kernel_graph
# Mirage's class name for kernel graphs (isinstance checks in its tools).
KNGraph = KernelGraph

__all__ = [
    "Cost",
    "bool_",
    "DTensor",
    "KernelGraph",
    "KNGraph",
    "MLIRError",
    "MLSOptWarning",
    "UnavailableError",
    "bfloat16",
    "dtype",
    "float16",
    "float32",
    "float64",
    "from_mlir",
    "generate_cuda_program",
    "get_shared_memory_capacity",
    "global_config",
    "GlobalConfig",
    "int8",
    "int16",
    "int32",
    "int64",
    "new_graph",
    "new_kernel_graph",
    "new_threadblock_graph",
    "convert_dtype_to_torch_type",
    "set_gpu_device_id",
    "STensor",
    "superoptimize",
    "TBGraph",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]


# Entry points of older Mirage versions that mlsopt does not have, and what
# a ported script calls instead.
_MIRAGE_REPLACEMENTS = {
    "optimize": "graph.superoptimize(...) (or mi.superoptimize(graph, ...))",
    # Mirage's persistent kernels (MPK): a runtime that runs a whole model
    # as one megakernel, out of mlsopt's scope.
    "PersistentKernel": "graph.superoptimize(...) per subgraph; mlsopt "
                        "does not provide Mirage's persistent kernels (MPK)",
    "get_configurations_from_gpu": "graph.superoptimize(target=...), "
                                   "which takes the chip (mlsopt does not "
                                   "provide Mirage's persistent kernels, "
                                   "MPK)",
}


def __getattr__(name):
    # The device set_gpu_device_id keeps, read as mlsopt.gpu_device_id.
    if name == "gpu_device_id":
        return _kernel.gpu_device_id
    if name in _MIRAGE_REPLACEMENTS:
        raise AttributeError(
            f"module 'mlsopt' has no attribute {name!r} (Mirage has it); "
            f"use {_MIRAGE_REPLACEMENTS[name]}")
    raise AttributeError(f"module 'mlsopt' has no attribute {name!r}")
