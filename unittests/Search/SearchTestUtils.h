//===- SearchTestUtils.h - What the search tests build alike ----*- C++ -*-===//
//
// The search library's tests start from a function of a parsed module: its
// body's expressions, its search problem, expressions as text. One copy
// here rather than one per test file.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_UNITTESTS_SEARCH_SEARCHTESTUTILS_H
#define MLSOPT_UNITTESTS_SEARCH_SEARCHTESTUTILS_H

#include "mlsopt/Search/AbstractExpr.h"
#include "mlsopt/Search/SearchGraph.h"
#include "mlsopt/Search/SearchProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlsopt::test {

/// `e` printed, as the tests compare expressions.
inline std::string str(search::ExprRef e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  e->print(os);
  return s;
}

/// Builds into `exprs` the expression of every value of `func`'s body, its
/// arguments being the inputs in0, in1, ...
inline mlir::LogicalResult
buildFunctionExprs(mlir::func::FuncOp func, search::ExprContext &ctx,
                   llvm::DenseMap<mlir::Value, search::ExprRef> &exprs) {
  mlir::Block &body = func.getBody().front();
  for (mlir::BlockArgument arg : body.getArguments())
    exprs[arg] = ctx.getInput(arg.getArgNumber());
  return search::buildBlockExprs(body, exprs, ctx);
}

/// The search problem of every op of `func`'s body, from its arguments to
/// the values it returns.
inline mlir::FailureOr<search::SearchProblem>
buildFunctionProblem(mlir::func::FuncOp func) {
  mlir::Block &body = func.getBody().front();
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : body.without_terminator())
    ops.push_back(&op);
  llvm::SmallVector<mlir::Value> inputs(func.getArguments().begin(),
                                        func.getArguments().end());
  mlir::Operation *ret = body.getTerminator();
  llvm::SmallVector<mlir::Value> outputs(ret->getOperands().begin(),
                                         ret->getOperands().end());
  return search::buildSearchProblem(ops, inputs, outputs);
}

/// The fused RMSNorm + MatMul custom kernel with `layout` (its loop along
/// `k`, the class of x's columns): the body multiplies and sums squares,
/// the epilogue scales by rsqrt(mean + eps). One kernel graph over inputs
/// x and w.
inline search::KernelGraph getFusedRmsNormMatmul(const search::Layout &layout,
                                                 int k) {
  using namespace search;
  BlockGraph bg;
  bg.inputs = {0, 1};
  bg.layout = layout;
  SOp matmul{OpKind::Matmul, {0, 1}};
  SOp square{OpKind::Square, {0}};
  SOp sum{OpKind::ReduceSum, {3}};
  sum.dim = 1;
  bg.body = {matmul, square, sum};
  bg.accums = {Accum{2, block::AccumKind::sum},
               Accum{4, block::AccumKind::sum}};
  SOp mean{OpKind::MulScalar, {1}};
  mean.scalar = Scalar{0.0, k};
  SOp eps{OpKind::AddScalar, {2}};
  eps.scalar = Scalar{1.0e-06, Dim::kOne};
  SOp root{OpKind::Rsqrt, {3}};
  SOp scale{OpKind::Mul, {0, 4}};
  bg.post = {mean, eps, root, scale};
  bg.stores = {5};
  KernelGraph g;
  g.numInputs = 2;
  g.customs.push_back(bg);
  g.nodes.push_back(KernelNode{SOp(), 0});
  g.results = {2};
  return g;
}

} // namespace mlsopt::test

#endif // MLSOPT_UNITTESTS_SEARCH_SEARCHTESTUTILS_H
