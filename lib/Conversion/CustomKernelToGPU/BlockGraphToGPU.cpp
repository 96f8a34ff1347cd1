//===- BlockGraphToGPU.cpp - One block graph to one gpu.func
//----------------===//
//
// The driver of BlockGraphToGPU: thread and block ids, the views of the
// block graph's SharedMemoryPlan, the cooperative loops every emitter uses,
// and the walk over the block graph that dispatches each op to its emitter.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

SmallVector<Value> gpu_codegen::delinearize(OpBuilder &b, Location loc,
                                            Value linear,
                                            ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  Value rest = linear;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] == 1) {
      indices[d] = indexConstant(b, loc, 0);
      continue;
    }
    Value size = indexConstant(b, loc, shape[d]);
    indices[d] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return indices;
}

Value gpu_codegen::buildGuardedThreadIndex(OpBuilder &b, Location loc,
                                           int64_t threadsPerBlock,
                                           int64_t count) {
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block,
                            indexConstant(b, loc, threadsPerBlock)),
      thread);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, indexConstant(b, loc, count));
  auto guard = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  return linear;
}

Value gpu_codegen::linearize(OpBuilder &b, Location loc, ValueRange indices,
                             ArrayRef<int64_t> shape) {
  Value linear = indexConstant(b, loc, 0);
  for (auto [index, size] : llvm::zip(indices, shape))
    linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, linear, indexConstant(b, loc, size)),
        index);
  return linear;
}

SmallVector<Value> gpu_codegen::broadcastIndices(OpBuilder &b, Location loc,
                                                 ValueRange indices,
                                                 ArrayRef<int64_t> operand,
                                                 ArrayRef<int64_t> result) {
  SmallVector<Value> out;
  int64_t shift = result.size() - operand.size();
  for (int64_t d = 0; d < static_cast<int64_t>(operand.size()); ++d)
    out.push_back(operand[d] == 1 && result[d + shift] != 1
                      ? indexConstant(b, loc, 0)
                      : indices[d + shift]);
  return out;
}

MemRefType gpu_codegen::sharedMemRefType(ArrayRef<int64_t> shape,
                                         Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  return MemRefType::get(
      shape, elementType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

Value BlockGraphToGPU::view(int64_t offset, ArrayRef<int64_t> shape,
                            Type elementType) {
  return memref::ViewOp::create(b, loc, sharedMemRefType(shape, elementType),
                                sharedBase, indexConstant(b, loc, offset),
                                ValueRange{});
}

Value BlockGraphToGPU::tileBuffer(Value tile, block::SharedBufferRole role) {
  const block::SharedBuffer *buffer = plan.lookup(tile, role);
  assert(buffer && "the shared-memory plan has a buffer for every tile");
  auto type = cast<RankedTensorType>(tile.getType());
  Type element = role == block::SharedBufferRole::Accumulator
                     ? b.getF32Type()
                     : type.getElementType();
  // A swizzled tile is addressed by its swizzled offsets only (tileIndices):
  // a flat view, so an access that forgot the swizzle fails to verify
  // instead of reading the wrong element.
  if (role != block::SharedBufferRole::Accumulator && swizzles.count(tile))
    return view(buffer->offset, {type.getNumElements()}, element);
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.empty() || buffer->rowPitch == shape.back())
    return view(buffer->offset, shape, element);
  // Padded rows (block::getComputedTileRowPitch): the tile is a strided
  // window of a buffer of longer rows, so every access by indices, ldmatrix
  // included, steps over the padding.
  SmallVector<int64_t> padded = llvm::to_vector(shape);
  padded.back() = buffer->rowPitch;
  Value rows = view(buffer->offset, padded, element);
  SmallVector<OpFoldResult> zeros(shape.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(shape.size(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = llvm::map_to_vector(
      shape, [&](int64_t s) -> OpFoldResult { return b.getIndexAttr(s); });
  return memref::SubViewOp::create(b, loc, rows, zeros, sizes, ones);
}

void BlockGraphToGPU::forEachElement(ArrayRef<int64_t> shape,
                                     function_ref<void(ValueRange)> body) {
  auto loop = scf::ForOp::create(b, loc, threadId,
                                 indexConstant(b, loc, numElements(shape)),
                                 indexConstant(b, loc, numThreads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(delinearize(b, loc, loop.getInductionVar(), shape));
}

void BlockGraphToGPU::forEachRowPiece(ArrayRef<int64_t> shape, int64_t width,
                                      function_ref<void(ValueRange)> body) {
  SmallVector<int64_t> pieces(shape);
  pieces.back() /= width;
  forEachElement(pieces, [&](ValueRange pieceIdx) {
    SmallVector<Value> idx = llvm::to_vector(pieceIdx);
    idx.back() =
        arith::MulIOp::create(b, loc, idx.back(), indexConstant(b, loc, width));
    body(idx);
  });
}

void BlockGraphToGPU::forEachWarpItem(int64_t count,
                                      function_ref<void(Value)> body) {
  auto loop = scf::ForOp::create(b, loc, warpId, indexConstant(b, loc, count),
                                 indexConstant(b, loc, numWarps));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
}

LogicalResult BlockGraphToGPU::emitCompute(Operation &op, bool waitForCopies) {
  if (auto graph = dyn_cast<thread::GraphOp>(op)) {
    // Applied to its matmul's fragments, ended by the matmul's barrier.
    if (fusedEpilogues.contains(graph))
      return success();
    emitThreadGraph(graph);
  } else if (auto matmul = dyn_cast<block::MatmulOp>(op))
    emitMatmul(matmul);
  else if (isa<block::ReduceSumOp>(op))
    emitReduce(op, /*isMax=*/false);
  else if (isa<block::ReduceMaxOp>(op))
    emitReduce(op, /*isMax=*/true);
  else if (auto norm = dyn_cast<block::RmsNormOp>(op))
    emitRmsNorm(norm);
  else if (auto concat = dyn_cast<block::ConcatOp>(op))
    emitConcat(concat);
  else if (auto fill = dyn_cast<block::TriangleFillOp>(op))
    emitTriangleFill(fill);
  else if (auto transpose = dyn_cast<block::TransposeOp>(op);
           transpose && block::isTransposedMatmulView(transpose)) {
    // Nothing to move: the matmuls read the operand's bytes (the plan gave
    // the view the same buffer, and keeps it as long as either is read).
    // Nor a barrier, unless copies issued here must land before the reads.
    buffers.map(transpose.getResult(), buffers.lookup(transpose.getInput()));
    matmulViews[transpose.getResult()] = transpose.getInput();
    if (!waitForCopies)
      return success();
  } else if (transpose)
    emitTranspose(transpose);
  else if (hasThreadForm(&op))
    emitElementwise(op);
  else
    return op.emitOpError("has no GPU lowering");
  // Each thread waits for its own copies; the barrier then makes every
  // thread's copies visible to all.
  if (waitForCopies)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  barrier();
  return success();
}

FailureOr<int64_t> BlockGraphToGPU::emit() {
  // Tiles are copied and computed row by row (vector widths, swizzles and
  // reductions read the last dim). Default block graphs hold a rank-0
  // tensor as a [1] tile; a block graph written with a rank-0 tile is
  // refused, not read past its shape.
  WalkResult rankZero = custom.getBody().walk([&](Operation *op) {
    auto isScalarTile = [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && tensor.getRank() == 0;
    };
    if (!isa_and_nonnull<block::BlockDialect>(op->getDialect()) ||
        (llvm::none_of(op->getOperandTypes(), isScalarTile) &&
         llvm::none_of(op->getResultTypes(), isScalarTile)))
      return WalkResult::advance();
    op->emitOpError("has a rank-0 tile, which the GPU lowering does not take; "
                    "give the kernel's tensors a dim of size 1");
    return WalkResult::interrupt();
  });
  if (rankZero.wasInterrupted())
    return failure();
  // The verifier checked the plan against the module's target; the pass's
  // chip may be a smaller one.
  int64_t sharedBytes = plan.getTotalBytes();
  if (sharedBytes > static_cast<int64_t>(target.maxSharedMemPerBlock))
    return custom.emitOpError("needs ")
           << sharedBytes << " bytes of shared memory on the GPU (tiles, "
           << "double buffers and f32 accumulators), more than the "
           << target.maxSharedMemPerBlock << " bytes a block of " << target.chip
           << " can have; search for that chip "
           << "(--superoptimize=\"target=" << target.chip << "\")";

  kernel::Dim3Attr block = custom.getBlock();
  numThreads = block.getVolume();
  numWarps = std::max<int64_t>(1, numThreads / kWarpSize);

  // Linear thread id, x fastest, as CUDA numbers the threads of warps.
  Value tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value ty = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value tz = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
  threadId = arith::AddIOp::create(
      b, loc, tx,
      arith::MulIOp::create(
          b, loc, indexConstant(b, loc, block.getX()),
          arith::AddIOp::create(
              b, loc, ty,
              arith::MulIOp::create(b, loc, indexConstant(b, loc, block.getY()),
                                    tz))));
  warpId = arith::DivUIOp::create(b, loc, threadId,
                                  indexConstant(b, loc, kWarpSize));
  laneId = arith::RemUIOp::create(b, loc, threadId,
                                  indexConstant(b, loc, kWarpSize));
  blockIds = {gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
              gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
              gpu::BlockIdOp::create(b, loc, gpu::Dimension::z)};
  sharedBase = gpu::DynamicSharedMemoryOp::create(
      b, loc, sharedMemRefType({ShapedType::kDynamic}, b.getIntegerType(8)));
  // The kernel's arguments: the operands it loads, the inputs of those it
  // computes, then the results.
  unsigned numOperands = custom->getNumOperands(), next = 0;
  for (auto [i, arg] : llvm::enumerate(custom.getBody().getArguments())) {
    if (i == numOperands)
      next = func.getNumArguments() - custom->getNumResults();
    if (auto it = computedOperands.find(i); it != computedOperands.end()) {
      computedInputs[arg] = &it->second;
      continue;
    }
    buffers.map(arg, func.getArgument(next++));
  }

  // The last op that writes shared memory: a store before it reads a tile
  // whose bytes the plan may give to a later op's result once the store,
  // its last reader, is done (a kernel's second output computed into the
  // first's buffer), so such a store ends with a barrier; the stores after
  // it only read.
  Operation *lastWriter = nullptr;
  for (Operation &op : custom.getBody().front())
    if (!isa<block::LoadOp, block::StoreOp, block::ReturnOp>(op))
      lastWriter = &op;
  for (Operation &op : custom.getBody().front()) {
    if (auto loop = dyn_cast<block::ForLoopOp>(op)) {
      if (failed(emitForLoop(loop)))
        return failure();
    } else if (isa<block::LoadOp>(op)) {
      // An epilogue's tile (a bias, a residual; the verifier puts such a
      // load after the loop) was copied during the loop (emitForLoop),
      // which waited for its copies at its end.
      continue;
    } else if (auto store = dyn_cast<block::StoreOp>(op)) {
      ArrayRef<int64_t> tile = shapeOf(store.getTile());
      SmallVector<int64_t> limits =
          raggedLimits(store.getRaggedDims(), shapeOf(store.getDest()));
      storeTile(buffers.lookup(store.getTile()),
                buffers.lookup(store.getDest()), tile,
                tileOffsets(tile, store.getOmap(), std::nullopt, Value()),
                limits);
      if (lastWriter && store->isBeforeInBlock(lastWriter))
        barrier();
    } else if (!isa<block::ReturnOp>(op)) {
      for (Value result : op.getResults())
        if (!buffers.contains(result))
          buffers.map(result, tileBuffer(result));
      if (failed(emitCompute(op)))
        return failure();
    }
  }
  gpu::ReturnOp::create(b, loc);
  return sharedBytes;
}
