//===- CostModel.cpp - Roofline estimate of kernel-level programs ---------===//
//
// See docs/cost-model.md for the model and where its constants come from.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Search/CostModel.h"
#include "TensorSizes.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/KernelToCustom/KernelToCustom.h"
#include "mlsopt/Dialect/Block/IR/BlockGraphVerifier.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

/// A grid smaller than the GPU cannot use all of its bandwidth, but a single
/// SM can draw more than its even share: this many of the SMs, kept busy,
/// saturate device memory. An assumption to calibrate on a GPU (issue 7), not
/// a spec-sheet figure.
static constexpr double kFractionOfSMsToSaturateMemory = 0.25;

/// The L2 cache delivers about this many times the device-memory bandwidth
/// to the SMs as a whole, an even share to each (an estimate from published
/// microbenchmarks of A100 and H100, not a specification figure).
static constexpr double kL2BandwidthFactor = 2.5;

/// Device memory moves a tile row by row: each contiguous run of bytes costs
/// whole 32-byte sectors, and a run shorter than kMinDeviceRunBytes costs as
/// much as one of that length. On an H200 a gated MLP whose weight tiles had
/// 32-byte rows ran 1.7 times slower than one with 128-byte rows that read
/// the same bytes, and RMSNorm + MatMul with 32-byte rows 2.3 times slower
/// than its two library kernels (docs/benchmarks.md, 2026-12-04). Over the
/// 174 programs of that run, 64 gives an rms log error of 0.366 against
/// 0.387 without the term (bench/gpu/fit_latency.py). 96 fits them better
/// (0.356) but would charge 64-byte rows half again, and the examples'
/// gated MLP, which reads 64-byte rows, measured 30 us, as fast as with
/// 128-byte rows (docs/cost-model.md, "Custom kernels").
static constexpr double kMinDeviceRunBytes = 64;
static constexpr double kSectorBytes = 32;

/// Clock cycles per step of each kind of BlockSteps, fitted to the times of
/// 97 programs measured on an H200 with the launch overhead held at the
/// target table's 2 us (rms log error 0.27, against 1.28 without these
/// steps; docs/cost-model.md, "Latency", and bench/gpu/fit_latency.py). A
/// transfer's cycles include the share of memory latency a block's copies do
/// not hide. Barriers get none: in this data they trade off against the
/// launch overhead (with both fitted, 74 cycles and 0.58 us). That fit
/// counted every mma.sync as dependent: its cycles are the issued ones'
/// here, and the dependent chain gets none until a GPU run validates a fit
/// of both (docs/cost-model.md, "Latency").
static constexpr double kCyclesPerSharedAccess = 39;
static constexpr double kCyclesPerReductionStep = 46;
static constexpr double kCyclesPerMma = 0;
static constexpr double kCyclesPerMmaIssue = 27;
static constexpr double kCyclesPerTransfer = 90;
static constexpr double kCyclesPerBarrier = 0;

BlockSteps &BlockSteps::operator+=(const BlockSteps &other) {
  sharedAccesses += other.sharedAccesses;
  reductionSteps += other.reductionSteps;
  mmaSteps += other.mmaSteps;
  mmaIssues += other.mmaIssues;
  transfers += other.transfers;
  barriers += other.barriers;
  return *this;
}

BlockSteps BlockSteps::operator*(double factor) const {
  BlockSteps s = *this;
  s.sharedAccesses *= factor;
  s.reductionSteps *= factor;
  s.mmaSteps *= factor;
  s.mmaIssues *= factor;
  s.transfers *= factor;
  s.barriers *= factor;
  return s;
}

double BlockSteps::cycles() const {
  return sharedAccesses * kCyclesPerSharedAccess +
         reductionSteps * kCyclesPerReductionStep + mmaSteps * kCyclesPerMma +
         mmaIssues * kCyclesPerMmaIssue + transfers * kCyclesPerTransfer +
         barriers * kCyclesPerBarrier;
}

KernelCost &KernelCost::operator+=(const KernelCost &other) {
  deviceBytes += other.deviceBytes;
  tensorCoreFlops += other.tensorCoreFlops;
  tf32Flops += other.tf32Flops;
  cudaCoreFlops += other.cudaCoreFlops;
  launches += other.launches;
  launchUs += other.launchUs;
  waves += other.waves;
  blocksPerSM = std::max(blocksPerSM, other.blocksPerSM);
  computeUs += other.computeUs;
  memoryUs += other.memoryUs;
  latencyUs += other.latencyUs;
  steps += other.steps;
  totalUs += other.totalUs;
  withLatencyUs += other.withLatencyUs;
  return *this;
}

bool mlsopt::search::appliesLatencyVeto(const CostModelOptions &options) {
  // Ranked with the latency term, a replacement already had to beat the
  // program it replaces by it.
  return options.latencyVeto && !options.latency;
}

bool mlsopt::search::isVetoedByLatency(const KernelCost &after,
                                       const KernelCost &before,
                                       const CostModelOptions &options) {
  return appliesLatencyVeto(options) &&
         after.withLatencyUs > before.withLatencyUs;
}

raw_ostream &mlsopt::search::operator<<(raw_ostream &os,
                                        const KernelCost &cost) {
  return os << llvm::format("%.2f us (%u launches, %.0f bytes, %.0f TC FLOPs, "
                            "%.0f TF32 FLOPs, %.0f CUDA-core FLOPs, memory "
                            "%.2f us, compute %.2f us, latency %.2f us, %.0f "
                            "waves)",
                            cost.totalUs, cost.launches, cost.deviceBytes,
                            cost.tensorCoreFlops, cost.tf32Flops,
                            cost.cudaCoreFlops, cost.memoryUs, cost.computeUs,
                            cost.latencyUs, cost.waves);
}

//===----------------------------------------------------------------------===//
// Work of single ops
//===----------------------------------------------------------------------===//

static bool isStaticTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         tensor.getElementType().isIntOrFloat();
}

namespace {
struct Flops {
  double tensorCore = 0;
  double tf32 = 0;
  double cudaCore = 0;
};
} // namespace

/// FLOPs of one op shared by the kernel and block levels (the ops of
/// MLSOpt_TensorOps, recognised by mnemonic so both dialects share one
/// table), on the whole tensors at the kernel level or one tile at the block
/// level. Fails, with an error, for anything else.
static FailureOr<Flops> estimateTensorOpFlops(Operation *op) {
  if (op->getNumResults() != 1 || !isStaticTensor(op->getResult(0).getType()) ||
      !llvm::all_of(op->getOperandTypes(), isStaticTensor))
    return op->emitOpError("cannot be costed: the cost model handles ops with "
                           "statically shaped tensor operands and one such "
                           "result");
  StringRef name = op->getName().stripDialect();
  Type resultType = op->getResult(0).getType();
  double out = numElements(resultType);
  Flops flops;
  if (name == "matmul") {
    // 2 m n k per batch: one multiply and one add per product term. f16 and
    // bf16 run on tensor cores; f32 too, as tf32, which is what the GPU
    // lowering emits unless `allow-tf32=false` (docs/gpu.md); anything else
    // on CUDA cores.
    auto lhs = cast<RankedTensorType>(op->getOperand(0).getType());
    double k = lhs.getRank() ? static_cast<double>(lhs.getShape().back()) : 1;
    double work = 2 * out * k;
    Type elt = lhs.getElementType();
    if (elt.isF16() || elt.isBF16())
      flops.tensorCore = work;
    else if (elt.isF32())
      flops.tf32 = work;
    else
      flops.cudaCore = work;
    return flops;
  }
  double in =
      op->getNumOperands() ? numElements(op->getOperand(0).getType()) : 0;
  std::optional<double> cuda =
      llvm::StringSwitch<std::optional<double>>(name)
          // One combine per input element.
          .Cases({"reduce_sum", "reduce_max"}, in)
          // Square, sum, and scale per element; the root per row is noise.
          .Case("rms_norm", 3 * in)
          // Pure data movement.
          .Cases({"concat", "transpose", "convert"}, 0.0)
          // Elementwise: one operation (a transcendental counts as one, on
          // the special-function units) per result element.
          .Cases({"add", "sub", "mul", "div", "max", "min", "mul_scalar",
                  "add_scalar", "max_scalar", "min_scalar"},
                 out)
          // A compare of the element's place and a select.
          .Case("triangle_fill", 2 * out)
          // A select of one of two constants.
          .Cases({"where", "int_to_float"}, out)
          .Cases({"exp",   "log",      "sqrt",      "rsqrt", "square",
                  "silu",  "sigmoid",  "gelu",      "relu",  "tanh",
                  "erf",   "neg",      "gelu_tanh", "sin",   "cos",
                  "log1p", "softplus", "floor",     "ceil",  "round"},
                 out)
          .Default(std::nullopt);
  if (!cuda)
    return op->emitOpError("cannot be costed: the cost model knows no FLOP "
                           "count for this op");
  flops.cudaCore = *cuda;
  return flops;
}

//===----------------------------------------------------------------------===//
// Rooflines
//===----------------------------------------------------------------------===//

/// Time in us for `amount` units at `perSecond` units per second; 0 for no
/// work, and no division by a zero rate (a zero rate would be a broken
/// target table, and no work was ever free on it).
static double timeUs(double amount, double perSecond) {
  if (amount <= 0 || perSecond <= 0)
    return 0;
  return amount / perSecond * 1e6;
}

static double memoryTimeUs(double bytes, const TargetInfo &target) {
  return timeUs(bytes, target.memoryBandwidthGBs * 1e9);
}

/// Tensor-core and CUDA-core work are added, not overlapped: the same warps
/// issue both, and it keeps the estimate an upper bound on the roofline.
static double computeTimeUs(const Flops &flops, const TargetInfo &target) {
  // Dense tf32 runs at half the f16 rate on every supported chip (A100,
  // RTX 3090, RTX 4090 / L40S and H100/H200 spec sheets).
  return timeUs(flops.tensorCore, target.tensorCoreTFlops * 1e12) +
         timeUs(flops.tf32, target.tensorCoreTFlops / 2 * 1e12) +
         timeUs(flops.cudaCore, target.cudaCoreTFlops * 1e12);
}

KernelCost mlsopt::search::estimateRoofline(double deviceBytes,
                                            double tensorCoreFlops,
                                            double cudaCoreFlops,
                                            const TargetInfo &target,
                                            double tf32Flops) {
  KernelCost cost;
  cost.deviceBytes = std::max(deviceBytes, 0.0);
  cost.tensorCoreFlops = std::max(tensorCoreFlops, 0.0);
  cost.tf32Flops = std::max(tf32Flops, 0.0);
  cost.cudaCoreFlops = std::max(cudaCoreFlops, 0.0);
  cost.launches = 1;
  cost.launchUs = target.launchOverheadUs;
  cost.waves = 1;
  cost.memoryUs = memoryTimeUs(cost.deviceBytes, target);
  cost.computeUs = computeTimeUs(
      Flops{cost.tensorCoreFlops, cost.tf32Flops, cost.cudaCoreFlops}, target);
  cost.totalUs = cost.launchUs + std::max(cost.memoryUs, cost.computeUs);
  // A library kernel that fills the GPU has no chain of steps to wait on.
  cost.withLatencyUs = cost.totalUs;
  return cost;
}

double mlsopt::search::estimateGridMemoryUs(double deviceBytes,
                                            double loadedBytes, double blocks,
                                            const TargetInfo &target) {
  if (blocks <= 0 || target.smCount == 0)
    return 0;
  // As for compute (estimateCustomKernelCost), the busiest SM runs
  // ceil(blocks / SMs) blocks.
  double sms = static_cast<double>(target.smCount);
  double rounds = std::ceil(blocks / sms);
  double activeSMs = std::min(blocks, sms);
  // Device memory: an SM gets an even share of the bandwidth among the
  // active SMs, but no more than it can draw on its own.
  double perSMShare =
      std::min(1.0 / activeSMs, 1.0 / (kFractionOfSMsToSaturateMemory * sms));
  double memoryUs =
      memoryTimeUs(deviceBytes / blocks, target) * rounds / perSMShare;
  // The L2 serves every tile a block loads, repeats included, and an SM
  // draws its share of the L2's bandwidth however few SMs are busy: blocks
  // that each walk a long dim alone (attention over a long KV length with
  // few query rows) take that long, which splitting the dim across more
  // blocks avoids.
  double l2PerSM = target.memoryBandwidthGBs * 1e9 * kL2BandwidthFactor / sms;
  return std::max(memoryUs, timeUs(loadedBytes / blocks * rounds, l2PerSM));
}

unsigned mlsopt::search::estimateBlocksPerSM(int64_t sharedMemBytes,
                                             int64_t threadsPerBlock,
                                             const TargetInfo &target) {
  if (threadsPerBlock <= 0 ||
      threadsPerBlock > static_cast<int64_t>(target.maxThreadsPerBlock) ||
      sharedMemBytes < 0 ||
      static_cast<uint64_t>(sharedMemBytes) > target.maxSharedMemPerBlock)
    return 0;
  uint64_t blocks = target.maxBlocksPerSM;
  blocks = std::min<uint64_t>(blocks, target.maxThreadsPerSM / threadsPerBlock);
  if (sharedMemBytes > 0)
    blocks = std::min<uint64_t>(
        blocks, target.sharedMemPerSM / static_cast<uint64_t>(sharedMemBytes));
  return static_cast<unsigned>(blocks);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// The cost of the default block graph the GPU lowering gives a pre-defined
/// kernel op (convert-kernel-to-custom), built in a scratch module; failure,
/// without a diagnostic, when the op has none.
static FailureOr<SmallVector<KernelCost>>
estimateDefaultBlockGraphCosts(Operation *op, const TargetInfo &target,
                               const CostModelOptions &options) {
  if (!hasDefaultBlockGraph(op))
    return failure();
  MLIRContext *ctx = op->getContext();
  // Callers in multithreaded pass pipelines declare the block dialect as a
  // dependent dialect; elsewhere it is loaded here, on one thread.
  ctx->getOrLoadDialect<block::BlockDialect>();
  // A rank-0 op is wrapped between tensor reshapes.
  ctx->getOrLoadDialect<tensor::TensorDialect>();
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  Location loc = op->getLoc();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(b, loc);
  b.setInsertionPointToEnd(scratch->getBody());
  auto func = func::FuncOp::create(
      b, loc, "cost",
      b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping operands;
  operands.map(op->getOperands(), entry->getArguments());
  Operation *clone = b.clone(*op, operands);
  func::ReturnOp::create(b, loc, clone->getResults());
  IRRewriter rewriter(ctx);
  // The GPU pipeline computes an rms_norm or concat whose row fits no block
  // of the chip as the ops it stands for: an rms_norm several launches (a
  // [3, 65536] f16 one was costed as one kernel and lowered to nine).
  bool decomposed = hasRowTooLongForABlock(
      clone, static_cast<int64_t>(target.maxSharedMemPerBlock));
  if (failed(decomposed
                 ? lowerToDefaultBlockGraphs(rewriter, clone,
                                             kDefaultBlockGraphSharedMemBytes)
                 : LogicalResult(wrapInDefaultBlockGraph(
                       rewriter, clone, kDefaultBlockGraphSharedMemBytes))))
    return failure();
  // A split reduction is two kernels, a decomposed rms_norm several.
  return estimateKernelCosts(func, target, options);
}

/// The launches the GPU lowering runs for kernel op `op`, one cost each: a
/// custom kernel, the kernels of a pre-defined op's default block graph,
/// or a copy kernel for an op without one.
static FailureOr<SmallVector<KernelCost>>
estimateKernelOpLaunches(Operation *op, const TargetInfo &target,
                         const CostModelOptions &options) {
  if (auto custom = dyn_cast<kernel::CustomOp>(op)) {
    FailureOr<KernelCost> cost =
        estimateCustomKernelCost(custom, target, options);
    if (failed(cost))
      return failure();
    return SmallVector<KernelCost>{*cost};
  }
  if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()))
    return op->emitOpError("cannot be costed: not a kernel op");

  // The GPU lowering runs a pre-defined op as its default block graph, so
  // that is what it costs: costed as an ideal library kernel instead, a
  // 16-block matmul walking k = 4096 looked as fast as one that fills the
  // GPU, and the search kept it. An op without one (a transpose, a
  // conversion) is a copy kernel that reads every operand from device
  // memory and writes its result there, at the roofline.
  if (FailureOr<SmallVector<KernelCost>> lowered =
          estimateDefaultBlockGraphCosts(op, target, options);
      succeeded(lowered))
    return lowered;
  FailureOr<Flops> flops = estimateTensorOpFlops(op);
  if (failed(flops))
    return failure();
  double bytes = 0;
  for (Type type : op->getOperandTypes())
    bytes += numBytes(type);
  for (Type type : op->getResultTypes())
    bytes += numBytes(type);
  return SmallVector<KernelCost>{estimateRoofline(
      bytes, flops->tensorCore, flops->cudaCore, target, flops->tf32)};
}

/// The sum of the costs of several launches, or failure.
static FailureOr<KernelCost>
sumLaunches(FailureOr<SmallVector<KernelCost>> launches) {
  if (failed(launches))
    return failure();
  KernelCost total;
  for (const KernelCost &launch : *launches)
    total += launch;
  return total;
}

FailureOr<KernelCost>
mlsopt::search::estimateKernelOpCost(Operation *op, const TargetInfo &target,
                                     const CostModelOptions &options) {
  return sumLaunches(estimateKernelOpLaunches(op, target, options));
}

namespace {
/// Counts the work of a block graph, one op at a time in a pre-order walk:
/// the device-memory bytes of the whole grid and the FLOPs of one block.
struct BlockGraphWork {
  BlockGraphWork(kernel::Dim3Attr grid, block::ForLoopOp loop)
      : grid(grid), loop(loop),
        iterations(static_cast<double>(loop.getIterations())),
        blocks(static_cast<double>(grid.getVolume())) {}

  WalkResult add(Operation *op);

  kernel::Dim3Attr grid;
  block::ForLoopOp loop;
  double iterations, blocks;
  double bytes = 0;
  /// Bytes all blocks load over all iterations, each tile as often as a
  /// block loads it: what the L2 cache delivers to the SMs.
  double loadedBytes = 0;
  Flops flops;
};
} // namespace

/// The bytes that moving a tile of `tile`'s shape to or from a tensor of
/// `tensor` costs, in the tensor's element type: its contiguous runs (the
/// innermost dims the tile spans whole, and the first it does not), each
/// rounded up to whole sectors and to at least `minRunBytes`.
static double bytesInRuns(Type tile, Type tensor, double minRunBytes) {
  ArrayRef<int64_t> tileShape = cast<ShapedType>(tile).getShape();
  ArrayRef<int64_t> tensorShape = cast<ShapedType>(tensor).getShape();
  double elementBytes =
      std::ceil(cast<ShapedType>(tensor).getElementTypeBitWidth() / 8.0);
  double total = numBytesAs(tile, tensor);
  if (tileShape.size() != tensorShape.size() || total <= 0)
    return total;
  double run = elementBytes;
  for (int64_t d = tileShape.size() - 1; d >= 0; --d) {
    run *= static_cast<double>(tileShape[d]);
    if (tileShape[d] != tensorShape[d])
      break;
  }
  double charged =
      std::max(std::ceil(run / kSectorBytes) * kSectorBytes, minRunBytes);
  return total / run * charged;
}

WalkResult BlockGraphWork::add(Operation *op) {
  // An op in the loop body runs once per iteration, one after it once.
  double times = op->getParentOp() == loop.getOperation() ? iterations : 1;
  if (isa<block::ForLoopOp, block::ReturnOp>(op))
    return WalkResult::advance();
  if (auto yield = dyn_cast<block::YieldOp>(op)) {
    // Each accumulator combines one yielded element per iteration.
    for (Type type : yield.getOperandTypes())
      flops.cudaCore += numElements(type) * iterations;
    return WalkResult::advance();
  }
  if (auto load = dyn_cast<block::LoadOp>(op)) {
    // A load without fmap reads the same tile every iteration; it is counted
    // once because the tile stays in shared memory. Blocks that differ only
    // along grid dims the imap does not name load the same tiles at about the
    // same time; the L2 serves all but the first, so device memory sees each
    // distinct tile once.
    double distinctTiles = 1;
    for (unsigned g = 0; g < 3; ++g)
      if (load.getImap().getTensorDim(g))
        distinctTiles *= static_cast<double>(grid.getSize(g));
    // A converting load reads the input's element type from memory.
    // Device memory is read in runs of at least kMinDeviceRunBytes, the
    // L2 serves whole sectors.
    double loads = load.getFmap().has_value() ? iterations : 1;
    Type source = load.getSource().getType();
    bytes += bytesInRuns(load.getType(), source, kMinDeviceRunBytes) * loads *
             distinctTiles;
    loadedBytes +=
        bytesInRuns(load.getType(), source, kSectorBytes) * loads * blocks;
    return WalkResult::advance();
  }
  if (auto store = dyn_cast<block::StoreOp>(op)) {
    // Every block writes its own tile, in the output's element type.
    bytes += bytesInRuns(store.getTile().getType(), store.getDest().getType(),
                         kMinDeviceRunBytes) *
             blocks;
    return WalkResult::advance();
  }
  if (auto graph = dyn_cast<thread::GraphOp>(op)) {
    // Every thread op runs once per element of the graph's outputs, in
    // registers.
    double ops = static_cast<double>(
        llvm::range_size(graph.getBody().front().without_terminator()));
    double elements =
        graph.getNumResults() ? numElements(graph.getResult(0).getType()) : 0;
    flops.cudaCore += ops * elements * times;
    return WalkResult::skip();
  }
  if (!isa_and_nonnull<block::BlockDialect>(op->getDialect())) {
    op->emitOpError("cannot be costed: the cost model handles block ops and "
                    "thread graphs in a custom kernel");
    return WalkResult::interrupt();
  }
  FailureOr<Flops> f = estimateTensorOpFlops(op);
  if (failed(f))
    return WalkResult::interrupt();
  if (auto matmul = dyn_cast<block::MatmulOp>(op)) {
    std::optional<block::MmaFragmentGrid> fragments = block::getMmaFragments(
        matmul, op->getParentOfType<kernel::CustomOp>().getBlock().getVolume());
    if (!fragments) {
      // A block the tensor cores cannot take (not whole warps) runs FMA
      // loops on the CUDA cores.
      f->cudaCore += f->tensorCore + f->tf32;
      f->tensorCore = f->tf32 = 0;
    } else if (fragments->padded) {
      // Padded fragments (a ViT's 197 keys) do the work of the padded
      // shape: whole 16x8 fragments and k steps.
      ArrayRef<int64_t> shape = matmul.getType().getShape();
      double m = static_cast<double>(shape[shape.size() - 2]);
      double n = static_cast<double>(shape.back());
      double k = static_cast<double>(
          cast<RankedTensorType>(matmul.getLhs().getType()).getShape().back());
      double waste = std::ceil(m / 16) * 16 * std::ceil(n / 8) * 8 *
                     static_cast<double>(fragments->kSteps * fragments->kStep) /
                     (m * n * k);
      f->tensorCore *= waste;
      f->tf32 *= waste;
    }
  }
  flops.tensorCore += f->tensorCore * times;
  flops.tf32 += f->tf32 * times;
  flops.cudaCore += f->cudaCore * times;
  return WalkResult::advance();
}

FailureOr<KernelCost>
mlsopt::search::estimateCustomKernelCost(kernel::CustomOp op,
                                         const TargetInfo &target,
                                         const CostModelOptions &options) {
  auto loops = op.getBody().front().getOps<block::ForLoopOp>();
  if (loops.empty())
    return op.emitOpError("cannot be costed: its block graph has no "
                          "block.for_loop");
  block::ForLoopOp loop = *loops.begin();

  double blocks = static_cast<double>(op.getGrid().getVolume());
  int64_t threads = op.getBlock().getVolume();
  int64_t sharedMem =
      block::estimateSharedMemoryBytes(op, target.maxSharedMemPerBlock);
  unsigned blocksPerSM = estimateBlocksPerSM(sharedMem, threads, target);
  if (blocks <= 0 || blocksPerSM == 0 || target.smCount == 0)
    return op.emitOpError("cannot be costed on ")
           << target.chip << ": " << threads << " threads and " << sharedMem
           << " bytes of shared memory per block do not fit one SM (at most "
           << target.maxThreadsPerBlock << " threads and "
           << target.maxSharedMemPerBlock << " bytes)";

  BlockGraphWork work(op.getGrid(), loop);
  WalkResult walk = op.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *nested) { return work.add(nested); });
  if (walk.wasInterrupted())
    return failure();
  double bytes = work.bytes;
  Flops flops = work.flops;

  KernelCost cost;
  cost.deviceBytes = bytes;
  cost.tensorCoreFlops = flops.tensorCore * blocks;
  cost.tf32Flops = flops.tf32 * blocks;
  cost.cudaCoreFlops = flops.cudaCore * blocks;
  cost.launches = 1;
  cost.launchUs = target.launchOverheadUs;
  cost.blocksPerSM = blocksPerSM;
  double sms = static_cast<double>(target.smCount);
  cost.waves = std::ceil(blocks / (sms * blocksPerSM));

  // Blocks resident on one SM share its tensor cores, CUDA cores and memory
  // pipes, so what bounds the time is how many blocks the busiest SM runs,
  // ceil(blocks / SMs), not how many waves they take. A grid that does not
  // divide evenly leaves SMs idle in its last round: SMs + 1 blocks take
  // twice as long as SMs blocks.
  double rounds = std::ceil(blocks / sms);
  cost.computeUs =
      computeTimeUs(flops, target) * rounds * sms;
  cost.memoryUs = estimateGridMemoryUs(bytes, work.loadedBytes, blocks, target);
  // Each wave of blocks walks its chain of dependent steps; blocks resident
  // on one SM at once interleave theirs.
  cost.steps = countBlockSteps(op) * cost.waves;
  cost.latencyUs = timeUs(cost.steps.cycles(), target.clockGHz * 1e9);
  cost.withLatencyUs =
      cost.launchUs + std::max({cost.memoryUs, cost.computeUs, cost.latencyUs});
  cost.totalUs = options.latency
                     ? cost.withLatencyUs
                     : cost.launchUs + std::max(cost.memoryUs, cost.computeUs);
  return cost;
}

FailureOr<SmallVector<KernelCost>>
mlsopt::search::estimateKernelCosts(func::FuncOp func, const TargetInfo &target,
                                    const CostModelOptions &options) {
  SmallVector<KernelCost> costs;
  // Kernels nothing reads are not launched (convert-kernel-to-custom
  // erases them).
  llvm::SmallPtrSet<Operation *, 8> dead = getDeadKernelOps(func.getBody());
  WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (dead.contains(op))
      return WalkResult::skip();
    // The GPU pipeline runs a static slice and a broadcast on tensors as
    // copy kernels: one launch that writes the result and reads what it
    // copies (a broadcast's repeated reads come from the L2). A slice that
    // only kernels read, they read in place (isReadInPlace).
    auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
    if (slice && isReadInPlace(slice))
      return WalkResult::advance();
    if (isa<tensor::ExtractSliceOp, linalg::BroadcastOp>(op) &&
        llvm::all_of(op->getResultTypes(), isStaticTensor)) {
      Type copied = isa<tensor::ExtractSliceOp>(op)
                        ? op->getResult(0).getType()
                        : op->getOperand(0).getType();
      costs.push_back(estimateRoofline(numBytes(copied) +
                                           numBytes(op->getResult(0).getType()),
                                       0, 0, target, /*tf32=*/0));
      return WalkResult::advance();
    }
    if (!isa_and_nonnull<kernel::KernelDialect>(op->getDialect()))
      return WalkResult::advance();
    // One entry per launch: a split reduction's two kernels are two.
    FailureOr<SmallVector<KernelCost>> launches =
        estimateKernelOpLaunches(op, target, options);
    if (failed(launches))
      return WalkResult::interrupt();
    costs.append(launches->begin(), launches->end());
    // A custom kernel's body was costed with it.
    return WalkResult::skip();
  });
  if (walk.wasInterrupted())
    return failure();
  // A result no launch writes (an argument returned, or a view of one) is
  // copied into its buffer by a copy kernel of its own at the end.
  if (func.getBody().hasOneBlock())
    if (auto ret =
            dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator()))
      for (unsigned i : getResultsCopiedOnReturn(ret.getOperands())) {
        Type type = ret.getOperand(i).getType();
        if (isStaticTensor(type))
          costs.push_back(estimateRoofline(2 * numBytes(type), 0, 0, target,
                                           /*tf32=*/0));
      }
  return costs;
}

FailureOr<KernelCost>
mlsopt::search::estimateFunctionCost(func::FuncOp func,
                                     const TargetInfo &target,
                                     const CostModelOptions &options) {
  return sumLaunches(estimateKernelCosts(func, target, options));
}
