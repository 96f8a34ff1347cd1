//===- EvaluationWork.cpp - What a field evaluation holds and does
//---------===//

#include "mlsopt/Verify/EvaluationWork.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlsopt;

/// The elements of a statically shaped tensor type, 0 for anything else.
/// Saturates instead of overflowing on absurd shapes.
static uint64_t elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  uint64_t elements = 1;
  for (int64_t extent : tensor.getShape())
    elements = llvm::SaturatingMultiply(elements, uint64_t(extent));
  return elements;
}

uint64_t verify::countEvaluatedElements(func::FuncOp func) {
  uint64_t total = 0;
  auto add = [&](Type type) {
    total = llvm::SaturatingAdd(total, elementsOf(type));
  };
  for (Type type : func.getArgumentTypes())
    add(type);
  func.walk([&](Operation *op) {
    // A kernel.convert is its operand's buffer in the field programs.
    if (isa<kernel::ConvertOp>(op))
      return;
    for (Value result : op->getResults())
      add(result.getType());
  });
  return total;
}

// A loop of a billion iterations over one small tile holds little memory
// but runs for hours: the count, not the memory, bounds it.
uint64_t verify::countEvaluationWork(func::FuncOp func) {
  uint64_t total = 0;
  func.walk([&](Operation *op) {
    uint64_t work = 0;
    for (Value operand : op->getOperands()) {
      // A load or store inside a kernel touches its tile, not the whole
      // tensor of the kernel's argument.
      auto argument = dyn_cast<BlockArgument>(operand);
      if (argument && isa<kernel::CustomOp>(argument.getOwner()->getParentOp()))
        continue;
      work = llvm::SaturatingAdd(work, elementsOf(operand.getType()));
    }
    for (Type type : op->getResultTypes())
      work = llvm::SaturatingAdd(work, elementsOf(type));
    if (isa<kernel::MatmulOp, block::MatmulOp>(op)) {
      auto lhs = cast<RankedTensorType>(op->getOperand(0).getType());
      work = llvm::SaturatingAdd(
          work, llvm::SaturatingMultiply(elementsOf(op->getResult(0).getType()),
                                         uint64_t(lhs.getShape().back())));
    }
    uint64_t times = 1;
    for (Operation *parent = op->getParentOp(); parent && parent != func;
         parent = parent->getParentOp()) {
      if (auto custom = dyn_cast<kernel::CustomOp>(parent)) {
        kernel::Dim3Attr grid = custom.getGrid();
        for (int64_t extent : {grid.getX(), grid.getY(), grid.getZ()})
          times = llvm::SaturatingMultiply(times, uint64_t(extent));
      } else if (auto loop = dyn_cast<block::ForLoopOp>(parent)) {
        times = llvm::SaturatingMultiply(times, uint64_t(loop.getIterations()));
      }
    }
    total = llvm::SaturatingAdd(total, llvm::SaturatingMultiply(work, times));
  });
  return total;
}
