//===- Matmul.cpp - Matmuls on tensor cores and CUDA cores ------------------===//
//
// block.matmul: f16/bf16 on tensor cores (ldmatrix + mma.sync m16n8k16,
// f32 accumulation), everything else as FMA loops on CUDA cores.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

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
