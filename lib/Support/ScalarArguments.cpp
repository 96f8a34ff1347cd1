//===- ScalarArguments.cpp - Scalar arguments as 0-d tensors --------------===//

#include "mlsopt/Support/ScalarArguments.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;

bool mlsopt::isScalarArgumentType(Type type) { return type.isIntOrFloat(); }

bool mlsopt::hasScalarArguments(func::FuncOp func) {
  return llvm::any_of(func.getArgumentTypes(), isScalarArgumentType);
}

bool mlsopt::passScalarArgumentsAsTensors(func::FuncOp func) {
  if (func.isExternal() || !hasScalarArguments(func))
    return false;
  // A call would pass the scalar still. (Other references, such as
  // mlsopt.equivalent_to naming a reference function, pass nothing.)
  if (Operation *parent = func->getParentOp()) {
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(func, parent);
    if (!uses || llvm::any_of(*uses, [](const SymbolTable::SymbolUse &use) {
          return isa<CallOpInterface>(use.getUser());
        }))
      return false;
  }
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    Type scalar = arg.getType();
    if (!isScalarArgumentType(scalar))
      continue;
    auto tensor = RankedTensorType::get({}, scalar);
    // The 0-d tensors the import made of it are the argument now; other
    // readers read its element.
    SmallVector<tensor::FromElementsOp> asTensor;
    SmallVector<OpOperand *> asScalar;
    for (OpOperand &use : arg.getUses()) {
      auto fromElements = dyn_cast<tensor::FromElementsOp>(use.getOwner());
      if (fromElements && fromElements.getType() == tensor)
        asTensor.push_back(fromElements);
      else
        asScalar.push_back(&use);
    }
    arg.setType(tensor);
    for (tensor::FromElementsOp fromElements : asTensor) {
      fromElements.getResult().replaceAllUsesWith(arg);
      fromElements.erase();
    }
    if (asScalar.empty())
      continue;
    // Made after the erasures above, one of which may have been the first
    // op of the block.
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Value element = tensor::ExtractOp::create(b, arg.getLoc(), arg);
    for (OpOperand *use : asScalar)
      use->set(element);
  }
  func.setFunctionType(FunctionType::get(
      func.getContext(), entry.getArgumentTypes(), func.getResultTypes()));
  return true;
}
