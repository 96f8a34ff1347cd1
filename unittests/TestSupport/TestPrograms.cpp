//===- TestPrograms.cpp - MLIR programs several unit tests share ----------===//

#include "TestPrograms.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

std::string mlsopt::test::tiledMatmulKernel(StringRef name, StringRef xImap,
                                            StringRef omap,
                                            StringRef epilogue) {
  std::string stored = "%acc";
  std::string epilogueOp;
  if (!epilogue.empty()) {
    stored = "%e";
    epilogueOp = formatv("    %e = block.{0} %acc : tensor<4x4xf32>\n",
                         epilogue)
                     .str();
  }
  return formatv(R"mlir(
func.func @{0}(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {{
  %o = kernel.custom (%x, %w) grid <2, 2, 1> block <32, 1, 1>
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32> {{
  ^bb0(%in0: tensor<8x16xf32>, %in1: tensor<16x8xf32>, %out0: tensor<8x8xf32>):
    %acc = block.for_loop 4 iterations accumulate (sum) : tensor<4x4xf32> {{
      %xt = block.load %in0 imap <{1}> fmap 1 : tensor<8x16xf32> -> tensor<4x4xf32>
      %wt = block.load %in1 imap <y = 1> fmap 0 : tensor<16x8xf32> -> tensor<4x4xf32>
      %m = block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32>
      block.yield %m : tensor<4x4xf32>
    }
{3}    block.store {4}, %out0 omap <{2}> : tensor<4x4xf32> into tensor<8x8xf32>
    block.return
  }
  return %o : tensor<8x8xf32>
}
)mlir",
                 name, xImap, omap, epilogueOp, stored)
      .str();
}
