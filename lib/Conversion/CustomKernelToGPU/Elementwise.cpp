//===- Elementwise.cpp - Elementwise ops and thread graphs
//------------------===//
//
// Elementwise block ops, thread graphs (whole chains in registers), concat
// and transpose: every thread of the block takes consecutive elements.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

void BlockGraphToGPU::emitElementwise(Operation &op) {
  assertInPlaceOperandsUnswizzled(op);
  Value result = buffers.lookup(op.getResult(0));
  ArrayRef<int64_t> shape = shapeOf(op.getResult(0));
  forEachElement(shape, [&](ValueRange idx) {
    SmallVector<Value> args;
    for (Value operand : op.getOperands())
      args.push_back(memref::LoadOp::create(
          b, loc, buffers.lookup(operand),
          broadcastIndices(b, loc, idx, shapeOf(operand), shape)));
    Value v = *mlsopt::emitElementwise(b, &op, args);
    memref::StoreOp::create(b, loc, v, result, idx);
  });
}

void BlockGraphToGPU::emitThreadGraph(thread::GraphOp graph) {
  // The whole chain runs in registers: one load per input element, one store
  // per output element.
  assertInPlaceOperandsUnswizzled(*graph);
  Block &body = graph.getBody().front();
  auto yield = cast<thread::YieldOp>(body.getTerminator());
  ArrayRef<int64_t> shape = shapeOf(graph.getResult(0));
  forEachElement(shape, [&](ValueRange idx) {
    IRMapping scalars;
    for (auto [arg, input] :
         llvm::zip(body.getArguments(), graph.getInputs()))
      scalars.map(arg, memref::LoadOp::create(
                           b, loc, buffers.lookup(input),
                           broadcastIndices(b, loc, idx, shapeOf(input), shape)));
    for (Operation &op : body.without_terminator()) {
      SmallVector<Value> args = llvm::map_to_vector(
          op.getOperands(), [&](Value v) { return scalars.lookup(v); });
      scalars.map(op.getResult(0), *mlsopt::emitElementwise(b, &op, args));
    }
    for (auto [value, result] :
         llvm::zip(yield.getValues(), graph.getResults()))
      memref::StoreOp::create(b, loc, scalars.lookup(value),
                              buffers.lookup(result), idx);
  });
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
