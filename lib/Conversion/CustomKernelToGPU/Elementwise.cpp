//===- Elementwise.cpp - Elementwise ops and thread graphs
//------------------===//
//
// Elementwise block ops, thread graphs (whole chains in registers), concat
// and transpose: every thread of the block takes consecutive elements.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlsopt/Conversion/ElementwiseMath.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

// The shared-memory plan may give a result of these ops the buffer of an
// operand of its type whose last read is the op (SharedBuffer::inPlaceOf).
// That needs no barrier between the reads and the writes because of how
// they are emitted here: each thread handles whole elements of the result
// (forEachElement), loads every operand element it needs before storing,
// and reads an operand of the result's type at exactly the index it stores
// to, with scalar accesses; only operands of another shape (broadcast)
// are read at indices other threads store to, and those never share the
// result's bytes. An operand shared in place is never swizzled: swizzled
// tiles are read by tensor cores only.
void BlockGraphToGPU::assertInPlaceOperandsUnswizzled(Operation &op) {
  for (Value result : op.getResults()) {
    const block::SharedBuffer *buffer = plan.lookup(result);
    if (buffer && buffer->inPlaceOf) {
      assert(!swizzles.count(plan.getBuffers()[*buffer->inPlaceOf].value) &&
             "a result written in place of a swizzled tile");
    }
  }
}

int64_t BlockGraphToGPU::elementwiseVectorWidth(ArrayRef<int64_t> shape,
                                                ValueRange operands,
                                                ValueRange results) {
  // The width by element types and row length; every buffer accessed by
  // row must also start its rows at multiples of it (its pitch).
  int64_t width = block::getElementwiseVectorWidth(shape, operands, results);
  if (width == 1)
    return 1;
  SmallVector<Value> rowBuffers;
  for (Value operand : operands)
    if (!block::broadcastsAlongRows(shapeOf(operand), shape))
      rowBuffers.push_back(buffers.lookup(operand));
  for (Value result : results)
    rowBuffers.push_back(buffers.lookup(result));
  auto fits = [&](int64_t w) {
    return llvm::all_of(rowBuffers, [&](Value buffer) {
      auto type = cast<MemRefType>(buffer.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)))
        return false;
      // A flat swizzled buffer has rank 1 where the tile has more; its
      // elements are not where a row-major access expects them.
      if (type.getRank() != static_cast<int64_t>(shape.size()) &&
          type.getShape().back() != shape.back())
        return false;
      return offset % w == 0 && strides.back() == 1 &&
             llvm::all_of(ArrayRef<int64_t>(strides).drop_back(),
                          [&](int64_t s) { return s % w == 0; });
    });
  };
  while (width > 1 && !fits(width))
    width /= 2;
  return width;
}

void BlockGraphToGPU::forEachElementVector(
    ArrayRef<int64_t> shape, ValueRange operands,
    function_ref<SmallVector<Value>(ArrayRef<Value>)> compute,
    ValueRange results) {
  int64_t width = elementwiseVectorWidth(shape, operands, results);
  if (width == 1) {
    forEachElement(shape, [&](ValueRange idx) {
      SmallVector<Value> args;
      for (Value operand : operands)
        args.push_back(memref::LoadOp::create(
            b, loc, buffers.lookup(operand),
            broadcastIndices(b, loc, idx, shapeOf(operand), shape)));
      for (auto [v, result] : llvm::zip(compute(args), results))
        memref::StoreOp::create(b, loc, v, buffers.lookup(result), idx);
    });
    return;
  }
  // Each thread takes `width` consecutive elements of a row: one 16-byte
  // (or narrower) shared-memory access per operand and result instead of
  // `width`, the elements computed one by one in registers.
  forEachRowPiece(shape, width, [&](ValueRange idx) {
    auto alignOf = [&](Type element) {
      return llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8);
    };
    // Per operand: a vector of the row's elements, or the one element a
    // broadcast row repeats.
    SmallVector<Value> loaded;
    for (Value operand : operands) {
      Value buffer = buffers.lookup(operand);
      SmallVector<Value> at =
          broadcastIndices(b, loc, idx, shapeOf(operand), shape);
      Type element = elementTypeOf(buffer);
      if (block::broadcastsAlongRows(shapeOf(operand), shape))
        loaded.push_back(memref::LoadOp::create(b, loc, buffer, at));
      else
        loaded.push_back(vector::LoadOp::create(
            b, loc, VectorType::get({width}, element), buffer, at,
            /*nontemporal=*/false, alignOf(element)));
    }
    SmallVector<SmallVector<Value>> computed(results.size());
    for (int64_t e = 0; e < width; ++e) {
      SmallVector<Value> args;
      for (Value v : loaded)
        args.push_back(
            isa<VectorType>(v.getType())
                ? vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e})
                      .getResult()
                : v);
      for (auto [i, v] : llvm::enumerate(compute(args)))
        computed[i].push_back(v);
    }
    for (auto [values, result] : llvm::zip(computed, results)) {
      Value buffer = buffers.lookup(result);
      Type element = elementTypeOf(buffer);
      Value v = vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, element), values);
      vector::StoreOp::create(b, loc, v, buffer, idx, /*nontemporal=*/false,
                              alignOf(element));
    }
  });
}

void BlockGraphToGPU::emitElementwise(Operation &op) {
  assertInPlaceOperandsUnswizzled(op);
  forEachElementVector(
      shapeOf(op.getResult(0)), op.getOperands(),
      [&](ArrayRef<Value> args) -> SmallVector<Value> {
        return {*mlsopt::emitElementwise(b, &op, args)};
      },
      op.getResults());
}

SmallVector<Value> BlockGraphToGPU::emitThreadGraphBody(thread::GraphOp graph,
                                                        ArrayRef<Value> args) {
  Block &body = graph.getBody().front();
  IRMapping scalars;
  scalars.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator()) {
    SmallVector<Value> opArgs = llvm::map_to_vector(
        op.getOperands(), [&](Value v) { return scalars.lookup(v); });
    scalars.map(op.getResult(0), *mlsopt::emitElementwise(b, &op, opArgs));
  }
  auto yield = cast<thread::YieldOp>(body.getTerminator());
  return llvm::map_to_vector(yield.getValues(),
                             [&](Value v) { return scalars.lookup(v); });
}

void BlockGraphToGPU::emitThreadGraph(thread::GraphOp graph) {
  // The whole chain runs in registers: one load per input element, one store
  // per output element.
  assertInPlaceOperandsUnswizzled(*graph);
  forEachElementVector(
      shapeOf(graph.getResult(0)), graph.getInputs(),
      [&](ArrayRef<Value> args) { return emitThreadGraphBody(graph, args); },
      graph.getResults());
}

void BlockGraphToGPU::emitConcat(block::ConcatOp op) {
  Value result = buffers.lookup(op.getResult());
  int64_t dim = op.getDim();
  int64_t offset = 0;
  for (Value input : op.getInputs()) {
    Value buffer = buffers.lookup(input);
    ArrayRef<int64_t> shape = shapeOf(buffer);
    forEachElement(shape, [&](ValueRange idx) {
      Value v = memref::LoadOp::create(b, loc, buffer, idx);
      SmallVector<Value> at = llvm::to_vector(idx);
      at[dim] = arith::AddIOp::create(b, loc, at[dim],
                                      indexConstant(b, loc, offset));
      memref::StoreOp::create(b, loc, v, result, at);
    });
    offset += shape[dim];
  }
}

void BlockGraphToGPU::emitTriangleFill(block::TriangleFillOp op) {
  // Each thread reads and writes its own elements (as emitElementwise), at
  // their place in the masked tensor: the tile's offsets plus the index.
  Value input = buffers.lookup(op.getInput());
  Value result = buffers.lookup(op.getResult());
  ArrayRef<int64_t> shape = shapeOf(op.getResult());
  assert((!op.getFmap() || loopIteration) &&
         "the verifier keeps an fmap inside the for-loop");
  SmallVector<Value> offsets =
      tileOffsets(shape, op.getImap(), op.getFmap(), loopIteration);
  int64_t rows = op.getDims()[0], cols = op.getDims()[1];
  Type elementType = cast<MemRefType>(result.getType()).getElementType();
  Value fill = arith::ConstantOp::create(
      b, loc, elementType,
      b.getFloatAttr(elementType, op.getValue().convertToDouble()));
  forEachElement(shape, [&](ValueRange idx) {
    Value filled = emitTriangleCondition(
        b, loc, arith::AddIOp::create(b, loc, idx[rows], offsets[rows]),
        arith::AddIOp::create(b, loc, idx[cols], offsets[cols]),
        op.getDiagonal());
    // A loaded operand may be swizzled for the tensor cores that also read
    // it; the result is a tile of its own (not elementwise by index).
    Value x =
        memref::LoadOp::create(b, loc, input, tileIndices(op.getInput(), idx));
    memref::StoreOp::create(
        b, loc, arith::SelectOp::create(b, loc, filled, fill, x), result, idx);
  });
}

void BlockGraphToGPU::emitTranspose(block::TransposeOp op) {
  // Threads walk the operand in order, so a warp reads consecutive bytes of
  // the tile as it was loaded and scatters them to the permuted places.
  Value input = buffers.lookup(op.getInput());
  Value result = buffers.lookup(op.getResult());
  ArrayRef<int64_t> permutation = op.getPermutation();
  forEachElement(shapeOf(input), [&](ValueRange idx) {
    Value v =
        memref::LoadOp::create(b, loc, input, tileIndices(op.getInput(), idx));
    SmallVector<Value> at =
        llvm::map_to_vector(permutation, [&](int64_t p) { return idx[p]; });
    memref::StoreOp::create(b, loc, v, result, at);
  });
}
