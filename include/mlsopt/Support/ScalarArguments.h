//===- ScalarArguments.h - Scalar arguments as 0-d tensors ------*- C++ -*-===//
//
// The finite-field engines, the CPU runner and the GPU host functions take
// tensors, one buffer per argument. A function may take a scalar too (`%alpha:
// f32`, a scale a hand-written program passes), which the import reads as the
// 0-d tensor `tensor.from_elements %alpha`. These tools take it as that
// tensor from the start: an argument of type tensor<f32> whose one element
// is the scalar. An `index` argument (a decode position) is an `i64`
// element, since the host and the device need not share the width of
// `index`: the import reads it as `tensor.from_elements` of its
// `arith.index_cast` to i64, and the payload casts it back.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_SCALARARGUMENTS_H
#define MLSOPT_SUPPORT_SCALARARGUMENTS_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
class RankedTensorType;
class Type;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlsopt {

/// Whether an argument of `type` is a scalar these tools take as a 0-d
/// tensor: an integer, an index or a float.
bool isScalarArgumentType(mlir::Type type);

/// The 0-d tensor that stands for a scalar argument of `type`: of that
/// type, or of i64 for an index.
mlir::RankedTensorType getScalarArgumentTensorType(mlir::Type type);

/// The `tensor.from_elements` that `use` of a scalar argument makes its 0-d
/// tensor (getScalarArgumentTensorType): `use`'s owner itself, or for an
/// index, the one that reads the owner's cast to i64; null otherwise.
mlir::tensor::FromElementsOp getScalarArgumentTensorOf(mlir::OpOperand &use);

/// Adds to `tensors` the 0-d tensors whose elements `scalar` is computed
/// from, through constants and arith ops (a slice's offset,
/// `index_cast(extract(%pos))` once the scalar is passed as its tensor);
/// fails where it reads anything else.
mlir::LogicalResult collectScalarTensors(mlir::Value scalar,
                                         llvm::SetVector<mlir::Value> &tensors);

/// Whether `func` takes a scalar argument.
bool hasScalarArguments(mlir::func::FuncOp func);

/// Rewrites `func` in place to take each scalar argument as its 0-d tensor
/// (getScalarArgumentTensorType): the body reads the scalar with a
/// `tensor.extract` at its top (and an `arith.index_cast` for an index),
/// and a `tensor.from_elements` of the scalar (of its cast to i64 for an
/// index) becomes the argument itself. Returns whether it rewrote `func`: it
/// leaves a function its module calls (the calls pass scalars), which
/// callers inline first.
bool passScalarArgumentsAsTensors(mlir::func::FuncOp func);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_SCALARARGUMENTS_H
