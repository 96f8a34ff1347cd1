//===- FoldSlicesIntoLoads.cpp - tensor.extract_slice into block.load -----===//
//
// Front ends split values with slices: the q, k and v of a fused QKV
// projection, the gate and up halves of a fused gate-up product, the halves
// of a rotary embedding. Left alone, each slice is a copy kernel: a launch,
// and the part written to device memory and read back. A custom kernel
// that reads a slice can read the sliced value instead, through a window on
// its loads, so the copy goes.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlsopt {
#define GEN_PASS_DEF_FOLDSLICESINTOLOADS
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

namespace {

/// Every input of a custom kernel that is such a slice: the kernel reads
/// the slice's source instead, each load through the slice's window (a
/// window of a window starts at the sum of their offsets). An input that
/// is then read twice is kept once.
struct FoldSliceIntoLoads : OpRewritePattern<kernel::CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::CustomOp custom,
                                PatternRewriter &rewriter) const override {
    std::optional<unsigned> index;
    tensor::ExtractSliceOp slice;
    for (auto [i, input] : llvm::enumerate(custom.getInputs())) {
      slice = input.getDefiningOp<tensor::ExtractSliceOp>();
      if (slice && isWindowSlice(slice)) {
        index = i;
        break;
      }
    }
    if (!index)
      return rewriter.notifyMatchFailure(custom, "reads no slice");

    Value source = slice.getSource();
    ArrayRef<int64_t> start = slice.getStaticOffsets();
    BlockArgument arg = custom.getInputArgument(*index);
    // The block-graph verifier lets only block.load read an input.
    SmallVector<block::LoadOp> loads;
    for (Operation *user : arg.getUsers()) {
      auto load = dyn_cast<block::LoadOp>(user);
      if (!load)
        return rewriter.notifyMatchFailure(custom, "an input read by no load");
      loads.push_back(load);
    }
    // The source may be an input already (q and k sliced from one product):
    // the loads read that argument and this input goes.
    auto inputs = custom.getInputs();
    auto existing = llvm::find(inputs, source);
    Value readFrom = existing == inputs.end()
                         ? Value(arg)
                         : custom.getInputArgument(existing - inputs.begin());
    rewriter.modifyOpInPlace(custom, [&] {
      for (block::LoadOp load : loads) {
        SmallVector<int64_t> offsets = load.getWindowOffsets();
        for (auto [offset, s] : llvm::zip_equal(offsets, start))
          offset += s;
        SmallVector<int64_t> sizes = load.getWindowShape();
        load.setOffsets(offsets);
        load.setSizes(sizes);
        load.getSourceMutable().assign(readFrom);
      }
      if (readFrom == arg) {
        custom->setOperand(*index, source);
        arg.setType(source.getType());
      } else {
        custom->eraseOperand(*index);
        custom.getBody().front().eraseArgument(*index);
      }
    });
    if (slice->use_empty())
      rewriter.eraseOp(slice);
    return success();
  }
};

struct FoldSlicesIntoLoadsPass
    : mlsopt::impl::FoldSlicesIntoLoadsBase<FoldSlicesIntoLoadsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldSlicesIntoLoadsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

bool mlsopt::isWindowSlice(tensor::ExtractSliceOp slice) {
  return slice.hasUnitStride() && slice.getSourceType().hasStaticShape() &&
         slice.getType().getRank() == slice.getSourceType().getRank() &&
         !ShapedType::isDynamicShape(slice.getStaticOffsets()) &&
         !ShapedType::isDynamicShape(slice.getStaticSizes());
}

bool mlsopt::isReadThroughWindows(tensor::ExtractSliceOp slice) {
  return isWindowSlice(slice) && !slice->use_empty() &&
         llvm::all_of(slice->getUsers(), [](Operation *user) {
           return isa<kernel::CustomOp>(user) || hasDefaultBlockGraph(user);
         });
}

void mlsopt::populateFoldSlicesIntoLoadsPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldSliceIntoLoads>(patterns.getContext());
}
