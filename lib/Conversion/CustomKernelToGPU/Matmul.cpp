//===- Matmul.cpp - Matmuls on tensor cores and CUDA cores ----------------===//
//
// block.matmul on tensor cores: f16/bf16 with ldmatrix + mma.sync m16n8k16,
// f32 as tf32 (cvt.rna.tf32.f32 + mma.sync m16n8k8) unless allow-tf32=false,
// both accumulating in f32; everything else as FMA loops on CUDA cores.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlsopt/Conversion/ElementwiseMath.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

std::optional<BlockGraphToGPU::MmaKind>
BlockGraphToGPU::mmaKindFor(block::MatmulOp op) {
  Type elementType = elementTypeOf(op.getLhs());
  int64_t k = shapeOf(op.getLhs()).back(), n = shapeOf(op.getResult()).back();
  // Fragments are 8 columns wide. m16n8k16 (f16/bf16) steps k by 16, and
  // ldmatrix needs 16-byte rows; m16n8k8 (tf32) steps k by 8 and reads its
  // fragments one 32-bit element at a time. Every supported chip is sm_80
  // or newer, which has both.
  if (numThreads % kWarpSize != 0 || n % 8 != 0)
    return std::nullopt;
  if (elementType.isF16() && k % 16 == 0)
    return MmaKind::f16;
  if (elementType.isBF16() && k % 16 == 0)
    return MmaKind::bf16;
  if (elementType.isF32() && k % 8 == 0 && allowTF32)
    return MmaKind::tf32;
  return std::nullopt;
}

void BlockGraphToGPU::emitMatmul(block::MatmulOp op) {
  if (std::optional<MmaKind> kind = mmaKindFor(op))
    emitMatmulTensorCore(op, *kind);
  else
    emitMatmulScalar(buffers.lookup(op.getLhs()), buffers.lookup(op.getRhs()),
                     buffers.lookup(op.getResult()));
}

void BlockGraphToGPU::emitMatmulTensorCore(block::MatmulOp op, MmaKind kind) {
  Value result = buffers.lookup(op.getResult());
  ArrayRef<int64_t> resultShape = shapeOf(result);
  int64_t rank = resultShape.size();
  int64_t m = resultShape[rank - 2], n = resultShape[rank - 1];
  int64_t k = shapeOf(op.getLhs()).back();
  int64_t kStep = kind == MmaKind::tf32 ? 8 : 16;
  Type f32 = b.getF32Type();
  // Each warp owns 16x8 fragments of the result, taken round-robin. Rows past
  // m (when m is not a multiple of 16) read row m-1 and are not stored.
  SmallVector<int64_t> fragments(resultShape.drop_back(2));
  int64_t mTiles = llvm::divideCeil(m, 16);
  fragments.push_back(mTiles);
  fragments.push_back(n / 8);
  auto accType = VectorType::get({2, 2}, f32);
  forEachWarpItem(numElements(fragments), [&](Value f) {
    SmallVector<Value> idx = delinearize(b, loc, f, fragments);
    MmaFragment frag;
    frag.batch.assign(idx.begin(), idx.end() - 2);
    frag.row0 =
        arith::MulIOp::create(b, loc, idx[rank - 2], indexConstant(b, loc, 16));
    frag.col0 =
        arith::MulIOp::create(b, loc, idx[rank - 1], indexConstant(b, loc, 8));
    frag.lastRow = m - 1;
    // The lane's place in the fragments: PTX numbers the lanes of mma
    // operands by group (lane / 4) and thread in group (lane % 4).
    frag.group =
        arith::DivUIOp::create(b, loc, laneId, indexConstant(b, loc, 4));
    frag.threadInGroup =
        arith::RemUIOp::create(b, loc, laneId, indexConstant(b, loc, 4));
    Value zero = arith::ConstantOp::create(
        b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
    auto kLoop = scf::ForOp::create(
        b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, k),
        indexConstant(b, loc, kStep), ValueRange{zero});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      Value acc = kLoop.getRegionIterArg(0);
      scf::YieldOp::create(b, loc,
                           kind == MmaKind::tf32
                               ? mmaStepTF32(op, frag, kk, acc)
                               : mmaStepB16(op, frag, kk, acc, kind));
    }
    storeAccumulatorFragment(kLoop.getResult(0), result, frag, m);
  });
}

Value BlockGraphToGPU::mmaStepB16(block::MatmulOp op, const MmaFragment &frag,
                                  Value kk, Value acc, MmaKind kind) {
  Type elementType = elementTypeOf(op.getLhs());
  auto aType = VectorType::get({4, 2}, elementType);
  auto bType = VectorType::get({2, 2}, elementType);
  // ldmatrix: lanes 0-15 give the rows of the left 8 columns of A, lanes
  // 16-31 those of the right 8; for B (k x n, row-major, read transposed)
  // lanes 0-15 give the 16 rows of k.
  Value lane16 =
      arith::RemUIOp::create(b, loc, laneId, indexConstant(b, loc, 16));
  Value half =
      arith::DivUIOp::create(b, loc, laneId, indexConstant(b, loc, 16));
  Value aRow = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, frag.row0, lane16),
      indexConstant(b, loc, frag.lastRow));
  Value aCol = arith::AddIOp::create(
      b, loc, kk,
      arith::MulIOp::create(b, loc, half, indexConstant(b, loc, 8)));
  SmallVector<Value> aIdx(frag.batch);
  aIdx.push_back(aRow);
  aIdx.push_back(aCol);
  Value a =
      nvgpu::LdMatrixOp::create(b, loc, aType, buffers.lookup(op.getLhs()),
                                tileIndices(op.getLhs(), aIdx),
                                /*transpose=*/false, /*numTiles=*/4);
  SmallVector<Value> bIdx(frag.batch);
  bIdx.push_back(arith::AddIOp::create(b, loc, kk, lane16));
  bIdx.push_back(frag.col0);
  Value bFrag =
      nvgpu::LdMatrixOp::create(b, loc, bType, buffers.lookup(op.getRhs()),
                                tileIndices(op.getRhs(), bIdx),
                                /*transpose=*/true, /*numTiles=*/2);
  if (kind == MmaKind::f16)
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, acc,
                                    ArrayRef<int64_t>{16, 8, 16})
        .getResult();
  // nvgpu.mma.sync cannot lower bf16 fragments; nvvm.mma.sync takes them as
  // packed pairs: A as 4 x i32, B as 2 x i32.
  Type i32 = b.getI32Type();
  auto packRows = [&](Value fragment) {
    SmallVector<Value> packed;
    int64_t rows = cast<VectorType>(fragment.getType()).getDimSize(0);
    for (int64_t r = 0; r < rows; ++r) {
      Value pair =
          vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{r});
      Value word =
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
      packed.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return packed;
  };
  return mmaSyncNVVM(packRows(a), packRows(bFrag), acc, {16, 8, 16},
                     NVVM::MMATypes::bf16);
}

Value BlockGraphToGPU::mmaStepTF32(block::MatmulOp op, const MmaFragment &frag,
                                   Value kk, Value acc) {
  // m16n8k8 .tf32 fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8"),
  // with g = lane / 4 and t = lane % 4:
  //   A: a0 = (g, t), a1 = (g + 8, t), a2 = (g, t + 4), a3 = (g + 8, t + 4)
  //   B: b0 = (t, g), b1 = (t + 4, g)
  // Each is one 32-bit element: plain ld.shared, no ldmatrix (which moves
  // 16-bit elements).
  Type i32 = b.getI32Type();
  auto tf32At = [&](Value tile, Value row, Value col) {
    SmallVector<Value> at(frag.batch);
    at.push_back(row);
    at.push_back(col);
    Value x = memref::LoadOp::create(b, loc, buffers.lookup(tile),
                                     tileIndices(tile, at));
    // Round to nearest, ties away from zero, as cuBLAS and PyTorch do;
    // mma.sync itself would just drop the low 13 mantissa bits.
    return NVVM::ConvertFloatToTF32Op::create(b, loc, i32, x,
                                              NVVM::FPRoundingMode::RNA,
                                              NVVM::SaturationMode::NONE,
                                              /*relu=*/false)
        .getResult();
  };
  auto plus = [&](Value v, int64_t c) {
    return arith::AddIOp::create(b, loc, v, indexConstant(b, loc, c))
        .getResult();
  };
  auto clampRow = [&](Value row) {
    return arith::MinUIOp::create(b, loc, row,
                                  indexConstant(b, loc, frag.lastRow))
        .getResult();
  };
  Value row = arith::AddIOp::create(b, loc, frag.row0, frag.group);
  Value rowLo = clampRow(row), rowHi = clampRow(plus(row, 8));
  Value kLo = arith::AddIOp::create(b, loc, kk, frag.threadInGroup);
  Value kHi = plus(kLo, 4);
  Value col = arith::AddIOp::create(b, loc, frag.col0, frag.group);
  Value lhs = op.getLhs(), rhs = op.getRhs();
  SmallVector<Value> a = {tf32At(lhs, rowLo, kLo), tf32At(lhs, rowHi, kLo),
                          tf32At(lhs, rowLo, kHi), tf32At(lhs, rowHi, kHi)};
  SmallVector<Value> bRegs = {tf32At(rhs, kLo, col), tf32At(rhs, kHi, col)};
  return mmaSyncNVVM(a, bRegs, acc, {16, 8, 8}, NVVM::MMATypes::tf32);
}

Value BlockGraphToGPU::mmaSyncNVVM(ValueRange a, ValueRange bRegs, Value acc,
                                   ArrayRef<int64_t> shape,
                                   NVVM::MMATypes type) {
  // C and D are 4 x f32: c0, c1 on row g, c2, c3 on row g + 8, the layout
  // of the vector<2x2xf32> accumulator.
  Type f32 = b.getF32Type();
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t col = 0; col < 2; ++col)
      c.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, col}));
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     SmallVector<Type>(4, f32));
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, a, bRegs, c, shape, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, acc.getType(), elements);
}

void BlockGraphToGPU::storeAccumulatorFragment(Value acc, Value result,
                                               const MmaFragment &frag,
                                               int64_t m) {
  // Accumulator fragment: lane l holds rows l/4 and l/4 + 8, columns
  // 2(l%4) and 2(l%4) + 1.
  Type f32 = b.getF32Type();
  Value pair = arith::MulIOp::create(b, loc, frag.threadInGroup,
                                     indexConstant(b, loc, 2));
  Type resultElement = elementTypeOf(result);
  for (int64_t r = 0; r < 2; ++r) {
    Value row = arith::AddIOp::create(
        b, loc, frag.row0,
        arith::AddIOp::create(b, loc, frag.group,
                              indexConstant(b, loc, 8 * r)));
    auto storeRow = [&]() {
      for (int64_t c = 0; c < 2; ++c) {
        Value v =
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, c});
        if (resultElement != f32)
          v = arith::TruncFOp::create(b, loc, resultElement, v);
        SmallVector<Value> at(frag.batch);
        at.push_back(row);
        at.push_back(arith::AddIOp::create(
            b, loc, frag.col0,
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
      yieldSumPlusProduct(b, loc, kLoop, a, bv);
    }
    Value v = kLoop.getResult(0);
    if (resultElement != f32)
      v = arith::TruncFOp::create(b, loc, resultElement, v);
    memref::StoreOp::create(b, loc, v, result, idx);
  });
}
