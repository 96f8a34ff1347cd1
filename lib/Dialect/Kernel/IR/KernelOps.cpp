//===- KernelOps.cpp - Kernel dialect operations --------------------------===//

#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Kernel/IR/BlockGraphInterface.h"
#include "mlsopt/Support/ShapeInference.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlsopt::kernel;

//===----------------------------------------------------------------------===//
// TriangleFillOp
//===----------------------------------------------------------------------===//

LogicalResult TriangleFillOp::verify() {
  std::string error = mlsopt::checkTriangleDims(
      getDims(), cast<RankedTensorType>(getInput().getType()).getRank());
  if (!error.empty())
    return emitOpError() << error;
  return success();
}

//===----------------------------------------------------------------------===//
// CustomOp
//===----------------------------------------------------------------------===//

void CustomOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  unsigned numInputs = getInputs().size();
  for (BlockArgument arg : region.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (i < numInputs)
      setNameFn(arg, ("in" + Twine(i)).str());
    else
      setNameFn(arg, ("out" + Twine(i - numInputs)).str());
  }
}

LogicalResult CustomOp::verify() {
  FailureOr<mlsopt::TargetInfo> target = mlsopt::getEnclosingTarget(*this);
  if (failed(target))
    return failure();
  // CUDA's launch limits; checking each dim first also keeps the volume
  // below from overflowing.
  static constexpr int64_t kMaxBlock[3] = {1024, 1024, 64};
  for (unsigned d = 0; d < 3; ++d) {
    if (getGrid().getSize(d) > mlsopt::kMaxGridSize[d])
      return emitOpError("grid dim ")
             << mlsopt::kGridDimNames[d] << " is " << getGrid().getSize(d)
             << "; CUDA allows at most " << mlsopt::kMaxGridSize[d];
    if (getBlock().getSize(d) > kMaxBlock[d])
      return emitOpError("thread block dim ")
             << mlsopt::kGridDimNames[d] << " is " << getBlock().getSize(d)
             << "; CUDA allows at most " << kMaxBlock[d];
  }
  if (getBlock().getVolume() > target->maxThreadsPerBlock)
    return emitOpError("thread block has ")
           << getBlock().getVolume() << " threads; a block can have at most "
           << target->maxThreadsPerBlock << " on " << target->chip;
  return success();
}

LogicalResult CustomOp::verifyRegions() {
  Block &body = getBody().front();
  unsigned numInputs = getInputs().size();
  unsigned numOutputs = getOutputs().size();
  if (numOutputs == 0)
    return emitOpError("must have at least one output");
  if (body.getNumArguments() != numInputs + numOutputs)
    return emitOpError("body must have one argument per input and per output (")
           << numInputs + numOutputs << "), got " << body.getNumArguments();
  for (auto [i, type] : llvm::enumerate(getInputs().getTypes()))
    if (body.getArgument(i).getType() != type)
      return emitOpError("body argument #")
             << i << " must have the type of input #" << i << " (" << type
             << "), got " << body.getArgument(i).getType();
  for (auto [i, type] : llvm::enumerate(getOutputs().getTypes()))
    if (body.getArgument(numInputs + i).getType() != type)
      return emitOpError("body argument #")
             << numInputs + i << " must have the type of output #" << i << " ("
             << type << "), got " << body.getArgument(numInputs + i).getType();

  Dialect *dialect = body.empty() ? nullptr : body.back().getDialect();
  const auto *graph =
      dialect ? dialect->getRegisteredInterface<BlockGraphInterface>() : nullptr;
  if (!graph || !body.back().hasTrait<OpTrait::IsTerminator>())
    return emitOpError("body must be a block graph ending in `block.return`");
  return graph->verifyBlockGraph(*this);
}

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Kernel/IR/KernelOps.cpp.inc"

bool mlsopt::kernel::isNestedKernelOp(Operation *op, Operation *function) {
  return op->getParentOp() != function &&
         isa_and_nonnull<KernelDialect>(op->getDialect()) &&
         !op->getParentOfType<CustomOp>();
}
