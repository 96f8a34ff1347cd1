//===- BlockSteps.cpp - Dependent steps of one thread block ---------------===//
//
// Counts, for one thread block of a custom kernel, the steps its threads
// take one after another in the code the GPU lowering emits
// (lib/Conversion/CustomKernelToGPU): elements per thread for elementwise
// ops over shared memory, elements per lane and shuffles for row reductions
// (a group of lanes per row, or every warp on a row of a tile with fewer
// rows than warps), dependent and issued mma.syncs per warp for tensor-core
// matmuls, 16-byte
// copies per thread for tile transfers, and a barrier after each op. A kernel
// whose blocks each walk a long chain of such steps is bound by their latency,
// not by the roofline (docs/cost-model.md, "Latency").
//
//===----------------------------------------------------------------------===//

#include "TensorSizes.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Search/CostModel.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {
constexpr int64_t kWarpSize = 32;
/// Bytes one cp.async or vector store moves per thread.
constexpr double kBytesPerTransfer = 16;

/// Counts the steps of one block, op by op.
struct StepCounter {
  StepCounter(block::ForLoopOp loop, int64_t threads)
      : loop(loop), threads(static_cast<double>(threads)),
        warps(threads % kWarpSize == 0 ? threads / kWarpSize : 0),
        iterations(static_cast<double>(loop.getIterations())) {}

  /// Each thread takes consecutive elements of `elements` in turn, `perElement`
  /// steps each.
  void elementwise(double elements, double perElement, double times) {
    steps.sharedAccesses += std::ceil(elements / threads) * perElement * times;
  }

  /// `rows` rows of `length` elements, a group of lanes per row
  /// (block::getReductionLanesPerRow), 32 / lanes rows per warp at once:
  /// `passes` walks over the row, then log2(lanes) shuffles. Without whole
  /// warps, a thread per row.
  void groupedRowReduction(double rows, double length, double passes,
                           double times) {
    if (warps == 0) {
      // No whole warps: a thread per row.
      steps.reductionSteps +=
          std::ceil(rows / threads) * length * passes * times;
      return;
    }
    double lanes = static_cast<double>(
        block::getReductionLanesPerRow(static_cast<int64_t>(length)));
    steps.reductionSteps +=
        std::ceil(rows / (warps * kWarpSize / lanes)) *
        (std::ceil(length / lanes) * passes + std::log2(lanes)) * times;
  }

  void add(Operation *op);

  block::ForLoopOp loop;
  double threads, warps, iterations;
  BlockSteps steps;
};
} // namespace

void StepCounter::add(Operation *op) {
  double times = op->getParentOp() == loop.getOperation() ? iterations : 1;
  if (isa<block::ForLoopOp, block::ReturnOp>(op))
    return;
  // A view of an [n, k] tile that matmuls read in place moves nothing (the
  // GPU lowering emits no code for it).
  if (auto transpose = dyn_cast<block::TransposeOp>(op);
      transpose && block::isTransposedMatmulView(transpose))
    return;
  if (auto yield = dyn_cast<block::YieldOp>(op)) {
    // Each accumulator kept in shared memory reads the yielded element and
    // the running value and writes it back, every iteration; a matmul sum
    // kept in mma fragments adds in registers as part of its mma.sync.
    for (auto [i, value] : llvm::enumerate(yield.getValues()))
      if (iterations > 1 && block::getAccumulatorStorage(loop, i) !=
                                block::AccumulatorStorage::MmaFragments)
        elementwise(numElements(value.getType()), 3, iterations);
    steps.barriers += iterations;
    return;
  }
  if (auto load = dyn_cast<block::LoadOp>(op)) {
    // Copies of the next iteration's tiles overlap this one's compute; the
    // copies are issued one per 16 bytes per thread all the same.
    double copies = load.getFmap() ? times : 1;
    steps.transfers +=
        std::ceil(numBytes(load.getType()) / (kBytesPerTransfer * threads)) *
        copies;
    return;
  }
  if (auto store = dyn_cast<block::StoreOp>(op)) {
    steps.transfers += std::ceil(numBytes(store.getTile().getType()) /
                                 (kBytesPerTransfer * threads));
    return;
  }
  // Every other op ends with a barrier before its result is read.
  steps.barriers += times;
  if (auto graph = dyn_cast<thread::GraphOp>(op)) {
    Block &body = graph.getBody().front();
    double ops =
        static_cast<double>(llvm::range_size(body.without_terminator()));
    double perElement = graph.getNumOperands() + graph.getNumResults() + ops;
    elementwise(
        graph.getNumResults() ? numElements(graph.getResult(0).getType()) : 0,
        perElement, times);
    return;
  }
  if (auto matmul = dyn_cast<block::MatmulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    double k = static_cast<double>(lhs.getShape().back());
    Type elementType = lhs.getElementType();
    std::optional<block::MmaFragmentGrid> fragments =
        block::getMmaFragments(matmul, static_cast<int64_t>(threads));
    if (fragments &&
        (elementType.isF16() || elementType.isBF16() || elementType.isF32())) {
      // One ldmatrix + mma.sync per fragment and k step (k16 for f16 and
      // bf16, k8 for tf32).
      double perWarp = static_cast<double>(fragments->perWarp());
      double kSteps = static_cast<double>(fragments->kSteps);
      double fragmentSteps = perWarp * kSteps * times;
      steps.mmaIssues += fragmentSteps;
      // A sum kept in mma fragments walks k once for all of a warp's
      // fragments, so their mma.syncs overlap; any other matmul walks k
      // once per group of them (MmaFragmentGrid::kWalks).
      double walks = block::isAccumulatedInRegisters(matmul)
                         ? 1.0
                         : static_cast<double>(fragments->kWalks());
      steps.mmaSteps += walks * kSteps * times;
      // Padded fragments load their elements one by one: independent
      // ld.shared that wait for shared memory once per step.
      if (fragments->padded)
        steps.sharedAccesses += fragmentSteps;
      return;
    }
    // FMA loops on CUDA cores: one product term per step.
    elementwise(numElements(matmul.getType()), k, times);
    return;
  }
  StringRef name = op->getName().stripDialect();
  if (name == "reduce_sum" || name == "reduce_max") {
    double in = numElements(op->getOperand(0).getType());
    double rows = numElements(op->getResult(0).getType());
    groupedRowReduction(rows, rows > 0 ? in / rows : 0, 1, times);
    return;
  }
  if (auto norm = dyn_cast<block::RmsNormOp>(op)) {
    auto type = cast<RankedTensorType>(norm.getInput().getType());
    double length =
        static_cast<double>(type.getShape()[norm.getNormalizedDim()]);
    double rows = length > 0 ? numElements(type) / length : 0;
    bool lastDim = norm.getNormalizedDim() == type.getRank() - 1;
    if (warps > 0 && lastDim && rows > 0 && rows < warps &&
        std::fmod(warps, rows) == 0) {
      // The warps of a row all sum it, then share its writes.
      steps.reductionSteps +=
          (std::ceil(length / kWarpSize) * (1 + rows / warps) +
           std::log2(kWarpSize)) *
          times;
      return;
    }
    if (!lastDim) {
      // A thread per row: adjacent threads read adjacent columns.
      steps.reductionSteps += std::ceil(rows / threads) * 2 * length * times;
      return;
    }
    // A sum of squares, then a pass that scales, by a group of lanes per
    // row as in reduce_sum.
    groupedRowReduction(rows, length, 2, times);
    return;
  }
  // Elementwise ops, concat, transpose: each result element is one read of
  // every operand and one write.
  elementwise(numElements(op->getResult(0).getType()), op->getNumOperands() + 1,
              times);
}

BlockSteps mlsopt::search::countBlockSteps(kernel::CustomOp op) {
  auto loops = op.getBody().front().getOps<block::ForLoopOp>();
  if (loops.empty())
    return {};
  StepCounter counter(*loops.begin(), op.getBlock().getVolume());
  // A thread graph's body is counted with the graph.
  op.getBody().walk<WalkOrder::PreOrder>([&](Operation *nested) {
    counter.add(nested);
    return isa<thread::GraphOp>(nested) ? WalkResult::skip()
                                        : WalkResult::advance();
  });
  return counter.steps;
}
