//===- Reductions.cpp - Row reductions and rms_norm -----------------------===//
//
// reduce_sum, reduce_max and rms_norm give one row (all elements along the
// reduced or normalized dim) to a group of lanes (forEachRowGroup), or, in
// a tile with fewer rows than warps, rms_norm gives each row to whole
// warps: the lanes stride the row, each with several partial results, then
// combine with butterfly shuffles.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

#include <cmath>

/// One step of a sum or a max reduction.
static Value reduceStep(OpBuilder &b, Location loc, Value x, Value y,
                        bool isMax) {
  return isMax ? arith::MaximumFOp::create(b, loc, x, y).getResult()
               : arith::AddFOp::create(b, loc, x, y).getResult();
}

Value BlockGraphToGPU::warpAllReduce(Value partial, bool isMax, int64_t width) {
  // Butterfly over the lanes: after log2(width) xor shuffles every lane
  // holds the reduction of its group. An offset below `width` keeps each
  // exchange inside an aligned group of `width` lanes.
  for (int32_t offset = width / 2; offset > 0; offset /= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, partial, offset, kWarpSize,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    partial = reduceStep(b, loc, partial, other, isMax);
  }
  return partial;
}

/// Independent partial results per thread in a strided reduction: a load
/// from shared memory takes tens of cycles, and with one accumulator each
/// add waits for the one before (the NVPTX backend does not reassociate
/// floating-point adds to overlap them).
static constexpr int64_t kPartialsPerThread = 4;

Value BlockGraphToGPU::rowGroupRotation(Value buffer, int64_t rowLength,
                                        int64_t lanesPerRow) {
  constexpr int64_t kBankLineBytes = 128;
  auto type = cast<MemRefType>(buffer.getType());
  if (lanesPerRow >= kWarpSize || type.getRank() < 2 ||
      rowLength % lanesPerRow != 0)
    return {};
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return {};
  int64_t pitch = strides[type.getRank() - 2];
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (ShapedType::isDynamic(pitch) || elementBytes == 0 ||
      (pitch * elementBytes) % kBankLineBytes != 0)
    return {};
  // The row group's slot in its warp, as forEachRowGroup numbers them.
  Value slot = arith::DivUIOp::create(b, loc, laneId,
                                      indexConstant(b, loc, lanesPerRow));
  return arith::MulIOp::create(b, loc, slot,
                               indexConstant(b, loc, lanesPerRow));
}

Value BlockGraphToGPU::rotateInRow(Value j, Value rotation, int64_t rowLength) {
  Value sum = arith::AddIOp::create(b, loc, j, rotation);
  Value length = indexConstant(b, loc, rowLength);
  Value past =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, sum, length);
  return arith::SelectOp::create(
      b, loc, past, arith::SubIOp::create(b, loc, sum, length), sum);
}

Value BlockGraphToGPU::stridedReduce(
    Value start, int64_t end, int64_t step, Value identity,
    function_ref<Value(Value, Value)> addElement,
    function_ref<Value(Value, Value)> merge, Value rotation) {
  // Every caller starts below `step`, so each thread's trip count is
  // end / step when step divides end; the partials need it to be a multiple
  // of their number.
  int64_t partials =
      end % (step * kPartialsPerThread) == 0 ? kPartialsPerThread : 1;
  SmallVector<Value> inits(partials, identity);
  auto loop = scf::ForOp::create(b, loc, start, indexConstant(b, loc, end),
                                 indexConstant(b, loc, step * partials), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> next;
    for (int64_t k = 0; k < partials; ++k) {
      Value j = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                      indexConstant(b, loc, k * step));
      if (rotation)
        j = rotateInRow(j, rotation, end);
      next.push_back(addElement(loop.getRegionIterArg(k), j));
    }
    scf::YieldOp::create(b, loc, next);
  }
  Value total = loop.getResult(0);
  for (int64_t k = 1; k < partials; ++k)
    total = merge(total, loop.getResult(k));
  return total;
}

void BlockGraphToGPU::emitReduce(Operation &op, bool isMax) {
  Value input = buffers.lookup(op.getOperand(0));
  Value result = buffers.lookup(op.getResult(0));
  int64_t dim = op.getAttrOfType<IntegerAttr>("dim").getInt();
  ArrayRef<int64_t> inShape = shapeOf(input);
  ArrayRef<int64_t> outShape = shapeOf(result);
  Type f32 = b.getF32Type();
  Type resultElement = elementTypeOf(result);
  Value identity = floatConstant(b, loc, f32, isMax ? -INFINITY : 0.0);
  auto merge = [&](Value x, Value y) {
    return reduceStep(b, loc, x, y, isMax);
  };
  auto reduceRow = [&](ValueRange outIdx, Value start, int64_t step,
                       Value rotation = {}) {
    return stridedReduce(
        start, inShape[dim], step, identity,
        [&](Value acc, Value j) {
          SmallVector<Value> inIdx = llvm::to_vector(outIdx);
          inIdx[dim] = j;
          return merge(
              acc,
              buildScalarExtension(
                  b, loc, memref::LoadOp::create(b, loc, input, inIdx), f32));
        },
        merge, rotation);
  };
  auto store = [&](Value v, ValueRange outIdx) {
    if (resultElement != f32)
      v = arith::TruncFOp::create(b, loc, resultElement, v);
    memref::StoreOp::create(b, loc, v, result, outIdx);
  };
  if (numThreads % kWarpSize != 0) {
    // No whole warps: each thread reduces its own rows.
    forEachElement(outShape, [&](ValueRange outIdx) {
      store(reduceRow(outIdx, indexConstant(b, loc, 0), 1), outIdx);
    });
    return;
  }
  // A group of lanes per row (block::getReductionLanesPerRow): they stride
  // the reduced dim, then shuffle within the group; a warp takes
  // 32 / lanesPerRow rows at once, each group starting its walk at another
  // place of its row where the rows would share banks.
  bool lastDim = dim == static_cast<int64_t>(inShape.size()) - 1;
  forEachRowGroup(
      numElements(outShape), block::getReductionLanesPerRow(inShape[dim]),
      [&](Value row, Value lane, int64_t lanesPerRow, Value exists) {
        SmallVector<Value> outIdx = delinearize(b, loc, row, outShape);
        Value rotation =
            lastDim ? rowGroupRotation(input, inShape[dim], lanesPerRow)
                    : Value();
        Value total = warpAllReduce(
            reduceRow(outIdx, lane, lanesPerRow, rotation), isMax, lanesPerRow);
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            lane, indexConstant(b, loc, 0));
        if (exists)
          first = arith::AndIOp::create(b, loc, first, exists);
        auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        store(total, outIdx);
      });
}

void BlockGraphToGPU::forEachRowGroup(
    int64_t count, int64_t lanesPerRow,
    function_ref<void(Value, Value, int64_t, Value)> body) {
  int64_t rowsPerWarp = kWarpSize / lanesPerRow;
  Value lanes = indexConstant(b, loc, lanesPerRow);
  Value slot = arith::DivUIOp::create(b, loc, laneId, lanes);
  Value lane = arith::RemUIOp::create(b, loc, laneId, lanes);
  Value lastRow = indexConstant(b, loc, count - 1);
  forEachWarpItem(llvm::divideCeil(count, rowsPerWarp), [&](Value group) {
    Value row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, group,
                              indexConstant(b, loc, rowsPerWarp)),
        slot);
    // Every lane of the warp takes part in the shuffles: a group past the
    // last row works on the last row again, and `exists` tells it so.
    Value exists;
    if (count % rowsPerWarp != 0) {
      exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, row,
                                     lastRow);
      row = arith::MinUIOp::create(b, loc, row, lastRow);
    }
    body(row, lane, lanesPerRow, exists);
  });
}

void BlockGraphToGPU::emitRmsNorm(block::RmsNormOp op) {
  Value input = buffers.lookup(op.getInput());
  Value result = buffers.lookup(op.getResult());
  ArrayRef<int64_t> shape = shapeOf(input);
  int64_t dim = op.getNormalizedDim();
  int64_t n = shape[dim];
  Type f32 = b.getF32Type();
  Type resultElement = elementTypeOf(result);
  double epsilon = op.getEpsilon().convertToDouble();
  // A row is every element along `dim`; rows are indexed by the shape with
  // that dim cut to 1. A row along the last dim goes to a warp, whose lanes
  // read adjacent elements. A row along another dim (a column of the tile)
  // goes to one thread: adjacent threads then take adjacent columns and read
  // adjacent elements, where a warp's lanes would read elements a whole row
  // apart, all in one shared-memory bank.
  SmallVector<int64_t> rows(shape);
  rows[dim] = 1;
  bool warps = numThreads % kWarpSize == 0 &&
               dim == static_cast<int64_t>(shape.size()) - 1;
  // The sum walks the row from `start` by `step` and is shuffled over
  // groups of `width` lanes; the writes go from `writeStart` by
  // `writeStep`, which lets several warps share the writes of one row, and
  // only where `writes` holds, if given.
  auto normalizeRow = [&](ValueRange rowIdx, Value start, int64_t step,
                          Value writeStart, int64_t writeStep, int64_t width,
                          Value writes, Value rotation = {}) {
    // y = x * (1 / sqrt(sum(x^2) / n + epsilon)): the CPU lowering divides
    // each element instead, which is within an f32 rounding of this; an
    // IEEE division per element costs a dozen instructions on the GPU.
    auto element = [&](Value j) {
      SmallVector<Value> idx = llvm::to_vector(rowIdx);
      idx[dim] = j;
      return idx;
    };
    Value sum = stridedReduce(
        start, n, step, floatConstant(b, loc, f32, 0.0),
        [&](Value acc, Value j) -> Value {
          Value x = buildScalarExtension(
              b, loc, memref::LoadOp::create(b, loc, input, element(j)), f32);
          return arith::AddFOp::create(b, loc, acc,
                                       arith::MulFOp::create(b, loc, x, x));
        },
        [&](Value x, Value y) {
          return reduceStep(b, loc, x, y, /*isMax=*/false);
        },
        rotation);
    if (warps)
      sum = warpAllReduce(sum, /*isMax=*/false, width);
    Value mean = arith::DivFOp::create(
        b, loc, sum, floatConstant(b, loc, f32, static_cast<double>(n)));
    Value rms = math::SqrtOp::create(
        b, loc,
        arith::AddFOp::create(b, loc, mean,
                              floatConstant(b, loc, f32, epsilon)));
    Value inverse =
        arith::DivFOp::create(b, loc, floatConstant(b, loc, f32, 1.0), rms);
    OpBuilder::InsertionGuard guard(b);
    if (writes) {
      auto ifOp = scf::IfOp::create(b, loc, writes, /*withElse=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    auto writeLoop =
        scf::ForOp::create(b, loc, writeStart, indexConstant(b, loc, n),
                           indexConstant(b, loc, writeStep));
    b.setInsertionPointToStart(writeLoop.getBody());
    Value j = writeLoop.getInductionVar();
    if (rotation)
      j = rotateInRow(j, rotation, n);
    SmallVector<Value> idx = element(j);
    Value x = buildScalarExtension(
        b, loc, memref::LoadOp::create(b, loc, input, idx), f32);
    Value y = arith::MulFOp::create(b, loc, x, inverse);
    if (resultElement != f32)
      y = arith::TruncFOp::create(b, loc, resultElement, y);
    memref::StoreOp::create(b, loc, y, result, idx);
  };
  if (!warps) {
    forEachElement(rows, [&](ValueRange rowIdx) {
      Value zero = indexConstant(b, loc, 0);
      normalizeRow(rowIdx, zero, 1, zero, 1, 1, Value());
    });
    return;
  }
  int64_t rowCount = numElements(rows);
  if (rowCount < numWarps && numWarps % rowCount == 0) {
    // Fewer rows than warps (a tile of one long row, as in nTrans): the
    // warps of each row all compute its sum, which costs no more time than
    // one warp alone, and then share its writes, instead of leaving all but
    // rowCount warps idle.
    Value count = indexConstant(b, loc, rowCount);
    Value row = arith::RemUIOp::create(b, loc, warpId, count);
    Value group = arith::DivUIOp::create(b, loc, warpId, count);
    Value writeStart = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, group, indexConstant(b, loc, kWarpSize)),
        laneId);
    normalizeRow(delinearize(b, loc, row, rows), laneId, kWarpSize, writeStart,
                 kWarpSize * (numWarps / rowCount), kWarpSize, Value());
    return;
  }
  // Otherwise as reduce_sum: a group of lanes per row, several rows per
  // warp at once.
  forEachRowGroup(
      rowCount, block::getReductionLanesPerRow(n),
      [&](Value row, Value lane, int64_t lanesPerRow, Value exists) {
        // The groups of a warp start at different places of their rows
        // where the rows would share banks (the result is written where
        // the input is read).
        normalizeRow(delinearize(b, loc, row, rows), lane, lanesPerRow, lane,
                     lanesPerRow, lanesPerRow, exists,
                     rowGroupRotation(input, n, lanesPerRow));
      });
}
