"""Mirage's gated-MLP demo (demo/demo_gated_mlp.py), ported to mlsopt.

The graph-building lines are Mirage's, unchanged but for the import. Mirage
times the optimized graph on a GPU with torch CUDA tensors; without a GPU
this runs both graphs on the CPU with numpy and compares them.

    PYTHONPATH=build/python python3 examples/python/gated_mlp.py
"""

import numpy as np

import mlsopt as mi  # was: import mirage as mi

if __name__ == "__main__":
    graph = mi.new_kernel_graph()
    X = graph.new_input(dims=(8, 4096), dtype=mi.float16)
    W1 = graph.new_input(dims=(4096, 4096), dtype=mi.float16)
    W2 = graph.new_input(dims=(4096, 4096), dtype=mi.float16)
    O1 = graph.matmul(X, W1)
    O2 = graph.matmul(X, W2)
    O1 = graph.silu(O1)
    O = graph.mul(O1, O2)
    graph.mark_output(O)

    print(graph.mlir())
    print("cost on sm_90:", graph.cost("sm_90"))

    rng = np.random.default_rng(0)
    inputs = [
        rng.standard_normal((8, 4096)).astype(np.float32),
        (rng.standard_normal((4096, 4096)) / 64).astype(np.float32),
        (rng.standard_normal((4096, 4096)) / 64).astype(np.float32),
    ]
    (out,) = graph(inputs=inputs)
    x, w1, w2 = (a.astype(np.float16).astype(np.float32) for a in inputs)
    expected = (x @ w1) / (1 + np.exp(-(x @ w1))) * (x @ w2)
    print("CPU result", out.dtype, out.shape,
          "max |error| vs numpy:", float(np.abs(out - expected).max()))

    try:
        optimized_graph = graph.superoptimize(config="mlp")
    except mi.UnavailableError as error:
        print("superoptimize:", error)
    else:
        print(optimized_graph.mlir())
        print("cost on sm_90:", optimized_graph.cost("sm_90"))
        (fast,) = optimized_graph(inputs=inputs)
        print("optimized CPU result, max |difference|:",
              float(np.abs(fast.astype(np.float32) - out).max()))
