//===- BlockOps.cpp - Block dialect operations ----------------------------===//

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <limits>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::block;

static std::array<int64_t, 3> gridOf(Operation *op) {
  auto custom = op->getParentOfType<kernel::CustomOp>();
  kernel::Dim3Attr grid = custom.getGrid();
  return {grid.getX(), grid.getY(), grid.getZ()};
}

/// The dims of `shape` that tiles of `tile` placed by `map` on the grid of
/// `op`'s kernel, and by the `iterations` of a loop along `loopDim`, split
/// raggedly; along a dim both split, each block's tiles span `iterations`
/// tiles (blockSpan).
static llvm::SmallBitVector getRaggedSplits(
    Operation *op, DimMapAttr map, Value tile, ArrayRef<int64_t> shape,
    std::optional<int64_t> loopDim = std::nullopt, int64_t iterations = 1) {
  std::array<int64_t, 3> grid = gridOf(op);
  ArrayRef<int64_t> tileShape =
      cast<RankedTensorType>(tile.getType()).getShape();
  llvm::SmallBitVector ragged(shape.size());
  for (unsigned g = 0; g < 3; ++g)
    if (std::optional<int64_t> d = map.getTensorDim(g))
      if (*d < static_cast<int64_t>(shape.size()) &&
          *d < static_cast<int64_t>(tileShape.size()) &&
          isRaggedTile(blockSpan(tileShape[*d], *d, loopDim, iterations),
                       shape[*d], grid[g]))
        ragged.set(*d);
  if (loopDim && *loopDim < static_cast<int64_t>(shape.size()) &&
      *loopDim < static_cast<int64_t>(tileShape.size()) &&
      isRaggedTile(tileShape[*loopDim], shape[*loopDim], iterations) &&
      !llvm::is_contained(map.getGridToTensorDims(), loopDim))
    ragged.set(*loopDim);
  return ragged;
}

//===----------------------------------------------------------------------===//
// Widening matmuls: `: tensor<8x64xbf16>, tensor<64x96xbf16> ->
// tensor<8x96xf32>`
//===----------------------------------------------------------------------===//

Type block::getLoadedElementType(Type source, Type wanted) {
  return isMaskOrIntegerElementType(source) ? source : wanted;
}

bool block::isWidenedResult(TypeRange inferred, TypeRange actual) {
  if (inferred == actual)
    return true;
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  auto from = dyn_cast<RankedTensorType>(inferred.front());
  auto to = dyn_cast<RankedTensorType>(actual.front());
  return from && to &&
         (from.getElementType().isF16() || from.getElementType().isBF16()) &&
         to == from.clone(Float32Type::get(from.getContext()));
}

ParseResult block::parseWidenedResult(OpAsmParser &parser, Type &result,
                                      Type lhs, Type rhs) {
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  // Not widened: the result the operands infer. Operands that infer none
  // are reported at the op, as for the ops whose result is never spelled
  // out.
  SmallVector<Type, 1> inferred;
  if (failed(inferFromOperands(
          parser.getEncodedSourceLoc(parser.getNameLoc()), {lhs, rhs},
          [](ArrayRef<ArrayRef<int64_t>> shapes) {
            return matmulShape(shapes[0], shapes[1]);
          },
          inferred)))
    return failure();
  result = inferred.front();
  return success();
}

void block::printWidenedResult(OpAsmPrinter &printer, Operation *, Type result,
                               Type lhs, Type) {
  if (cast<RankedTensorType>(result).getElementType() !=
      cast<RankedTensorType>(lhs).getElementType())
    printer << " -> " << result;
}

//===----------------------------------------------------------------------===//
// Accumulator lists: `(sum, max, rescale by 1)`
//===----------------------------------------------------------------------===//

static ParseResult parseAccumulators(OpAsmParser &parser, ArrayAttr &attr) {
  SmallVector<Attribute> accumulators;
  auto parseOne = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<AccumKind> kind = symbolizeAccumKind(keyword);
    if (!kind)
      return parser.emitError(loc, "unknown accumulator '")
             << keyword << "'; expected sum, max, mean, rms or rescale";
    std::optional<int64_t> scaleBy;
    if (succeeded(parser.parseOptionalKeyword("by"))) {
      int64_t index = 0;
      if (parser.parseInteger(index))
        return failure();
      scaleBy = index;
    }
    auto acc = AccumulatorAttr::getChecked(
        [&] { return parser.emitError(loc); }, parser.getContext(), *kind,
        scaleBy);
    if (!acc)
      return failure();
    accumulators.push_back(acc);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseOne))
    return failure();
  attr = parser.getBuilder().getArrayAttr(accumulators);
  return success();
}

static void printAccumulators(OpAsmPrinter &printer, Operation *,
                              ArrayAttr attr) {
  printer << "(";
  llvm::interleaveComma(attr, printer, [&](Attribute a) {
    auto acc = cast<AccumulatorAttr>(a);
    printer << stringifyAccumKind(acc.getKind());
    if (acc.getScaleBy())
      printer << " by " << *acc.getScaleBy();
  });
  printer << ")";
}

//===----------------------------------------------------------------------===//
// ForLoopOp
//===----------------------------------------------------------------------===//

LogicalResult ForLoopOp::verify() {
  unsigned numResults = getNumResults();
  if (numResults == 0)
    return emitOpError("must accumulate at least one value; a loop without "
                       "accumulators computes nothing");
  if (getAccumulators().size() != numResults)
    return emitOpError("has ")
           << getAccumulators().size() << " accumulators but " << numResults
           << " results; give one accumulator per result";
  Block &body = getBody().front();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end in block.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("yields values of types (")
           << yield.getValues().getTypes()
           << ") but the for-loop's accumulators have types ("
           << getResultTypes() << ")";
  for (unsigned i = 0; i < numResults; ++i) {
    AccumulatorAttr acc = getAccumulator(i);
    if (acc.getKind() != AccumKind::rescale)
      continue;
    int64_t by = *acc.getScaleBy();
    if (by >= numResults || getAccumulator(by).getKind() != AccumKind::max)
      return emitOpError("accumulator #")
             << i << " rescales by accumulator #" << by
             << ", which must be a max accumulator of this loop";
    ArrayRef<int64_t> value =
        cast<RankedTensorType>(getResult(i).getType()).getShape();
    ArrayRef<int64_t> scale =
        cast<RankedTensorType>(getResult(by).getType()).getShape();
    ShapeOrError shape = broadcastShapes(value, scale);
    if (!shape.ok() || ArrayRef<int64_t>(shape.shape) != value)
      return emitOpError("accumulator #")
             << i << " of shape " << formatShape(value)
             << " cannot be rescaled by max accumulator #" << by
             << " of shape " << formatShape(scale)
             << "; the max must broadcast to the rescaled value";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  auto custom = (*this)->getParentOfType<kernel::CustomOp>();
  if (!custom || !custom.isInputArgument(getSource()))
    return emitOpError("must load from an input of the enclosing "
                       "kernel.custom (one of its region arguments %in...)");
  // The tile's element type may differ from the input's: the load converts
  // (a mixed-precision program's cast, fused into the kernel).
  auto source = cast<RankedTensorType>(getSource().getType());
  auto tile = cast<RankedTensorType>(getTile().getType());
  // A mask or integers convert to floats only through block.where or
  // block.int_to_float, which say how.
  if ((isa<IntegerType>(source.getElementType()) ||
       isa<IntegerType>(tile.getElementType())) &&
      source.getElementType() != tile.getElementType())
    return emitOpError("loads a tile of ")
           << tile.getElementType() << " from an input of "
           << source.getElementType()
           << "; a mask or integer input loads as stored, and block.where or "
              "block.int_to_float makes floats of it";
  if (getOffsets()) {
    ArrayRef<int64_t> offsets = *getOffsets(), sizes = *getSizes();
    if (offsets.size() != static_cast<size_t>(source.getRank()) ||
        sizes.size() != offsets.size())
      return emitOpError("window of ")
             << offsets.size() << " offsets and " << sizes.size()
             << " sizes for an input of rank " << source.getRank();
    for (auto [dim, offset, size] : llvm::enumerate(offsets, sizes))
      // offset + size is not formed unchecked: near 2^63 it overflows, and
      // the window looked inside.
      if (offset < 0 || size < 1 || offset > source.getDimSize(dim) - size)
        return emitOpError("window [")
               << offset << ", "
               << (offset > std::numeric_limits<int64_t>::max() - size
                       ? std::numeric_limits<int64_t>::max()
                       : offset + size)
               << ") of dim " << dim << " is not inside the input of shape "
               << formatShape(source.getShape());
  }
  SmallVector<int64_t> window = getWindowShape();
  // Outside the loop a load reads its tile once, for the epilogue: after
  // the loop, where there are no iterations to split a dim across.
  auto loop = dyn_cast<ForLoopOp>((*this)->getParentOp());
  if (!loop && !getLoopBefore(*this))
    return emitOpError("outside the for-loop must come after it: it loads a "
                       "tile for the ops after the loop");
  if (!loop && getFmap())
    return emitOpError("after the for-loop cannot have an fmap: only a load "
                       "inside the loop reads a tile per iteration");
  ShapeOrError expected =
      inputTileShape(window, getImap().getGridToTensorDims(), gridOf(*this),
                     getFmap(), getLoopIterations());
  if (!expected.ok())
    return emitOpError() << expected.error;
  if (!isInputTileShape(tile.getShape(), expected.shape, window,
                        getImap().getGridToTensorDims(), gridOf(*this),
                        getFmap(), getLoopIterations()))
    return emitOpError("tile shape ")
           << formatShape(tile.getShape()) << " does not match the "
           << formatShape(expected.shape)
           << " that the imap, the fmap, the grid and the for-loop cut from "
           << (getOffsets() ? "the window" : "the input") << " of shape "
           << formatShape(window)
           << "; along a dim the grid or the loop alone splits, a larger tile "
              "must leave every block and every iteration an element";
  return success();
}

SmallVector<int64_t> LoadOp::getWindowShape() {
  if (std::optional<ArrayRef<int64_t>> sizes = getSizes())
    return llvm::to_vector(*sizes);
  return llvm::to_vector(
      cast<RankedTensorType>(getSource().getType()).getShape());
}

llvm::SmallBitVector LoadOp::getRaggedDims() {
  return getRaggedSplits(*this, getImap(), getTile(), getWindowShape(),
                         getFmap(), getLoopIterations());
}

int64_t LoadOp::getLoopIterations() {
  auto loop = dyn_cast<ForLoopOp>((*this)->getParentOp());
  return loop ? loop.getIterations() : 1;
}

SmallVector<int64_t> LoadOp::getBlockSpans() {
  ArrayRef<int64_t> tile =
      cast<RankedTensorType>(getTile().getType()).getShape();
  return llvm::map_to_vector(llvm::enumerate(tile), [&](auto dim) {
    return blockSpan(dim.value(), dim.index(), getFmap(), getLoopIterations());
  });
}

SmallVector<int64_t> LoadOp::getWindowEnds() {
  SmallVector<int64_t> ends = getWindowShape();
  for (auto [end, start] : llvm::zip_equal(ends, getWindowOffsets()))
    end += start;
  return ends;
}

SmallVector<int64_t> LoadOp::getWindowOffsets() {
  if (std::optional<ArrayRef<int64_t>> offsets = getOffsets())
    return llvm::to_vector(*offsets);
  return SmallVector<int64_t>(
      cast<RankedTensorType>(getSource().getType()).getRank(), 0);
}

//===----------------------------------------------------------------------===//
// TriangleFillOp
//===----------------------------------------------------------------------===//

LogicalResult TriangleFillOp::verify() {
  auto tile = cast<RankedTensorType>(getInput().getType());
  std::string error = checkTriangleDims(getDims(), tile.getRank());
  if (!error.empty())
    return emitOpError() << error;
  for (unsigned g = 0; g < 3; ++g)
    if (std::optional<int64_t> d = getImap().getTensorDim(g))
      if (*d >= tile.getRank())
        return emitOpError("imap places tile dim ")
               << *d << ", which a tile of rank " << tile.getRank()
               << " does not have";
  if (std::optional<uint64_t> fmap = getFmap()) {
    if (!isa<ForLoopOp>((*this)->getParentOp()))
      return emitOpError("has an fmap outside the for-loop, where there is "
                         "no iteration to place the tile by");
    if (static_cast<int64_t>(*fmap) >= tile.getRank())
      return emitOpError("fmap places tile dim ")
             << *fmap << ", which a tile of rank " << tile.getRank()
             << " does not have";
    for (unsigned g = 0; g < 3; ++g)
      if (getImap().getTensorDim(g) == static_cast<int64_t>(*fmap))
        return emitOpError("places tile dim ")
               << *fmap << " by both the grid and the for-loop";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// StoreOp
//===----------------------------------------------------------------------===//

LogicalResult StoreOp::verify() {
  auto custom = cast<kernel::CustomOp>((*this)->getParentOp());
  if (!custom.isOutputArgument(getDest()))
    return emitOpError("must store into an output of the enclosing "
                       "kernel.custom (one of its region arguments %out...)");
  // The output's element type may differ from the tile's: the store
  // converts.
  auto tile = cast<RankedTensorType>(getTile().getType());
  auto dest = cast<RankedTensorType>(getDest().getType());
  std::string error =
      checkOutputCoverage(tile.getShape(), dest.getShape(),
                          getOmap().getGridToTensorDims(), gridOf(*this));
  if (!error.empty())
    return emitOpError() << error;
  return success();
}

llvm::SmallBitVector StoreOp::getRaggedDims() {
  return getRaggedSplits(
      *this, getOmap(), getTile(),
      cast<RankedTensorType>(getDest().getType()).getShape());
}

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Block/IR/BlockOps.cpp.inc"
