//===- SplitResults.cpp - One linalg.generic per result -------------------===//
//
// IREE's fusion, and norms written by hand, compute several results in one
// linalg.generic: a row's sum and sum of squares in one reduction, an
// activation and its gate side by side. Kernel ops have one result each,
// and the import's patterns take generics with one. Where no result's
// payload reads another result's output argument, each result becomes a
// generic of its own over the same inputs, loops and maps, whose payload
// keeps the ops that result needs. The search fuses them again where that
// pays.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlsopt;

namespace {

struct SplitGenericResults : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern<linalg::GenericOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumResults() < 2)
      return rewriter.notifyMatchFailure(op, "not a generic of results");
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    unsigned numInputs = op.getNumDpsInputs();

    // Per result, the payload ops its yielded value needs, in block order.
    SmallVector<SmallVector<Operation *>> needs;
    for (unsigned r = 0; r < op.getNumResults(); ++r) {
      llvm::SmallPtrSet<Operation *, 16> needed;
      SmallVector<Value> worklist{yield.getOperand(r)};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          if (arg.getOwner() == &body && arg.getArgNumber() >= numInputs &&
              arg.getArgNumber() != numInputs + r)
            return rewriter.notifyMatchFailure(
                op, "a result reads another result's output");
          continue;
        }
        Operation *def = v.getDefiningOp();
        if (def->getBlock() != &body || !needed.insert(def).second)
          continue;
        if (def->getNumRegions() != 0)
          return rewriter.notifyMatchFailure(op, "a payload op has regions");
        llvm::append_range(worklist, def->getOperands());
      }
      SmallVector<Operation *> ops;
      for (Operation &payloadOp : body.without_terminator())
        if (needed.contains(&payloadOp))
          ops.push_back(&payloadOp);
      needs.push_back(std::move(ops));
    }

    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> results;
    for (unsigned r = 0; r < op.getNumResults(); ++r) {
      OpOperand *init = op.getDpsInitOperand(r);
      SmallVector<AffineMap> ownMaps(maps.begin(), maps.begin() + numInputs);
      ownMaps.push_back(maps[numInputs + r]);
      auto split = linalg::GenericOp::create(
          rewriter, op.getLoc(), TypeRange{op->getResult(r).getType()},
          op.getDpsInputs(), ValueRange{init->get()}, ownMaps,
          op.getIteratorTypesArray());
      SmallVector<Type> argTypes;
      SmallVector<Location> argLocs;
      for (unsigned i = 0; i < numInputs; ++i) {
        argTypes.push_back(body.getArgument(i).getType());
        argLocs.push_back(body.getArgument(i).getLoc());
      }
      argTypes.push_back(body.getArgument(numInputs + r).getType());
      argLocs.push_back(body.getArgument(numInputs + r).getLoc());
      Block *block =
          rewriter.createBlock(&split.getRegion(), {}, argTypes, argLocs);
      IRMapping mapping;
      for (unsigned i = 0; i < numInputs; ++i)
        mapping.map(body.getArgument(i), block->getArgument(i));
      mapping.map(body.getArgument(numInputs + r),
                  block->getArgument(numInputs));
      for (Operation *payloadOp : needs[r])
        rewriter.clone(*payloadOp, mapping);
      linalg::YieldOp::create(rewriter, yield.getLoc(),
                              mapping.lookupOrDefault(yield.getOperand(r)));
      rewriter.setInsertionPoint(op);
      results.push_back(split.getResult(0));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlsopt::populateSplitResultsPatterns(RewritePatternSet &patterns) {
  patterns.add<SplitGenericResults>(patterns.getContext());
}
