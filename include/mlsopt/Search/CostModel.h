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
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlsopt::kernel {
class CustomOp;
} // namespace mlsopt::kernel

namespace mlsopt::search {

/// Steps the threads of one thread block take one after another, by kind,
/// in the code the GPU lowering emits: what bounds a kernel whose blocks
/// each walk a long chain of small steps rather than its roofline
/// (docs/cost-model.md, "Latency").
struct BlockSteps {
  /// Elementwise work over shared memory: per thread, one step per operand
  /// read, op and result write of each element it takes.
  double sharedAccesses = 0;
  /// Row reductions and norms: per lane, the elements of its rows and the
  /// shuffles that combine them.
  double reductionSteps = 0;
  /// ldmatrix + mma.sync per warp that wait for the one before: the
  /// longest chain of dependent mma.syncs.
  double mmaSteps = 0;
  /// ldmatrix + mma.sync per warp in all, dependent or not.
  double mmaIssues = 0;
  /// 16-byte copies per thread between device and shared memory.
  double transfers = 0;
  /// Barriers between ops.
  double barriers = 0;

  BlockSteps &operator+=(const BlockSteps &other);
  BlockSteps operator*(double factor) const;
  /// Clock cycles the steps take, at the model's cycles per step.
  double cycles() const;
};

/// The steps of one block of `op` (all blocks run the same block graph).
BlockSteps countBlockSteps(kernel::CustomOp op);

/// What the model charges for.
struct CostModelOptions {
  /// Charge the latency of each block's dependent steps (KernelCost::
  /// latencyUs, part of totalUs). Off, latencyUs is still reported but
  /// totalUs is the roofline alone.
  bool latency = false;
  /// Ranking by the roofline alone (`latency` off), still refuse a rewrite
  /// whose latency-inclusive estimate (KernelCost::withLatencyUs) is above
  /// that of what it replaces: the roofline cannot see a kernel whose few
  /// blocks each walk a long chain of steps, and such a kernel measured
  /// slower than the launches it fused (docs/cost-model.md, "Latency").
  /// The search also sizes kernels and breaks the roofline's ties by that
  /// estimate then.
  bool latencyVeto = true;
};

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
  /// Waves of thread blocks over the SMs (a copy kernel, which has no
  /// block graph, is assumed to fill the GPU and reports 1).
  double waves = 0;
  /// Thread blocks resident per SM at once (custom kernels; 0 otherwise).
  unsigned blocksPerSM = 0;
  /// Time the FLOPs take, with the SMs the grid leaves idle.
  double computeUs = 0;
  /// Time the device-memory traffic takes, with the SMs the grid leaves idle.
  double memoryUs = 0;
  /// Time the dependent steps of the busiest SM's blocks take: one block's
  /// steps for each wave of blocks (custom kernels; 0 otherwise).
  double latencyUs = 0;
  /// Those steps: one block's times its waves.
  BlockSteps steps;
  /// launchUs + max(computeUs, memoryUs) per kernel, or with
  /// CostModelOptions::latency launchUs + max(computeUs, memoryUs,
  /// latencyUs), summed over kernels.
  double totalUs = 0;
  /// launchUs + max(computeUs, memoryUs, latencyUs) per kernel, summed over
  /// kernels, whatever CostModelOptions::latency says: what the latency veto
  /// compares.
  double withLatencyUs = 0;

  /// Adds the cost of another kernel launched after this one: no overlap
  /// between kernels, so everything adds up. `waves` becomes the total.
  KernelCost &operator+=(const KernelCost &other);

  /// True if the kernel spends more time on memory than on FLOPs.
  bool isMemoryBound() const { return memoryUs >= computeUs; }
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const KernelCost &cost);

/// Whether `options` have the latency veto judge replacements: it is on,
/// and the latency term does not rank already.
bool appliesLatencyVeto(const CostModelOptions &options);

/// Whether `options` forbid replacing a program of cost `before` by one of
/// cost `after` whatever their totalUs: with the latency veto, when `after`
/// is dearer with the latency term than `before`.
bool isVetoedByLatency(const KernelCost &after, const KernelCost &before,
                       const CostModelOptions &options);

/// The roofline of one library kernel that fills the GPU: launch overhead
/// plus the larger of the memory and the compute time. Negative inputs are
/// treated as 0. Exposed for the search's lower bounds and for tests.
KernelCost estimateRoofline(double deviceBytes, double tensorCoreFlops,
                            double cudaCoreFlops, const TargetInfo &target,
                            double tf32Flops = 0);

/// The memory time of a grid of `blocks` blocks, as a custom kernel's cost
/// has it: `deviceBytes` to and from device memory and `loadedBytes` (every
/// tile each block loads, repeats included) through the L2. Exposed for the
/// search's per-layout lower bounds, which must agree with the cost.
double estimateGridMemoryUs(double deviceBytes, double loadedBytes,
                            double blocks, const TargetInfo &target);

/// Blocks of `sharedMemBytes` bytes and `threadsPerBlock` threads that one SM
/// of `target` holds at once; 0 if even one does not fit.
unsigned estimateBlocksPerSM(int64_t sharedMemBytes, int64_t threadsPerBlock,
                             const TargetInfo &target);

/// Cost of one kernel op: a `kernel.custom` (from its block graph), a
/// pre-defined op (as the default block graph the GPU lowering runs it as,
/// both kernels of a split pair), or an op without one, a transpose or a
/// conversion (one copy kernel that reads its operand from and writes its
/// result to device memory, at the roofline). Emits an error on `op` and
/// fails for an op it cannot cost.
mlir::FailureOr<KernelCost>
estimateKernelOpCost(mlir::Operation *op, const TargetInfo &target,
                     const CostModelOptions &options = {});

/// Cost of a custom kernel from its block graph: the bytes its blocks load
/// and store over all iterations, the FLOPs of its block and thread ops, and
/// the waves its grid needs given the shared memory and threads per block.
mlir::FailureOr<KernelCost>
estimateCustomKernelCost(kernel::CustomOp op, const TargetInfo &target,
                         const CostModelOptions &options = {});

/// Cost of each kernel op of a function, in program order: one per launch.
/// Fails, with an error on the op, if a kernel op cannot be costed.
mlir::FailureOr<llvm::SmallVector<KernelCost>>
estimateKernelCosts(mlir::func::FuncOp func, const TargetInfo &target,
                    const CostModelOptions &options = {});

/// Cost of a function: the sum over its kernel ops, launched one after the
/// other. Ops of other dialects (func.return, arith.constant, ...) cost
/// nothing. Fails, with an error on the op, if a kernel op cannot be costed.
mlir::FailureOr<KernelCost>
estimateFunctionCost(mlir::func::FuncOp func, const TargetInfo &target,
                     const CostModelOptions &options = {});

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_COSTMODEL_H
