//===- UnsupportedOps.cpp - Which op a "not supported" error names --------===//

#include "mlsopt/Support/UnsupportedOps.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

Operation *mlsopt::getScalarConstantReader(Operation *op) {
  if (!op->hasTrait<OpTrait::ConstantLike>() || op->getNumResults() != 1 ||
      isa<ShapedType>(op->getResult(0).getType()) || !op->getBlock())
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
  Operation *reader = getScalarConstantReader(op);
  return reader ? reader : op;
}
