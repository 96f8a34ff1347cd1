//===- ConcatToKernel.cpp - tensor.concat as kernel.concat ----------------===//
//
// torch.cat reaches linalg as tensor.concat (torch-mlir, and upstream's
// tensor dialect since it has one). A concatenation the import leaves as a
// tensor op cuts the program in two for the search and keeps the function
// off the GPU; as kernel.concat it is a kernel op like the others, which
// the search may fuse and the GPU pipeline launches.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlsopt;

namespace {

struct ConcatToKernel : public OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern<tensor::ConcatOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResultType();
    // Kernel tensors are static, of rank 1 or more, in f16, bf16 or f32.
    auto isKernelTensor = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return tensor && tensor.hasStaticShape() && tensor.getRank() > 0 &&
             isa<Float16Type, BFloat16Type, Float32Type>(
                 tensor.getElementType());
    };
    if (!isKernelTensor(type) ||
        !llvm::all_of(op.getInputs().getTypes(), isKernelTensor))
      return rewriter.notifyMatchFailure(
          op, "not a concatenation of static f16, bf16 or f32 tensors");
    rewriter.replaceOpWithNewOp<kernel::ConcatOp>(
        op, type, op.getInputs(), static_cast<int64_t>(op.getDim()));
    return success();
  }
};

} // namespace

void mlsopt::populateConcatToKernelPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatToKernel>(patterns.getContext());
}
