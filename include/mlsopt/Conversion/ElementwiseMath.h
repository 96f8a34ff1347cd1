//===- ElementwiseMath.h - Elementwise ops as arith and math ----*- C++ -*-===//
//
// Every lowering of an elementwise op, at any level, ends in the same scalar
// arithmetic. This is its one definition: the kernel and block ops lowered to
// linalg and the thread graphs lowered to loop bodies all call it, so the
// levels cannot disagree on what `gelu` or `silu` computes.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_CONVERSION_ELEMENTWISEMATH_H
#define MLSOPT_CONVERSION_ELEMENTWISEMATH_H

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlsopt {

/// Emits `kind` applied to the float scalar `x`. f16 and bf16 are computed in
/// f32 and rounded back to their type once, as a GPU does in registers.
mlir::Value emitUnary(mlir::OpBuilder &b, mlir::Location loc,
                      thread::UnaryKind kind, mlir::Value x);

/// Emits `kind` applied to the float scalars `lhs` and `rhs` of one type.
mlir::Value emitBinary(mlir::OpBuilder &b, mlir::Location loc,
                       thread::BinaryKind kind, mlir::Value lhs,
                       mlir::Value rhs);

/// Emits `x * scalar`, `x + scalar`, `max(x, scalar)` or `min(x, scalar)`
/// (`op` names the scalar op's mnemonic); max and min propagate NaN.
mlir::Value emitScalarOp(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef op, mlir::Value x, double scalar);

/// Emits the scalar computation of an elementwise op of any level (a
/// `kernel.exp`, a `block.add`, a `thread.unary`, a `block.convert`, ...) on
/// `args`, one element of each operand. Fails for ops that are not
/// elementwise.
mlir::FailureOr<mlir::Value> emitElementwise(mlir::OpBuilder &b,
                                             mlir::Operation *op,
                                             mlir::ValueRange args);

/// Builds `body` over every element of `resultType` as an all-parallel
/// linalg.generic on tensors. `operands` broadcast to the result shape by
/// numpy rules (each is read through a map that drops missing leading dims
/// and pins stretched size-1 dims to 0); `body` receives one element of each
/// operand and returns the result element.
mlir::Value buildElementwiseGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    mlir::ValueRange operands,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::ValueRange)>
        body);

/// The element type sums and products of `elementType` accumulate in: f32
/// for f16 and bf16 (rounded once at the end, as GPU kernels do), else the
/// type itself.
mlir::Type getAccumulatorElementType(mlir::Type elementType);

/// Widens the float scalar `value` to `type` (arith.extf); returns it as is
/// when it already has that type.
mlir::Value buildScalarExtension(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value, mlir::Type type);

/// `x` (a float, or a vector of floats) in the float type `to` (or the vector
/// type of x's shape with that element type): extended exactly or rounded to
/// nearest even; f16 <-> bf16 through f32, which holds both. `x` itself when
/// the types are equal.
mlir::Value buildFloatConversion(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value x, mlir::Type to);

/// A tensor of `shape` and `elementType` with every element `value`
/// (tensor.empty + linalg.fill).
mlir::Value buildFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::ArrayRef<int64_t> shape,
                              mlir::Type elementType, double value);

/// Converts every element of the float tensor `tensor` to `elementType`
/// (buildFloatConversion); returns `tensor` when it already has that type.
mlir::Value buildElementCast(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value tensor, mlir::Type elementType);

/// One update of a rescale accumulator (f32 scalars): `running` brought
/// from `oldMax` to `newMax`, plus this iteration's `value`, relative to its
/// maximum `valueMax`, brought to `newMax`. A term whose maximum is -inf
/// (a tile the causal mask fills entirely, or nothing accumulated yet) adds
/// 0: its elements are all -inf, whose exp is 0 at any finite maximum,
/// while the arithmetic would give exp(-inf - -inf) = NaN.
mlir::Value emitRescaleUpdate(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value running, mlir::Value value,
                              mlir::Value oldMax, mlir::Value newMax,
                              mlir::Value valueMax);

/// Whether a triangle_fill fills the element at (`row`, `col`) (index
/// values): `col - row >= diagonal`, as an i1.
mlir::Value emitTriangleCondition(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value row, mlir::Value col,
                                  int64_t diagonal);

/// The triangle_fill of `input` by `value` over `dims` = [rows, cols] with
/// `diagonal`, as an all-parallel linalg.generic that reads its indices.
/// Element 0 of `input` sits at `rowOffset`, `colOffset` (index values, or
/// null for 0) of the masked tensor: a tile's place in it.
mlir::Value buildTriangleFill(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value input, llvm::ArrayRef<int64_t> dims,
                              int64_t diagonal, double value,
                              mlir::Value rowOffset = {},
                              mlir::Value colOffset = {});

/// The map that reads an operand of shape `operand` while iterating over
/// `result` under numpy broadcasting.
mlir::AffineMap getBroadcastMap(mlir::MLIRContext *context,
                                llvm::ArrayRef<int64_t> operand,
                                llvm::ArrayRef<int64_t> result);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_ELEMENTWISEMATH_H
