//===- ImportSupport.h - Helpers shared by the linalg import -----*- C++
//-*-===//
//
// What the patterns of --convert-linalg-to-kernel and its payload planner
// share: reading constants and splat fills, moving operands and results
// between a linalg op's loop order and kernel ops' numpy broadcasting
// (transposes and size-1 dims), and the checks that an op computes on
// tensors kernel ops have.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_IMPORTSUPPORT_H
#define MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_IMPORTSUPPORT_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"

#include <optional>

namespace mlsopt::linalg_import {

//===----------------------------------------------------------------------===//
// Values and constants
//===----------------------------------------------------------------------===//

/// `value` as a double; exact for the element types mlsopt computes in.
double toDouble(llvm::APFloat value);

/// The float constant `value` is, when it is one of type `type`: also an
/// arith.truncf or arith.extf of one (a bf16 -inf written as the f32 one
/// truncated), converted as those ops round, to nearest even.
std::optional<llvm::APFloat> getConstantOfType(mlir::Value value,
                                               mlir::Type type);

/// The value of every element of the tensor `tensor`, when it is a
/// `linalg.fill` of a constant or a splat constant: the shape front ends give
/// accumulator inits and constant operands.
std::optional<llvm::APFloat> getSplatValue(mlir::Value tensor);

/// True if `init` holds the identity of the reduction `combiner` in every
/// element, so the reduction computes the same without it: +-0 for a sum, -inf
/// or the lowest finite value for a max, and also NaN for arith.maxnumf,
/// which ignores it (upstream's softmax decomposition starts its max there).
bool isIdentityInit(mlir::Operation *combiner, mlir::Value init);

/// `product` plus the init a contraction accumulated it into: nothing for a
/// zero fill, `kernel.add_scalar` for another constant fill (torch's addmm
/// with beta * a constant; a `linalg.fill` left beside the kernel ops has no
/// GPU lowering), `kernel.add` of the init tensor otherwise.
mlir::Value addInit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value init,
                    mlir::Value product);

//===----------------------------------------------------------------------===//
// Layout: permutations and size-1 dims
//===----------------------------------------------------------------------===//

/// `shape` without its leading size-1 dims, which numpy broadcasting
/// supplies: `[32]` broadcasts against `[8, 32]` as `[1, 32]` does.
llvm::ArrayRef<int64_t> dropLeadingUnitDims(llvm::ArrayRef<int64_t> shape);

/// `shape` without its size-1 dims.
llvm::SmallVector<int64_t> dropUnitDims(llvm::ArrayRef<int64_t> shape);

/// Reshapes `value` to `shape`, which has the same dims but for size-1 ones:
/// one collapse or expand where one does, else a collapse of all its size-1
/// dims and an expand to the size-1 dims of `shape`.
mlir::Value reshapeUnitDims(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value value, llvm::ArrayRef<int64_t> shape);

/// Reads `operand`, which the op indexes through the projected permutation
/// `map`, as a tensor of `shape` whose dims are the loop dims `order`: dims
/// read at the constant index 0 (size 1) are dropped, the others permuted into
/// `order`, and loop dims of `order` the operand does not index become size-1
/// dims, along which numpy broadcasting stretches it. Every loop dim `map`
/// reads must be in `order`.
mlir::Value readOperand(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value operand, mlir::AffineMap map,
                        llvm::ArrayRef<unsigned> order,
                        llvm::ArrayRef<int64_t> shape);

/// Writes `value`, whose dims are the loop dims `order`, as the result of
/// type `type` that the op indexes through `map`. Loop dims the result does
/// not index, and result dims at the constant index 0, must have size 1.
mlir::Value writeResult(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, llvm::ArrayRef<unsigned> order,
                        mlir::AffineMap map, mlir::RankedTensorType type);

//===----------------------------------------------------------------------===//
// Checks shared by the patterns
//===----------------------------------------------------------------------===//

/// True if `op` is a kernel op that computes elementwise by index
/// (`kernel.mul`, `exp`, `where`, ...): one result, at least one operand, no
/// region. Its operands may still broadcast.
bool isElementwiseKernelOp(mlir::Operation *op);

/// True if every result of `map` is a distinct loop dim or the constant 0:
/// `AffineMap::isProjectedPermutation(true)` but for maps with more results
/// than dims, such as `(d0) -> (0, d0)` reading a `[1, n]` operand.
bool isProjectedPermutationWithZeros(mlir::AffineMap map);

/// Checks that `op` computes on values the kernel dialect has: one tensor
/// result, static tensors (or scalar inputs) of one f16, bf16 or f32 element
/// type, and no `linalg.index` in its payload unless `plansIndices` (a
/// payload planned by PayloadPlanner, which reads indices only in the
/// condition of a triangle mask). Sets `elementType`.
llvm::LogicalResult checkKernelOperands(mlir::linalg::LinalgOp op,
                                        mlir::PatternRewriter &rewriter,
                                        mlir::Type &elementType,
                                        bool plansIndices = false);

/// Checks that the op's result, of `shape` and indexed through `map`, holds
/// one element per iteration of every loop but `reductionDims`: `map` indexes
/// each other loop dim once, and the reduced dims at most as size-1 dims
/// (constant 0), as front ends that keep the reduced dim write it.
llvm::LogicalResult checkResultMap(mlir::linalg::LinalgOp op,
                                   mlir::PatternRewriter &rewriter,
                                   mlir::AffineMap map,
                                   llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> loopShape,
                                   llvm::ArrayRef<unsigned> reductionDims);

/// A generic like `op` (results, outputs, iterators, discardable
/// attributes) that reads `inputs` through `inputMaps`, with `op`'s region
/// moved into it: the caller adds and erases the body's input arguments to
/// match, then replaces `op`.
mlir::linalg::GenericOp
rebuildWithInputs(mlir::PatternRewriter &rewriter, mlir::linalg::GenericOp op,
                  mlir::ValueRange inputs,
                  llvm::ArrayRef<mlir::AffineMap> inputMaps);

} // namespace mlsopt::linalg_import

#endif // MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_IMPORTSUPPORT_H
