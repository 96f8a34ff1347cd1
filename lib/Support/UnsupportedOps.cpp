//===- UnsupportedOps.cpp - Which op a "not supported" error names --------===//

#include "mlsopt/Support/UnsupportedOps.h"
#include "mlsopt/Support/ScalarArguments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

/// Whether `op` gives a scalar that some other op reads: a constant, the
/// element of a 0-d tensor (a scalar argument, as passScalarArgumentsAsTensors
/// reads it), or arithmetic on such scalars (`%pos + 1`, a cast to an
/// index).
static bool isScalarSource(Operation *op) {
  llvm::SetVector<Value> tensors;
  return op->getNumResults() == 1 &&
         !isa<ShapedType>(op->getResult(0).getType()) &&
         succeeded(mlsopt::collectScalarTensors(op->getResult(0), tensors));
}

Operation *mlsopt::getScalarReader(Operation *op) {
  if (!isScalarSource(op) || !op->getBlock())
    return nullptr;
  Operation *first = nullptr;
  for (Operation *user : op->getResult(0).getUsers()) {
    Operation *reader = op->getBlock()->findAncestorOpInBlock(*user);
    if (reader && (!first || reader->isBeforeInBlock(first)))
      first = reader;
  }
  return first;
}

Operation *mlsopt::getUnsupportedCause(Operation *op) {
  while (Operation *reader = getScalarReader(op))
    op = reader;
  return op;
}

std::string mlsopt::describeUnsupported(Operation *op) {
  auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(op);
  if (slice && !slice.getOffsets().empty())
    return " at an offset known only at run time";
  return "";
}
