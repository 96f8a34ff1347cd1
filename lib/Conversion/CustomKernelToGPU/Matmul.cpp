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
  // The shapes tensor cores take (block::getMmaFragments); every supported
  // chip is sm_80 or newer, which has m16n8k16 and m16n8k8 .tf32.
  if (!block::getMmaFragments(op, numThreads))
    return std::nullopt;
  Type elementType = elementTypeOf(op.getLhs());
  if (elementType.isF16())
    return MmaKind::f16;
  if (elementType.isBF16())
    return MmaKind::bf16;
  if (elementType.isF32() && allowTF32)
    return MmaKind::tf32;
  return std::nullopt;
}

void BlockGraphToGPU::emitMatmul(block::MatmulOp op) {
  std::optional<MmaKind> kind = mmaKindFor(op);
  if (!kind) {
    emitMatmulScalar(op);
    return;
  }
  FusedEpilogue epilogue = fusibleEpilogue(op);
  if (epilogue.graph) {
    assertInPlaceOperandsUnswizzled(*epilogue.graph);
    for (Value result : epilogue.graph.getResults())
      if (!buffers.contains(result))
        buffers.map(result, tileBuffer(result));
    fusedEpilogues.insert(epilogue.graph);
  }
  emitMatmulTensorCore(op, *kind, epilogue);
}

BlockGraphToGPU::MmaFragment
BlockGraphToGPU::fragmentAt(const block::MmaFragmentGrid &grid, Value f,
                            block::MatmulOp op) {
  ArrayRef<int64_t> shape = shapeOf(op.getResult());
  int64_t rank = grid.shape.size();
  SmallVector<Value> idx = delinearize(b, loc, f, grid.shape);
  MmaFragment frag;
  frag.batch.assign(idx.begin(), idx.end() - 2);
  frag.row0 =
      arith::MulIOp::create(b, loc, idx[rank - 2], indexConstant(b, loc, 16));
  frag.col0 =
      arith::MulIOp::create(b, loc, idx[rank - 1], indexConstant(b, loc, 8));
  frag.lastRow = shape[rank - 2] - 1;
  frag.lastCol = shape[rank - 1] - 1;
  frag.k = shapeOf(op.getLhs()).back();
  frag.padded = grid.padded;
  frag.kPadded = grid.kSteps * grid.kStep != frag.k;
  // The lane's place in the fragments: PTX numbers the lanes of mma
  // operands by group (lane / 4) and thread in group (lane % 4).
  frag.group = arith::DivUIOp::create(b, loc, laneId, indexConstant(b, loc, 4));
  frag.threadInGroup =
      arith::RemUIOp::create(b, loc, laneId, indexConstant(b, loc, 4));
  return frag;
}

SmallVector<BlockGraphToGPU::MmaFragment>
BlockGraphToGPU::warpFragments(const block::MmaFragmentGrid &grid,
                               block::MatmulOp op, int64_t first, int64_t n) {
  SmallVector<MmaFragment> frags;
  for (int64_t j = first; j < first + n; ++j) {
    Value f = arith::AddIOp::create(b, loc, warpId,
                                    indexConstant(b, loc, j * grid.warps));
    // Only the last item can be past the fragments; it computes the last
    // fragment again, which keeps the warp's steps free of branches, and
    // is not stored.
    if ((j + 1) * grid.warps > grid.count)
      f = arith::MinUIOp::create(b, loc, f,
                                 indexConstant(b, loc, grid.count - 1));
    frags.push_back(fragmentAt(grid, f, op));
  }
  return frags;
}

SmallVector<Value> BlockGraphToGPU::mmaFragmentsProduct(
    block::MatmulOp op, MmaKind kind, const block::MmaFragmentGrid &grid,
    int64_t first, ArrayRef<MmaFragment> frags, ValueRange accs) {
  int64_t n = frags.size();
  SmallVector<unsigned> sameA =
      grid.firstItemsWithSameOperand(first, n, /*lhs=*/true);
  SmallVector<unsigned> sameB =
      grid.firstItemsWithSameOperand(first, n, /*lhs=*/false);
  int64_t k = shapeOf(op.getLhs()).back();
  auto kLoop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                  indexConstant(b, loc, k),
                                  indexConstant(b, loc, grid.kStep), accs);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value kk = kLoop.getInductionVar();
  // Each operand fragment is loaded once per step and feeds every mma.sync
  // of the items that read it: a warp's items of one row of the result
  // share A, those of one column share B. The mma.syncs of different items
  // do not wait for one another.
  SmallVector<SmallVector<Value, 4>> aRegs(n), bRegs(n);
  SmallVector<Value> next;
  for (int64_t i = 0; i < n; ++i) {
    if (sameA[i] == i)
      aRegs[i] = mmaOperand(op, kind, frags[i], kk, /*lhs=*/true);
    if (sameB[i] == i)
      bRegs[i] = mmaOperand(op, kind, frags[i], kk, /*lhs=*/false);
    next.push_back(mmaSync(kind, aRegs[sameA[i]], bRegs[sameB[i]],
                           kLoop.getRegionIterArgs()[i]));
  }
  scf::YieldOp::create(b, loc, next);
  return SmallVector<Value>(kLoop.getResults());
}

void BlockGraphToGPU::emitMatmulTensorCore(block::MatmulOp op, MmaKind kind,
                                           FusedEpilogue epilogue) {
  Value result = buffers.lookup(op.getResult());
  // Each warp owns 16x8 fragments of the result, taken round-robin, and
  // computes them a group at a time (MmaFragmentGrid::kWalks). Rows past m
  // (when m is not a multiple of 16) read row m-1 and are not stored, and
  // so do columns past n.
  block::MmaFragmentGrid grid = *block::getMmaFragments(op, numThreads);
  int64_t perWarp = grid.perWarp();
  int64_t perWalk = llvm::divideCeil(perWarp, grid.kWalks());
  auto accType = VectorType::get({2, 2}, b.getF32Type());
  for (int64_t first = 0; first < perWarp; first += perWalk) {
    int64_t n = std::min(perWalk, perWarp - first);
    SmallVector<MmaFragment> frags = warpFragments(grid, op, first, n);
    Value zero = arith::ConstantOp::create(
        b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
    SmallVector<Value> sums = mmaFragmentsProduct(op, kind, grid, first, frags,
                                                  SmallVector<Value>(n, zero));
    bool waitForEpilogueCopies = false;
    if (epilogue.afterBarrier) {
      assert(perWalk == perWarp && "the fragments wait in registers");
      // Copies issued at the matmul may be inputs of the thread graph.
      if (deferredCopies.count(op))
        NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
      barrier();
      // What the thread graph's own op would have issued, into bytes free
      // from the thread graph on: the operands' bytes are among them.
      if (auto copies = deferredCopies.find(epilogue.graph);
          copies != deferredCopies.end()) {
        for (block::LoadOp load : copies->second)
          issueLoad(load, buffers.lookup(load.getTile()), loopIteration);
        NVVM::CpAsyncCommitGroupOp::create(b, loc);
        waitForEpilogueCopies = true;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      ifOwned(grid.count, grid.warps, warpId, first + i, [&](Value) {
        if (epilogue.graph)
          storeFragmentThroughEpilogue(sums[i], op, epilogue.graph, frags[i]);
        else
          storeAccumulatorFragment(sums[i], result, frags[i]);
      });
    // The barrier that ends the op publishes these copies too.
    if (waitForEpilogueCopies)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  }
}

void BlockGraphToGPU::ifOwned(int64_t count, int64_t owners, Value owner,
                              int64_t j, function_ref<void(Value)> then) {
  Value item =
      arith::AddIOp::create(b, loc, owner, indexConstant(b, loc, j * owners));
  if ((j + 1) * owners <= count) {
    then(item);
    return;
  }
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, item,
                                        indexConstant(b, loc, count));
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then(item);
}

SmallVector<Value>
BlockGraphToGPU::forEachOwnedItem(int64_t count, int64_t owners, Value owner,
                                  ValueRange running,
                                  function_ref<Value(int64_t, Value)> body) {
  SmallVector<Value> next;
  for (int64_t j = 0, e = llvm::divideCeil(count, owners); j < e; ++j) {
    if (running.empty()) {
      ifOwned(count, owners, owner, j, [&](Value item) { body(j, item); });
      continue;
    }
    Value item =
        arith::AddIOp::create(b, loc, owner, indexConstant(b, loc, j * owners));
    // Every owner has its j-th item: no branch.
    if ((j + 1) * owners <= count) {
      next.push_back(body(j, item));
      continue;
    }
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          item, indexConstant(b, loc, count));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{running[j].getType()},
                                  inRange, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, body(j, item));
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, running[j]);
    }
    next.push_back(ifOp.getResult(0));
  }
  return next;
}

SmallVector<Value> BlockGraphToGPU::registerSumInit(const RegisterSum &sum) {
  Type f32 = b.getF32Type();
  Value zero;
  if (sum.kind) {
    auto accType = VectorType::get({2, 2}, f32);
    zero = arith::ConstantOp::create(
        b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  } else {
    zero = floatConstant(b, loc, f32, 0.0);
  }
  return SmallVector<Value>(sum.count, zero);
}

SmallVector<Value>
BlockGraphToGPU::registerSumAccumulate(const RegisterSum &sum,
                                       ValueRange running) {
  block::MatmulOp op = sum.matmul;
  ArrayRef<int64_t> shape = shapeOf(op.getResult());
  if (!sum.kind)
    return forEachOwnedItem(
        numElements(shape), numThreads, threadId, running,
        [&](int64_t j, Value e) {
          return matmulElement(op, delinearize(b, loc, e, shape), running[j]);
        });
  // One walk over k for all of the warp's fragments (the plan bounds
  // them): a fragment past the last one accumulates a copy of it, which
  // registerSumStore does not store.
  block::MmaFragmentGrid grid = *block::getMmaFragments(op, numThreads);
  return mmaFragmentsProduct(op, *sum.kind, grid, 0,
                             warpFragments(grid, op, 0, sum.count), running);
}

void BlockGraphToGPU::registerSumStore(const RegisterSum &sum,
                                       ValueRange running, Value result) {
  block::MatmulOp op = sum.matmul;
  ArrayRef<int64_t> shape = shapeOf(op.getResult());
  if (!sum.kind) {
    Type resultElement = elementTypeOf(result);
    forEachOwnedItem(numElements(shape), numThreads, threadId, {},
                     [&](int64_t j, Value e) {
                       Value v = running[j];
                       if (resultElement != b.getF32Type())
                         v = arith::TruncFOp::create(b, loc, resultElement, v);
                       memref::StoreOp::create(b, loc, v, result,
                                               delinearize(b, loc, e, shape));
                       return Value();
                     });
    return;
  }
  block::MmaFragmentGrid grid = *block::getMmaFragments(op, numThreads);
  SmallVector<MmaFragment> frags = warpFragments(grid, op, 0, sum.count);
  for (int64_t j = 0; j < sum.count; ++j)
    ifOwned(grid.count, grid.warps, warpId, j, [&](Value) {
      storeAccumulatorFragment(running[j], result, frags[j]);
    });
}

SmallVector<Value, 4> BlockGraphToGPU::mmaOperand(block::MatmulOp op,
                                                  MmaKind kind,
                                                  const MmaFragment &frag,
                                                  Value kk, bool lhs) {
  if (kind == MmaKind::tf32)
    return mmaOperandTF32(op, frag, kk, lhs);
  Type elementType = elementTypeOf(op.getLhs());
  auto aType = VectorType::get({4, 2}, elementType);
  auto bType = VectorType::get({2, 2}, elementType);
  // ldmatrix: lanes 0-15 give the rows of the left 8 columns of A, lanes
  // 16-31 those of the right 8; for B (k x n, row-major, read transposed)
  // lanes 0-15 give the 16 rows of k. The index arithmetic on lane ids and
  // fragment offsets:
  auto rem = [&](Value v, int64_t c) -> Value {
    return arith::RemUIOp::create(b, loc, v, indexConstant(b, loc, c));
  };
  auto div = [&](Value v, int64_t c) -> Value {
    return arith::DivUIOp::create(b, loc, v, indexConstant(b, loc, c));
  };
  auto plus = [&](Value v, Value w) -> Value {
    return arith::AddIOp::create(b, loc, v, w);
  };
  auto times8 = [&](Value v) -> Value {
    return arith::MulIOp::create(b, loc, v, indexConstant(b, loc, 8));
  };
  Value lane16 = rem(laneId, 16);
  Value operand = lhs ? op.getLhs() : op.getRhs();
  SmallVector<Value> idx(frag.batch);
  Value fragment;
  if (frag.padded) {
    // Fragments past n or k (PTX ISA, "Matrix Fragments for mma.m16n8k16"),
    // element by element, g = lane / 4 and t = lane % 4: A register r holds
    // row g + 8 (r % 2), k 2t + 8 (r / 2) and the next k; B register r
    // holds k 2t + 8 r and the next k, column g.
    auto clampTo = [&](Value v, int64_t last) -> Value {
      return arith::MinUIOp::create(b, loc, v, indexConstant(b, loc, last));
    };
    auto plusConst = [&](Value v, int64_t c) -> Value {
      return plus(v, indexConstant(b, loc, c));
    };
    Value k0 = plus(kk, arith::MulIOp::create(b, loc, frag.threadInGroup,
                                              indexConstant(b, loc, 2)));
    SmallVector<Value> elements;
    if (lhs) {
      Value row = plus(frag.row0, frag.group);
      for (int64_t r = 0; r < 4; ++r) {
        Value aRow = clampTo(plusConst(row, 8 * (r % 2)), frag.lastRow);
        for (int64_t e = 0; e < 2; ++e)
          elements.push_back(mmaOperandElement(
              operand, frag, aRow, plusConst(k0, 8 * (r / 2) + e), 1));
      }
    } else {
      Value col = clampTo(plus(frag.col0, frag.group), frag.lastCol);
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t e = 0; e < 2; ++e)
          elements.push_back(mmaOperandElement(
              operand, frag, plusConst(k0, 8 * r + e), col, 0));
    }
    fragment =
        vector::FromElementsOp::create(b, loc, lhs ? aType : bType, elements);
  } else if (Value source = matmulViews.lookup(operand); source && lhs) {
    // A viewed from a k x m tile (m a multiple of 16): ldmatrix.trans of
    // its 8 x 8 pieces, lane l giving row l % 8 of piece l / 8, the pieces
    // in the order of A's registers: (m 0-7, k 0-7), (m 8-15, k 0-7),
    // (m 0-7, k 8-15), (m 8-15, k 8-15).
    Value piece = div(laneId, 8);
    idx.push_back(plus(kk, plus(times8(div(piece, 2)), rem(laneId, 8))));
    idx.push_back(plus(frag.row0, times8(rem(piece, 2))));
    fragment = nvgpu::LdMatrixOp::create(b, loc, aType, buffers.lookup(source),
                                         tileIndices(source, idx),
                                         /*transpose=*/true, /*numTiles=*/4);
  } else if (lhs) {
    idx.push_back(arith::MinUIOp::create(b, loc, plus(frag.row0, lane16),
                                         indexConstant(b, loc, frag.lastRow)));
    idx.push_back(plus(kk, times8(div(laneId, 16))));
    fragment = nvgpu::LdMatrixOp::create(b, loc, aType, buffers.lookup(operand),
                                         tileIndices(operand, idx),
                                         /*transpose=*/false, /*numTiles=*/4);
  } else if (source) {
    // B viewed from an n x k tile: its 8 x 8 pieces are stored as mma wants
    // them (k contiguous for each n), so ldmatrix reads them untransposed,
    // lanes 0-7 the rows of k 0-7 and lanes 8-15 those of k 8-15.
    idx.push_back(plus(frag.col0, rem(lane16, 8)));
    idx.push_back(plus(kk, times8(div(lane16, 8))));
    fragment = nvgpu::LdMatrixOp::create(b, loc, bType, buffers.lookup(source),
                                         tileIndices(source, idx),
                                         /*transpose=*/false, /*numTiles=*/2);
  } else {
    idx.push_back(plus(kk, lane16));
    idx.push_back(frag.col0);
    fragment = nvgpu::LdMatrixOp::create(b, loc, bType, buffers.lookup(operand),
                                         tileIndices(operand, idx),
                                         /*transpose=*/true, /*numTiles=*/2);
  }
  if (kind == MmaKind::f16)
    return {fragment};
  // nvgpu.mma.sync cannot lower bf16 fragments; nvvm.mma.sync takes them as
  // packed pairs: A as 4 x i32, B as 2 x i32.
  Type i32 = b.getI32Type();
  SmallVector<Value, 4> packed;
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
}

Value BlockGraphToGPU::mmaSync(MmaKind kind, ValueRange a, ValueRange bRegs,
                               Value acc) {
  switch (kind) {
  case MmaKind::f16:
    return nvgpu::MmaSyncOp::create(b, loc, a.front(), bRegs.front(), acc,
                                    ArrayRef<int64_t>{16, 8, 16})
        .getResult();
  case MmaKind::bf16:
    return mmaSyncNVVM(a, bRegs, acc, {16, 8, 16}, NVVM::MMATypes::bf16);
  case MmaKind::tf32:
    return mmaSyncNVVM(a, bRegs, acc, {16, 8, 8}, NVVM::MMATypes::tf32);
  }
  llvm_unreachable("an MmaKind");
}

Value BlockGraphToGPU::mmaOperandElement(Value operand, const MmaFragment &frag,
                                         Value row, Value col, unsigned kAt) {
  SmallVector<Value, 2> at = {row, col};
  Value inK;
  if (frag.kPadded) {
    inK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[kAt],
                                indexConstant(b, loc, frag.k));
    at[kAt] = arith::MinUIOp::create(b, loc, at[kAt],
                                     indexConstant(b, loc, frag.k - 1));
  }
  Value tile = operand;
  // A view of a k x m (n x k) tile is read at (k, m) ((n, k)).
  if (Value source = matmulViews.lookup(operand)) {
    tile = source;
    std::swap(at[0], at[1]);
  }
  SmallVector<Value> indices(frag.batch);
  indices.append(at.begin(), at.end());
  Value x = memref::LoadOp::create(b, loc, buffers.lookup(tile),
                                   tileIndices(tile, indices));
  // Zero, not just any element: 0 * inf would be NaN.
  if (inK)
    x = arith::SelectOp::create(
        b, loc, inK, x,
        arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType())));
  return x;
}

SmallVector<Value, 4> BlockGraphToGPU::mmaOperandTF32(block::MatmulOp op,
                                                      const MmaFragment &frag,
                                                      Value kk, bool lhs) {
  // m16n8k8 .tf32 fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8"),
  // with g = lane / 4 and t = lane % 4:
  //   A: a0 = (g, t), a1 = (g + 8, t), a2 = (g, t + 4), a3 = (g + 8, t + 4)
  //   B: b0 = (t, g), b1 = (t + 4, g)
  // Each is one 32-bit element: plain ld.shared, no ldmatrix (which moves
  // 16-bit elements).
  Type i32 = b.getI32Type();
  auto tf32 = [&](Value x) {
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
  auto clampTo = [&](Value v, int64_t last) {
    return arith::MinUIOp::create(b, loc, v, indexConstant(b, loc, last))
        .getResult();
  };
  Value kLo = arith::AddIOp::create(b, loc, kk, frag.threadInGroup);
  Value kHi = plus(kLo, 4);
  if (lhs) {
    Value row = arith::AddIOp::create(b, loc, frag.row0, frag.group);
    Value rowLo = clampTo(row, frag.lastRow),
          rowHi = clampTo(plus(row, 8), frag.lastRow);
    auto aAt = [&](Value r, Value k) {
      return tf32(mmaOperandElement(op.getLhs(), frag, r, k, 1));
    };
    return {aAt(rowLo, kLo), aAt(rowHi, kLo), aAt(rowLo, kHi), aAt(rowHi, kHi)};
  }
  Value col = arith::AddIOp::create(b, loc, frag.col0, frag.group);
  if (frag.padded)
    col = clampTo(col, frag.lastCol);
  auto bAt = [&](Value k) {
    return tf32(mmaOperandElement(op.getRhs(), frag, k, col, 0));
  };
  return {bAt(kLo), bAt(kHi)};
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

void BlockGraphToGPU::forEachFragmentPiece(
    Value acc, const MmaFragment &frag,
    function_ref<void(ValueRange, ValueRange)> body) {
  // Accumulator fragment: lane l holds rows l/4 and l/4 + 8, columns
  // 2(l%4) and 2(l%4) + 1.
  Value pair = arith::MulIOp::create(b, loc, frag.threadInGroup,
                                     indexConstant(b, loc, 2));
  auto ifInRange = [&](Value index, int64_t last, function_ref<void()> then) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                          index, indexConstant(b, loc, last));
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    then();
  };
  bool rowsFit = (frag.lastRow + 1) % 16 == 0,
       colsFit = (frag.lastCol + 1) % 8 == 0;
  for (int64_t r = 0; r < 2; ++r) {
    Value row = arith::AddIOp::create(
        b, loc, frag.row0,
        arith::AddIOp::create(b, loc, frag.group,
                              indexConstant(b, loc, 8 * r)));
    auto at = [&](Value col) {
      SmallVector<Value> indices(frag.batch);
      indices.push_back(row);
      indices.push_back(col);
      return indices;
    };
    auto element = [&](int64_t c) {
      return vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, c})
          .getResult();
    };
    auto rowElements = [&]() {
      Value col = arith::AddIOp::create(b, loc, frag.col0, pair);
      if (colsFit)
        return body({element(0), element(1)}, at(col));
      for (int64_t c = 0; c < 2; ++c) {
        Value colC =
            arith::AddIOp::create(b, loc, col, indexConstant(b, loc, c));
        ifInRange(colC, frag.lastCol, [&] { body({element(c)}, at(colC)); });
      }
    };
    if (rowsFit)
      rowElements();
    else
      ifInRange(row, frag.lastRow, rowElements);
  }
}

/// `indices` moved `c` columns along the last dim.
static SmallVector<Value> columnsFurther(OpBuilder &b, Location loc,
                                        ValueRange indices, int64_t c) {
  SmallVector<Value> at = llvm::to_vector(indices);
  if (c != 0)
    at.back() =
        arith::AddIOp::create(b, loc, at.back(), indexConstant(b, loc, c));
  return at;
}

void BlockGraphToGPU::storeFragmentPiece(ValueRange values, Value buffer,
                                         ValueRange indices) {
  Type element = values.front().getType();
  if (values.size() == 1 || element.getIntOrFloatBitWidth() < 8) {
    // One by one; i1 elements take a byte each, which a vector of i1
    // (packed as bits) would not write.
    for (auto [c, v] : llvm::enumerate(values))
      memref::StoreOp::create(b, loc, v, buffer,
                              columnsFurther(b, loc, indices, c));
    return;
  }
  // The pair starts at an even column of a row of an even pitch: its
  // alignment is its size, which LLVM cannot always prove on its own
  // (next to another tile's stores it kept two st.shared.b32).
  auto type = VectorType::get({static_cast<int64_t>(values.size())}, element);
  Value v = vector::FromElementsOp::create(b, loc, type, values);
  vector::StoreOp::create(
      b, loc, v, buffer, indices, /*nontemporal=*/false,
      llvm::MaybeAlign(values.size() * element.getIntOrFloatBitWidth() / 8));
}

void BlockGraphToGPU::storeAccumulatorFragment(Value acc, Value result,
                                               const MmaFragment &frag) {
  Type resultElement = elementTypeOf(result);
  forEachFragmentPiece(acc, frag, [&](ValueRange values, ValueRange at) {
    SmallVector<Value> stored;
    for (Value v : values)
      stored.push_back(
          resultElement == b.getF32Type()
              ? v
              : arith::TruncFOp::create(b, loc, resultElement, v).getResult());
    storeFragmentPiece(stored, result, at);
  });
}

void BlockGraphToGPU::storeFragmentThroughEpilogue(Value acc,
                                                   block::MatmulOp op,
                                                   thread::GraphOp epilogue,
                                                   const MmaFragment &frag) {
  Value product = op.getResult();
  Type productElement = elementTypeOf(product);
  ArrayRef<int64_t> shape = shapeOf(product);
  forEachFragmentPiece(acc, frag, [&](ValueRange values, ValueRange first) {
    // The other inputs at the piece: a pair as one 2-element load (as the
    // stores below), one element for a row broadcast along the columns.
    SmallVector<SmallVector<Value, 2>> inputPieces(epilogue.getInputs().size());
    for (auto [i, input] : llvm::enumerate(epilogue.getInputs())) {
      if (input == product)
        continue;
      Value buffer = buffers.lookup(input);
      SmallVector<Value> at =
          broadcastIndices(b, loc, first, shapeOf(input), shape);
      // A mask's i1 elements are a byte each in shared memory, where a
      // vector of i1 would be read as bits: those are read one by one.
      Type element = elementTypeOf(buffer);
      if (block::broadcastsAlongRows(shapeOf(input), shape)) {
        inputPieces[i].push_back(memref::LoadOp::create(b, loc, buffer, at));
        continue;
      }
      if (values.size() == 1 || element.getIntOrFloatBitWidth() < 8) {
        for (int64_t c = 0, e = values.size(); c < e; ++c)
          inputPieces[i].push_back(memref::LoadOp::create(
              b, loc, buffer, columnsFurther(b, loc, at, c)));
        continue;
      }
      auto type =
          VectorType::get({static_cast<int64_t>(values.size())}, element);
      Value pair = vector::LoadOp::create(
          b, loc, type, buffer, at, /*nontemporal=*/false,
          llvm::MaybeAlign(values.size() * element.getIntOrFloatBitWidth() /
                           8));
      for (int64_t c = 0, e = values.size(); c < e; ++c)
        inputPieces[i].push_back(
            vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{c}));
    }
    // Per result, the piece's values.
    SmallVector<SmallVector<Value, 2>> results(epilogue.getNumResults());
    for (auto [c, v] : llvm::enumerate(values)) {
      // The product element as the tile would have held it.
      if (productElement != b.getF32Type())
        v = arith::TruncFOp::create(b, loc, productElement, v);
      SmallVector<Value> args;
      for (auto [i, input] : llvm::enumerate(epilogue.getInputs()))
        args.push_back(input == product            ? v
                       : inputPieces[i].size() > c ? inputPieces[i][c]
                                                   : inputPieces[i].front());
      for (auto [i, value] :
           llvm::enumerate(emitThreadGraphBody(epilogue, args)))
        results[i].push_back(value);
    }
    for (auto [values, result] : llvm::zip(results, epilogue.getResults()))
      storeFragmentPiece(values, buffers.lookup(result), first);
  });
}

BlockGraphToGPU::FusedEpilogue
BlockGraphToGPU::fusibleEpilogue(block::MatmulOp op) {
  Value product = op.getResult();
  if (!product.hasOneUse())
    return {};
  auto epilogue = dyn_cast<thread::GraphOp>(*product.getUsers().begin());
  if (!epilogue || epilogue->getBlock() != op->getBlock() ||
      shapeOf(epilogue.getResult(0)) != shapeOf(product))
    return {};
  // The thread graph computes right after the matmul: nothing else is
  // emitted between them (loads are copied elsewhere).
  for (Operation *between = op->getNextNode(); between != epilogue;
       between = between->getNextNode())
    if (!isa<block::LoadOp>(between))
      return {};
  const block::SharedBuffer *productBuffer = plan.lookup(product);
  if (!productBuffer)
    return {};
  if (llvm::any_of(epilogue.getResults(),
                   [&](Value result) { return !plan.lookup(result); }))
    return {};
  // After a barrier that follows the warps' mma.syncs, the thread graph
  // runs where its own op would have: the operands are read, the copies
  // issued at the matmul have landed (the lowering waits for them before
  // the barrier) and those issued at the thread graph are issued after it.
  // That needs every fragment of the warp in registers at the barrier: one
  // walk over k.
  block::MmaFragmentGrid grid = *block::getMmaFragments(op, numThreads);
  FusedEpilogue afterBarrier{epilogue, /*afterBarrier=*/true};
  bool oneWalk = grid.kWalks() == 1;
  // Without the barrier, the thread graph's inputs are read in the
  // fragments' order while other warps may still run their mma.syncs, so
  // the matmul must not read them (nor write over them: only the product is
  // its).
  auto readByMatmul = [&](Value v) {
    for (Value operand : {op.getLhs(), op.getRhs()}) {
      if (v == operand)
        return true;
      if (auto view = operand.getDefiningOp<block::TransposeOp>();
          view && view.getInput() == v)
        return true;
    }
    return false;
  };
  for (Value input : epilogue.getInputs())
    if (input != product && readByMatmul(input))
      return oneWalk ? afterBarrier : FusedEpilogue();
  // A copy issued at the thread graph lands in bytes that are free only
  // once the matmul is done; one issued at the matmul lands when the matmul
  // ends, after the thread graph would have read it.
  auto matmulCopies = deferredCopies.find(op);
  bool copyInTheWay =
      deferredCopies.count(epilogue) ||
      (matmulCopies != deferredCopies.end() &&
       llvm::any_of(matmulCopies->second, [&](block::LoadOp load) {
         return llvm::is_contained(epilogue.getInputs(), load.getTile());
       }));
  if (copyInTheWay)
    return oneWalk ? afterBarrier : FusedEpilogue();
  // The thread graph's results are written while the matmul computes: the
  // plan gives them bytes from the thread graph on, which may be those of a
  // tile the matmul still reads (its operands die at the matmul). Without
  // the barrier, fuse only where no tile live at the matmul shares their
  // bytes, but for the product, which is never written now, and the thread
  // graph's own inputs, which each lane reads before it writes the same
  // element.
  unsigned point = productBuffer->firstPoint;
  for (Value result : epilogue.getResults()) {
    const block::SharedBuffer *resultBuffer = plan.lookup(result);
    for (const block::SharedBuffer &other : plan.getBuffers()) {
      if (&other == productBuffer || &other == resultBuffer ||
          other.firstPoint > point || other.lastPoint < point ||
          llvm::is_contained(epilogue.getInputs(), other.value))
        continue;
      if (resultBuffer->overlapsBytesOf(other))
        return oneWalk ? afterBarrier : FusedEpilogue();
    }
  }
  return {epilogue, /*afterBarrier=*/false};
}

Value BlockGraphToGPU::matmulElement(block::MatmulOp op, ValueRange idx,
                                     Value init) {
  int64_t rank = idx.size();
  int64_t k = shapeOf(op.getLhs()).back();
  Type f32 = b.getF32Type();
  Value lhsSource = matmulViews.lookup(op.getLhs());
  Value source = matmulViews.lookup(op.getRhs());
  Value lhs = buffers.lookup(lhsSource ? lhsSource : op.getLhs());
  Value rhs = buffers.lookup(source ? source : op.getRhs());
  auto kLoop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                  indexConstant(b, loc, k),
                                  indexConstant(b, loc, 1), ValueRange{init});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(kLoop.getBody());
  Value kk = kLoop.getInductionVar();
  SmallVector<Value> aIdx = llvm::to_vector(idx.drop_back(1));
  aIdx.push_back(kk);
  SmallVector<Value> bIdx = llvm::to_vector(idx.drop_back(2));
  bIdx.push_back(kk);
  bIdx.push_back(idx[rank - 1]);
  // A view of an n x k (k x m) tile is read at (n, k) ((k, m)).
  if (source)
    std::swap(bIdx[rank - 2], bIdx[rank - 1]);
  if (lhsSource)
    std::swap(aIdx[rank - 2], aIdx[rank - 1]);
  Value a = buildScalarExtension(
      b, loc, memref::LoadOp::create(b, loc, lhs, aIdx), f32);
  Value bv = buildScalarExtension(
      b, loc, memref::LoadOp::create(b, loc, rhs, bIdx), f32);
  yieldSumPlusProduct(b, loc, kLoop, a, bv);
  return kLoop.getResult(0);
}

void BlockGraphToGPU::emitMatmulScalar(block::MatmulOp op) {
  Type f32 = b.getF32Type();
  Value result = buffers.lookup(op.getResult());
  Type resultElement = elementTypeOf(result);
  forEachElement(shapeOf(result), [&](ValueRange idx) {
    Value v = matmulElement(op, idx, floatConstant(b, loc, f32, 0.0));
    if (resultElement != f32)
      v = arith::TruncFOp::create(b, loc, resultElement, v);
    memref::StoreOp::create(b, loc, v, result, idx);
  });
}
