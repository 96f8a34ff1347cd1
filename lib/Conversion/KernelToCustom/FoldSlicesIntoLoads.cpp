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

#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

/// The slice of `view` (static, unit strides) with `type`.
Value createSlice(PatternRewriter &rewriter, Location loc,
                  RankedTensorType type, Value view, ArrayRef<int64_t> offsets,
                  ArrayRef<int64_t> sizes) {
  MLIRContext *context = rewriter.getContext();
  SmallVector<int64_t> strides(offsets.size(), 1);
  return tensor::ExtractSliceOp::create(
      rewriter, loc, type, view, getAsIndexOpFoldResult(context, offsets),
      getAsIndexOpFoldResult(context, sizes),
      getAsIndexOpFoldResult(context, strides));
}

/// A reshape of `source` to `type` by `reassociation` before `before`: an
/// equal one in its block (moved up if it comes later: it reads only
/// `source`, defined before `before`), so that the views made for the q, k
/// and v of one projection are one value, or a new one.
template <typename ReshapeOp>
Value getOrCreateView(PatternRewriter &rewriter, Operation *before,
                      RankedTensorType type, Value source,
                      ArrayRef<ReassociationIndices> reassociation) {
  for (Operation *user : source.getUsers()) {
    auto view = dyn_cast<ReshapeOp>(user);
    if (!view || view->getBlock() != before->getBlock() ||
        view.getResultType() != type ||
        view.getReassociationIndices() != reassociation)
      continue;
    if (before->isBeforeInBlock(view))
      rewriter.moveOpBefore(view, before);
    return view.getResult();
  }
  return ReshapeOp::create(rewriter, before->getLoc(), type, source,
                           reassociation);
}

/// expand_shape(slice(x)) is slice(expand_shape(x)) where the slice of
/// each dim that is split holds whole rows of the dims after the first it
/// is split into: the heads of q, k or v sliced from a fused projection
/// ([s, 3 * h * d] -> [s, h * d] -> [s, h, d]) are heads h..2h-1 of the
/// projection's view [s, 3 * h, d]. A kernel that reads them then reads
/// the projection in place.
struct SliceBeforeExpandShape : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto slice = expand.getSrc().getDefiningOp<tensor::ExtractSliceOp>();
    RankedTensorType resultType = expand.getResultType();
    if (!slice || !isWindowSlice(slice) || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(expand, "does not view a slice");
    ArrayRef<int64_t> sourceShape = slice.getSourceType().getShape();
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> shape = resultType.getShape();
    SmallVector<int64_t> viewShape, viewOffsets, viewSizes;
    for (auto [i, group] : llvm::enumerate(expand.getReassociationIndices())) {
      ArrayRef<int64_t> inner = ArrayRef<int64_t>(group).drop_front();
      int64_t rows = 1;
      for (int64_t d : inner)
        rows *= shape[d];
      if (offsets[i] % rows != 0 || sourceShape[i] % rows != 0)
        return rewriter.notifyMatchFailure(expand, "splits parts of rows");
      viewShape.push_back(sourceShape[i] / rows);
      viewOffsets.push_back(offsets[i] / rows);
      viewSizes.push_back(shape[group.front()]);
      for (int64_t d : inner) {
        viewShape.push_back(shape[d]);
        viewOffsets.push_back(0);
        viewSizes.push_back(shape[d]);
      }
    }
    Value view = getOrCreateView<tensor::ExpandShapeOp>(
        rewriter, expand, resultType.clone(viewShape), slice.getSource(),
        expand.getReassociationIndices());
    rewriter.replaceOp(expand,
                       createSlice(rewriter, expand.getLoc(), resultType, view,
                                   viewOffsets, viewSizes));
    return success();
  }
};

/// collapse_shape(slice(x)) is slice(collapse_shape(x)) where the slice of
/// each group of collapsed dims is contiguous: dims of size 1, then one
/// cut dim, then whole dims.
struct SliceBeforeCollapseShape : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto slice = collapse.getSrc().getDefiningOp<tensor::ExtractSliceOp>();
    RankedTensorType resultType = collapse.getResultType();
    if (!slice || !isWindowSlice(slice) || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(collapse, "does not view a slice");
    ArrayRef<int64_t> sourceShape = slice.getSourceType().getShape();
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    SmallVector<int64_t> viewShape, viewOffsets, viewSizes;
    for (ReassociationIndices group : collapse.getReassociationIndices()) {
      // Past the first dim the slice cuts, every dim must be whole; before
      // it, every dim must be one element.
      bool cut = false;
      int64_t extent = 1, offset = 0, size = 1;
      for (int64_t d : group) {
        if (cut && sizes[d] != sourceShape[d])
          return rewriter.notifyMatchFailure(collapse, "not contiguous");
        if (!cut && sizes[d] != 1)
          cut = true;
        extent *= sourceShape[d];
        offset = offset * sourceShape[d] + offsets[d];
        size *= sizes[d];
      }
      viewShape.push_back(extent);
      viewOffsets.push_back(offset);
      viewSizes.push_back(size);
    }
    Value view = getOrCreateView<tensor::CollapseShapeOp>(
        rewriter, collapse, resultType.clone(viewShape), slice.getSource(),
        collapse.getReassociationIndices());
    rewriter.replaceOp(collapse,
                       createSlice(rewriter, collapse.getLoc(), resultType,
                                   view, viewOffsets, viewSizes));
    return success();
  }
};

/// Every input of a custom kernel that is a window slice (isWindowSlice):
/// the kernel reads the slice's source instead, each load through the
/// slice's window (a window of a window starts at the sum of their
/// offsets). A source the kernel reads already is passed once.
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

/// A kernel.custom input that is a linalg.broadcast (a weight shared by a
/// batch, torch.matmul of a matrix by a batch of them; K and V repeated over
/// query heads) becomes the broadcast's source, viewed with a dim of size 1
/// where the broadcast adds one. Each block then reads the one copy the
/// broadcast would have written many times: its loads' tiles hold one
/// element along those dims, and a grid dim that split one no longer maps
/// to it. The broadcast, which the GPU lowering launches as a copy kernel,
/// goes when nothing else reads it.
struct FoldBroadcastIntoLoads : OpRewritePattern<kernel::CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernel::CustomOp custom,
                                PatternRewriter &rewriter) const override {
    for (auto [i, input] : llvm::enumerate(custom.getInputs())) {
      auto broadcast = input.getDefiningOp<linalg::BroadcastOp>();
      if (!broadcast || !isCopyOp(*broadcast))
        continue;
      ArrayRef<int64_t> added = broadcast.getDimensions();
      auto sourceType = cast<RankedTensorType>(broadcast.getInput().getType());
      if (sourceType.getRank() == 0)
        continue;
      BlockArgument arg = custom.getInputArgument(i);
      SmallVector<block::LoadOp> loads;
      bool foldable = true;
      for (Operation *user : arg.getUsers()) {
        auto load = dyn_cast<block::LoadOp>(user);
        // A load of one element along each added dim, which the loop does
        // not walk; a window would cut the view instead.
        ArrayRef<int64_t> tile =
            load ? cast<RankedTensorType>(load.getType()).getShape()
                 : ArrayRef<int64_t>();
        if (!load || load.getOffsets() || llvm::any_of(added, [&](int64_t d) {
              std::optional<uint64_t> fmap = load.getFmap();
              return tile[d] != 1 || (fmap && static_cast<int64_t>(*fmap) == d);
            })) {
          foldable = false;
          break;
        }
        loads.push_back(load);
      }
      if (!foldable || loads.empty())
        continue;
      // The source with a dim of size 1 at each added dim, each grouped
      // with the source dim after it (or, past the last, before it).
      ArrayRef<int64_t> resultShape = broadcast.getInit().getType().getShape();
      SmallVector<int64_t> viewShape;
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t d = 0, e = resultShape.size(); d < e; ++d) {
        bool isAdded = llvm::is_contained(added, d);
        viewShape.push_back(isAdded ? 1 : resultShape[d]);
        pending.push_back(d);
        if (!isAdded) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      llvm::append_range(groups.back(), pending);
      auto viewType = sourceType.clone(viewShape);
      rewriter.setInsertionPoint(custom);
      Value view = getOrCreateView<tensor::ExpandShapeOp>(
          rewriter, custom, viewType, broadcast.getInput(), groups);
      rewriter.modifyOpInPlace(custom, [&] {
        for (block::LoadOp load : loads) {
          GridToTensorDims dims;
          for (unsigned g = 0; g < 3; ++g) {
            std::optional<int64_t> d = load.getImap().getTensorDim(g);
            if (d && !llvm::is_contained(added, *d))
              dims[g] = d;
          }
          load.setImapAttr(block::DimMapAttr::get(rewriter.getContext(), dims));
        }
        custom->setOperand(i, view);
        arg.setType(viewType);
      });
      if (broadcast->use_empty())
        rewriter.eraseOp(broadcast);
      return success();
    }
    return rewriter.notifyMatchFailure(custom, "reads no broadcast");
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

bool mlsopt::isReadInPlace(tensor::ExtractSliceOp slice) {
  if (slice->use_empty() || !isCopyOp(*slice))
    return false;
  // A copy kernel reads through the slice (a broadcast's init is only its
  // shape), as --convert-custom-kernel-to-gpu does.
  return llvm::all_of(slice->getUsers(), [&](Operation *user) {
    return isCopyOp(*user) ||
           (isWindowSlice(slice) &&
            (isa<kernel::CustomOp>(user) || hasDefaultBlockGraph(user)));
  });
}

void mlsopt::populateFoldSlicesIntoLoadsPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldSliceIntoLoads, FoldBroadcastIntoLoads,
               SliceBeforeExpandShape, SliceBeforeCollapseShape>(
      patterns.getContext());
}
