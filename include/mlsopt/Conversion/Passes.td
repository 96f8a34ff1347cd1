//===- Passes.td - Conversions into and out of mlsopt's dialects ----------===//

#ifndef MLSOPT_CONVERSION_PASSES_TD
#define MLSOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToKernel : Pass<"convert-linalg-to-kernel"> {
  let summary = "Import linalg on tensors into the kernel dialect";
  let description = [{
    Rewrites, inside any function, what the kernel dialect can express:

    - `linalg.matmul`, `linalg.batch_matmul` (any `indexing_maps`, so the
      transposed variants too), `linalg.contract` and matmul-shaped generics,
      into `kernel.matmul` plus `kernel.transpose` for permuted operands; a
      zero-filled init is dropped, any other init is added;
    - `linalg.transpose`;
    - `linalg.reduce` and generics with one reduction dim combining with
      `arith.addf` / `arith.maximumf` into an identity init, into
      `kernel.reduce_sum` / `kernel.reduce_max` (with a `tensor.collapse_shape`
      when linalg drops the reduced dim);
    - elementwise generics with arith/math bodies, linalg's named elementwise
      ops, `linalg.elementwise` and `linalg.map`: one kernel op per body op,
      inputs broadcast through projected-permutation maps (reshaped for numpy
      broadcasting, transposed when permuted); constants become
      `mul_scalar` / `add_scalar` (division only by a constant whose inverse
      is exact; a constant divided by a value only in the idioms below); the
      idioms `x * x`, `max(x, 0)`, `1 / (1 + exp(-x))`, `x * sigmoid(x)`,
      the erf form of gelu and `1 / sqrt(x)` (constant exactly 1, computed in
      f32) become `square`, `relu`, `sigmoid`, `silu`, `gelu` and `rsqrt`;
      f16/bf16 bodies that extend to f32, compute one op and truncate become
      that op;
    - `linalg.broadcast` (which only adds dims) where a resulting
      `kernel.add` / `sub` / `mul` / `div` reads it: the kernel op reads the
      broadcast's input with size-1 dims in place of the added ones (a
      `tensor.expand_shape`; none for leading dims) when numpy broadcasting
      then gives the same result shape, and the broadcast goes once nothing
      else reads it.

    Everything else stays as it is: convolutions, `linalg.broadcast` read by
    anything else (a matmul, a reduction, a unary op, an op that stays, a
    binary op whose other operand is also size 1 there), bodies with
    `linalg.index` or other ops, reductions over several dims or with a
    non-identity init, dynamic shapes, integer and f64 types, linalg on
    memrefs. The conversion is partial, the module stays valid and function
    signatures do not change.
  }];
  let dependentDialects = ["::mlsopt::kernel::KernelDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvertKernelToLinalg : Pass<"convert-kernel-to-linalg"> {
  let summary = "Export kernel-dialect ops as linalg on tensors";
  let description = [{
    The way back for every pre-defined kernel op (and every block compute op
    outside a block graph), so another MLIR compiler can take mlsopt's output
    into its own pipeline. Elementwise ops become `linalg.generic` ops whose
    bodies are the arith/math computation of `ElementwiseMath.h`, with
    broadcast operands read through projected-permutation maps; matmuls and
    reductions of f16 and bf16 accumulate in f32 and round once.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ConvertCustomKernelToLoops : Pass<"convert-custom-kernel-to-loops"> {
  let summary = "Lower custom kernels to loops that follow their schedule";
  let description = [{
    Turns every `kernel.custom` into the loops of its block graph, on tensors:
    a loop nest over the grid, inside it the for-loop over iterations with the
    accumulators as loop-carried values, tiles cut from the inputs with
    `tensor.extract_slice` through the imaps and fmaps, and output tiles
    inserted through the omaps. Thread graphs become `linalg.generic` ops.
    Block compute ops stay, for `--convert-kernel-to-linalg` to lower. Because
    the loops follow the schedule exactly, a wrong imap or tile offset gives
    wrong numbers on the CPU.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // MLSOPT_CONVERSION_PASSES_TD
