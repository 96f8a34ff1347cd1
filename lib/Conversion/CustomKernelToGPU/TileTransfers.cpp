//===- TileTransfers.cpp - Tiles between global and shared
//------------------===//
//
// Input iterators copy tiles of device tensors into shared memory with
// 16-byte cp.async where the rows allow it; output savers write tiles back
// with 16-byte vector stores.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"
#include "LoopKernels.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/ElementwiseMath.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

SmallVector<Value> BlockGraphToGPU::tileOffsets(ArrayRef<int64_t> tile,
                                                block::DimMapAttr map,
                                                std::optional<int64_t> loopDim,
                                                Value iteration,
                                                int64_t iterations) {
  SmallVector<Value> offsets(tile.size(), indexConstant(b, loc, 0));
  for (unsigned g = 0; g < 3; ++g)
    if (std::optional<int64_t> dim = map.getTensorDim(g))
      offsets[*dim] = arith::MulIOp::create(
          b, loc, blockIds[g],
          indexConstant(b, loc,
                        blockSpan(tile[*dim], *dim, loopDim, iterations)));
  if (loopDim) {
    Value step = arith::MulIOp::create(b, loc, iteration,
                                       indexConstant(b, loc, tile[*loopDim]));
    // A dim the grid splits too: the loop walks the block's chunk.
    bool chunked = llvm::is_contained(map.getGridToTensorDims(), loopDim);
    offsets[*loopDim] =
        chunked ? arith::AddIOp::create(b, loc, offsets[*loopDim], step) : step;
  }
  return offsets;
}

SmallVector<Value> BlockGraphToGPU::addOffsets(ValueRange indices,
                                               ValueRange offsets) {
  return llvm::map_to_vector(llvm::zip(indices, offsets), [&](auto pair) {
    return arith::AddIOp::create(b, loc, std::get<0>(pair), std::get<1>(pair))
        .getResult();
  });
}

int64_t BlockGraphToGPU::vectorWidth(ArrayRef<int64_t> tile, Type elementType) {
  // A mask's i1 elements are bytes in memory, but vectors of i1 are packed
  // bits in LLVM: they move one element at a time.
  if (elementType.getIntOrFloatBitWidth() < 8)
    return 1;
  int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t width = kVectorBytes / bytes;
  return tile.back() % width == 0 ? width : 1;
}

int64_t BlockGraphToGPU::loadVectorWidth(block::LoadOp load) {
  // A computed operand is computed one element at a time.
  if (computedInputs.count(load.getSource()))
    return 1;
  Type elementType = elementTypeOf(load.getTile());
  // A conversion, which cp.async cannot do, moves single elements.
  if (elementTypeOf(load.getSource()) != elementType)
    return 1;
  int64_t width = vectorWidth(shapeOf(load.getTile()), elementType);
  // Rows start 16-byte aligned where the input's rows, the window's start
  // and the tiles' are multiples of 16 bytes. A ragged split's last tile
  // ends where the window does: a piece must not straddle that end.
  if (shapeOf(load.getSource()).back() % width != 0 ||
      load.getWindowOffsets().back() % width != 0 ||
      load.getWindowShape().back() % width != 0)
    return 1;
  return width;
}

SmallVector<int64_t>
BlockGraphToGPU::raggedLimits(const llvm::SmallBitVector &ragged,
                              ArrayRef<int64_t> ends) {
  if (ragged.none())
    return {};
  SmallVector<int64_t> limits(ends.size(), kNoLimit);
  for (unsigned d : ragged.set_bits())
    limits[d] = ends[d];
  return limits;
}

SmallVector<Value> BlockGraphToGPU::clampBefore(ValueRange indices,
                                                ArrayRef<int64_t> limits,
                                                int64_t width) {
  SmallVector<Value> clamped;
  for (auto [d, index, limit] : llvm::enumerate(indices, limits)) {
    if (limit == kNoLimit) {
      clamped.push_back(index);
      continue;
    }
    int64_t last = limit - (d + 1 == limits.size() ? width : 1);
    clamped.push_back(
        arith::MinUIOp::create(b, loc, index, indexConstant(b, loc, last)));
  }
  return clamped;
}

SmallVector<Value> BlockGraphToGPU::loadOffsets(block::LoadOp load,
                                                Value iteration) {
  SmallVector<Value> offsets =
      tileOffsets(shapeOf(load.getTile()), load.getImap(), load.getFmap(),
                  iteration, load.getLoopIterations());
  for (auto [offset, start] : llvm::zip(offsets, load.getWindowOffsets()))
    if (start != 0)
      offset =
          arith::AddIOp::create(b, loc, offset, indexConstant(b, loc, start));
  return offsets;
}

std::optional<SharedMemorySwizzle>
BlockGraphToGPU::swizzleFor(block::LoadOp load) {
  Value tile = load.getTile();
  Type elementType = elementTypeOf(tile);
  // Single-element copies (a conversion, narrow or unaligned rows) write
  // the tile unswizzled.
  if (loadVectorWidth(load) == 1)
    return std::nullopt;
  // tf32 fragments read 32-bit elements one by one: A's lanes walk 8 rows
  // of the stored tile at one chunk, B's 4 rows at two chunks
  // (SharedMemorySwizzle.h); through a transposed view the roles swap.
  bool rowWise = false, columnWise = false;
  auto readByTensorCores = [&](Operation *user, Value operand,
                               bool transposed) {
    auto matmul = dyn_cast<block::MatmulOp>(user);
    if (!matmul)
      return false;
    std::optional<MmaKind> kind = mmaKindFor(matmul);
    if (!kind)
      return false;
    if (*kind == MmaKind::tf32) {
      if (matmul.getLhs() == operand)
        (transposed ? columnWise : rowWise) = true;
      if (matmul.getRhs() == operand)
        (transposed ? rowWise : columnWise) = true;
    }
    return true;
  };
  for (Operation *user : tile.getUsers()) {
    // Through a view, the matmuls read this tile with ldmatrix too.
    auto view = dyn_cast<block::TransposeOp>(user);
    if (view && block::isTransposedMatmulView(view)) {
      for (Operation *viewUser : view.getResult().getUsers())
        if (!readByTensorCores(viewUser, view.getResult(),
                               /*transposed=*/true))
          return std::nullopt;
      continue;
    }
    if (!readByTensorCores(user, tile, /*transposed=*/false))
      return std::nullopt;
  }
  return SharedMemorySwizzle::get(shapeOf(tile),
                                  elementType.getIntOrFloatBitWidth(),
                                  /*xorStep=*/columnWise && !rowWise ? 2 : 1);
}

SmallVector<Value> BlockGraphToGPU::tileIndices(Value tile,
                                                ValueRange indices) {
  auto it = swizzles.find(tile);
  if (it == swizzles.end())
    return llvm::to_vector(indices);
  return {it->second.emitSwizzledOffset(
      b, loc, linearize(b, loc, indices, shapeOf(tile)))};
}

Value BlockGraphToGPU::computeOperandElement(const ComputedOperand &computed,
                                             ValueRange indices) {
  // Back through the reshapes, last first: an expanded dim group is one
  // index of the source, linearized; a collapsed one, delinearized.
  SmallVector<Value> at(indices);
  for (Operation *reshape : llvm::reverse(computed.reshapes)) {
    ArrayRef<int64_t> result = shapeOf(reshape->getResult(0));
    ArrayRef<int64_t> source = shapeOf(reshape->getOperand(0));
    SmallVector<Value> sourceAt;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape)) {
      for (const ReassociationIndices &group :
           expand.getReassociationIndices()) {
        SmallVector<Value> groupAt =
            llvm::map_to_vector(group, [&](int64_t d) { return at[d]; });
        SmallVector<int64_t> groupShape =
            llvm::map_to_vector(group, [&](int64_t d) { return result[d]; });
        sourceAt.push_back(linearize(b, loc, groupAt, groupShape));
      }
    } else {
      auto collapse = cast<tensor::CollapseShapeOp>(reshape);
      for (auto [g, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        SmallVector<int64_t> groupShape =
            llvm::map_to_vector(group, [&](int64_t d) { return source[d]; });
        llvm::append_range(sourceAt, delinearize(b, loc, at[g], groupShape));
      }
    }
    at = std::move(sourceAt);
  }
  SmallVector<Value> inputs =
      llvm::map_to_vector(computed.inputArgs, [&](unsigned n) -> Value {
        return func.getArgument(n);
      });
  return emitLoopKernelElement(b, loc, computed.producer, at, inputs);
}

void BlockGraphToGPU::copyTileAsync(
    Value global, Value shared, ArrayRef<int64_t> tile, ValueRange offsets,
    int64_t width, ArrayRef<int64_t> limits,
    std::optional<SharedMemorySwizzle> swizzle,
    function_ref<Value(ValueRange)> computeElement) {
  Type elementType = elementTypeOf(shared);
  if (width == 1) {
    // Rows too narrow or unaligned for 16-byte copies, or a conversion:
    // one element per thread and step, through a register.
    forEachElement(tile, [&](ValueRange idx) {
      SmallVector<Value> from = addOffsets(idx, offsets);
      Value inside = buildIsBefore(b, loc, from, limits);
      if (inside)
        from = clampBefore(from, limits, 1);
      Value v = computeElement
                    ? computeElement(from)
                    : memref::LoadOp::create(b, loc, global, from).getResult();
      // Past the end of a ragged split's last tile: zeros.
      if (inside)
        v = arith::SelectOp::create(
            b, loc, inside, v,
            arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType())));
      v = buildFloatConversion(b, loc, v, elementType);
      memref::StoreOp::create(b, loc, v, shared, idx);
    });
    return;
  }
  forEachRowPiece(tile, width, [&](ValueRange dst) {
    // A swizzled tile's chunks move whole: the XOR keeps the 16 bytes of a
    // chunk together, so one cp.async still writes one chunk.
    SmallVector<Value> at = llvm::to_vector(dst);
    if (swizzle)
      at = {swizzle->emitSwizzledOffset(b, loc, linearize(b, loc, dst, tile))};
    SmallVector<Value> from = addOffsets(dst, offsets);
    // Past the end of a ragged split's last tile, the copy reads nothing
    // and fills its 16 bytes with zeros. loadVectorWidth keeps pieces from
    // straddling that end.
    Value srcElements;
    if (Value inside = buildIsBefore(b, loc, from, limits)) {
      from = clampBefore(from, limits, width);
      srcElements =
          arith::SelectOp::create(b, loc, inside, indexConstant(b, loc, width),
                                  indexConstant(b, loc, 0));
    }
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared, at,
        global, from, b.getIndexAttr(width), srcElements,
        // 16-byte copies may bypass L1: tiles are staged in shared memory.
        b.getUnitAttr());
  });
}

void BlockGraphToGPU::storeTile(Value shared, Value global,
                                ArrayRef<int64_t> tile, ValueRange offsets,
                                ArrayRef<int64_t> limits) {
  Type elementType = elementTypeOf(shared);
  Type globalType = elementTypeOf(global);
  int64_t width = vectorWidth(tile, elementType);
  if (globalType != elementType)
    width = std::min(width, vectorWidth(tile, globalType));
  // A ragged split's last tile ends where the output does: a piece must not
  // straddle that end.
  if (!limits.empty() && limits.back() != kNoLimit &&
      limits.back() % width != 0)
    width = 1;
  // Past the end of a ragged split's last tile, nothing is written.
  auto guarded = [&](ValueRange at, function_ref<void()> body) {
    Value inside = buildIsBefore(b, loc, at, limits);
    if (!inside)
      return body();
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  };
  if (width == 1) {
    forEachElement(tile, [&](ValueRange idx) {
      SmallVector<Value> at = addOffsets(idx, offsets);
      guarded(at, [&] {
        Value v = memref::LoadOp::create(b, loc, shared, idx);
        v = buildFloatConversion(b, loc, v, globalType);
        memref::StoreOp::create(b, loc, v, global, at);
      });
    });
    return;
  }
  auto vectorType = VectorType::get({width}, elementType);
  forEachRowPiece(tile, width, [&](ValueRange src) {
    // Both sides are 16-byte aligned (vectorWidth checked the rows; tiles
    // and device buffers start 16-byte aligned), so each piece is one
    // ld.shared.v4 and one st.global.v4.
    // A conversion narrows the pieces to the smaller of the two types'
    // 16-byte widths, converted as vectors in registers.
    SmallVector<Value> at = addOffsets(src, offsets);
    guarded(at, [&] {
      Value v = vector::LoadOp::create(
          b, loc, vectorType, shared, src, /*nontemporal=*/false,
          llvm::MaybeAlign(width * elementType.getIntOrFloatBitWidth() / 8));
      v = buildFloatConversion(b, loc, v, VectorType::get({width}, globalType));
      vector::StoreOp::create(
          b, loc, v, global, at, /*nontemporal=*/false,
          llvm::MaybeAlign(width * globalType.getIntOrFloatBitWidth() / 8));
    });
  });
}
