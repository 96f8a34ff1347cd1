//===- ScalarArguments.h - Scalar arguments as 0-d tensors ------*- C++ -*-===//
//
// The finite-field engines, the CPU runner and the GPU host functions take
// tensors, one buffer per argument. A function may take a scalar too (`%alpha:
// f32`, a scale a hand-written program passes), which the import reads as the
// 0-d tensor `tensor.from_elements %alpha`. These tools take it as that
// tensor from the start: an argument of type tensor<f32> whose one element
// is the scalar.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_SCALARARGUMENTS_H
#define MLSOPT_SUPPORT_SCALARARGUMENTS_H

namespace mlir {
class Type;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlsopt {

/// Whether an argument of `type` is a scalar these tools take as a 0-d
/// tensor: an integer or a float (not an index, whose width the host and
/// the device need not share).
bool isScalarArgumentType(mlir::Type type);

/// Whether `func` takes an integer or float scalar argument.
bool hasScalarArguments(mlir::func::FuncOp func);

/// Rewrites `func` in place to take each integer or float scalar argument
/// as a 0-d tensor of its type: the body reads the scalar with a
/// `tensor.extract` at its top, and a `tensor.from_elements` of the scalar
/// becomes the argument itself. Returns whether it rewrote `func`: it
/// leaves a function its module calls (the calls pass scalars), which
/// callers inline first.
bool passScalarArgumentsAsTensors(mlir::func::FuncOp func);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_SCALARARGUMENTS_H
