//===- EvaluationWorkTest.cpp - Sizes of a field evaluation ---------------===//

#include "mlsopt/Verify/EvaluationWork.h"

#include "mlir/IR/BuiltinOps.h"

#include "MLIRTest.h"

#include <string>

using namespace mlir;
using namespace mlsopt;

namespace {

class EvaluationWorkTest : public test::MLIRTest {};

// Two blocks each load a 4x16 tile, take its exp and store it: every block
// op counts once per block, the kernel's arguments once for the kernel.
TEST_F(EvaluationWorkTest, BlockOpsCountOncePerBlockAndIteration) {
  auto source = [](int64_t iterations) {
    std::string text = R"mlir(
func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%in0: tensor<8x16xf32>, %out0: tensor<8x16xf32>):
    %acc = block.for_loop ITERATIONS iterations accumulate (sum) : tensor<4x16xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<8x16xf32> -> tensor<4x16xf32>
      %e = block.exp %t : tensor<4x16xf32>
      block.yield %e : tensor<4x16xf32>
    }
    block.store %acc, %out0 omap <x = 0> : tensor<4x16xf32> into tensor<8x16xf32>
    block.return
  }
  return %o : tensor<8x16xf32>
}
)mlir";
    text.replace(text.find("ITERATIONS"), 10, std::to_string(iterations));
    return text;
  };
  OwningOpRef<ModuleOp> once = parse(source(1));
  ASSERT_TRUE(once) << diagnostics;
  func::FuncOp f = lookupFunc(*once, "f");
  // Per block: the load's tile (64), the exp's operand and result (128),
  // the yield (64), the loop's result (64), the store's tile (64); times 2
  // blocks. The kernel op reads x and writes its result (256), the return
  // reads it (128).
  EXPECT_EQ(verify::countEvaluationWork(f),
            2 * (64 + 128 + 64 + 64 + 64) + 256 + 128);
  // Held at once: x, the kernel's result and one of each tile.
  EXPECT_EQ(verify::countEvaluatedElements(f), 128u + 128 + 64 * 3);

  // The body runs once per iteration.
  OwningOpRef<ModuleOp> thrice = parse(source(3));
  ASSERT_TRUE(thrice) << diagnostics;
  EXPECT_EQ(verify::countEvaluationWork(lookupFunc(*thrice, "f")),
            2 * (3 * (64 + 128 + 64) + 64 + 64) + 256 + 128);
}

// An f16 program computed in f32 converts its inputs: a conversion is its
// operand's buffer in the field programs, so it holds nothing more. A
// decode MLP of 4096 x 11008 weights counted twice its weights, and its
// check was refused as too large for memory.
TEST_F(EvaluationWorkTest, ConversionsShareTheirOperandsBuffers) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<2x64xf16>, %w: tensor<64x32xf16>) -> tensor<2x32xf16> {
  %a = kernel.convert %x : tensor<2x64xf16> to tensor<2x64xf32>
  %b = kernel.convert %w : tensor<64x32xf16> to tensor<64x32xf32>
  %p = kernel.matmul %a, %b : tensor<2x64xf32>, tensor<64x32xf32>
  %r = kernel.convert %p : tensor<2x32xf32> to tensor<2x32xf16>
  return %r : tensor<2x32xf16>
}
)mlir");
  ASSERT_TRUE(module) << diagnostics;
  // x, w and the product.
  EXPECT_EQ(verify::countEvaluatedElements(lookupFunc(*module, "f")),
            128u + 2048 + 64);
}

} // namespace
