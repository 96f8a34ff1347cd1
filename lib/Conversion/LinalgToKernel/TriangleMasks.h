//===- TriangleMasks.h - Causal-mask conditions in linalg payloads -*- C++
//-*-===//
//
// A causal mask reaches linalg as a payload that compares loop indices
// (`linalg.index`) and selects a constant where the comparison holds:
// torch's `masked_fill(triu(ones, diagonal), value)` once fused into the
// generic that reads the scores. These helpers recognize the comparison.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_TRIANGLEMASKS_H
#define MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_TRIANGLEMASKS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlsopt {

/// The set of loop indices `i` with `i[cols] - i[rows] >= diagonal`.
struct TriangleCondition {
  unsigned rows = 0;
  unsigned cols = 0;
  int64_t diagonal = 0;

  /// The complement: `i[cols] - i[rows] < diagonal` is
  /// `i[rows] - i[cols] >= 1 - diagonal`.
  TriangleCondition complement() const { return {cols, rows, 1 - diagonal}; }
};

/// The triangle where the i1 value `condition`, computed in `body` from
/// `linalg.index` ops, integer constants, additions, subtractions and
/// index casts by one `arith.cmpi`, is true; none when it is not such a
/// comparison of two loop indices with coefficients +1 and -1 (or of one
/// index and a loop of extent 1), or when a value on the way can wrap
/// around its integer type over the loops of `loopShape`.
std::optional<TriangleCondition>
matchTriangleCondition(mlir::Value condition, mlir::Block *body,
                       llvm::ArrayRef<int64_t> loopShape);

/// The triangles whose union is where `condition` is true (false when
/// `negated`): one comparison (matchTriangleCondition), `arith.ori` of
/// unions, `arith.andi` of negated unions (not (a and b) is not a or not
/// b), `arith.xori` with true (a negation), and a constant boolean operand
/// of `body`'s op that is a triangle over two loops (a causal mask buffer).
/// A sliding window with its causal edge, `keep = j <= i and j > i - w`,
/// fills two triangles. None when some part is not such a condition.
std::optional<llvm::SmallVector<TriangleCondition, 2>>
matchTriangleUnion(mlir::Value condition, mlir::Block *body,
                   llvm::ArrayRef<int64_t> loopShape, bool negated = false);

} // namespace mlsopt

#endif // MLSOPT_LIB_CONVERSION_LINALGTOKERNEL_TRIANGLEMASKS_H
