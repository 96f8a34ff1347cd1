//===- IndexTables.cpp - Floats computed from loop indices as constants ---===//
//
// Front ends build position-dependent terms inside a generic's payload:
// ALiBi's bias is slope * float(j - i), a relative position is
// float(i - j) clamped, a scale table float(i) / n. The payload reads its
// loop indices (linalg.index), which no kernel op does. The integers such a
// conversion reads depend on the indices alone, so each value it takes is
// known before the program runs: this pattern computes them into a dense
// constant over the loops they depend on, which the generic then reads as
// one more input. The rest of the payload is elementwise, imported as
// usual; kernel programs take constants as inputs.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// The largest table computed: 4 Mi elements (2048 x 2048 positions), 16 MiB
/// in f32, built in well under a second.
constexpr int64_t kMaxTableElements = int64_t(1) << 22;

/// Integer payload ops the table's values are computed through.
bool isIntegerOpOfIndices(Operation *op) {
  return isa<linalg::IndexOp, arith::ConstantOp, arith::IndexCastOp,
             arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
             arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp,
             arith::MaxSIOp, arith::MinSIOp, arith::AndIOp, arith::OrIOp,
             arith::XOrIOp, arith::CmpIOp, arith::SelectOp>(op);
}

/// The ops `value` is computed from when they are all integer ops of loop
/// indices and constants: the integer constants (which may be defined
/// outside the payload) first, then the payload's ops in block order.
FailureOr<SmallVector<Operation *>> getIndexSlice(Value value, Block &body) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !isIntegerOpOfIndices(def))
      return failure();
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      if (!isa<IntegerAttr>(constant.getValue()))
        return failure();
    } else if (def->getBlock() != &body) {
      return failure();
    }
    if (!slice.insert(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered;
  for (Operation *op : slice)
    if (op->getBlock() != &body)
      ordered.push_back(op);
  for (Operation &op : body)
    if (slice.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// The bit width of an integer or index value (index as 64 bits).
unsigned getWidth(Value value) {
  return value.getType().isIndex() ? 64
                                   : value.getType().getIntOrFloatBitWidth();
}

/// Computes the slice's values at one point of the loops, wrapping each to
/// its type's width; false on a division by zero.
class SliceInterpreter {
public:
  explicit SliceInterpreter(ArrayRef<Operation *> slice) : slice(slice) {
    for (auto [i, op] : llvm::enumerate(slice))
      position[op] = i;
    values.resize(slice.size());
  }

  bool run(ArrayRef<int64_t> indices) {
    for (auto [i, op] : llvm::enumerate(slice)) {
      std::optional<APInt> v = compute(op, indices);
      if (!v)
        return false;
      values[i] = *v;
    }
    return true;
  }

  const APInt &valueOf(Operation *op) const {
    return values[position.lookup(op)];
  }

private:
  const APInt &operand(Operation *op, unsigned i) const {
    return valueOf(op->getOperand(i).getDefiningOp());
  }

  std::optional<APInt> compute(Operation *op, ArrayRef<int64_t> indices) {
    unsigned width = getWidth(op->getResult(0));
    if (auto index = dyn_cast<linalg::IndexOp>(op))
      return APInt(64, indices[index.getDim()], /*isSigned=*/true);
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      return cast<IntegerAttr>(constant.getValue())
          .getValue()
          .sextOrTrunc(width);
    if (isa<arith::IndexCastOp, arith::ExtSIOp>(op))
      return operand(op, 0).sextOrTrunc(width);
    if (isa<arith::IndexCastUIOp, arith::ExtUIOp, arith::TruncIOp>(op))
      return operand(op, 0).zextOrTrunc(width);
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      return APInt(1, arith::applyCmpPredicate(cmp.getPredicate(),
                                               operand(op, 0), operand(op, 1)));
    if (isa<arith::SelectOp>(op))
      return operand(op, 0).isOne() ? operand(op, 1) : operand(op, 2);
    const APInt &a = operand(op, 0), &b = operand(op, 1);
    if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp>(op) &&
        b.isZero())
      return std::nullopt;
    return llvm::TypeSwitch<Operation *, APInt>(op)
        .Case([&](arith::AddIOp) { return a + b; })
        .Case([&](arith::SubIOp) { return a - b; })
        .Case([&](arith::MulIOp) { return a * b; })
        .Case([&](arith::DivSIOp) { return a.sdiv(b); })
        .Case([&](arith::RemSIOp) { return a.srem(b); })
        .Case([&](arith::FloorDivSIOp) {
          APInt q = a.sdiv(b);
          // Rounds toward minus infinity where the signs differ.
          if (!a.srem(b).isZero() && (a.isNegative() != b.isNegative()))
            q -= 1;
          return q;
        })
        .Case([&](arith::MaxSIOp) { return a.sge(b) ? a : b; })
        .Case([&](arith::MinSIOp) { return a.sle(b) ? a : b; })
        .Case([&](arith::AndIOp) { return a & b; })
        .Case([&](arith::OrIOp) { return a | b; })
        .Case([&](arith::XOrIOp) { return a ^ b; });
  }

  ArrayRef<Operation *> slice;
  DenseMap<Operation *, unsigned> position;
  SmallVector<APInt> values;
};

struct IndexTableToConstant : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern<linalg::GenericOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic loop ranges");
    Block &body = op.getRegion().front();
    // The first conversion to a float of an integer computed from the loop
    // indices alone; the pattern applies again for the next.
    Operation *conversion = nullptr;
    SmallVector<Operation *> slice;
    for (Operation &payloadOp : body.without_terminator()) {
      if (!isa<arith::SIToFPOp, arith::UIToFPOp>(payloadOp))
        continue;
      FailureOr<SmallVector<Operation *>> s =
          getIndexSlice(payloadOp.getOperand(0), body);
      if (failed(s))
        continue;
      conversion = &payloadOp;
      slice = std::move(*s);
      break;
    }
    if (!conversion)
      return rewriter.notifyMatchFailure(
          op, "no float computed from the loop indices alone");

    // The loops the table depends on, in loop order, and its shape.
    SmallVector<unsigned> dims;
    for (Operation *sliceOp : slice)
      if (auto index = dyn_cast<linalg::IndexOp>(sliceOp))
        if (!llvm::is_contained(dims, index.getDim()))
          dims.push_back(index.getDim());
    llvm::sort(dims);
    SmallVector<int64_t> shape;
    int64_t elements = 1;
    for (unsigned d : dims) {
      shape.push_back(ranges[d]);
      elements *= ranges[d];
    }
    if (elements > kMaxTableElements)
      return rewriter.notifyMatchFailure(op, "the table would be too large");

    auto floatType = cast<FloatType>(conversion->getResult(0).getType());
    bool isSigned = isa<arith::SIToFPOp>(conversion);
    Operation *source = conversion->getOperand(0).getDefiningOp();
    SliceInterpreter interpreter(slice);
    SmallVector<APFloat> table;
    table.reserve(elements);
    SmallVector<int64_t> indices(ranges.size(), 0);
    for (int64_t e = 0; e < elements; ++e) {
      // Row-major over `dims`: the last dim fastest.
      for (int64_t rest = e, i = dims.size() - 1; i >= 0; --i) {
        indices[dims[i]] = rest % shape[i];
        rest /= shape[i];
      }
      if (!interpreter.run(indices))
        return rewriter.notifyMatchFailure(op, "a division by zero");
      APFloat value(floatType.getFloatSemantics());
      value.convertFromAPInt(interpreter.valueOf(source), isSigned,
                             APFloat::rmNearestTiesToEven);
      table.push_back(value);
    }

    Location loc = op.getLoc();
    auto tableType = RankedTensorType::get(shape, floatType);
    Value constant = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(tableType, table));
    SmallVector<AffineExpr> tableDims;
    for (unsigned d : dims)
      tableDims.push_back(rewriter.getAffineDimExpr(d));
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numInputs = op.getNumDpsInputs();
    maps.insert(maps.begin() + numInputs,
                AffineMap::get(ranges.size(), 0, tableDims, getContext()));
    SmallVector<Value> inputs(op.getInputs());
    inputs.push_back(constant);
    auto generic = linalg::GenericOp::create(rewriter, loc, op.getResultTypes(),
                                             inputs, op.getOutputs(), maps,
                                             op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                                generic.getRegion().end());
    Block &moved = generic.getRegion().front();
    BlockArgument read = moved.insertArgument(numInputs, floatType, loc);
    rewriter.replaceAllUsesWith(conversion->getResult(0), read);
    rewriter.eraseOp(conversion);
    // The index computation is dead unless something else still reads it.
    for (Operation *sliceOp : llvm::reverse(slice))
      if (sliceOp->getBlock() == &moved && sliceOp->use_empty())
        rewriter.eraseOp(sliceOp);
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mlsopt::populateIndexTablePatterns(RewritePatternSet &patterns) {
  patterns.add<IndexTableToConstant>(patterns.getContext());
}
