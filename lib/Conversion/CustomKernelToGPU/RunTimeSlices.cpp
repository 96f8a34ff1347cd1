//===- RunTimeSlices.cpp - Slices at run-time offsets on the GPU ----------===//
//
// Thread t writes element t of the result (row-major). An extract reads the
// source at offset + index * stride; an insert writes the source's element
// where the index lies in the slice and the destination's elsewhere. The
// offsets are the host's scalar computation (`index_cast(extract(%pos))`)
// done again on each thread from the 0-d tensors it reads, clamped so that
// the slice lies inside its tensor: a position past the cache writes its
// last row instead of memory past it.
//
//===----------------------------------------------------------------------===//

#include "RunTimeSlices.h"
#include "BlockGraphToGPU.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Support/ScalarArguments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

namespace {

/// A static tensor of ints or floats a kernel can load and store.
bool isSliceTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isa<IntegerType, FloatType>(tensor.getElementType());
}

} // namespace

std::optional<std::string> gpu_codegen::whyNoRunTimeSliceKernel(Operation *op) {
  auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
  if (!slice.getSizes().empty() || !slice.getStrides().empty())
    return std::string("its sizes or strides are known only at run time");
  if (!llvm::all_of(
          op->getOperandTypes(),
          [](Type t) { return !isa<ShapedType>(t) || isSliceTensor(t); }) ||
      !isSliceTensor(op->getResult(0).getType()))
    return std::string("it slices a tensor of dynamic shape or of other than "
                       "ints and floats");
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    if (llvm::any_of(insert.getStaticStrides(),
                     [](int64_t s) { return s != 1; }))
      return std::string("it inserts with strides");
    if (insert.getSourceType().getRank() != insert.getDestType().getRank())
      return std::string("it inserts a slice of lower rank");
  }
  llvm::SetVector<Value> tensors;
  for (Value offset : slice.getOffsets())
    if (failed(collectScalarTensors(offset, tensors)))
      return std::string("an offset is computed from more than constants "
                         "and scalar arguments");
  return std::nullopt;
}

bool gpu_codegen::onlyFeedsRunTimeSlices(Operation &op) {
  if (op.getNumResults() != 1 || isa<ShapedType>(op.getResult(0).getType()) ||
      op.use_empty())
    return false;
  if (!op.hasTrait<OpTrait::ConstantLike>() && !isa<tensor::ExtractOp>(op) &&
      !isa_and_nonnull<arith::ArithDialect>(op.getDialect()))
    return false;
  return llvm::all_of(op.getUsers(), [](Operation *user) {
    return isRunTimeSlice(*user) || onlyFeedsRunTimeSlices(*user);
  });
}

SmallVector<Value> gpu_codegen::getRunTimeSliceInputs(Operation *op) {
  SmallVector<Value> inputs{op->getOperand(0)};
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    inputs.push_back(insert.getDest());
  llvm::SetVector<Value> tensors;
  for (Value offset : cast<OffsetSizeAndStrideOpInterface>(op).getOffsets())
    (void)collectScalarTensors(offset, tensors);
  llvm::append_range(inputs, tensors);
  return inputs;
}

void gpu_codegen::emitRunTimeSliceKernel(Operation *op, gpu::GPUFuncOp func) {
  Location loc = op->getLoc();
  auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
  auto b = OpBuilder::atBlockBegin(&func.getBody().front());
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value linear = buildGuardedThreadIndex(b, loc, kElementKernelThreads,
                                         type.getNumElements());
  SmallVector<Value> at = delinearize(b, loc, linear, type.getShape());

  // The offsets, computed again from the kernel's 0-d arguments.
  SmallVector<Value> inputs = getRunTimeSliceInputs(op);
  IRMapping mapping;
  std::function<Value(Value)> scalar = [&](Value value) -> Value {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    Operation *def = value.getDefiningOp();
    if (auto extract = dyn_cast<tensor::ExtractOp>(def)) {
      unsigned arg = llvm::find(inputs, extract.getTensor()) - inputs.begin();
      Value element =
          memref::LoadOp::create(b, loc, func.getArgument(arg), ValueRange{});
      mapping.map(value, element);
      return element;
    }
    for (Value operand : def->getOperands())
      scalar(operand);
    b.clone(*def, mapping);
    return mapping.lookup(value);
  };
  // Clamped so that the slice lies inside the tensor it slices or writes.
  auto sliced = cast<RankedTensorType>(isa<tensor::InsertSliceOp>(op)
                                           ? op->getResult(0).getType()
                                           : op->getOperand(0).getType());
  SmallVector<Value> offsets;
  for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets())) {
    int64_t size = slice.getStaticSizes()[d];
    int64_t stride = slice.getStaticStrides()[d];
    int64_t last = sliced.getDimSize(d) - ((size - 1) * stride + 1);
    if (auto attr = dyn_cast<Attribute>(offset)) {
      offsets.push_back(
          indexConstant(b, loc, cast<IntegerAttr>(attr).getInt()));
      continue;
    }
    Value value = scalar(cast<Value>(offset));
    value = arith::MaxSIOp::create(b, loc, value, indexConstant(b, loc, 0));
    offsets.push_back(
        arith::MinSIOp::create(b, loc, value, indexConstant(b, loc, last)));
  }

  Value element;
  if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
    // Result dims are the source dims the slice keeps, in order.
    llvm::SmallBitVector dropped = extract.getDroppedDims();
    SmallVector<Value> from;
    auto next = at.begin();
    for (auto [d, offset] : llvm::enumerate(offsets)) {
      if (dropped.test(d)) {
        from.push_back(offset);
        continue;
      }
      Value index = *next++;
      int64_t stride = extract.getStaticStrides()[d];
      if (stride != 1)
        index =
            arith::MulIOp::create(b, loc, index, indexConstant(b, loc, stride));
      from.push_back(arith::AddIOp::create(b, loc, offset, index));
    }
    element = memref::LoadOp::create(b, loc, func.getArgument(0), from);
  } else {
    auto insert = cast<tensor::InsertSliceOp>(op);
    // Inside the slice: the source's element at index - offset; elsewhere
    // the destination's, at the index.
    Value inside;
    SmallVector<Value> from;
    for (auto [d, offset] : llvm::enumerate(offsets)) {
      Value index = at[d];
      Value end = arith::AddIOp::create(
          b, loc, offset, indexConstant(b, loc, insert.getStaticSizes()[d]));
      Value inDim = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                offset),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, end));
      inside = inside ? arith::AndIOp::create(b, loc, inside, inDim) : inDim;
      from.push_back(arith::SubIOp::create(b, loc, index, offset));
    }
    // Indices outside the slice read its first element, which is unused.
    for (Value &index : from)
      index = arith::SelectOp::create(b, loc, inside, index,
                                      indexConstant(b, loc, 0));
    Value fromSource =
        memref::LoadOp::create(b, loc, func.getArgument(0), from);
    Value fromDest = memref::LoadOp::create(b, loc, func.getArgument(1), at);
    element = arith::SelectOp::create(b, loc, inside, fromSource, fromDest);
  }
  memref::StoreOp::create(b, loc, element,
                          func.getArgument(func.getNumArguments() - 1), at);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}
