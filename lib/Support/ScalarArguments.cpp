//===- ScalarArguments.cpp - Scalar arguments as 0-d tensors --------------===//

#include "mlsopt/Support/ScalarArguments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;

bool mlsopt::isScalarArgumentType(Type type) {
  return type.isIntOrIndexOrFloat();
}

RankedTensorType mlsopt::getScalarArgumentTensorType(Type type) {
  if (type.isIndex())
    return RankedTensorType::get({}, IntegerType::get(type.getContext(), 64));
  return RankedTensorType::get({}, type);
}

tensor::FromElementsOp mlsopt::getScalarArgumentTensorOf(OpOperand &use) {
  RankedTensorType tensor = getScalarArgumentTensorType(use.get().getType());
  Operation *owner = use.getOwner();
  if (auto cast = dyn_cast<arith::IndexCastOp>(owner)) {
    if (cast.getType() != tensor.getElementType() || !cast->hasOneUse())
      return {};
    owner = *cast->user_begin();
  }
  auto fromElements = dyn_cast<tensor::FromElementsOp>(owner);
  if (!fromElements || fromElements.getType() != tensor)
    return {};
  return fromElements;
}

LogicalResult mlsopt::collectScalarTensors(Value scalar,
                                           llvm::SetVector<Value> &tensors) {
  Operation *def = scalar.getDefiningOp();
  if (!def)
    return failure();
  if (def->hasTrait<OpTrait::ConstantLike>())
    return success();
  if (auto extract = dyn_cast<tensor::ExtractOp>(def)) {
    if (extract.getTensor().getType().getRank() != 0)
      return failure();
    tensors.insert(extract.getTensor());
    return success();
  }
  if (!isa<arith::ArithDialect>(def->getDialect()) || def->getNumRegions() != 0)
    return failure();
  for (Value operand : def->getOperands())
    if (failed(collectScalarTensors(operand, tensors)))
      return failure();
  return success();
}

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
    RankedTensorType tensor = getScalarArgumentTensorType(scalar);
    // The 0-d tensors the import made of it are the argument now; other
    // readers read its element.
    SmallVector<Operation *> asTensor;
    SmallVector<OpOperand *> asScalar;
    for (OpOperand &use : arg.getUses()) {
      if (tensor::FromElementsOp fromElements = getScalarArgumentTensorOf(use))
        asTensor.push_back(fromElements);
      else
        asScalar.push_back(&use);
    }
    arg.setType(tensor);
    for (Operation *fromElements : asTensor) {
      Operation *cast = fromElements->getOperand(0).getDefiningOp();
      fromElements->getResult(0).replaceAllUsesWith(arg);
      fromElements->erase();
      if (cast)
        cast->erase();
    }
    if (asScalar.empty())
      continue;
    // Made after the erasures above, one of which may have been the first
    // op of the block.
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Value element = tensor::ExtractOp::create(b, arg.getLoc(), arg);
    if (scalar.isIndex())
      element = arith::IndexCastOp::create(b, arg.getLoc(), scalar, element);
    for (OpOperand *use : asScalar)
      use->set(element);
  }
  func.setFunctionType(FunctionType::get(
      func.getContext(), entry.getArgumentTypes(), func.getResultTypes()));
  return true;
}
