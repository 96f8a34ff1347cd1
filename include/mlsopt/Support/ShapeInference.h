//===- ShapeInference.h - Shape rules shared by all levels ------*- C++ -*-===//
//
// The kernel and block dialects apply the same shape rules to device tensors and
// to shared-memory tiles. Keeping them here, free of any op class, lets both
// dialects, the search and the unit tests use one definition.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_SHAPEINFERENCE_H
#define MLSOPT_SUPPORT_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace mlsopt {

/// Result of a shape rule: the shape, or a sentence saying why there is none.
struct ShapeOrError {
  llvm::SmallVector<int64_t> shape;
  std::string error;
  bool ok() const { return error.empty(); }
};

/// The rule of unary elementwise ops: the result has the operand's shape.
ShapeOrError sameShape(llvm::ArrayRef<int64_t> shape);

/// The rule of ops over one dim (rms_norm): the shape is kept; `dim`, when
/// given, must be a dim of it, and without it the rank must be at least 1
/// (the op works over the last dim).
ShapeOrError normalizedDimShape(llvm::ArrayRef<int64_t> shape,
                                std::optional<uint64_t> dim);

/// Numpy-style broadcasting: shapes are aligned on the right, a missing or
/// size-1 dim stretches to the other size.
ShapeOrError broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                             llvm::ArrayRef<int64_t> rhs);

/// Batched matmul: [..., m, k] x [..., k, n] -> [..., m, n] with equal leading
/// dims.
ShapeOrError matmulShape(llvm::ArrayRef<int64_t> lhs,
                         llvm::ArrayRef<int64_t> rhs);

/// Reduction over `dim`, which stays in the result with size 1.
ShapeOrError reduceShape(llvm::ArrayRef<int64_t> shape, int64_t dim);

/// Concatenation of equal-rank shapes along `dim`.
ShapeOrError concatShape(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                         int64_t dim);

/// Permutation of the dims of `shape`.
ShapeOrError transposeShape(llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> permutation);

/// The dims of a triangle_fill: two distinct dims, [rows, cols], of a shape
/// of rank `rank`. Empty when they are, else why not.
std::string checkTriangleDims(llvm::ArrayRef<int64_t> dims, int64_t rank);

/// Element types mlsopt computes in: f16, bf16 and f32.
bool isSupportedElementType(mlir::Type type);

/// Element types mlsopt reads but does not compute in: a boolean mask (i1,
/// kernel.where's operand) and signless integers of 8 to 64 bits
/// (kernel.int_to_float's), as the ODS constraints MLSOpt_Mask and
/// MLSOpt_IntTensor say. Kernels load them as stored.
bool isMaskOrIntegerElementType(mlir::Type type);

/// The largest tensor mlsopt takes, in bytes: 256 TiB, past any device's
/// memory, and far enough below 2^63 that sums of byte counts stay exact.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// Checks that `types` are static ranked tensors of one supported element
/// type, with no zero-sized dim and at most kMaxTensorBytes bytes. Emits a
/// diagnostic at `loc` (when given) and returns failure otherwise.
llvm::LogicalResult verifyTensorOperands(std::optional<mlir::Location> loc,
                                         mlir::TypeRange types);

/// Builds the result type of a shape rule, or reports its error at `loc`.
llvm::LogicalResult
inferTensorType(std::optional<mlir::Location> loc, const ShapeOrError &shape,
                mlir::Type elementType,
                llvm::SmallVectorImpl<mlir::Type> &inferred);

/// A shape rule over the operand shapes, in operand order.
using ShapeRule =
    llvm::function_ref<ShapeOrError(llvm::ArrayRef<llvm::ArrayRef<int64_t>>)>;

/// The inferReturnTypes of every tensor op: checks the operands with
/// verifyTensorOperands, applies `rule` to their shapes and pushes a tensor of
/// the resulting shape and the operands' element type.
llvm::LogicalResult inferFromOperands(std::optional<mlir::Location> loc,
                                      mlir::TypeRange operands, ShapeRule rule,
                                      llvm::SmallVectorImpl<mlir::Type> &inferred);

/// The rule of `where` at every level: the mask and the result have one
/// shape, and each constant is finite in the result's element type where
/// it is finite at all (a -1e9 fill does not become -inf in f16 unseen).
llvm::LogicalResult verifyWhere(mlir::Operation *op, mlir::Type mask,
                                mlir::Type result, llvm::APFloat onTrue,
                                llvm::APFloat onFalse);

/// The verifier of the `convert` ops of every level: `input` and `result`
/// (tensors of one shape, or scalars) have different element types.
llvm::LogicalResult verifyConversion(mlir::Operation *op, mlir::Type input,
                                     mlir::Type result);

/// Returns `shape` as "AxBxC" for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_SHAPEINFERENCE_H
