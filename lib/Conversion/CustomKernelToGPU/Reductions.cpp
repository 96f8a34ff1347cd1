//===- Reductions.cpp - Row reductions and rms_norm -------------------------===//
//
// reduce_sum, reduce_max and rms_norm give one row (all elements along the
// reduced or normalized dim) to a warp: the lanes stride the row, then
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

Value BlockGraphToGPU::warpAllReduce(Value partial, bool isMax) {
  // Butterfly over the lanes: after log2(32) xor shuffles every lane holds
  // the reduction of all 32.
  for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, partial, offset, kWarpSize,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    partial = isMax ? arith::MaximumFOp::create(b, loc, partial, other)
                          .getResult()
                    : arith::AddFOp::create(b, loc, partial, other).getResult();
  }
  return partial;
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
  auto combine = [&](Value acc, Value x) -> Value {
    x = buildScalarExtension(b, loc, x, f32);
    return isMax ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
                 : arith::AddFOp::create(b, loc, acc, x).getResult();
  };
  auto reduceRow = [&](ValueRange outIdx, Value start, int64_t step) {
    auto loop = scf::ForOp::create(b, loc, start,
                                   indexConstant(b, loc, inShape[dim]),
                                   indexConstant(b, loc, step),
                                   ValueRange{identity});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> inIdx = llvm::to_vector(outIdx);
    inIdx[dim] = loop.getInductionVar();
    scf::YieldOp::create(
        b, loc,
        combine(loop.getRegionIterArg(0),
                memref::LoadOp::create(b, loc, input, inIdx)));
    return loop.getResult(0);
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
  // One warp per row: lanes stride the reduced dim, then shuffle.
  forEachWarpItem(numElements(outShape), [&](Value row) {
    SmallVector<Value> outIdx = delinearize(b, loc, row, outShape);
    Value total = warpAllReduce(reduceRow(outIdx, laneId, kWarpSize), isMax);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneId, indexConstant(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    store(total, outIdx);
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
  auto normalizeRow = [&](ValueRange rowIdx, Value start, int64_t step) {
    // y = x / sqrt(sum(x^2) / n + epsilon), as the CPU lowering computes it.
    auto element = [&](Value j) {
      SmallVector<Value> idx = llvm::to_vector(rowIdx);
      idx[dim] = j;
      return idx;
    };
    auto sumLoop = scf::ForOp::create(
        b, loc, start, indexConstant(b, loc, n), indexConstant(b, loc, step),
        ValueRange{floatConstant(b, loc, f32, 0.0)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(sumLoop.getBody());
      Value x = buildScalarExtension(
          b, loc,
          memref::LoadOp::create(b, loc, input,
                                 element(sumLoop.getInductionVar())),
          f32);
      yieldSumPlusProduct(b, loc, sumLoop, x, x);
    }
    Value sum = sumLoop.getResult(0);
    if (warps)
      sum = warpAllReduce(sum, /*isMax=*/false);
    Value mean = arith::DivFOp::create(
        b, loc, sum, floatConstant(b, loc, f32, static_cast<double>(n)));
    Value rms = math::SqrtOp::create(
        b, loc,
        arith::AddFOp::create(b, loc, mean,
                              floatConstant(b, loc, f32, epsilon)));
    auto writeLoop = scf::ForOp::create(b, loc, start, indexConstant(b, loc, n),
                                        indexConstant(b, loc, step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(writeLoop.getBody());
    SmallVector<Value> idx = element(writeLoop.getInductionVar());
    Value x = buildScalarExtension(
        b, loc, memref::LoadOp::create(b, loc, input, idx), f32);
    Value y = arith::DivFOp::create(b, loc, x, rms);
    if (resultElement != f32)
      y = arith::TruncFOp::create(b, loc, resultElement, y);
    memref::StoreOp::create(b, loc, y, result, idx);
  };
  if (!warps) {
    forEachElement(rows, [&](ValueRange rowIdx) {
      normalizeRow(rowIdx, indexConstant(b, loc, 0), 1);
    });
    return;
  }
  forEachWarpItem(numElements(rows), [&](Value row) {
    normalizeRow(delinearize(b, loc, row, rows), laneId, kWarpSize);
  });
}
