//===- CustomKernelToGPU.cpp - Custom kernels to gpu.func and launches ----===//
//
// Each kernel.custom becomes one gpu.func that follows its block graph, and
// the function holding it becomes a host function on memrefs that launches
// it. Inside a kernel every block-level value is a tile in dynamic shared
// memory; each block op is computed by all threads of the block together and
// ends with a barrier, so the next op sees the whole tile:
//
//   prologue   cp.async of the loop-invariant tiles and of iteration 0's tiles
//   scf.for    cp.async of iteration i+1's tiles into the other buffer,
//              wait for iteration i's, compute, update the f32 accumulators
//   epilogue   finalize the accumulators, post-loop ops, store the outputs
//
// The CPU lowering (CustomKernelToLoops) runs the same block graphs with the
// same tile offsets; it is the numerical reference for this one.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/CustomKernelToGPU/CustomKernelToGPU.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTCUSTOMKERNELTOGPU
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;

namespace {

constexpr int64_t kWarpSize = 32;
/// cp.async and vector accesses move 16 bytes per instruction.
constexpr int64_t kVectorBytes = 16;

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double v) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Splits the linear index `linear` into indices of `shape` (row-major).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
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

/// The indices into an operand of shape `operand` that broadcasts (numpy
/// rules) to the element at `indices` of the result.
SmallVector<Value> broadcastIndices(OpBuilder &b, Location loc,
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

/// Block ops with a scalar form in ElementwiseMath: the unary and binary
/// kinds of the thread dialect and the two scalar ops.
bool isElementwiseOp(Operation &op) {
  StringRef name = op.getName().stripDialect();
  return op.getNumResults() == 1 &&
         (thread::symbolizeUnaryKind(name) || thread::symbolizeBinaryKind(name) ||
          name == "mul_scalar" || name == "add_scalar");
}

MemRefType sharedMemRefType(ArrayRef<int64_t> shape, Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  return MemRefType::get(
      shape, elementType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

/// Emits the body of one gpu.func from the block graph of one kernel.custom.
class BlockGraphToGPU {
public:
  BlockGraphToGPU(kernel::CustomOp custom, gpu::GPUFuncOp func,
                  const TargetInfo &target)
      : custom(custom), func(func), target(target),
        b(&func.getBody().front(), func.getBody().front().begin()),
        loc(custom.getLoc()) {}

  /// Emits the kernel; returns the dynamic shared memory it needs, in bytes.
  FailureOr<int64_t> emit();

private:
  // Shared-memory plan ------------------------------------------------------
  int64_t allocate(ArrayRef<int64_t> shape, Type elementType) {
    int64_t offset = llvm::alignTo(sharedBytes, kVectorBytes);
    sharedBytes = offset + tileBytes(shape, elementType.getIntOrFloatBitWidth());
    return offset;
  }
  Value view(int64_t offset, ArrayRef<int64_t> shape, Type elementType) {
    return memref::ViewOp::create(b, loc, sharedMemRefType(shape, elementType),
                                  sharedBase, indexConstant(b, loc, offset),
                                  ValueRange{});
  }
  Value tileBuffer(Value tile) {
    auto type = cast<RankedTensorType>(tile.getType());
    return view(allocate(type.getShape(), type.getElementType()),
                type.getShape(), type.getElementType());
  }

  // Cooperative loops -------------------------------------------------------
  /// Runs `body` for every element of `shape`, the block's threads taking
  /// consecutive elements (so neighbouring threads touch neighbouring
  /// addresses).
  void forEachElement(ArrayRef<int64_t> shape,
                      function_ref<void(ValueRange)> body) {
    auto loop =
        scf::ForOp::create(b, loc, threadId, indexConstant(b, loc, numElements(shape)),
                           indexConstant(b, loc, numThreads));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(delinearize(b, loc, loop.getInductionVar(), shape));
  }
  /// Runs `body` for every index in [0, count) handed out to warps.
  void forEachWarpItem(int64_t count, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, warpId, indexConstant(b, loc, count),
                                   indexConstant(b, loc, numWarps));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  }
  void barrier() { gpu::BarrierOp::create(b, loc); }

  // Tiles of device tensors --------------------------------------------------
  SmallVector<Value> tileOffsets(ArrayRef<int64_t> tile, block::DimMapAttr map,
                                 std::optional<int64_t> loopDim,
                                 Value iteration) {
    SmallVector<Value> offsets(tile.size(), indexConstant(b, loc, 0));
    for (unsigned g = 0; g < 3; ++g)
      if (std::optional<int64_t> dim = map.getTensorDim(g))
        offsets[*dim] = arith::MulIOp::create(
            b, loc, blockIds[g], indexConstant(b, loc, tile[*dim]));
    if (loopDim)
      offsets[*loopDim] = arith::MulIOp::create(
          b, loc, iteration, indexConstant(b, loc, tile[*loopDim]));
    return offsets;
  }
  SmallVector<Value> addOffsets(ValueRange indices, ValueRange offsets) {
    return llvm::map_to_vector(llvm::zip(indices, offsets), [&](auto pair) {
      return arith::AddIOp::create(b, loc, std::get<0>(pair), std::get<1>(pair))
          .getResult();
    });
  }
  /// Elements per 16-byte vector when rows of `tile` can move in 16-byte
  /// pieces (every row starts 16-byte aligned in both memories), else 1.
  int64_t vectorWidth(ArrayRef<int64_t> tile, Type elementType) {
    int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
    int64_t width = kVectorBytes / bytes;
    return tile.back() % width == 0 ? width : 1;
  }
  /// Starts the copy of the tile at `offsets` of `global` into `shared`.
  void copyTileAsync(Value global, Value shared, ArrayRef<int64_t> tile,
                     ValueRange offsets);
  void storeTile(Value shared, Value global, ArrayRef<int64_t> tile,
                 ValueRange offsets);

  // Block ops -----------------------------------------------------------------
  LogicalResult emitCompute(Operation &op);
  void emitElementwise(Operation &op);
  void emitThreadGraph(thread::GraphOp graph);
  void emitMatmul(block::MatmulOp op);
  void emitMatmulTensorCore(Value lhs, Value rhs, Value result);
  void emitMatmulScalar(Value lhs, Value rhs, Value result);
  /// One m16n8k16 bf16 mma.sync with f32 accumulation.
  Value mmaSyncBF16(Value a, Value bFrag, Value acc);
  void emitReduce(Operation &op, bool isMax);
  void emitRmsNorm(block::RmsNormOp op);
  void emitConcat(block::ConcatOp op);
  /// Sums (or maxes) `partial` over the 32 lanes of the warp; every lane gets
  /// the result.
  Value warpAllReduce(Value partial, bool isMax);
  LogicalResult emitForLoop(block::ForLoopOp loop);
  void emitAccumulatorUpdate(block::ForLoopOp loop, ArrayRef<Value> accs);

  kernel::CustomOp custom;
  gpu::GPUFuncOp func;
  const TargetInfo &target;
  OpBuilder b;
  Location loc;

  int64_t numThreads = 0, numWarps = 0;
  Value threadId, warpId, laneId;
  std::array<Value, 3> blockIds;
  Value sharedBase;
  /// Bytes allocated so far, and the most ever allocated at once.
  int64_t sharedBytes = 0, peakBytes = 0;
  /// Where the buffers that die with the for-loop start.
  int64_t loopScratchStart = 0;
  /// Block-graph tile -> its shared-memory buffer; region argument -> the
  /// kernel's memref argument.
  IRMapping buffers;
};

void BlockGraphToGPU::copyTileAsync(Value global, Value shared,
                                    ArrayRef<int64_t> tile,
                                    ValueRange offsets) {
  Type elementType = elementTypeOf(shared);
  int64_t width = vectorWidth(tile, elementType);
  if (width == 1) {
    // Rows too narrow for 16-byte copies: one element per thread and step.
    forEachElement(tile, [&](ValueRange idx) {
      Value v = memref::LoadOp::create(b, loc, global, addOffsets(idx, offsets));
      memref::StoreOp::create(b, loc, v, shared, idx);
    });
    return;
  }
  SmallVector<int64_t> pieces(tile);
  pieces.back() /= width;
  forEachElement(pieces, [&](ValueRange idx) {
    SmallVector<Value> dst = llvm::to_vector(idx);
    dst.back() = arith::MulIOp::create(b, loc, dst.back(),
                                       indexConstant(b, loc, width));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared, dst,
        global, addOffsets(dst, offsets), b.getIndexAttr(width),
        /*srcElements=*/Value(),
        // 16-byte copies may bypass L1: tiles are staged in shared memory.
        b.getUnitAttr());
  });
}

void BlockGraphToGPU::storeTile(Value shared, Value global,
                                ArrayRef<int64_t> tile, ValueRange offsets) {
  Type elementType = elementTypeOf(shared);
  int64_t width = vectorWidth(tile, elementType);
  if (width == 1) {
    forEachElement(tile, [&](ValueRange idx) {
      Value v = memref::LoadOp::create(b, loc, shared, idx);
      memref::StoreOp::create(b, loc, v, global, addOffsets(idx, offsets));
    });
    return;
  }
  SmallVector<int64_t> pieces(tile);
  pieces.back() /= width;
  auto vectorType = VectorType::get({width}, elementType);
  forEachElement(pieces, [&](ValueRange idx) {
    SmallVector<Value> src = llvm::to_vector(idx);
    src.back() = arith::MulIOp::create(b, loc, src.back(),
                                       indexConstant(b, loc, width));
    // Both sides are 16-byte aligned (vectorWidth checked the rows; tiles
    // and device buffers start 16-byte aligned), so each piece is one
    // ld.shared.v4 and one st.global.v4.
    Value v = vector::LoadOp::create(b, loc, vectorType, shared, src,
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(kVectorBytes));
    vector::StoreOp::create(b, loc, v, global, addOffsets(src, offsets),
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(kVectorBytes));
  });
}

void BlockGraphToGPU::emitElementwise(Operation &op) {
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

void BlockGraphToGPU::emitMatmul(block::MatmulOp op) {
  Value lhs = buffers.lookup(op.getLhs());
  Value rhs = buffers.lookup(op.getRhs());
  Value result = buffers.lookup(op.getResult());
  ArrayRef<int64_t> lhsShape = shapeOf(lhs);
  ArrayRef<int64_t> resultShape = shapeOf(result);
  Type elementType = elementTypeOf(lhs);
  int64_t k = lhsShape.back(), n = resultShape.back();
  // mma.sync m16n8k16 takes f16/bf16 fragments; ldmatrix needs 16-byte rows
  // (k and n multiples of 8) and k steps of 16.
  bool tensorCore = (elementType.isF16() || elementType.isBF16()) &&
                    n % 8 == 0 && k % 16 == 0 && numThreads % kWarpSize == 0;
  if (tensorCore)
    emitMatmulTensorCore(lhs, rhs, result);
  else
    emitMatmulScalar(lhs, rhs, result);
}

void BlockGraphToGPU::emitMatmulTensorCore(Value lhs, Value rhs, Value result) {
  ArrayRef<int64_t> resultShape = shapeOf(result);
  int64_t rank = resultShape.size();
  int64_t m = resultShape[rank - 2], n = resultShape[rank - 1];
  int64_t k = shapeOf(lhs).back();
  Type elementType = elementTypeOf(lhs);
  Type f32 = b.getF32Type();
  // Each warp owns 16x8 fragments of the result, taken round-robin. Rows past
  // m (when m is not a multiple of 16) read row m-1 and are not stored.
  SmallVector<int64_t> fragments(resultShape.drop_back(2));
  int64_t mTiles = llvm::divideCeil(m, 16);
  fragments.push_back(mTiles);
  fragments.push_back(n / 8);
  auto accType = VectorType::get({2, 2}, f32);
  auto aType = VectorType::get({4, 2}, elementType);
  auto bType = VectorType::get({2, 2}, elementType);
  forEachWarpItem(numElements(fragments), [&](Value f) {
    SmallVector<Value> idx = delinearize(b, loc, f, fragments);
    SmallVector<Value> batch(idx.begin(), idx.end() - 2);
    Value row0 = arith::MulIOp::create(b, loc, idx[rank - 2],
                                       indexConstant(b, loc, 16));
    Value col0 = arith::MulIOp::create(b, loc, idx[rank - 1],
                                       indexConstant(b, loc, 8));
    // ldmatrix: lanes 0-15 give the rows of the left 8 columns of A, lanes
    // 16-31 those of the right 8; for B (k x n, row-major, read transposed)
    // lanes 0-15 give the 16 rows of k.
    Value lane16 = arith::RemUIOp::create(b, loc, laneId, indexConstant(b, loc, 16));
    Value half = arith::DivUIOp::create(b, loc, laneId, indexConstant(b, loc, 16));
    Value aRow = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, row0, lane16),
        indexConstant(b, loc, m - 1));
    Value aColBase =
        arith::MulIOp::create(b, loc, half, indexConstant(b, loc, 8));
    Value zero = arith::ConstantOp::create(
        b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
    auto kLoop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                    indexConstant(b, loc, k),
                                    indexConstant(b, loc, 16), ValueRange{zero});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      SmallVector<Value> aIdx(batch);
      aIdx.push_back(aRow);
      aIdx.push_back(arith::AddIOp::create(b, loc, kk, aColBase));
      Value a = nvgpu::LdMatrixOp::create(b, loc, aType, lhs, aIdx,
                                          /*transpose=*/false, /*numTiles=*/4);
      SmallVector<Value> bIdx(batch);
      bIdx.push_back(arith::AddIOp::create(b, loc, kk, lane16));
      bIdx.push_back(col0);
      Value bFrag = nvgpu::LdMatrixOp::create(b, loc, bType, rhs, bIdx,
                                              /*transpose=*/true,
                                              /*numTiles=*/2);
      Value acc = elementType.isBF16()
                      ? mmaSyncBF16(a, bFrag, kLoop.getRegionIterArg(0))
                      : nvgpu::MmaSyncOp::create(
                            b, loc, a, bFrag, kLoop.getRegionIterArg(0),
                            ArrayRef<int64_t>{16, 8, 16})
                            .getResult();
      scf::YieldOp::create(b, loc, acc);
    }
    // Accumulator fragment: lane l holds rows l/4 and l/4 + 8, columns
    // 2(l%4) and 2(l%4) + 1.
    Value group = arith::DivUIOp::create(b, loc, laneId, indexConstant(b, loc, 4));
    Value pair = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, laneId, indexConstant(b, loc, 4)),
        indexConstant(b, loc, 2));
    Type resultElement = elementTypeOf(result);
    for (int64_t r = 0; r < 2; ++r) {
      Value row = arith::AddIOp::create(
          b, loc, row0,
          arith::AddIOp::create(b, loc, group, indexConstant(b, loc, 8 * r)));
      auto storeRow = [&]() {
        for (int64_t c = 0; c < 2; ++c) {
          Value v = vector::ExtractOp::create(b, loc, kLoop.getResult(0),
                                              ArrayRef<int64_t>{r, c});
          if (resultElement != f32)
            v = arith::TruncFOp::create(b, loc, resultElement, v);
          SmallVector<Value> at(batch);
          at.push_back(row);
          at.push_back(arith::AddIOp::create(b, loc, col0,
              arith::AddIOp::create(b, loc, pair, indexConstant(b, loc, c))));
          memref::StoreOp::create(b, loc, v, result, at);
        }
      };
      if (m % 16 == 0) {
        storeRow();
        continue;
      }
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            row, indexConstant(b, loc, m));
      auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      storeRow();
    }
  });
}

Value BlockGraphToGPU::mmaSyncBF16(Value a, Value bFrag, Value acc) {
  // nvgpu.mma.sync cannot lower bf16 fragments; nvvm.mma.sync takes them as
  // packed pairs: A as 4 x i32, B as 2 x i32, C and D as 4 x f32.
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto packRows = [&](Value fragment) {
    SmallVector<Value> packed;
    int64_t rows = cast<VectorType>(fragment.getType()).getDimSize(0);
    for (int64_t r = 0; r < rows; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, fragment,
                                             ArrayRef<int64_t>{r});
      Value word = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, i32), pair);
      packed.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return packed;
  };
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t col = 0; col < 2; ++col)
      c.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, col}));
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, f32));
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, packRows(a), packRows(bFrag), c,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, acc.getType(), elements);
}

void BlockGraphToGPU::emitMatmulScalar(Value lhs, Value rhs, Value result) {
  ArrayRef<int64_t> resultShape = shapeOf(result);
  int64_t rank = resultShape.size();
  int64_t k = shapeOf(lhs).back();
  Type f32 = b.getF32Type();
  Type resultElement = elementTypeOf(result);
  forEachElement(resultShape, [&](ValueRange idx) {
    auto kLoop = scf::ForOp::create(
        b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, k),
        indexConstant(b, loc, 1), ValueRange{floatConstant(b, loc, f32, 0.0)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      SmallVector<Value> aIdx = llvm::to_vector(idx.drop_back(1));
      aIdx.push_back(kk);
      SmallVector<Value> bIdx = llvm::to_vector(idx.drop_back(2));
      bIdx.push_back(kk);
      bIdx.push_back(idx[rank - 1]);
      Value a = buildScalarExtension(
          b, loc, memref::LoadOp::create(b, loc, lhs, aIdx), f32);
      Value bv = buildScalarExtension(
          b, loc, memref::LoadOp::create(b, loc, rhs, bIdx), f32);
      // mul + add rather than math.fma: NVPTX contracts them into fma.rn
      // itself, while math.fma would become a libdevice call.
      scf::YieldOp::create(
          b, loc,
          arith::AddFOp::create(b, loc, kLoop.getRegionIterArg(0),
                                arith::MulFOp::create(b, loc, a, bv))
              .getResult());
    }
    Value v = kLoop.getResult(0);
    if (resultElement != f32)
      v = arith::TruncFOp::create(b, loc, resultElement, v);
    memref::StoreOp::create(b, loc, v, result, idx);
  });
}

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
  int64_t rank = shape.size();
  int64_t n = shape.back();
  Type f32 = b.getF32Type();
  Type resultElement = elementTypeOf(result);
  double epsilon = op.getEpsilon().convertToDouble();
  SmallVector<int64_t> rows(shape.drop_back());
  bool warps = numThreads % kWarpSize == 0;
  auto normalizeRow = [&](ValueRange rowIdx, Value start, int64_t step) {
    // y = x / sqrt(sum(x^2) / n + epsilon), as the CPU lowering computes it.
    auto element = [&](Value j) {
      SmallVector<Value> idx = llvm::to_vector(rowIdx);
      idx.push_back(j);
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
      scf::YieldOp::create(
          b, loc,
          arith::AddFOp::create(b, loc, sumLoop.getRegionIterArg(0),
                                arith::MulFOp::create(b, loc, x, x))
              .getResult());
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
  (void)rank;
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

LogicalResult BlockGraphToGPU::emitCompute(Operation &op) {
  if (auto graph = dyn_cast<thread::GraphOp>(op))
    emitThreadGraph(graph);
  else if (auto matmul = dyn_cast<block::MatmulOp>(op))
    emitMatmul(matmul);
  else if (isa<block::ReduceSumOp>(op))
    emitReduce(op, /*isMax=*/false);
  else if (isa<block::ReduceMaxOp>(op))
    emitReduce(op, /*isMax=*/true);
  else if (auto norm = dyn_cast<block::RmsNormOp>(op))
    emitRmsNorm(norm);
  else if (auto concat = dyn_cast<block::ConcatOp>(op))
    emitConcat(concat);
  else if (isElementwiseOp(op))
    emitElementwise(op);
  else
    return op.emitOpError("has no GPU lowering");
  barrier();
  return success();
}

void BlockGraphToGPU::emitAccumulatorUpdate(block::ForLoopOp loop,
                                            ArrayRef<Value> accs) {
  auto yield = cast<block::YieldOp>(loop.getBody().front().getTerminator());
  Type f32 = b.getF32Type();
  auto widen = [&](Value v) { return buildScalarExtension(b, loc, v, f32); };
  // Phase 1: every accumulator except max, which rescale reads unchanged.
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    block::AccumulatorAttr acc = loop.getAccumulator(i);
    if (acc.getKind() == block::AccumKind::max)
      continue;
    Value yielded = buffers.lookup(yield.getValues()[i]);
    ArrayRef<int64_t> shape = shapeOf(accs[i]);
    forEachElement(shape, [&](ValueRange idx) {
      Value running = memref::LoadOp::create(b, loc, accs[i], idx);
      Value v = widen(memref::LoadOp::create(b, loc, yielded, idx));
      Value next;
      switch (acc.getKind()) {
      case block::AccumKind::sum:
      case block::AccumKind::mean:
        next = arith::AddFOp::create(b, loc, running, v);
        break;
      case block::AccumKind::rms:
        next = arith::AddFOp::create(b, loc, running,
                                     arith::MulFOp::create(b, loc, v, v));
        break;
      case block::AccumKind::rescale: {
        // acc * exp(M_old - M_new) + v * exp(m_i - M_new), as on the CPU.
        unsigned k = *acc.getScaleBy();
        SmallVector<Value> kIdx =
            broadcastIndices(b, loc, idx, shapeOf(accs[k]), shape);
        Value oldMax = memref::LoadOp::create(b, loc, accs[k], kIdx);
        Value m = widen(memref::LoadOp::create(
            b, loc, buffers.lookup(yield.getValues()[k]), kIdx));
        Value newMax = arith::MaximumFOp::create(b, loc, oldMax, m);
        Value oldScale = math::ExpOp::create(
            b, loc, arith::SubFOp::create(b, loc, oldMax, newMax));
        Value newScale = math::ExpOp::create(
            b, loc, arith::SubFOp::create(b, loc, m, newMax));
        next = arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, running, oldScale),
            arith::MulFOp::create(b, loc, v, newScale));
        break;
      }
      case block::AccumKind::max:
        llvm_unreachable("max accumulators update in phase 2");
      }
      memref::StoreOp::create(b, loc, next, accs[i], idx);
    });
  }
  barrier();
  // Phase 2: the max accumulators.
  bool anyMax = false;
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    if (loop.getAccumulator(i).getKind() != block::AccumKind::max)
      continue;
    anyMax = true;
    Value yielded = buffers.lookup(yield.getValues()[i]);
    forEachElement(shapeOf(accs[i]), [&](ValueRange idx) {
      Value running = memref::LoadOp::create(b, loc, accs[i], idx);
      Value v = widen(memref::LoadOp::create(b, loc, yielded, idx));
      memref::StoreOp::create(
          b, loc, arith::MaximumFOp::create(b, loc, running, v), accs[i], idx);
    });
  }
  if (anyMax)
    barrier();
}

LogicalResult BlockGraphToGPU::emitForLoop(block::ForLoopOp loop) {
  Block &body = loop.getBody().front();
  int64_t iterations = loop.getIterations();
  Type f32 = b.getF32Type();

  // Shared memory for everything the loop touches, planned before any code
  // so the views are created once, outside the loop.
  struct StreamedLoad {
    block::LoadOp load;
    Value buffers[2];
  };
  // The accumulators and the loop's results first: they outlive the loop.
  // An f32 sum or max accumulator is its own result (nothing to finalize).
  SmallVector<Value> accs;
  SmallVector<bool> accIsResult;
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    auto type = cast<RankedTensorType>(loop.getResult(i).getType());
    block::AccumKind kind = loop.getAccumulator(i).getKind();
    accs.push_back(view(allocate(type.getShape(), f32), type.getShape(), f32));
    accIsResult.push_back(type.getElementType().isF32() &&
                          (kind == block::AccumKind::sum ||
                           kind == block::AccumKind::max));
    buffers.map(loop.getResult(i),
                accIsResult.back() ? accs.back() : tileBuffer(loop.getResult(i)));
  }
  // Everything from here on is dead after the loop: the ops after it reuse
  // the space.
  loopScratchStart = sharedBytes;
  SmallVector<StreamedLoad> streamed;
  SmallVector<block::LoadOp> invariant;
  for (Operation &op : body.without_terminator()) {
    if (auto load = dyn_cast<block::LoadOp>(op)) {
      if (load.getFmap() && iterations > 1) {
        // Double buffer: iteration i+1 lands in one while i reads the other.
        streamed.push_back({load, {tileBuffer(load.getTile()),
                                   tileBuffer(load.getTile())}});
      } else {
        invariant.push_back(load);
        buffers.map(load.getTile(), tileBuffer(load.getTile()));
      }
      continue;
    }
    for (Value result : op.getResults())
      buffers.map(result, tileBuffer(result));
  }

  auto issueLoad = [&](block::LoadOp load, Value destination, Value iteration) {
    ArrayRef<int64_t> tile = shapeOf(load.getTile());
    copyTileAsync(buffers.lookup(load.getSource()), destination, tile,
                  tileOffsets(tile, load.getImap(), load.getFmap(), iteration));
  };

  // Prologue: initialize the accumulators, start the copies of the
  // loop-invariant tiles and of iteration 0's tiles (one cp.async group).
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    bool isMax = loop.getAccumulator(i).getKind() == block::AccumKind::max;
    Value init = floatConstant(b, loc, f32, isMax ? -INFINITY : 0.0);
    forEachElement(shapeOf(accs[i]), [&](ValueRange idx) {
      memref::StoreOp::create(b, loc, init, accs[i], idx);
    });
  }
  Value zero = indexConstant(b, loc, 0);
  for (block::LoadOp load : invariant)
    issueLoad(load, buffers.lookup(load.getTile()), zero);
  for (StreamedLoad &s : streamed)
    issueLoad(s.load, s.buffers[0], zero);
  NVVM::CpAsyncCommitGroupOp::create(b, loc);

  auto forOp = scf::ForOp::create(b, loc, zero,
                                  indexConstant(b, loc, iterations),
                                  indexConstant(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forOp.getBody()->getTerminator());
  Value i = forOp.getInductionVar();
  Value odd = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, i, indexConstant(b, loc, 2)),
      indexConstant(b, loc, 1));
  if (!streamed.empty()) {
    // Prefetch iteration i+1 into the buffer iteration i-1 used (every thread
    // passed the barrier that ended iteration i-1). The last iteration
    // fetches its own tile again into the idle buffer, which keeps the
    // pipeline free of branches.
    Value next = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, i, indexConstant(b, loc, 1)),
        indexConstant(b, loc, iterations - 1));
    for (StreamedLoad &s : streamed) {
      Value target = arith::SelectOp::create(b, loc, odd, s.buffers[0],
                                             s.buffers[1]);
      issueLoad(s.load, target, next);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    // All groups but the newest (iteration i+1's) are complete.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(1));
  } else {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  }
  barrier();
  for (StreamedLoad &s : streamed)
    buffers.map(s.load.getTile(), arith::SelectOp::create(
                                      b, loc, odd, s.buffers[1], s.buffers[0])
                                      .getResult());
  for (Operation &op : body.without_terminator())
    if (!isa<block::LoadOp>(op) && failed(emitCompute(op)))
      return failure();
  emitAccumulatorUpdate(loop, accs);

  // Epilogue: the accumulators in the tile type. The last iteration's
  // spare prefetch may still be landing; the space it writes is reused below.
  b.setInsertionPointAfter(forOp);
  if (!streamed.empty())
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  for (unsigned r = 0; r < loop.getNumResults(); ++r) {
    if (accIsResult[r])
      continue;
    block::AccumulatorAttr acc = loop.getAccumulator(r);
    Value result = buffers.lookup(loop.getResult(r));
    Type resultElement = elementTypeOf(result);
    double inverse = 1.0 / static_cast<double>(iterations);
    forEachElement(shapeOf(result), [&](ValueRange idx) {
      Value v = memref::LoadOp::create(b, loc, accs[r], idx);
      if (acc.getKind() == block::AccumKind::mean ||
          acc.getKind() == block::AccumKind::rms)
        v = arith::MulFOp::create(b, loc, v,
                                  floatConstant(b, loc, f32, inverse));
      if (acc.getKind() == block::AccumKind::rms)
        v = math::SqrtOp::create(b, loc, v);
      if (resultElement != f32)
        v = arith::TruncFOp::create(b, loc, resultElement, v);
      memref::StoreOp::create(b, loc, v, result, idx);
    });
  }
  barrier();
  peakBytes = std::max(peakBytes, sharedBytes);
  sharedBytes = loopScratchStart;
  return success();
}

FailureOr<int64_t> BlockGraphToGPU::emit() {
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
      b, loc,
      sharedMemRefType({ShapedType::kDynamic}, b.getIntegerType(8)));
  for (auto [arg, memref] :
       llvm::zip(custom.getBody().getArguments(), func.getArguments()))
    buffers.map(arg, memref);

  for (Operation &op : custom.getBody().front()) {
    if (auto loop = dyn_cast<block::ForLoopOp>(op)) {
      if (failed(emitForLoop(loop)))
        return failure();
    } else if (auto store = dyn_cast<block::StoreOp>(op)) {
      ArrayRef<int64_t> tile = shapeOf(store.getTile());
      storeTile(buffers.lookup(store.getTile()),
                buffers.lookup(store.getDest()), tile,
                tileOffsets(tile, store.getOmap(), std::nullopt, Value()));
    } else if (!isa<block::ReturnOp>(op)) {
      for (Value result : op.getResults())
        buffers.map(result, tileBuffer(result));
      if (failed(emitCompute(op)))
        return failure();
    }
  }
  gpu::ReturnOp::create(b, loc);

  sharedBytes = std::max(peakBytes, sharedBytes);
  if (sharedBytes > static_cast<int64_t>(target.maxSharedMemPerBlock))
    return custom.emitOpError("needs ")
           << sharedBytes << " bytes of shared memory on the GPU (tiles, "
           << "double buffers and f32 accumulators), more than the "
           << target.maxSharedMemPerBlock << " bytes a block of "
           << target.chip << " can have";
  return sharedBytes;
}

MemRefType memrefTypeFor(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// Rewrites one function: its custom kernels become gpu.funcs in `kernels`,
/// the function itself a host function that launches them.
LogicalResult lowerFunction(func::FuncOp func, gpu::GPUModuleOp kernels,
                            const TargetInfo &target) {
  Block &entry = func.getBody().front();
  for (Operation &op : entry) {
    if (isa<kernel::CustomOp, func::ReturnOp>(op))
      continue;
    if (op.getDialect() && op.getDialect()->getNamespace() == "kernel")
      return op.emitOpError("is not inside a custom kernel; run "
                            "--convert-kernel-to-custom first");
    return op.emitOpError("cannot run on the GPU: a function lowered by "
                          "--convert-custom-kernel-to-gpu may hold only "
                          "custom kernels and func.return");
  }
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to run on the GPU");
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(value))
      return ret.emitOpError("returns function argument ")
             << cast<BlockArgument>(value).getArgNumber()
             << " unchanged; a GPU host function writes each result with a "
                "kernel";
    for (unsigned j = 0; j < i; ++j)
      if (ret.getOperand(j) == value)
        return ret.emitOpError("returns the same tensor as results ")
               << j << " and " << i
               << "; a GPU host function writes each result with a kernel";
  }

  MLIRContext *ctx = func.getContext();
  unsigned numInputs = func.getNumArguments();
  // Destination-passing style: results become trailing memref arguments.
  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes()) {
    if (!isa<RankedTensorType>(t) || !cast<RankedTensorType>(t).hasStaticShape())
      return func.emitOpError("has an argument of type ")
             << t << "; GPU host functions take statically shaped tensors";
    argTypes.push_back(memrefTypeFor(t));
  }
  for (Type t : func.getResultTypes()) {
    if (!isa<RankedTensorType>(t))
      return func.emitOpError("has a result of type ")
             << t << "; GPU host functions return tensors";
    argTypes.push_back(memrefTypeFor(t));
  }

  OpBuilder b(ctx);
  SymbolTable kernelSymbols(kernels);
  // Memrefs for the tensors: arguments, results, intermediates.
  DenseMap<Value, Value> memrefs;
  SmallVector<Location> argLocs;
  for (BlockArgument arg : entry.getArguments())
    argLocs.push_back(arg.getLoc());
  for (Value v : ret.getOperands())
    argLocs.push_back(v.getLoc());
  Block *newEntry = new Block();
  newEntry->addArguments(argTypes, argLocs);
  for (auto [arg, memref] :
       llvm::zip(entry.getArguments(), newEntry->getArguments()))
    memrefs[arg] = memref;
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    memrefs[value] = newEntry->getArgument(numInputs + i);

  // The last launch that reads each intermediate, to free it after.
  SmallVector<kernel::CustomOp> customs(entry.getOps<kernel::CustomOp>());
  DenseMap<Value, unsigned> lastUse;
  for (auto [n, custom] : llvm::enumerate(customs))
    for (Value input : custom.getInputs())
      lastUse[input] = n;

  b.setInsertionPointToEnd(newEntry);
  for (auto [n, custom] : llvm::enumerate(customs)) {
    Location loc = custom.getLoc();
    for (Value output : custom.getOutputs())
      if (!memrefs.count(output))
        memrefs[output] =
            gpu::AllocOp::create(b, loc, memrefTypeFor(output.getType()),
                                 Type(), ValueRange{}, ValueRange{},
                                 ValueRange{})
                .getMemref();

    // The kernel.
    SmallVector<Type> kernelArgs;
    for (Value v : custom.getInputs())
      kernelArgs.push_back(memrefTypeFor(v.getType()));
    for (Value v : custom.getOutputs())
      kernelArgs.push_back(memrefTypeFor(v.getType()));
    OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
    std::string name = (func.getSymName() + "_kernel" + Twine(n)).str();
    auto gpuFunc = gpu::GPUFuncOp::create(kb, loc, name,
                                          FunctionType::get(ctx, kernelArgs, {}));
    kernelSymbols.insert(gpuFunc);
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     kb.getUnitAttr());
    kernel::Dim3Attr grid = custom.getGrid(), block = custom.getBlock();
    gpuFunc.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr(
        {static_cast<int32_t>(block.getX()), static_cast<int32_t>(block.getY()),
         static_cast<int32_t>(block.getZ())}));
    gpuFunc.setKnownGridSizeAttr(kb.getDenseI32ArrayAttr(
        {static_cast<int32_t>(grid.getX()), static_cast<int32_t>(grid.getY()),
         static_cast<int32_t>(grid.getZ())}));
    BlockGraphToGPU emitter(custom, gpuFunc, target);
    FailureOr<int64_t> sharedBytes = emitter.emit();
    if (failed(sharedBytes)) {
      delete newEntry;
      return failure();
    }

    // The launch.
    auto dim3 = [&](kernel::Dim3Attr d) {
      return gpu::KernelDim3{indexConstant(b, loc, d.getX()),
                             indexConstant(b, loc, d.getY()),
                             indexConstant(b, loc, d.getZ())};
    };
    SmallVector<Value> operands;
    for (Value v : custom.getInputs())
      operands.push_back(memrefs.lookup(v));
    for (Value v : custom.getOutputs())
      operands.push_back(memrefs.lookup(v));
    Value shared = arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(static_cast<int32_t>(*sharedBytes)));
    gpu::LaunchFuncOp::create(b, loc, gpuFunc, dim3(grid), dim3(block), shared,
                              operands);

    // Free the intermediates this launch was the last to read.
    for (Value input : custom.getInputs())
      if (lastUse.lookup(input) == n && !isa<BlockArgument>(input) &&
          !llvm::is_contained(ret.getOperands(), input))
        gpu::DeallocOp::create(b, loc, Type(), ValueRange{},
                               memrefs.lookup(input));
  }
  // Intermediates nobody reads.
  for (kernel::CustomOp custom : customs)
    for (Value output : custom.getOutputs())
      if (!lastUse.count(output) &&
          !llvm::is_contained(ret.getOperands(), output))
        gpu::DeallocOp::create(b, custom.getLoc(), Type(), ValueRange{},
                               memrefs.lookup(output));
  func::ReturnOp::create(b, ret.getLoc());

  // Swap the body and the signature.
  func.getBody().front().dropAllDefinedValueUses();
  func.getBody().front().erase();
  func.getBody().push_back(newEntry);
  func.setFunctionType(FunctionType::get(ctx, argTypes, {}));
  func.setAllArgAttrs(SmallVector<Attribute>(argTypes.size(),
                                             DictionaryAttr::get(ctx)));
  func.setAllResultAttrs(ArrayRef<Attribute>{});
  for (unsigned i = numInputs; i < argTypes.size(); ++i)
    func.setArgAttr(i, kResultIndexAttrName,
                    b.getI64IntegerAttr(i - numInputs));
  // The reference link compared tensor functions; it does not apply to the
  // host function any more.
  func->removeAttr("mlsopt.equivalent_to");
  return success();
}

struct ConvertCustomKernelToGPUPass
    : mlsopt::impl::ConvertCustomKernelToGPUBase<ConvertCustomKernelToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetInfo> target = lookupTarget(chip);
    if (!target) {
      emitError(module.getLoc())
          << "unknown GPU chip '" << chip << "'; use one of "
          << supportedTargetNames();
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    // Functions with kernel-dialect ops at their top level run on the GPU;
    // lowerFunction rejects the ones it cannot take whole.
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          llvm::any_of(func.getBody().getOps(), [](Operation &op) {
            return isa_and_nonnull<kernel::KernelDialect>(op.getDialect());
          }))
        funcs.push_back(func);
    if (funcs.empty())
      return;

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto kernels =
        gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
    SymbolTable(module).insert(kernels);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    for (func::FuncOp func : funcs)
      if (failed(lowerFunction(func, kernels, *target)))
        return signalPassFailure();
  }
};

} // namespace
