//===- ConcatToKernel.cpp - tensor.concat as kernel.concat ----------------===//
//
// torch.cat reaches linalg as tensor.concat (torch-mlir, and upstream's
// tensor dialect since it has one), or, from older front ends and from
// tensor.concat's own decomposition, as tensor.insert_slice ops that fill a
// tensor.empty piece by piece along one dim. A concatenation the import leaves
// as a tensor op cuts the program in two for the search and keeps the function
// off the GPU; as kernel.concat it is a kernel op like the others, which
// the search may fuse and the GPU pipeline launches. A tensor.pad by a
// constant is such a concatenation too, with splat constants around it.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// Kernel tensors are static, of rank 1 or more, in f16, bf16 or f32.
bool isKernelTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.hasStaticShape() && tensor.getRank() > 0 &&
         isa<Float16Type, BFloat16Type, Float32Type>(tensor.getElementType());
}

struct ConcatToKernel : public OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern<tensor::ConcatOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResultType();
    if (!isKernelTensor(type) ||
        !llvm::all_of(op.getInputs().getTypes(), isKernelTensor))
      return rewriter.notifyMatchFailure(
          op, "not a concatenation of static f16, bf16 or f32 tensors");
    rewriter.replaceOpWithNewOp<kernel::ConcatOp>(
        op, type, op.getInputs(), static_cast<int64_t>(op.getDim()));
    return success();
  }
};

/// The last of a chain of tensor.insert_slice ops that write whole slabs of
/// a tensor.empty along one dim, covering it without overlap, each slab read
/// only by the next insert: tensor.concat of the slabs in offset order.
/// Into any other tensor (a KV cache, an argument, that a decode step writes
/// its new rows into), the slabs need not cover it: what they leave is
/// extracted from that tensor, between them in the concatenation.
struct InsertSlicesToConcat : public OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern<tensor::InsertSliceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getDestType();
    if (!isKernelTensor(type))
      return rewriter.notifyMatchFailure(op, "not a kernel tensor");
    // Only from the last insert: one that another insert of the chain reads
    // is part of a larger concatenation.
    if (llvm::any_of(op->getUsers(), [](Operation *user) {
          return isa<tensor::InsertSliceOp>(user);
        }))
      return rewriter.notifyMatchFailure(op, "not the last insert");
    SmallVector<tensor::InsertSliceOp> inserts;
    Value dest = op.getResult();
    while (auto insert = dest.getDefiningOp<tensor::InsertSliceOp>()) {
      if (!inserts.empty() && !insert->hasOneUse())
        return rewriter.notifyMatchFailure(op, "a partial result is read");
      inserts.push_back(insert);
      dest = insert.getDest();
    }
    bool intoEmpty = dest.getDefiningOp<tensor::EmptyOp>() != nullptr;
    if (intoEmpty && inserts.size() < 2)
      return rewriter.notifyMatchFailure(op, "one slab of a tensor.empty");
    // Each slab spans every dim but `dim`, where it starts at `offset`.
    std::optional<int64_t> dim;
    SmallVector<std::pair<int64_t, Value>> slabs;
    for (tensor::InsertSliceOp insert : inserts) {
      if (!insert.hasUnitStride() ||
          insert.getSourceType().getRank() != type.getRank() ||
          !insert.getSourceType().hasStaticShape() ||
          ShapedType::isDynamicShape(insert.getStaticOffsets()))
        return rewriter.notifyMatchFailure(op, "not a static slab");
      ArrayRef<int64_t> offsets = insert.getStaticOffsets();
      ArrayRef<int64_t> sizes = insert.getSourceType().getShape();
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (offsets[d] == 0 && sizes[d] == type.getDimSize(d))
          continue;
        if (dim && *dim != d)
          return rewriter.notifyMatchFailure(op, "slabs along two dims");
        dim = d;
      }
      slabs.emplace_back(dim ? offsets[*dim] : 0, insert.getSource());
    }
    if (!dim)
      return rewriter.notifyMatchFailure(op, "an insert writes everything");
    llvm::stable_sort(
        slabs, [](const auto &a, const auto &b) { return a.first < b.first; });
    // The slab of `dest` from `begin` to `end` along the dim.
    auto extract = [&](int64_t begin, int64_t end) -> Value {
      SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape()),
          strides(type.getRank(), 1);
      offsets[*dim] = begin;
      sizes[*dim] = end - begin;
      MLIRContext *context = rewriter.getContext();
      return tensor::ExtractSliceOp::create(
          rewriter, op.getLoc(), dest, getAsIndexOpFoldResult(context, offsets),
          getAsIndexOpFoldResult(context, sizes),
          getAsIndexOpFoldResult(context, strides));
    };
    // The pieces in order: an inserted slab, or the range of `dest`
    // between two (no slab, {begin, end}). All checked before any op is
    // made: a pattern that fails must leave the IR as it was (overlapping
    // writes into an argument left extract_slice ops behind, and the
    // driver never converged).
    int64_t next = 0, extent = type.getDimSize(*dim);
    SmallVector<std::pair<Value, std::pair<int64_t, int64_t>>> pieces;
    for (auto [offset, source] : slabs) {
      if (offset < next || (offset > next && intoEmpty))
        return rewriter.notifyMatchFailure(op, "slabs leave a gap or overlap");
      if (offset > next)
        pieces.push_back({Value(), {next, offset}});
      next = offset + cast<RankedTensorType>(source.getType()).getDimSize(*dim);
      pieces.push_back({source, {}});
    }
    if (next > extent || (next < extent && intoEmpty))
      return rewriter.notifyMatchFailure(op, "slabs do not cover the tensor");
    if (next < extent)
      pieces.push_back({Value(), {next, extent}});
    SmallVector<Value> inputs;
    for (auto [source, range] : pieces)
      inputs.push_back(source ? source : extract(range.first, range.second));
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, type, *dim, inputs);
    return success();
  }
};

/// torch's F.pad by a constant (sequence padding; -inf before a softmax) is
/// a tensor.pad with static widths: along each padded dim, the
/// concatenation of splat constants around the tensor. Tensor constants are
/// values kernel programs may hold (the search and the verifier take them
/// as inputs, the GPU pipeline as data).
struct PadToConcat : public OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern<tensor::PadOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::PadOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResultType();
    if (!isKernelTensor(type) || !isKernelTensor(op.getSourceType()) ||
        ShapedType::isDynamicShape(op.getStaticLow()) ||
        ShapedType::isDynamicShape(op.getStaticHigh()))
      return rewriter.notifyMatchFailure(op, "not a static pad of a kernel "
                                             "tensor");
    FloatAttr fill;
    Value padding = op.getConstantPaddingValue();
    if (!padding || !matchPattern(padding, m_Constant(&fill)))
      return rewriter.notifyMatchFailure(op, "not padded by a constant");
    Location loc = op.getLoc();
    Value padded = op.getSource();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t low = op.getStaticLow()[d], high = op.getStaticHigh()[d];
      if (low == 0 && high == 0)
        continue;
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(padded.getType()).getShape());
      auto splat = [&](int64_t width) -> Value {
        shape[d] = width;
        auto pieceType = RankedTensorType::get(shape, type.getElementType());
        return arith::ConstantOp::create(
            rewriter, loc, pieceType,
            DenseElementsAttr::get(pieceType, fill.getValue()));
      };
      SmallVector<Value> pieces;
      if (low > 0)
        pieces.push_back(splat(low));
      pieces.push_back(padded);
      if (high > 0)
        pieces.push_back(splat(high));
      padded = tensor::ConcatOp::create(rewriter, loc, d, pieces);
    }
    rewriter.replaceOp(op, padded);
    return success();
  }
};

} // namespace

void mlsopt::populateConcatToKernelPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatToKernel, InsertSlicesToConcat, PadToConcat>(
      patterns.getContext());
}
