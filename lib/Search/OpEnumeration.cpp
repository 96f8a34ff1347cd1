//===- OpEnumeration.cpp - One more op, at either level -------------------===//

#include "Enumeration.h"

#include "mlsopt/Search/GridChoices.h"

#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;
using namespace mlsopt::search::enumeration;

OpKey enumeration::getKey(const SOp &op, int scalarIndex) {
  int maxOperand = 0;
  for (unsigned v : op.operands)
    maxOperand = std::max<int>(maxOperand, v);
  int a = op.operands.empty() ? -1 : op.operands[0];
  int b = op.operands.size() < 2 ? -1 : op.operands[1];
  return {maxOperand, static_cast<int>(op.kind), a, b, op.dim, scalarIndex};
}

bool SearchCore::keep(ExprRef expr, ExprRef whole) {
  if (literalSubterms) {
    if (literalSubterms->count(whole->getUnorderedHash()))
      return true;
  } else if (!options.abstractPruning || oracle.isSubexpression(expr)) {
    return true;
  }
  ++counters.prunedByAbstractExpr;
  return false;
}

int64_t enumeration::getSiteExtent(const SearchProblem &problem, const Site &site,
                              Dim d, bool whole) {
  if (!site.layout)
    return getExtent(d, problem.shapes.extents);
  // Grid cuts do not show in expressions (no block reduces over them),
  // except a split reduction's: a block sums one of a representative count
  // of chunks, as a for-loop body sums one of a representative count of
  // iterations. The whole expression undoes both cuts.
  Layout rep = *site.layout;
  rep.gridSize = {1, 1, 1};
  const SmallVector<int64_t> &extents = problem.shapes.extents;
  if (rep.loopClass != Dim::kOne)
    rep.iterations = getRepresentativeIterations(extents[rep.loopClass]);
  if (whole) {
    d.loopSplit = false;
    rep.splitClass = Dim::kOne;
    rep.splitGridDim = -1;
  } else if (rep.splitsReduction()) {
    rep.gridSize[rep.splitGridDim] =
        getRepresentativeIterations(extents[rep.gridClass[rep.splitGridDim]]);
  }
  return getExtent(d, problem.shapes.extents, &rep);
}

ExprRef enumeration::buildExpr(ExprContext &exprs, const SOp &op,
                          ArrayRef<const SearchValue *> xs,
                          function_ref<int64_t(Dim)> extent,
                          function_ref<int64_t(Dim)> wholeExtent) {
  if (!wholeExtent)
    wholeExtent = extent;
  ExprRef x = xs[0]->expr;
  switch (op.kind) {
  case OpKind::Matmul:
    return exprs.getMatmul(x, xs[1]->expr, extent(xs[0]->dims.back()));
  case OpKind::Add:
    return exprs.getAdd(x, xs[1]->expr);
  case OpKind::Sub:
    return exprs.getSub(x, xs[1]->expr);
  case OpKind::Mul:
    return exprs.getMul(x, xs[1]->expr);
  case OpKind::Div:
    return exprs.getDiv(x, xs[1]->expr);
  // max and min of two tensors are opaque functions of both, in operand
  // order: they are not marked commutative, so both orders are enumerated.
  case OpKind::Max:
  case OpKind::Min:
    return exprs.getOpaque(getMnemonic(op.kind), {x, xs[1]->expr});
  case OpKind::Exp:
    return exprs.getExp(x);
  case OpKind::Sqrt:
    return exprs.getSqrt(x);
  case OpKind::Rsqrt:
    return exprs.getRsqrt(x);
  case OpKind::Square:
    return exprs.getSquare(x);
  case OpKind::Neg:
    return exprs.getNeg(x);
  case OpKind::Log:
  case OpKind::Silu:
  case OpKind::Sigmoid:
  case OpKind::Gelu:
  case OpKind::Relu:
  case OpKind::Tanh:
  case OpKind::Erf:
  case OpKind::GeluTanh:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Log1p:
  case OpKind::Softplus:
  case OpKind::Floor:
  case OpKind::Ceil:
  case OpKind::Round:
    return exprs.getOpaque(getMnemonic(op.kind), {x});
  case OpKind::MulScalar:
  case OpKind::AddScalar:
  case OpKind::MaxScalar:
  case OpKind::MinScalar: {
    // A reciprocal extent is the one the reference has at full extents,
    // whatever cuts the dim where the op is.
    double value = op.scalar.reciprocalOf == Dim::kOne
                       ? op.scalar.literal
                       : 1.0 / static_cast<double>(wholeExtent(
                                   Dim{op.scalar.reciprocalOf, false}));
    ExprRef c = exprs.getConstant(value);
    if (op.kind == OpKind::MaxScalar || op.kind == OpKind::MinScalar)
      return exprs.getOpaque(getMnemonic(op.kind), {x, c});
    return op.kind == OpKind::MulScalar ? exprs.getMul(x, c)
                                        : exprs.getAdd(x, c);
  }
  case OpKind::ReduceSum:
    return exprs.getSum(extent(xs[0]->dims[op.dim]), x);
  case OpKind::ReduceMax:
    return exprs.getMax(extent(xs[0]->dims[op.dim]), x);
  case OpKind::RmsNorm:
    return exprs.getRmsNorm(x, extent(xs[0]->dims[op.dim]), op.scalar.literal);
  case OpKind::TriangleFill: {
    // A function of the element and its place, which the expression does
    // not describe: opaque, one function per mask (its dims' classes, its
    // diagonal and its value).
    std::string fn;
    llvm::raw_string_ostream os(fn);
    os << "triangle_fill c" << op.triangleClasses[0] << " c"
       << op.triangleClasses[1] << " " << op.diagonal << " "
       << llvm::format("%a", op.scalar.literal);
    return exprs.getOpaque(fn, {x});
  }
  case OpKind::Transpose:
    // Expressions describe whole tensors, not where their elements sit.
    return x;
  }
  llvm_unreachable("unknown op kind");
}

ExprRef enumeration::accumulate(ExprContext &exprs, block::AccumKind kind,
                                int64_t iterations, ExprRef value,
                                ExprRef maxValue) {
  // One iteration: sum and max of one value are the value.
  if (iterations == 1 &&
      (kind == block::AccumKind::sum || kind == block::AccumKind::max))
    return value;
  return exprs.getAccumulated(kind, iterations, value, maxValue);
}

/// Whether a reduction over `d` is allowed at `site`: a block cannot reduce
/// over a dim the grid splits (it would see only its own slice), unless the
/// layout splits that reduction on purpose and a later kernel combines the
/// blocks' partial results. A chunked dim is summed by a for-loop's
/// accumulator, never by an op.
static bool canReduceOver(const Site &site, Dim d,
                          const llvm::SmallSetVector<int, 4> &classes) {
  if (d.isChunked() || !classes.contains(d.cls))
    return false;
  return !site.layout || !site.layout->getGridDimOf(d.cls) ||
         d.cls == site.layout->splitClass;
}

void enumeration::forEachOp(
    SearchCore &core, const Site &site, ArrayRef<SearchValue> values,
    OpKey last,
    function_ref<bool(const SOp &, const OpKey &, SearchValue &&)> fn,
    function_ref<bool(const SOp &)> admit) {
  const SearchProblem &problem = core.problem;
  auto extent = [&](Dim d) { return getSiteExtent(problem, site, d); };
  auto wholeExtent = [&](Dim d) {
    return getSiteExtent(problem, site, d, /*whole=*/true);
  };
  bool stopped = false;

  // Type-checks `op`, checks its key and its novelty, prunes it by abstract
  // expression, then hands it on.
  auto tryOp = [&](SOp &op, int scalarIndex) {
    if (stopped || (admit && !admit(op)))
      return;
    OpKey key = getKey(op, scalarIndex);
    if (!(last < key))
      return;
    SmallVector<const Dims *, 2> dims;
    SmallVector<const SearchValue *, 2> operands;
    for (unsigned v : op.operands) {
      // Partial results of a split reduction only feed the kernel that
      // combines them: a pre-defined op over one would read every chunk as
      // data.
      if (!site.layout && isPartialResult(values[v]))
        return;
      dims.push_back(&values[v].dims);
      operands.push_back(&values[v]);
    }
    std::optional<Dims> result = inferDims(op, dims);
    if (!result)
      return;
    // A program that stabilizes every exp by a maximum keeps its range.
    if (op.kind == OpKind::Exp && core.stableExp &&
        !operands[0]->expr->subtractsMax())
      return;
    if (!core.chainsScales && rescales(op, operands[0]->expr))
      return;
    if (op.kind == OpKind::Matmul &&
        !canReduceOver(site, values[op.operands[0]].dims.back(),
                       problem.sumClasses))
      return;
    ++core.counters.enumerated;
    ExprRef expr = buildExpr(core.exprs, op, operands, extent, wholeExtent);
    for (const SearchValue &v : values)
      if (v.expr == expr && v.dims == *result)
        return;
    // Only the literal pass reads whole expressions, and they differ from
    // the expressions only inside block graphs.
    ExprRef whole = expr;
    if (site.layout && core.literalSubterms) {
      SmallVector<SearchValue, 2> wholes;
      for (unsigned v : op.operands)
        wholes.push_back(SearchValue{values[v].dims, values[v].whole, nullptr});
      SmallVector<const SearchValue *, 2> wholeOperands;
      for (const SearchValue &w : wholes)
        wholeOperands.push_back(&w);
      whole = buildExpr(core.exprs, op, wholeOperands, wholeExtent);
    }
    if (!core.keep(expr, whole))
      return;
    if (!fn(op, key, SearchValue{std::move(*result), expr, whole}))
      stopped = true;
  };

  unsigned n = values.size();
  for (OpKind kind : problem.vocabulary) {
    for (unsigned a = 0; a < n && !stopped; ++a) {
      if (core.timedOut())
        return;
      const Dims &da = values[a].dims;
      SOp op;
      op.kind = kind;
      op.operands = {a};
      if (isUnaryKind(kind)) {
        tryOp(op, -1);
      } else if (isScalarKind(kind)) {
        for (auto [i, s] : llvm::enumerate(problem.scalars)) {
          op.scalar = s;
          tryOp(op, i);
        }
      } else if (kind == OpKind::ReduceSum || kind == OpKind::ReduceMax) {
        for (unsigned d = 0; d < da.size(); ++d) {
          if (da[d].isOne() ||
              !canReduceOver(site, da[d],
                             kind == OpKind::ReduceSum ? problem.sumClasses
                                                       : problem.maxClasses))
            continue;
          op.dim = d;
          tryOp(op, -1);
        }
      } else if (kind == OpKind::TriangleFill) {
        for (auto [i, mask] : llvm::enumerate(problem.triangles)) {
          SOp masked = mask;
          masked.operands = {a};
          tryOp(masked, i);
        }
      } else if (kind == OpKind::RmsNorm) {
        // rms_norm needs its whole row: not over a split reduction.
        for (unsigned d = 0; d < da.size(); ++d) {
          if (da[d].isOne() || da[d].loopSplit ||
              !canReduceOver(site, da[d], problem.normClasses) ||
              (site.layout && da[d].cls == site.layout->splitClass))
            continue;
          op.dim = d;
          for (auto [i, eps] : llvm::enumerate(problem.epsilons)) {
            op.scalar = Scalar{eps, Dim::kOne};
            tryOp(op, i);
          }
        }
      } else if (isBinaryKind(kind) || kind == OpKind::Matmul) {
        for (unsigned b = isCommutativeKind(kind) ? a : 0; b < n; ++b) {
          // x * x is square(x) when the program squares.
          if (kind == OpKind::Mul && a == b && problem.uses(OpKind::Square))
            continue;
          op.operands = {a, b};
          tryOp(op, -1);
        }
      }
    }
  }
}
