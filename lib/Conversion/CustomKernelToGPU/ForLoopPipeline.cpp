//===- ForLoopPipeline.cpp - The software-pipelined for-loop
//----------------===//
//
// block.for_loop as an scf.for: iteration i+1's cp.async copies overlap
// iteration i's compute (double buffers), then the f32 accumulators update
// and, after the loop, are finalized into the result tiles. A sum of a
// matmul is carried in registers instead, as the scf.for's iteration
// arguments, and stored once after the loop.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"

#include "llvm/ADT/ScopeExit.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlsopt/Conversion/ElementwiseMath.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

#include <cmath>

void BlockGraphToGPU::emitAccumulatorUpdate(block::ForLoopOp loop,
                                            ArrayRef<Value> accs) {
  auto yield = cast<block::YieldOp>(loop.getBody().front().getTerminator());
  Type f32 = b.getF32Type();
  auto widen = [&](Value v) { return buildScalarExtension(b, loc, v, f32); };
  // Phase 1: every accumulator except max, which rescale reads unchanged.
  bool anyUpdated = false;
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    block::AccumulatorAttr acc = loop.getAccumulator(i);
    if (acc.getKind() == block::AccumKind::max || !accs[i])
      continue;
    anyUpdated = true;
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
        // acc * exp(M_old - M_new) + v * exp(m_i - M_new), as on the CPU
        // (terms of a -inf maximum add nothing).
        unsigned k = *acc.getScaleBy();
        SmallVector<Value> kIdx =
            broadcastIndices(b, loc, idx, shapeOf(accs[k]), shape);
        Value oldMax = memref::LoadOp::create(b, loc, accs[k], kIdx);
        Value m = widen(memref::LoadOp::create(
            b, loc, buffers.lookup(yield.getValues()[k]), kIdx));
        Value newMax = arith::MaximumFOp::create(b, loc, oldMax, m);
        next = emitRescaleUpdate(b, loc, running, v, oldMax, newMax, m);
        break;
      }
      case block::AccumKind::max:
        llvm_unreachable("max accumulators update in phase 2");
      }
      memref::StoreOp::create(b, loc, next, accs[i], idx);
    });
  }
  // With nothing updated (every sum in registers), the barrier that ended
  // the last body op also ends the iteration.
  if (anyUpdated)
    barrier();
  // Phase 2: the max accumulators.
  bool anyMax = false;
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    if (loop.getAccumulator(i).getKind() != block::AccumKind::max || !accs[i])
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

void BlockGraphToGPU::issueLoad(block::LoadOp load, Value destination,
                                Value iteration) {
  ArrayRef<int64_t> tile = shapeOf(load.getTile());
  SmallVector<int64_t> limits =
      raggedLimits(load.getRaggedDims(), load.getWindowEnds());
  if (const ComputedOperand *computed =
          computedInputs.lookup(load.getSource())) {
    copyTileAsync(Value(), destination, tile, loadOffsets(load, iteration),
                  /*width=*/1, limits, std::nullopt, [&](ValueRange at) {
                    return computeOperandElement(*computed, at);
                  });
    return;
  }
  std::optional<SharedMemorySwizzle> swizzle;
  if (auto it = swizzles.find(load.getTile()); it != swizzles.end())
    swizzle = it->second;
  copyTileAsync(buffers.lookup(load.getSource()), destination, tile,
                loadOffsets(load, iteration), loadVectorWidth(load), limits,
                swizzle);
}

LogicalResult BlockGraphToGPU::emitForLoop(block::ForLoopOp loop) {
  Block &body = loop.getBody().front();
  int64_t iterations = loop.getIterations();
  Type f32 = b.getF32Type();

  // Views of the plan's buffers, created once, outside the loop.
  struct StreamedLoad {
    block::LoadOp load;
    Value buffers[2];
  };
  SmallVector<StreamedLoad> streamed;
  SmallVector<block::LoadOp> invariant;
  // Loads of a one-iteration loop copied during a body op, by that op.
  llvm::MapVector<Operation *, SmallVector<block::LoadOp>> &deferred =
      deferredCopies;
  deferred.clear();
  for (Operation &op : body.without_terminator()) {
    if (auto load = dyn_cast<block::LoadOp>(op)) {
      // Tiles that only tensor cores read get the bank-conflict-free layout;
      // it takes the same bytes.
      if (std::optional<SharedMemorySwizzle> swizzle = swizzleFor(load))
        swizzles.try_emplace(load.getTile(), *swizzle);
      if (block::isDoubleBuffered(load)) {
        // Iteration i+1 lands in one buffer while i reads the other.
        streamed.push_back(
            {load,
             {tileBuffer(load.getTile()),
              tileBuffer(load.getTile(),
                         block::SharedBufferRole::PrefetchTile)}});
      } else {
        // The plan gives a tile copied later only the bytes that are free
        // from that op on (block::getCopyIssueOp).
        if (Operation *issue = block::getCopyIssueOp(load))
          deferred[issue].push_back(load);
        else
          invariant.push_back(load);
        buffers.map(load.getTile(), tileBuffer(load.getTile()));
      }
      continue;
    }
    // A matmul summed in registers has no tile (the plan gives it none).
    if (auto matmul = dyn_cast<block::MatmulOp>(op);
        matmul && block::isAccumulatedInRegisters(matmul))
      continue;
    for (Value result : op.getResults())
      buffers.map(result, tileBuffer(result));
  }
  // The f32 running values, and the result tiles they become after the loop.
  // An f32 sum or max accumulator is its own result (nothing to finalize). In
  // a loop of one iteration, a sum or max is the yielded tile itself: no f32
  // copy, which kept the flash-decoding example within sm_80 in f16.
  auto yield = cast<block::YieldOp>(body.getTerminator());
  SmallVector<Value> accs;
  SmallVector<bool> accIsResult;
  // Sums of matmuls in registers, by loop result and by matmul.
  llvm::MapVector<unsigned, RegisterSum> registerSums;
  llvm::DenseMap<Operation *, unsigned> registerSumOf;
  SmallVector<Value> iterInits;
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    Value result = loop.getResult(i);
    switch (block::getAccumulatorStorage(loop, i)) {
    case block::AccumulatorStorage::MmaFragments: {
      accs.push_back(Value());
      accIsResult.push_back(true);
      buffers.map(result, tileBuffer(result));
      RegisterSum sum;
      sum.matmul = block::getRegisterAccumulatedMatmul(loop, i);
      sum.kind = mmaKindFor(sum.matmul);
      sum.firstIterArg = iterInits.size();
      // The plan bounds the fragments per warp (4 values each); an f32
      // matmul with allow-tf32=false runs as FMA loops on the same elements,
      // at most 4 * 32 = 128 per thread: a warp's 32 fragments of 16x8 are
      // 4096 elements, 128 for each of its 32 threads.
      sum.count =
          sum.kind ? block::getMmaFragments(sum.matmul, numThreads)->perWarp()
                   : llvm::divideCeil(numElements(shapeOf(result)), numThreads);
      iterInits.append(registerSumInit(sum));
      registerSumOf[sum.matmul] = i;
      registerSums.insert({i, sum});
      break;
    }
    case block::AccumulatorStorage::YieldedTile:
      accs.push_back(Value());
      accIsResult.push_back(true);
      buffers.map(result, buffers.lookup(yield.getValues()[i]));
      break;
    case block::AccumulatorStorage::AccumulatorIsResult:
      accs.push_back(tileBuffer(result, block::SharedBufferRole::Accumulator));
      accIsResult.push_back(true);
      buffers.map(result, accs.back());
      break;
    case block::AccumulatorStorage::AccumulatorAndResult:
      accs.push_back(tileBuffer(result, block::SharedBufferRole::Accumulator));
      accIsResult.push_back(false);
      buffers.map(result, tileBuffer(result));
      break;
    }
  }

  // Prologue: initialize the accumulators, start the copies of the
  // loop-invariant tiles and of iteration 0's tiles (one cp.async group),
  // except those a one-iteration loop copies later.
  for (unsigned i = 0; i < loop.getNumResults(); ++i) {
    if (!accs[i])
      continue;
    bool isMax = loop.getAccumulator(i).getKind() == block::AccumKind::max;
    Value init = floatConstant(b, loc, f32, isMax ? -INFINITY : 0.0);
    forEachElement(shapeOf(accs[i]), [&](ValueRange idx) {
      memref::StoreOp::create(b, loc, init, accs[i], idx);
    });
  }
  Value zero = indexConstant(b, loc, 0);
  // The epilogue's tiles (loads after the loop) land while the loop runs.
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
    if (auto load = dyn_cast<block::LoadOp>(op)) {
      buffers.map(load.getTile(), tileBuffer(load.getTile()));
      invariant.push_back(load);
    }
  for (block::LoadOp load : invariant)
    issueLoad(load, buffers.lookup(load.getTile()), zero);
  for (StreamedLoad &s : streamed)
    issueLoad(s.load, s.buffers[0], zero);
  NVVM::CpAsyncCommitGroupOp::create(b, loc);

  // The running values of the sums in registers are the loop's iteration
  // arguments (an scf.for with some has no terminator yet: it is built
  // below).
  auto forOp =
      scf::ForOp::create(b, loc, zero, indexConstant(b, loc, iterations),
                         indexConstant(b, loc, 1), iterInits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forOp.getBody());
  Value i = forOp.getInductionVar();
  SmallVector<Value> running(forOp.getRegionIterArgs());
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
      Value target =
          arith::SelectOp::create(b, loc, odd, s.buffers[0], s.buffers[1]);
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
    buffers.map(s.load.getTile(),
                arith::SelectOp::create(b, loc, odd, s.buffers[1], s.buffers[0])
                    .getResult());
  loopIteration = i;
  llvm::scope_exit leaveLoop([&] { loopIteration = {}; });
  for (Operation &op : body.without_terminator()) {
    if (isa<block::LoadOp>(op))
      continue;
    // A thread graph applied to its matmul's fragments: the matmul issued
    // and waited for its copies.
    if (fusedEpilogues.contains(&op))
      continue;
    // Copies issued here land while `op` computes, in bytes the plan keeps
    // free of every tile live during it.
    auto copies = deferred.find(&op);
    if (copies != deferred.end()) {
      for (block::LoadOp load : copies->second)
        issueLoad(load, buffers.lookup(load.getTile()), i);
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
    if (auto it = registerSumOf.find(&op); it != registerSumOf.end()) {
      // The mma.syncs accumulate into the running fragments; nothing is
      // stored. The barrier still ends the op: the next iteration's
      // prefetch overwrites the operand tiles this one read.
      const RegisterSum &sum = registerSums.find(it->second)->second;
      MutableArrayRef<Value> own =
          MutableArrayRef<Value>(running).slice(sum.firstIterArg, sum.count);
      SmallVector<Value> next = registerSumAccumulate(sum, own);
      llvm::copy(next, own.begin());
      if (copies != deferred.end())
        NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
      barrier();
      continue;
    }
    if (failed(emitCompute(op, /*waitForCopies=*/copies != deferred.end())))
      return failure();
  }
  emitAccumulatorUpdate(loop, accs);
  if (!iterInits.empty())
    scf::YieldOp::create(b, loc, running);

  // Epilogue: the accumulators in the tile type. The last iteration's
  // spare prefetch may still be landing: the plan keeps both buffers of a
  // load live to the end of the loop, so the epilogue writes none of their
  // bytes; the ops after the loop may, once every thread has waited for its
  // copies here and passed the barrier below.
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
  // The sums in registers, written once. Their result tiles are live from
  // here only, so the body's tiles could share their bytes: every thread
  // has passed the barrier that ended the last iteration.
  for (auto &[r, sum] : registerSums)
    registerSumStore(sum, forOp.getResults().slice(sum.firstIterArg, sum.count),
                     buffers.lookup(loop.getResult(r)));
  barrier();
  return success();
}
