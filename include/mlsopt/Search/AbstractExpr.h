//===- AbstractExpr.h - Symbolic tensor expressions for the search -*- C++
//-*-===//
//
// The search builds candidate μGraphs op by op and prunes a prefix as soon as
// one of its tensors cannot be part of a program equivalent to the input
// (Mirage, OSDI'25, section 4). It decides this on abstract expressions: one
// symbolic expression per tensor (not per element), e.g. sum(64, X*W) for a
// block matmul of tiles of X and W with contraction size 64.
//
// This header holds the expression language (AbstractExpr, hash-consed in an
// ExprContext), the builders from MLIR ops of the kernel, block and thread
// dialects, and SubexprOracle, which decides with Z3 whether an expression
// is a subexpression of some expression equivalent to the program's outputs
// under Mirage's axioms. docs/search.md, "Abstract expressions", describes
// the language, the axioms, the encoding and why the pruning is sound.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_ABSTRACTEXPR_H
#define MLSOPT_SEARCH_ABSTRACTEXPR_H

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>

namespace mlir {
class Block;
class Operation;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlsopt::search {

class AbstractExpr;
/// Expressions are immutable and owned by their ExprContext; equal pointers
/// mean structurally equal expressions.
using ExprRef = const AbstractExpr *;

/// What an abstract expression computes. The composite builders (matmul,
/// rms_norm, accumulators) expand into these.
enum class ExprKind : uint8_t {
  Input,    // the i-th input of the program (getSize() is i)
  Constant, // an exact scalar (getValue())
  Add,
  Sub,
  Mul,
  Div,
  Neg,
  Exp,
  Sqrt,
  Rsqrt,
  Square,
  Sum,    // sum over getSize() elements of a reduced dim
  Max,    // max over getSize() elements of a reduced dim
  Opaque, // an uninterpreted function getOpName() of the operands
};

/// A symbolic tensor expression. Create them with an ExprContext.
class AbstractExpr {
public:
  ExprKind getKind() const { return kind; }
  llvm::ArrayRef<ExprRef> getOperands() const {
    return {operands, numOperands};
  }
  ExprRef getOperand(unsigned i) const { return getOperands()[i]; }
  /// The reduction size of Sum and Max, the index of Input; 0 otherwise.
  int64_t getSize() const { return size; }
  /// The value of a Constant; 0 otherwise.
  double getValue() const { return value; }
  /// The function name of an Opaque expression; "" otherwise.
  llvm::StringRef getOpName() const { return name; }
  /// A hash of the expression's structure that ignores the order of the
  /// operands of every Add and Mul: the search builds a commutative op with
  /// its operands in its own canonical order, which need not be the
  /// program's. The same on every run and every thread count.
  uint64_t getUnorderedHash() const { return unorderedHash; }
  /// Whether a Max node is anywhere in the expression (a safe softmax's
  /// exp(x - max(x)) holds one).
  bool holdsMax() const { return hasMax; }
  /// Whether the expression subtracts a maximum: x - max(x), or arithmetic
  /// and reductions over such a value. exp of it stays in range where exp
  /// of max(x) itself, which merely holds one, does not.
  bool subtractsMax() const { return minusMax; }
  /// Whether the expression is a multiple of a constant, c * x, or a sum
  /// of such multiples (a loop that accumulates a scaled value).
  bool isScaled() const;

  /// Prints the expression in prefix form: `sum(64, mul(in0, in1))`.
  void print(llvm::raw_ostream &os) const;
  void dump() const;

private:
  friend class ExprContext;
  AbstractExpr(ExprKind kind, ExprRef const *operands, unsigned numOperands,
               int64_t size, double value, llvm::StringRef name,
               uint64_t unorderedHash, bool hasMax, bool minusMax)
      : kind(kind), numOperands(numOperands), operands(operands), size(size),
        value(value), name(name), unorderedHash(unorderedHash), hasMax(hasMax),
        minusMax(minusMax) {}

  ExprKind kind;
  unsigned numOperands;
  ExprRef const *operands;
  int64_t size;
  double value;
  llvm::StringRef name;
  uint64_t unorderedHash;
  bool hasMax;
  bool minusMax;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, ExprRef expr) {
  expr->print(os);
  return os;
}

/// Owns and hash-conses expressions: building the same expression twice
/// gives the same pointer. Thread-safe: the search builds expressions from
/// several threads.
class ExprContext {
public:
  ExprContext();
  ~ExprContext();
  ExprContext(const ExprContext &) = delete;
  ExprContext &operator=(const ExprContext &) = delete;

  /// The i-th input tensor of the program.
  ExprRef getInput(unsigned index);
  /// An exact scalar: 0.044715 and 0.044716 are different expressions.
  ExprRef getConstant(double value);
  ExprRef getAdd(ExprRef lhs, ExprRef rhs);
  ExprRef getSub(ExprRef lhs, ExprRef rhs);
  ExprRef getMul(ExprRef lhs, ExprRef rhs);
  ExprRef getDiv(ExprRef lhs, ExprRef rhs);
  ExprRef getNeg(ExprRef operand);
  ExprRef getExp(ExprRef operand);
  ExprRef getSqrt(ExprRef operand);
  ExprRef getRsqrt(ExprRef operand);
  ExprRef getSquare(ExprRef operand);
  /// The sum over `size` elements of a reduced dim.
  ExprRef getSum(int64_t size, ExprRef operand);
  /// The maximum over `size` elements of a reduced dim.
  ExprRef getMax(int64_t size, ExprRef operand);
  /// An uninterpreted function (silu, gelu, relu, sigmoid, tanh, erf, log,
  /// ...): equal only to itself applied to equal operands.
  ExprRef getOpaque(llvm::StringRef fn, llvm::ArrayRef<ExprRef> operands);

  /// A matmul with contraction size `k`: sum(k, a*b).
  ExprRef getMatmul(ExprRef a, ExprRef b, int64_t k);
  /// RMS normalization over `n` elements:
  /// x / sqrt(sum(n, x*x) * (1/n) + eps); the `+ eps` is left out for 0.
  ExprRef getRmsNorm(ExprRef x, int64_t n, double eps);
  /// A for-loop accumulator of `kind` over `iterations` iterations of
  /// `value` (see #block.accumulator): sum(n, v), max(n, v),
  /// sum(n, v) * (1/n), sqrt(sum(n, v*v) * (1/n)). For rescale, `maxValue`
  /// is the per-iteration value m_i of the max accumulator it refers to;
  /// sum_i v_i * exp(m_i - M) is abstracted as sum(n, v) with every m_i in v
  /// replaced by the loop's maximum M = max(n, m): the per-tensor expression
  /// cannot tell iterations apart, and v_i * exp(m_i - M) is v_i recomputed
  /// relative to M.
  ExprRef getAccumulated(block::AccumKind kind, int64_t iterations,
                         ExprRef value, ExprRef maxValue = nullptr);

  /// `expr` with every occurrence of `from` replaced by `to`.
  ExprRef substitute(ExprRef expr, ExprRef from, ExprRef to);

  /// The number of distinct expressions built so far.
  size_t size() const;

private:
  ExprRef get(ExprKind kind, llvm::ArrayRef<ExprRef> operands, int64_t size = 0,
              double value = 0, llvm::StringRef name = {});

  struct Impl;
  std::unique_ptr<Impl> impl;
};

//===----------------------------------------------------------------------===//
// Expressions of MLIR programs
//===----------------------------------------------------------------------===//

/// The expression of the single result of a compute op of the kernel, block
/// or thread dialect (matmul, elementwise, scalar, reduction, rms_norm,
/// concat, transpose) or of a block.load (a tile has the expression of the
/// tensor it is cut from), given the expressions of its operands. The same
/// semantics serve the MLIR programs and the search. Emits an error and
/// fails on an op it does not know.
mlir::FailureOr<ExprRef> buildOpExpr(mlir::Operation *op,
                                     llvm::ArrayRef<ExprRef> operands,
                                     ExprContext &ctx);

/// Adds the expression of every value defined in `block` (op results, and
/// the expressions that custom kernels, for-loops and thread graphs give
/// their region values) to `exprs`. `exprs` must already map the values
/// `block` uses and does not define, its arguments included. Custom
/// kernels are followed through their block graph and thread graphs op by
/// op. Emits an error and fails on an op it does not know.
mlir::LogicalResult buildBlockExprs(mlir::Block &block,
                                    llvm::DenseMap<mlir::Value, ExprRef> &exprs,
                                    ExprContext &ctx);

/// The expressions of every result of `func`, with the function arguments
/// as inputs 0, 1, ... in order.
mlir::FailureOr<llvm::SmallVector<ExprRef>>
buildResultExprs(mlir::func::FuncOp func, ExprContext &ctx);

//===----------------------------------------------------------------------===//
// The subexpression oracle
//===----------------------------------------------------------------------===//

struct SubexprOracleStats {
  /// Cache lookups: one per isSubexpression and isEquivalent call, one more
  /// per normal form a call decides (two expressions can share one), and
  /// one per side condition (the b of a stabilizer max(n, b)).
  uint64_t queries = 0;
  /// Lookups answered from the cache (by expression or by normal form).
  uint64_t cacheHits = 0;
  /// Z3 checks.
  uint64_t solverCalls = 0;
  /// Z3 checks that ended in unknown (timeout): answered "subexpression".
  uint64_t unknowns = 0;
  /// Queries answered "no" because no place of the targets could hold the
  /// expression's monomials at all, before any Z3 check.
  uint64_t screenedOut = 0;
  /// Wall-clock time spent in Z3 checks, in total and the longest one.
  double solverSeconds = 0;
  double maxSolverSeconds = 0;
};

/// Decides whether an expression is a subexpression of some expression
/// equivalent to one of `targets` under Mirage's axioms (commutativity,
/// associativity, distributivity, sum splitting, sums commuting with
/// factors, exp(a+b) = exp(a)*exp(b), no cancellation), extended by exact
/// products of the constants that are integers or their reciprocals (1/64 *
/// 1/64 = 1/4096) and by the online-softmax stabilizer: exp(a - max(n, b))
/// counts as exp(a) when b itself is a subexpression. Answers "no" only when
/// that is proven, so a search that prunes on "no" never loses a program
/// equivalent under the axioms. Results are cached by expression pointer.
/// Thread-safe.
class SubexprOracle {
public:
  SubexprOracle(ExprContext &ctx, llvm::ArrayRef<ExprRef> targets,
                unsigned timeoutMs = 1000);
  ~SubexprOracle();
  SubexprOracle(const SubexprOracle &) = delete;
  SubexprOracle &operator=(const SubexprOracle &) = delete;

  /// False only when `e` is proven not to be a subexpression of any
  /// expression equivalent to a target.
  bool isSubexpression(ExprRef e);
  /// True when `a` and `b` have the same normal form under the axioms (used
  /// to match a candidate's outputs with the targets); also true when one
  /// of them holds an op outside the axioms' reach (concat).
  bool isEquivalent(ExprRef a, ExprRef b);

  SubexprOracleStats getStats() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_ABSTRACTEXPR_H
