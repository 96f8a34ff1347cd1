//===- TileContractionsForCPU.cpp - Cache-friendly contraction loops ------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlsopt {
#define GEN_PASS_DEF_TILECONTRACTIONSFORCPU
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

/// Tile sizes: a block of C of 32 x 256 f32 (32 KiB) stays in L1/L2 while
/// a 256 x 256 tile of B (256 KiB) is reused by its 32 rows.
constexpr int64_t kRowTile = 32;
constexpr int64_t kColumnTile = 256;
constexpr int64_t kTermTile = 256;

/// Whether dim `dim` is the last index of `op`'s operand `operand`.
bool isIndexedLastBy(linalg::LinalgOp op, OpOperand &operand, unsigned dim) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (map.getNumResults() == 0)
    return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  return last && last.getPosition() == dim;
}

/// The contraction dims of `op` when the pass applies to it: a contraction
/// over one K dim on buffers with static loop ranges whose rhs and result
/// both run along the innermost N dim, so that N innermost reads and writes
/// rows.
FailureOr<linalg::ContractionDimensions> getTileableDims(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return failure();
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.empty() || dims->m.empty())
    return failure();
  // One K dim: tiling the innermost of several would run its tile loop
  // outside the others, and sum each element's terms in another order.
  if (dims->k.size() != 1)
    return failure();
  unsigned n = dims->n.back();
  if (!isIndexedLastBy(op, *op.getDpsInitOperand(0), n) ||
      !isIndexedLastBy(op, *op.getDpsInputOperand(1), n))
    return failure();
  return dims;
}

struct TileContractionsForCPUPass
    : mlsopt::impl::TileContractionsForCPUBase<TileContractionsForCPUPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, linalg::ContractionDimensions>>
        contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (FailureOr<linalg::ContractionDimensions> dims = getTileableDims(op);
          succeeded(dims))
        contractions.emplace_back(op, *dims);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, dims] : contractions)
      if (failed(rewrite(rewriter, op, dims)))
        return signalPassFailure();
  }

  LogicalResult rewrite(RewriterBase &rewriter, linalg::LinalgOp op,
                        const linalg::ContractionDimensions &dims) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // The innermost M, N and K dims are tiled where they are larger than
    // a tile; the tile loops keep the op's order, so each element of C
    // meets its K tiles in order.
    SmallVector<int64_t> tileSizes(ranges.size(), 0);
    auto tile = [&](unsigned dim, int64_t size) {
      if (ranges[dim] > size)
        tileSizes[dim] = size;
    };
    tile(dims.m.back(), kRowTile);
    tile(dims.n.back(), kColumnTile);
    tile(dims.k.back(), kTermTile);

    rewriter.setInsertionPoint(op);
    linalg::LinalgOp inner = op;
    if (llvm::any_of(tileSizes, [](int64_t s) { return s != 0; })) {
      linalg::LinalgTilingOptions options;
      options.setTileSizes(tileSizes);
      FailureOr<linalg::TiledLinalgOp> tiled =
          linalg::tileLinalgOp(rewriter, op, options);
      if (failed(tiled))
        return op->emitOpError("could not be tiled for the CPU");
      rewriter.eraseOp(op);
      inner = tiled->op;
    }

    auto generic = dyn_cast<linalg::GenericOp>(inner.getOperation());
    if (!generic) {
      rewriter.setInsertionPoint(inner);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, inner);
      if (failed(generalized))
        return inner->emitOpError("could not be generalized for the CPU");
      generic = *generalized;
    }
    // Loops batch, M, K, N from outside in; dims in none of these (none
    // for the matmuls mlsopt lowers) go outermost.
    SmallVector<unsigned> order;
    for (ArrayRef<unsigned> group :
         {ArrayRef<unsigned>(dims.batch), ArrayRef<unsigned>(dims.m),
          ArrayRef<unsigned>(dims.k), ArrayRef<unsigned>(dims.n)})
      order.append(group.begin(), group.end());
    SmallVector<unsigned> interchange;
    for (unsigned dim = 0; dim < ranges.size(); ++dim)
      if (!llvm::is_contained(order, dim))
        interchange.push_back(dim);
    interchange.append(order);
    if (failed(linalg::interchangeGenericOp(rewriter, generic, interchange)))
      return generic->emitOpError("could not be interchanged for the CPU");
    return success();
  }
};

} // namespace
