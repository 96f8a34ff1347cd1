//===- BlockGraphTest.cpp - The dialects' C++ API -------------------------===//
//
// What the search will do in C++: build attributes and custom kernels through
// the API, query shared memory and targets, and get the verifier's answers.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Block/IR/BlockGraphVerifier.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "MLIRTest.h"

using namespace mlir;
using namespace mlsopt;

namespace {

class BlockGraphTest : public test::MLIRTest {};

// Two blocks each own 4 rows of an 8x64 input; a 4-iteration loop walks its
// columns and keeps the running max; the output is 8x16.
constexpr StringLiteral kKernel = R"mlir(
module attributes {mlsopt.target = "sm_80"} {
  func.func @f(%x: tensor<8x64xf16>) -> tensor<8x16xf16> {
    %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1>
        : (tensor<8x64xf16>) -> tensor<8x16xf16> {
    ^bb0(%in0: tensor<8x64xf16>, %out0: tensor<8x16xf16>):
      %a = block.for_loop 4 iterations accumulate (max) : tensor<4x16xf16> {
        %t = block.load %in0 imap <x = 0> fmap 1 : tensor<8x64xf16> -> tensor<4x16xf16>
        block.yield %t : tensor<4x16xf16>
      }
      %e = block.exp %a : tensor<4x16xf16>
      block.store %e, %out0 omap <x = 0> : tensor<4x16xf16> into tensor<8x16xf16>
      block.return
    }
    return %o : tensor<8x16xf16>
  }
}
)mlir";

TEST_F(BlockGraphTest, SharedMemoryCountsWhatTheLoweringAllocates) {
  OwningOpRef<ModuleOp> module = parse(kKernel);
  ASSERT_TRUE(module) << diagnostics;
  kernel::CustomOp custom;
  module->walk([&](kernel::CustomOp op) { custom = op; });
  ASSERT_TRUE(custom);
  // At the end of the loop: the load's two buffers (4x16 f16, 128 bytes
  // each), the f32 max accumulator (256) and the f16 result tile it is
  // finalized into (128). exp, after the loop, reuses the loop's bytes.
  EXPECT_EQ(block::estimateSharedMemoryBytes(custom), 2 * 128 + 256 + 128);
}

TEST_F(BlockGraphTest, EnclosingTargetIsFound) {
  OwningOpRef<ModuleOp> module = parse(kKernel);
  ASSERT_TRUE(module) << diagnostics;
  Operation *custom = nullptr;
  module->walk([&](kernel::CustomOp op) { custom = op; });
  FailureOr<TargetInfo> target = getEnclosingTarget(custom);
  ASSERT_TRUE(succeeded(target));
  EXPECT_EQ(target->chip, "sm_80");
}

TEST_F(BlockGraphTest, UnknownEnclosingTargetIsAnError) {
  // The mlsopt dialect rejects such a module when verifying it; passes that
  // ask for the target of unverified IR get a diagnostic, not a default.
  OwningOpRef<ModuleOp> module = parse(kKernel);
  ASSERT_TRUE(module) << diagnostics;
  (*module)->setAttr(kTargetAttrName, StringAttr::get(&context, "sm_75"));
  Operation *custom = nullptr;
  module->walk([&](kernel::CustomOp op) { custom = op; });
  test::DiagnosticCollector collect = collectDiagnostics();
  EXPECT_TRUE(failed(getEnclosingTarget(custom)));
  EXPECT_NE(diagnostics.find("which is not a supported target"),
            std::string::npos)
      << diagnostics;
  EXPECT_TRUE(failed(verify(*module)));
}

TEST_F(BlockGraphTest, DimMapRejectsInvalidTensorDim) {
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  test::DiagnosticCollector collect = collectDiagnostics();
  EXPECT_FALSE(block::DimMapAttr::getChecked(emit, &context, int64_t(-2),
                                                int64_t(-1), int64_t(-1)));
  EXPECT_NE(diagnostics.find("grid dim x maps to invalid tensor dim -2"),
            std::string::npos)
      << diagnostics;
  block::DimMapAttr ok =
      block::DimMapAttr::get(&context, GridToTensorDims{1, std::nullopt, 0});
  EXPECT_EQ(ok.getTensorDim(0), 1);
  EXPECT_EQ(ok.getTensorDim(1), std::nullopt);
  EXPECT_EQ(ok.getTensorDim(2), 0);
}

TEST_F(BlockGraphTest, VerifierRejectsWrongTileThroughTheApi) {
  // Change the load's tile type behind the parser's back: the verifier, not
  // the parser, must catch it.
  OwningOpRef<ModuleOp> module = parse(kKernel);
  ASSERT_TRUE(module) << diagnostics;
  ASSERT_TRUE(succeeded(verify(*module)));
  module->walk([&](block::LoadOp load) {
    load->setAttr("imap", block::DimMapAttr::get(&context, GridToTensorDims{}));
  });
  test::DiagnosticCollector collect = collectDiagnostics();
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(diagnostics.find("does not match the 8x16"), std::string::npos)
      << diagnostics;
}

} // namespace
