//===- DataMovement.cpp - Where copies read their elements ----------------===//

#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

/// A static tensor of an element type kernels compute in.
static bool isDeviceTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         mlsopt::isSupportedElementType(tensor.getElementType());
}

bool mlsopt::isCopyOp(Operation &op) {
  if (isa<kernel::TransposeOp, kernel::ConvertOp>(op))
    return true;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return slice.getOffsets().empty() && slice.getSizes().empty() &&
           slice.getStrides().empty() && isDeviceTensor(slice.getType()) &&
           isDeviceTensor(slice.getSourceType());
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op))
    return broadcast.hasPureTensorSemantics() &&
           isDeviceTensor(broadcast.getInput().getType()) &&
           isDeviceTensor(broadcast.getInit().getType());
  return false;
}

bool mlsopt::isRunTimeSlice(Operation &op) {
  auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(op);
  return slice && isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op) &&
         (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
          !slice.getStrides().empty());
}

SmallVector<Value> mlsopt::buildCopySourceIndices(OpBuilder &b, Location loc,
                                                  Operation *op,
                                                  ValueRange resultIndices) {
  SmallVector<Value> from;
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op)) {
    ArrayRef<int64_t> added = broadcast.getDimensions();
    for (auto [d, index] : llvm::enumerate(resultIndices))
      if (!llvm::is_contained(added, static_cast<int64_t>(d)))
        from.push_back(index);
    return from;
  }
  auto slice = cast<tensor::ExtractSliceOp>(op);
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  auto next = resultIndices.begin();
  for (auto [d, offset, stride] :
       llvm::enumerate(slice.getStaticOffsets(), slice.getStaticStrides())) {
    if (dropped.test(d)) {
      from.push_back(arith::ConstantIndexOp::create(b, loc, offset));
      continue;
    }
    Value index = *next++;
    if (stride != 1)
      index = arith::MulIOp::create(
          b, loc, index, arith::ConstantIndexOp::create(b, loc, stride));
    if (offset != 0)
      index = arith::AddIOp::create(
          b, loc, arith::ConstantIndexOp::create(b, loc, offset), index);
    from.push_back(index);
  }
  return from;
}

Value mlsopt::buildIsBefore(OpBuilder &b, Location loc, ValueRange indices,
                            ArrayRef<int64_t> limits) {
  Value inside;
  for (auto [index, limit] : llvm::zip(indices, limits)) {
    if (limit == kNoLimit)
      continue;
    Value below =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                              arith::ConstantIndexOp::create(b, loc, limit));
    inside = inside ? arith::AndIOp::create(b, loc, inside, below) : below;
  }
  return inside;
}

Value mlsopt::getViewedStorage(Value value) {
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

SmallVector<unsigned> mlsopt::getResultsCopiedOnReturn(ValueRange returned) {
  SmallVector<unsigned> copied;
  SmallVector<Value> written;
  for (auto [i, result] : llvm::enumerate(returned)) {
    Value storage = getViewedStorage(result);
    if (isa<BlockArgument>(storage) ||
        isa_and_nonnull<arith::ConstantOp>(storage.getDefiningOp()) ||
        llvm::is_contained(written, storage))
      copied.push_back(i);
    else
      written.push_back(storage);
  }
  return copied;
}

llvm::SmallPtrSet<Operation *, 8> mlsopt::getDeadKernelOps(Region &body) {
  llvm::SmallPtrSet<Operation *, 8> dead;
  // Kernel ops other than custom ones have no side effects; a custom
  // kernel's stores write its results only, so unread it is dead too.
  auto skippable = [](Operation &op) {
    return isa<kernel::CustomOp, tensor::CollapseShapeOp,
               tensor::ExpandShapeOp>(op) ||
           (isa_and_nonnull<kernel::KernelDialect>(op.getDialect()) &&
            isMemoryEffectFree(&op));
  };
  // Backwards, so that an op whose readers are all dead is seen after them.
  for (Block &block : body)
    for (Operation &op : llvm::reverse(block))
      if (skippable(op) && llvm::all_of(op.getUsers(), [&](Operation *user) {
            return dead.contains(user);
          }))
        dead.insert(&op);
  return dead;
}
