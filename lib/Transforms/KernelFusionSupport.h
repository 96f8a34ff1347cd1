//===- KernelFusionSupport.h - What the kernel fusions share ----*- C++ -*-===//
//
// The rewrites of populateFuseKernelElementwisePatterns build a candidate
// custom kernel beside the ones it would replace, weigh it with the cost
// model and keep it only when it is valid and faster. This header holds
// what they share; it is private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_TRANSFORMS_KERNELFUSIONSUPPORT_H
#define MLSOPT_LIB_TRANSFORMS_KERNELFUSIONSUPPORT_H

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

#include <optional>

namespace mlsopt::fusion {

/// The shape of a ranked tensor value.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType()).getShape();
}

/// Whether no element that `load` reads past its tensor's end reaches a
/// stored element: its tile flows to stores through elementwise block ops,
/// thread graphs and for-loops of one iteration only, so each element stays
/// at its index and the ragged store drops those past the end.
bool padsReachNoStore(block::LoadOp load);

/// The store that writes output `index` of `custom`, if there is exactly one.
block::StoreOp getStore(kernel::CustomOp custom, unsigned index);

/// Tells the greedy driver about a candidate kernel built with an IRRewriter
/// of its own and kept (see the definition for why they are built so).
void announce(mlir::PatternRewriter &rewriter, kernel::CustomOp kept);

/// A rewrite of any kernel op into a custom kernel, for a target (given,
/// else the module's).
struct KernelFusionPattern : mlir::RewritePattern {
  KernelFusionPattern(mlir::MLIRContext *context,
                      std::optional<TargetInfo> target,
                      search::CostModelOptions costOptions)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        target(std::move(target)), costOptions(costOptions) {}
  std::optional<TargetInfo> target;
  search::CostModelOptions costOptions;

  /// The cost of kernel op `op` on the target (--superoptimize's, else the
  /// module's); no diagnostics if it cannot be costed.
  mlir::FailureOr<search::KernelCost> getCost(mlir::Operation *op) const {
    mlir::ScopedDiagnosticHandler quiet(
        op->getContext(), [](mlir::Diagnostic &) { return mlir::success(); });
    mlir::FailureOr<TargetInfo> info =
        target ? mlir::FailureOr<TargetInfo>(*target) : getEnclosingTarget(op);
    if (mlir::failed(info))
      return mlir::failure();
    return search::estimateKernelOpCost(op, *info, costOptions);
  }

  /// getCost of a custom kernel built beside the one it replaces, if it
  /// passes the verifiers and fits the target's blocks.
  mlir::FailureOr<search::KernelCost>
  getValidCost(kernel::CustomOp fused) const {
    {
      mlir::ScopedDiagnosticHandler quiet(
          fused->getContext(),
          [](mlir::Diagnostic &) { return mlir::success(); });
      if (mlir::failed(mlir::verify(fused)))
        return mlir::failure();
    }
    return getCost(fused);
  }
};

/// Merges custom kernels with the same launch into one where the cost model
/// finds it faster (MergeCustomKernels.cpp).
void populateMergeCustomKernelsPatterns(mlir::RewritePatternSet &patterns,
                                        std::optional<TargetInfo> target,
                                        search::CostModelOptions costOptions);

} // namespace mlsopt::fusion

#endif // MLSOPT_LIB_TRANSFORMS_KERNELFUSIONSUPPORT_H
