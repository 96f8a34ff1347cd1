//===- Target.h - GPU targets mlsopt generates code for ---------*- C++ -*-===//
//
// One table of per-chip facts, shared by the verifiers (shared-memory limits),
// the cost model and the GPU lowering (PTX version), so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_TARGET_H
#define MLSOPT_SUPPORT_TARGET_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace mlsopt {

struct TargetInfo {
  llvm::StringRef chip;          // "sm_90"
  llvm::StringRef ptxVersion;    // the oldest PTX ISA that supports the chip
  unsigned smCount;              // streaming multiprocessors of the reference part
  uint64_t maxSharedMemPerBlock; // bytes, opt-in dynamic maximum per block
  unsigned maxThreadsPerBlock;
  unsigned registersPerSM;       // 32-bit registers
  double memoryBandwidthGBs;     // device memory, GB/s
  double tensorCoreTFlops;       // dense f16/bf16 with f32 accumulate
  double cudaCoreTFlops;         // f32 FMA throughput counted as 2 FLOPs
  // Occupancy limits and launch cost, read by the cost model
  // (docs/cost-model.md).
  uint64_t sharedMemPerSM;       // bytes one SM can hand out to its blocks
  unsigned maxThreadsPerSM;      // resident threads per SM
  unsigned maxBlocksPerSM;       // resident thread blocks per SM
  double launchOverheadUs;       // cost of one kernel launch beyond its work
  double clockGHz;               // boost clock of the SMs
};

/// CUDA's launch limits on the grid, the same on every supported chip: x up
/// to 2^31 - 1 blocks, y and z up to 65535.
constexpr int64_t kMaxGridSize[3] = {2147483647, 65535, 65535};

/// Every supported target, newest last.
llvm::ArrayRef<TargetInfo> getSupportedTargets();

/// Looks a chip up by name ("sm_80", "sm_86", "sm_89", "sm_90").
std::optional<TargetInfo> lookupTarget(llvm::StringRef chip);

/// The target assumed when none is named.
const TargetInfo &getDefaultTarget();

/// "sm_80, sm_86, sm_89, sm_90", for diagnostics.
std::string supportedTargetNames();

/// Name of the module attribute that names the target a module is built for.
constexpr llvm::StringLiteral kTargetAttrName = "mlsopt.target";

/// The target named by the nearest `mlsopt.target` around `op`, or the
/// default target when there is none. An unknown name is an error on `op`.
llvm::FailureOr<TargetInfo> getEnclosingTarget(mlir::Operation *op);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_TARGET_H
