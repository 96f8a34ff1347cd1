//===- CostModel.h - Roofline estimate of kernel-level programs -*- C++ -*-===//
//
// The search ranks candidate μGraphs, and prunes prefixes by lower bounds,
// with this model rather than by running them on a GPU: every kernel launch is
// a roofline (device-memory bytes against tensor-core and CUDA-core FLOPs)
// plus a launch overhead, and a custom kernel also pays for the waves its
// grid needs over the SMs. docs/cost-model.md gives the formulas, the
// constants and what the model leaves out.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_COSTMODEL_H
#define MLSOPT_SEARCH_COSTMODEL_H

#include "mlsopt/Support/Target.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlsopt::kernel {
class CustomOp;
} // namespace mlsopt::kernel

namespace mlsopt::search {

/// What one kernel launch (or, summed, a whole program) costs. Work counts
/// are totals over all thread blocks; times are in microseconds.
struct KernelCost {
  /// Bytes read from and written to device memory.
  double deviceBytes = 0;
  /// FLOPs of f16/bf16 matmuls, which run on tensor cores.
  double tensorCoreFlops = 0;
  /// FLOPs of f32 matmuls, which the GPU lowering runs on tensor cores as
  /// tf32 (its default, `allow-tf32=true`) at half the f16 rate.
  double tf32Flops = 0;
  /// All other FLOPs (elementwise ops, reductions); a transcendental such as
  /// exp counts as one.
  double cudaCoreFlops = 0;
  /// Kernel launches: 1 for a kernel, their number for a program.
  unsigned launches = 0;
  /// Launch overhead paid, in us.
  double launchUs = 0;
  /// Waves of thread blocks over the SMs (custom kernels; a library kernel
  /// is assumed to choose a grid that fills the GPU and reports 1).
  double waves = 0;
  /// Thread blocks resident per SM at once (custom kernels; 0 otherwise).
  unsigned blocksPerSM = 0;
  /// Time the FLOPs take, with the SMs the grid leaves idle.
  double computeUs = 0;
  /// Time the device-memory traffic takes, with the SMs the grid leaves idle.
  double memoryUs = 0;
  /// launchUs + max(computeUs, memoryUs) per kernel, summed over kernels.
  double totalUs = 0;

  /// Adds the cost of another kernel launched after this one: no overlap
  /// between kernels, so everything adds up. `waves` becomes the total.
  KernelCost &operator+=(const KernelCost &other);

  /// True if the kernel spends more time on memory than on FLOPs.
  bool isMemoryBound() const { return memoryUs >= computeUs; }
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const KernelCost &cost);

/// The roofline of one library kernel that fills the GPU: launch overhead
/// plus the larger of the memory and the compute time. Negative inputs are
/// treated as 0. Exposed for the search's lower bounds and for tests.
KernelCost estimateRoofline(double deviceBytes, double tensorCoreFlops,
                            double cudaCoreFlops, const TargetInfo &target,
                            double tf32Flops = 0);

/// Blocks of `sharedMemBytes` bytes and `threadsPerBlock` threads that one SM
/// of `target` holds at once; 0 if even one does not fit.
unsigned estimateBlocksPerSM(int64_t sharedMemBytes, int64_t threadsPerBlock,
                             const TargetInfo &target);

/// Cost of one kernel op: a pre-defined op (one library kernel launch that
/// reads its operands from and writes its result to device memory) or a
/// `kernel.custom` (from its block graph). Emits an error on `op` and fails
/// for an op it cannot cost.
mlir::FailureOr<KernelCost> estimateKernelOpCost(mlir::Operation *op,
                                                 const TargetInfo &target);

/// Cost of a custom kernel from its block graph: the bytes its blocks load
/// and store over all iterations, the FLOPs of its block and thread ops, and
/// the waves its grid needs given the shared memory and threads per block.
mlir::FailureOr<KernelCost> estimateCustomKernelCost(kernel::CustomOp op,
                                                     const TargetInfo &target);

/// Cost of a function: the sum over its kernel ops, launched one after the
/// other. Ops of other dialects (func.return, arith.constant, ...) cost
/// nothing. Fails, with an error on the op, if a kernel op cannot be costed.
mlir::FailureOr<KernelCost> estimateFunctionCost(mlir::func::FuncOp func,
                                                 const TargetInfo &target);

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_COSTMODEL_H
