//===- CostModelTest.cpp - Roofline estimates of kernels and programs -----===//
//
// The properties the search relies on when it ranks candidates: more bytes
// cost more, big matmuls are compute bound and 8-row ones memory bound, a
// grid one block larger than the SMs takes a second round, shared memory
// limits occupancy, every example μGraph beats its unfused reference, and an
// op the model cannot cost is a diagnostic, not a crash. The example test
// prints the estimates it compares.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Search/CostModel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include "MLIRTest.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

namespace {

class CostModelTest : public test::MLIRTest {
protected:
  /// Parses `source`, failing the test when it does not parse.
  OwningOpRef<ModuleOp> parseOrFail(StringRef source) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module) << diagnostics;
    return module;
  }

  /// Cost of @`name` in `module`; fails the test on an error.
  KernelCost cost(ModuleOp module, StringRef name, const TargetInfo &target,
                  const CostModelOptions &options = {}) {
    test::DiagnosticCollector collect = collectDiagnostics();
    func::FuncOp func = lookupFunc(module, name);
    EXPECT_TRUE(func) << "no @" << name.str();
    if (!func)
      return {};
    FailureOr<KernelCost> c = estimateFunctionCost(func, target, options);
    EXPECT_TRUE(succeeded(c)) << diagnostics;
    return succeeded(c) ? *c : KernelCost();
  }
};

const TargetInfo &sm90() {
  static const TargetInfo t = *lookupTarget("sm_90");
  return t;
}

/// One matmul of [m, k] by [k, n] in `type`.
std::string matmulProgram(int64_t m, int64_t n, int64_t k,
                          StringRef type = "f16") {
  return llvm::formatv(R"mlir(
func.func @mm(%a: tensor<{0}x{2}x{3}>, %b: tensor<{2}x{1}x{3}>)
    -> tensor<{0}x{1}x{3}> {
  %c = kernel.matmul %a, %b : tensor<{0}x{2}x{3}>, tensor<{2}x{1}x{3}>
  return %c : tensor<{0}x{1}x{3}>
}
)mlir",
                       m, n, k, type)
      .str();
}

/// A custom kernel of `blocks` blocks of 128 threads; each block loads one
/// `rows` x 256 f16 tile and stores its row sums. The tile is what sets the
/// shared memory per block.
std::string rowSumKernel(int64_t blocks, int64_t rows) {
  int64_t total = blocks * rows;
  return llvm::formatv(R"mlir(
func.func @rowsum(%x: tensor<{0}x256xf16>) -> tensor<{0}x1xf16> {
  %o = kernel.custom (%x) grid <{1}, 1, 1> block <128, 1, 1>
      : (tensor<{0}x256xf16>) -> tensor<{0}x1xf16> {
  ^bb0(%in0: tensor<{0}x256xf16>, %out0: tensor<{0}x1xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<{2}x1xf16> {
      %t = block.load %in0 imap <x = 0> fmap 1
          : tensor<{0}x256xf16> -> tensor<{2}x256xf16>
      %s = block.reduce_sum %t dim 1 : tensor<{2}x256xf16>
      block.yield %s : tensor<{2}x1xf16>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<{2}x1xf16> into tensor<{0}x1xf16>
    block.return
  }
  return %o : tensor<{0}x1xf16>
}
)mlir",
                       total, blocks, rows)
      .str();
}

TEST(CostModel, RooflineGrowsWithBytes) {
  double last = 0;
  for (double bytes : {0.0, 1e3, 1e6, 1e8, 1e10}) {
    KernelCost c = estimateRoofline(bytes, 1e6, 1e6, sm90());
    EXPECT_GE(c.totalUs, last);
    EXPECT_GE(c.totalUs, sm90().launchOverheadUs);
    last = c.totalUs;
  }
  // Past the ridge point more bytes strictly cost more.
  EXPECT_LT(estimateRoofline(1e9, 0, 0, sm90()).totalUs,
            estimateRoofline(2e9, 0, 0, sm90()).totalUs);
  EXPECT_LT(estimateRoofline(0, 1e12, 0, sm90()).totalUs,
            estimateRoofline(0, 2e12, 0, sm90()).totalUs);
}

TEST(CostModel, BrokenTargetNeverDividesByZero) {
  TargetInfo broken = sm90();
  broken.memoryBandwidthGBs = 0;
  broken.tensorCoreTFlops = 0;
  broken.cudaCoreTFlops = 0;
  KernelCost c = estimateRoofline(1e9, 1e9, 1e9, broken);
  EXPECT_TRUE(std::isfinite(c.totalUs));
  EXPECT_EQ(estimateBlocksPerSM(1024, 0, sm90()), 0u);
}

TEST_F(CostModelTest, LibraryMatmulCostsItsDefaultBlockGraph) {
  // 4096^3 runs as 64x64 output tiles (4096 blocks, 128 iterations over k
  // in tiles of 32: tiles of 64 and the padded rows of the f32 result would
  // pass the default graphs' 48 KiB): each block loads 16 KiB from the L2
  // per 512 KFLOPs of tensor-core work,
  // so the L2's bandwidth, not the tensor cores, bounds it. (An ideal
  // library kernel would be compute-bound; the search's own kernels, with
  // larger tiles, get closer to that.)
  OwningOpRef<ModuleOp> big = parseOrFail(matmulProgram(4096, 4096, 4096));
  ASSERT_TRUE(big);
  KernelCost b = cost(*big, "mm", sm90());
  EXPECT_EQ(b.launches, 1u);
  EXPECT_EQ(b.tensorCoreFlops, 2.0 * 4096 * 4096 * 4096);
  // The sum accumulator adds each iteration's 64x64 product.
  EXPECT_EQ(b.cudaCoreFlops, 4096.0 * 4096 * 128);
  EXPECT_TRUE(b.isMemoryBound()) << b.computeUs << " vs " << b.memoryUs;
  double l2PerSM = sm90().memoryBandwidthGBs * 1e9 * 2.5 / sm90().smCount;
  double rounds = std::ceil(4096.0 / sm90().smCount);
  double perBlock = 2.0 * 64 * 64 * 2 * 64;
  EXPECT_NEAR(b.memoryUs, perBlock * rounds / l2PerSM * 1e6, 1e-6);

  // 8 rows: the weight is streamed once for 8 * 2 FLOPs per element.
  OwningOpRef<ModuleOp> gemv = parseOrFail(matmulProgram(8, 4096, 4096));
  ASSERT_TRUE(gemv);
  KernelCost g = cost(*gemv, "mm", sm90());
  EXPECT_TRUE(g.isMemoryBound()) << g.computeUs << " vs " << g.memoryUs;
  EXPECT_EQ(g.deviceBytes, 2.0 * (8 * 4096 + 4096 * 4096 + 8 * 4096));

  // f32 runs as tf32 on the tensor cores, at half the f16 rate.
  OwningOpRef<ModuleOp> f32 = parseOrFail(matmulProgram(4096, 4096, 4096, "f32"));
  ASSERT_TRUE(f32);
  KernelCost f = cost(*f32, "mm", sm90());
  EXPECT_EQ(f.tensorCoreFlops, 0);
  EXPECT_EQ(f.tf32Flops, 2.0 * 4096 * 4096 * 4096);
  EXPECT_GT(f.computeUs, b.computeUs);
}

TEST_F(CostModelTest, OddTilesRunOnTensorCoresAtTheirPaddedWork) {
  // 16 columns are two 16x8 fragments per row of 16: no padding.
  OwningOpRef<ModuleOp> mma = parseOrFail(matmulProgram(64, 16, 64));
  ASSERT_TRUE(mma);
  KernelCost m = cost(*mma, "mm", sm90());
  EXPECT_EQ(m.tensorCoreFlops, 2.0 * 64 * 16 * 64);
  // 12 columns are not a multiple of 8: the lowering pads the fragments
  // (columns past 12 are computed and not stored), so the tensor cores do
  // the work of 16 columns and the CUDA cores none of the product.
  OwningOpRef<ModuleOp> cols = parseOrFail(matmulProgram(64, 12, 64));
  ASSERT_TRUE(cols);
  KernelCost c = cost(*cols, "mm", sm90());
  EXPECT_EQ(c.tensorCoreFlops, 2.0 * 64 * 16 * 64);
  EXPECT_LT(c.cudaCoreFlops, 2.0 * 64 * 12 * 64);
  // k = 20 takes two k steps of 16 in f16, three of 8 as tf32.
  OwningOpRef<ModuleOp> k16 = parseOrFail(matmulProgram(64, 64, 20));
  ASSERT_TRUE(k16);
  EXPECT_EQ(cost(*k16, "mm", sm90()).tensorCoreFlops, 2.0 * 64 * 64 * 32);
  OwningOpRef<ModuleOp> k8 = parseOrFail(matmulProgram(64, 64, 20, "f32"));
  ASSERT_TRUE(k8);
  EXPECT_EQ(cost(*k8, "mm", sm90()).tf32Flops, 2.0 * 64 * 64 * 24);
}

TEST_F(CostModelTest, OneBlockMoreThanSMsTakesTwoWaves) {
  // 256-row tiles of f16 take 128 KiB: one block per SM on sm_90.
  unsigned sms = sm90().smCount;
  OwningOpRef<ModuleOp> full = parseOrFail(rowSumKernel(sms, 256));
  OwningOpRef<ModuleOp> over = parseOrFail(rowSumKernel(sms + 1, 256));
  ASSERT_TRUE(full && over);
  KernelCost f = cost(*full, "rowsum", sm90());
  KernelCost o = cost(*over, "rowsum", sm90());
  EXPECT_EQ(f.blocksPerSM, 1u);
  EXPECT_EQ(f.waves, 1);
  EXPECT_EQ(o.waves, 2);
  // The extra block costs a whole second round, not 1/132 more.
  double work = f.totalUs - f.launchUs, overWork = o.totalUs - o.launchUs;
  EXPECT_NEAR(overWork / work, 2.0 * sms / (sms + 1), 1e-9 + 0.05);
}

TEST_F(CostModelTest, SharedMemoryLimitsOccupancy) {
  const TargetInfo &t = sm90();
  // Threads alone allow 16 blocks of 128 threads per SM.
  EXPECT_EQ(estimateBlocksPerSM(0, 128, t), 16u);
  EXPECT_EQ(estimateBlocksPerSM(t.sharedMemPerSM / 3, 128, t), 3u);
  EXPECT_EQ(estimateBlocksPerSM(t.maxSharedMemPerBlock, 128, t), 1u);
  EXPECT_EQ(estimateBlocksPerSM(t.maxSharedMemPerBlock + 1, 128, t), 0u);
  EXPECT_EQ(estimateBlocksPerSM(0, t.maxThreadsPerBlock + 1, t), 0u);

  // The same grid of SMs + 1 blocks fits in one wave once the tiles are
  // small enough for several blocks per SM.
  OwningOpRef<ModuleOp> small = parseOrFail(rowSumKernel(t.smCount + 1, 64));
  ASSERT_TRUE(small);
  KernelCost s = cost(*small, "rowsum", t);
  EXPECT_GT(s.blocksPerSM, 1u);
  EXPECT_EQ(s.waves, 1);

  // sm_86 has under half the shared memory per SM: 128 KiB tiles do not
  // fit, and that is a diagnostic.
  OwningOpRef<ModuleOp> big = parseOrFail(rowSumKernel(t.smCount, 256));
  ASSERT_TRUE(big);
  diagnostics.clear();
  test::DiagnosticCollector collect = collectDiagnostics();
  EXPECT_TRUE(failed(
      estimateFunctionCost(lookupFunc(*big, "rowsum"), *lookupTarget("sm_86"))));
  EXPECT_NE(diagnostics.find("cannot be costed on sm_86"), std::string::npos)
      << diagnostics;
}

TEST_F(CostModelTest, NonKernelOpIsADiagnostic) {
  OwningOpRef<ModuleOp> module = parseOrFail(matmulProgram(8, 8, 8));
  ASSERT_TRUE(module);
  Operation *ret = lookupFunc(*module, "mm").getBody().front().getTerminator();
  test::DiagnosticCollector collect = collectDiagnostics();
  EXPECT_TRUE(failed(estimateKernelOpCost(ret, sm90())));
  EXPECT_NE(diagnostics.find("not a kernel op"), std::string::npos)
      << diagnostics;
  // In a function it is free.
  EXPECT_EQ(cost(*module, "mm", sm90()).launches, 1u);
}

TEST_F(CostModelTest, ExampleMicroGraphsBeatTheirReferences) {
  for (StringRef example :
       {"rmsnorm_matmul.mlir", "gated_mlp.mlir", "attention.mlir"}) {
    std::string path = ("examples/" + example).str();
    OwningOpRef<ModuleOp> module = parseSourceFile(path);
    ASSERT_TRUE(module) << path << ": " << diagnostics;
    unsigned compared = 0;
    for (auto func : module->getOps<func::FuncOp>()) {
      if (!func->hasAttr("mlsopt.equivalent_to"))
        continue;
      for (StringRef chip : {"sm_90", "sm_80"}) {
        const TargetInfo target = *lookupTarget(chip);
        KernelCost ref = cost(*module, "reference", target);
        KernelCost fused = cost(*module, func.getSymName(), target);
        std::string report;
        llvm::raw_string_ostream os(report);
        os << example << " on " << chip << ": @reference " << ref << "\n  @"
           << func.getSymName() << " " << fused << "\n";
        llvm::outs() << report;
        EXPECT_LT(fused.launches, ref.launches) << report;
        EXPECT_LT(fused.deviceBytes, ref.deviceBytes) << report;
        if (chip == "sm_90") {
          EXPECT_LT(fused.totalUs, ref.totalUs) << report;
        }
      }
      ++compared;
    }
    EXPECT_GT(compared, 0u) << path;
  }
}

/// One custom kernel of 8 blocks of 128 threads: each loads a 1x512 f16
/// tile of two inputs per iteration, adds them, squares the sum in a thread
/// graph and yields it to a sum accumulator; `iterations` iterations.
std::string addSquareKernel(int64_t iterations) {
  return llvm::formatv(R"mlir(
func.func @k(%x: tensor<8x{1}xf16>, %y: tensor<8x{1}xf16>) -> tensor<8x512xf16> {{
  %o = kernel.custom (%x, %y) grid <8, 1, 1> block <128, 1, 1>
      : (tensor<8x{1}xf16>, tensor<8x{1}xf16>) -> tensor<8x512xf16> {{
  ^bb0(%in0: tensor<8x{1}xf16>, %in1: tensor<8x{1}xf16>, %out0: tensor<8x512xf16>):
    %acc = block.for_loop {0} iterations accumulate (sum) : tensor<1x512xf16> {{
      %a = block.load %in0 imap <x = 0> fmap 1 : tensor<8x{1}xf16> -> tensor<1x512xf16>
      %b = block.load %in1 imap <x = 0> fmap 1 : tensor<8x{1}xf16> -> tensor<1x512xf16>
      %s = block.add %a, %b : tensor<1x512xf16>, tensor<1x512xf16>
      %q = thread.graph(%s) : (tensor<1x512xf16>) -> tensor<1x512xf16> {{
      ^bb0(%e: f16):
        %m = thread.binary mul %e, %e : f16
        thread.yield %m : f16
      }
      block.yield %q : tensor<1x512xf16>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<1x512xf16> into tensor<8x512xf16>
    block.return
  }
  return %o : tensor<8x512xf16>
}
)mlir",
                       iterations, 512 * iterations)
      .str();
}

TEST_F(CostModelTest, BlockStepsFollowTheLowering) {
  OwningOpRef<ModuleOp> module = parseOrFail(addSquareKernel(4));
  ASSERT_TRUE(module);
  kernel::CustomOp custom;
  lookupFunc(*module, "k").walk([&](kernel::CustomOp op) { custom = op; });
  ASSERT_TRUE(custom);
  BlockSteps steps = countBlockSteps(custom);
  // Per iteration and thread: 512 / 128 = 4 elements; the add reads two
  // operands and writes one (12 steps), the thread graph reads one, runs one
  // op and writes one (12), the sum accumulator reads two and writes one
  // (12). Two 1 KiB tiles are 64 16-byte copies, under one per thread each.
  EXPECT_EQ(steps.sharedAccesses, 4 * (12 + 12 + 12));
  EXPECT_EQ(steps.transfers, 4 * 2 + 1);
  EXPECT_EQ(steps.barriers, 4 * 3);
  EXPECT_EQ(steps.reductionSteps, 0);
  EXPECT_EQ(steps.mmaSteps, 0);
  EXPECT_EQ(steps.mmaIssues, 0);
}

/// A gated-MLP-like kernel: each of `grid` blocks sums x [8, 4096] times its
/// [4096, n] column strip of w over 8 iterations of k = 512, with `epilogue`
/// between the matmul and the yield (so the sum is kept in shared memory).
std::string stripMatmulKernel(int64_t n, bool epilogue) {
  std::string yielded = epilogue ? "%e" : "%m";
  std::string graph = epilogue ? llvm::formatv(R"mlir(
      %e = thread.graph(%m) : (tensor<8x{0}xf32>) -> tensor<8x{0}xf32> {{
      ^bb0(%v: f32):
        %u = thread.unary exp %v : f32
        thread.yield %u : f32
      })mlir",
                                               n)
                                     .str()
                               : "";
  return llvm::formatv(R"mlir(
func.func @k(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {{
  %o = kernel.custom (%x, %w) grid <{1}, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16> {{
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x4096xf16>, %out0: tensor<8x4096xf16>):
    %acc = block.for_loop 8 iterations accumulate (sum) : tensor<8x{0}xf32> {{
      %a = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x512xf16>
      %b = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x4096xf16> -> tensor<512x{0}xf16>
      %m = block.matmul %a, %b : tensor<8x512xf16>, tensor<512x{0}xf16> -> tensor<8x{0}xf32>{2}
      block.yield {3} : tensor<8x{0}xf32>
    }
    block.store %acc, %out0 omap <x = 1> : tensor<8x{0}xf32> into tensor<8x4096xf16>
    block.return
  }
  return %o : tensor<8x4096xf16>
}
)mlir",
                       n, 4096 / n, graph, yielded)
      .str();
}

TEST_F(CostModelTest, NarrowTileRowsCostWholeDeviceRuns) {
  // Both kernels read all of w once, but in rows of 32 and of 128 bytes. On
  // an H200 the gated MLP with 32-byte weight rows ran 1.7x slower than with
  // 128-byte rows (docs/benchmarks.md, 2026-12-04).
  OwningOpRef<ModuleOp> narrow = parseOrFail(stripMatmulKernel(16, false));
  OwningOpRef<ModuleOp> wide = parseOrFail(stripMatmulKernel(64, false));
  ASSERT_TRUE(narrow && wide);
  KernelCost n = cost(*narrow, "k", sm90());
  KernelCost w = cost(*wide, "k", sm90());
  double weights = 4096.0 * 4096 * 2;
  EXPECT_DOUBLE_EQ(w.deviceBytes, weights + 2 * (8 * 4096 * 2));
  // A 32-byte run costs two sectors, as a 64-byte one does: the weights'
  // rows and the output's.
  EXPECT_DOUBLE_EQ(n.deviceBytes - w.deviceBytes, weights + 8 * 4096 * 2);
  EXPECT_GT(n.memoryUs, 1.9 * w.memoryUs);
  OwningOpRef<ModuleOp> half = parseOrFail(stripMatmulKernel(32, false));
  ASSERT_TRUE(half);
  EXPECT_DOUBLE_EQ(cost(*half, "k", sm90()).deviceBytes, w.deviceBytes);
}

/// One warp's 16 x 256 product of a 2-iteration loop: 32 fragments, each 4
/// k steps per iteration, summed in registers or, with `epilogue`, stored
/// for an exp to read.
std::string oneWarpMatmulKernel(bool epilogue) {
  std::string graph = epilogue ? R"mlir(
      %e = thread.graph(%m) : (tensor<16x256xf32>) -> tensor<16x256xf32> {
      ^bb0(%v: f32):
        %u = thread.unary exp %v : f32
        thread.yield %u : f32
      })mlir"
                               : "";
  return llvm::formatv(R"mlir(
func.func @k(%x: tensor<16x128xf16>, %w: tensor<128x256xf16>) -> tensor<16x256xf16> {{
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <32, 1, 1>
      : (tensor<16x128xf16>, tensor<128x256xf16>) -> tensor<16x256xf16> {{
  ^bb0(%in0: tensor<16x128xf16>, %in1: tensor<128x256xf16>, %out0: tensor<16x256xf16>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<16x256xf32> {{
      %a = block.load %in0 imap <> fmap 1 : tensor<16x128xf16> -> tensor<16x64xf16>
      %b = block.load %in1 imap <> fmap 0 : tensor<128x256xf16> -> tensor<64x256xf16>
      %m = block.matmul %a, %b : tensor<16x64xf16>, tensor<64x256xf16> -> tensor<16x256xf32>{0}
      block.yield {1} : tensor<16x256xf32>
    }
    block.store %acc, %out0 omap <> : tensor<16x256xf32> into tensor<16x256xf16>
    block.return
  }
  return %o : tensor<16x256xf16>
}
)mlir",
                       graph, epilogue ? "%e" : "%m")
      .str();
}

TEST_F(CostModelTest, MmaFragmentsShareWalksOverK) {
  OwningOpRef<ModuleOp> inFragments = parseOrFail(oneWarpMatmulKernel(false));
  OwningOpRef<ModuleOp> inShared = parseOrFail(oneWarpMatmulKernel(true));
  ASSERT_TRUE(inFragments && inShared);
  kernel::CustomOp a, b;
  lookupFunc(*inFragments, "k").walk([&](kernel::CustomOp op) { a = op; });
  lookupFunc(*inShared, "k").walk([&](kernel::CustomOp op) { b = op; });
  ASSERT_TRUE(a && b);
  BlockSteps fragments = countBlockSteps(a);
  BlockSteps shared = countBlockSteps(b);
  EXPECT_EQ(fragments.mmaIssues, 32 * 4 * 2);
  EXPECT_EQ(shared.mmaIssues, 32 * 4 * 2);
  // A sum kept in fragments walks k once for all 32 of the warp's
  // fragments; a product stored to shared memory once per group of 16
  // (MmaFragmentGrid::kWalks), their mma.syncs overlapping within a walk.
  EXPECT_EQ(fragments.mmaSteps, 4 * 2);
  EXPECT_EQ(shared.mmaSteps, 2 * 4 * 2);
}

TEST_F(CostModelTest, LatencyIsReportedAndChargedOnlyWhenAsked) {
  OwningOpRef<ModuleOp> module = parseOrFail(addSquareKernel(64));
  ASSERT_TRUE(module);
  KernelCost roofline = cost(*module, "k", sm90());
  KernelCost latency = cost(*module, "k", sm90(), CostModelOptions{true});
  // 8 blocks walking 64 iterations each: the steps, not the 8 MiB it reads,
  // bound the kernel.
  EXPECT_GT(roofline.latencyUs, roofline.memoryUs);
  EXPECT_DOUBLE_EQ(roofline.latencyUs, latency.latencyUs);
  EXPECT_DOUBLE_EQ(roofline.totalUs,
                   roofline.launchUs +
                       std::max(roofline.memoryUs, roofline.computeUs));
  EXPECT_DOUBLE_EQ(latency.totalUs, latency.launchUs + latency.latencyUs);
  // Twice the iterations, twice the steps but for the one store.
  OwningOpRef<ModuleOp> longer = parseOrFail(addSquareKernel(128));
  ASSERT_TRUE(longer);
  EXPECT_NEAR(cost(*longer, "k", sm90()).steps.cycles() /
                  roofline.steps.cycles(),
              2.0, 1e-3);
}

TEST_F(CostModelTest, LatencyVetoComparesTheEstimateWithLatency) {
  OwningOpRef<ModuleOp> module = parseOrFail(addSquareKernel(64));
  ASSERT_TRUE(module);
  KernelCost longLoop = cost(*module, "k", sm90());
  // Computed whether or not latency ranks: what the veto compares.
  EXPECT_DOUBLE_EQ(longLoop.withLatencyUs,
                   longLoop.launchUs + longLoop.latencyUs);
  EXPECT_DOUBLE_EQ(
      cost(*module, "k", sm90(), CostModelOptions{true}).withLatencyUs,
      longLoop.withLatencyUs);
  // A library kernel that fills the GPU has no chain of steps.
  KernelCost library = estimateRoofline(longLoop.deviceBytes, 0, 0, sm90());
  EXPECT_DOUBLE_EQ(library.withLatencyUs, library.totalUs);
  // Two such launches beat the long loop by the roofline and lose to it by
  // the roofline and latency together.
  KernelCost twoLaunches = library;
  twoLaunches += library;
  EXPECT_DOUBLE_EQ(twoLaunches.withLatencyUs, 2 * library.withLatencyUs);
  ASSERT_LT(longLoop.totalUs, twoLaunches.totalUs);
  ASSERT_GT(longLoop.withLatencyUs, twoLaunches.withLatencyUs);

  CostModelOptions roofline;
  EXPECT_TRUE(isVetoedByLatency(longLoop, twoLaunches, roofline));
  EXPECT_FALSE(isVetoedByLatency(twoLaunches, longLoop, roofline));
  // Not equal: a rewrite as fast as the input by both is not refused here
  // (the search keeps the input on ties by the roofline anyway).
  EXPECT_FALSE(isVetoedByLatency(longLoop, longLoop, roofline));
  CostModelOptions noVeto;
  noVeto.latencyVeto = false;
  EXPECT_FALSE(isVetoedByLatency(longLoop, twoLaunches, noVeto));
  // Ranked with latency, the ranking already compares withLatencyUs.
  EXPECT_FALSE(
      isVetoedByLatency(longLoop, twoLaunches, CostModelOptions{true}));
}

TEST_F(CostModelTest, PredefinedOpReportsItsDefaultBlockGraphsLatency) {
  OwningOpRef<ModuleOp> module = parseOrFail(R"mlir(
func.func @norm(%x: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  %y = kernel.rms_norm %x : tensor<16x4096xf16>
  return %y : tensor<16x4096xf16>
}
)mlir");
  ASSERT_TRUE(module);
  KernelCost roofline = cost(*module, "norm", sm90());
  KernelCost lowered = cost(*module, "norm", sm90(), CostModelOptions{true});
  EXPECT_EQ(lowered.launches, 1u);
  // The default block graph gives each of 16 blocks one row of 4096: a
  // warp's lanes each sum 128 elements (in four partials), twice.
  EXPECT_GT(lowered.steps.reductionSteps, 128);
  // Reported either way, charged only when asked.
  EXPECT_DOUBLE_EQ(roofline.latencyUs, lowered.latencyUs);
  EXPECT_GT(lowered.totalUs, roofline.totalUs);
  EXPECT_DOUBLE_EQ(roofline.totalUs,
                   roofline.launchUs +
                       std::max(roofline.memoryUs, roofline.computeUs));
}

TEST_F(CostModelTest, SplitKDefaultBlockGraphCostsBothLaunches) {
  // X^T X for a 4096x64 X: one 64x64 output tile, so the default block graph
  // splits k across 128 blocks (chunks of 32, as the chunks' f32 tiles fit
  // shared memory) and a second kernel sums their partials, kept in f32.
  OwningOpRef<ModuleOp> module = parseOrFail(R"mlir(
func.func @gram(%t: tensor<64x4096xf16>, %x: tensor<4096x64xf16>) -> tensor<64x64xf16> {
  %g = kernel.matmul %t, %x : tensor<64x4096xf16>, tensor<4096x64xf16>
  return %g : tensor<64x64xf16>
}
)mlir");
  ASSERT_TRUE(module);
  KernelCost lowered = cost(*module, "gram", sm90(), CostModelOptions{true});
  EXPECT_EQ(lowered.launches, 2u);
  EXPECT_DOUBLE_EQ(lowered.launchUs, 2 * sm90().launchOverheadUs);
  // Both operands are read once, the partial products (128 of 64x64, in
  // f32) are written and read back, and the result is written.
  double operands = 2.0 * 64 * 4096 * 2;
  double partials = 128.0 * 64 * 64 * 4;
  double result = 64.0 * 64 * 2;
  EXPECT_DOUBLE_EQ(lowered.deviceBytes, operands + 2 * partials + result);
}

TEST_F(CostModelTest, LatencyRanksLongLoopsBelowSplitOnes) {
  // On an H200 the examples' one-kernel attention (8 blocks, 64 iterations)
  // took 391 us and flash-decoding (128 + 64 blocks) 32 us (docs/
  // benchmarks.md); the roofline alone puts them 2.7x apart.
  OwningOpRef<ModuleOp> module = parseSourceFile("examples/attention.mlir");
  ASSERT_TRUE(module) << diagnostics;
  const CostModelOptions latency{true};
  KernelCost fused = cost(*module, "fused", sm90(), latency);
  KernelCost split = cost(*module, "flash_decoding", sm90(), latency);
  KernelCost reference = cost(*module, "reference", sm90(), latency);
  EXPECT_GT(fused.totalUs, 5 * split.totalUs)
      << "fused " << fused.totalUs << " us, split " << split.totalUs << " us";
  EXPECT_LT(split.totalUs, reference.totalUs);
}

} // namespace
