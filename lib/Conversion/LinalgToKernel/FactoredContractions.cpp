//===- FactoredContractions.cpp - Contractions of products of factors -----===//
//
// A contraction whose payload multiplies more than its two operands,
// `acc + f1 * f2 * ... * fn` in any association, is the plain contraction
// of two tensors: the product of the factors that read one side of the
// matmul (its M and K loops) and the product of those that read the other
// (N and K). Front ends write such payloads for `alpha * A B` in one
// generic and for three-operand einsums (`ik,kj,k->ij`, A diag(s) B);
// upstream's elementwise fusion (`-linalg-fuse-elementwise-ops` after
// `-linalg-generalize-named-ops`) writes them when it folds a producer
// (an activation, a scale, a broadcast weight) into the matmul that reads
// it. Each side whose factors are more than one operand becomes a parallel
// generic over the loops it reads, which the patterns of LinalgToKernel.cpp
// import as elementwise kernel ops, and the contraction of the two a matmul.
//
// The terms are the same, associated differently: a constant goes to the
// smaller side, so an f16 sum that only the scale keeps in range (attention
// scores with 1/sqrt(d) folded in) stays in range, where scaling the sum
// would have overflowed.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlsopt;

namespace {

/// More factors than this are not split: the sides are chosen among all
/// 2^(n-1) partitions.
constexpr unsigned kMaxFactors = 6;

/// A factor of the product: a value of the payload (or from above it).
struct Factor {
  Value value;
  /// The block arguments it is computed from, one bit each.
  uint64_t args = 0;
  /// The loops those arguments' indexing maps read.
  llvm::SmallBitVector loops;
};

/// The factors of a product of mulf ops in `body`, left to right.
void collectFactors(Value v, Block *body, SmallVectorImpl<Value> &factors) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != body || factors.size() > kMaxFactors) {
    factors.push_back(v);
    return;
  }
  collectFactors(mul.getLhs(), body, factors);
  collectFactors(mul.getRhs(), body, factors);
}

/// One side of the new contraction.
struct Side {
  /// Indices into the non-constant factors.
  SmallVector<unsigned> factors;
  llvm::SmallBitVector loops;
  /// The operand as it is, when the side is one block argument read
  /// through a map the matmul import takes (each of its loops once).
  std::optional<unsigned> passThrough;
  int64_t elements = 1;
};

struct FactoredContraction : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() < 2 ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
      return rewriter.notifyMatchFailure(op, "not a reduction of operands");
    Block *body = op.getBody();
    unsigned numInputs = op.getNumDpsInputs();
    if (body->getNumArguments() > 64)
      return rewriter.notifyMatchFailure(op, "too many operands");
    Type elementType = body->getArgument(numInputs).getType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(elementType) ||
        llvm::any_of(body->getArgumentTypes(),
                     [&](Type t) { return t != elementType; }))
      return rewriter.notifyMatchFailure(op, "operands of other types");
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic loop ranges");

    // Which block arguments each payload value is computed from. Only
    // side-effect-free scalar ops, and no loop indices: a factor is then a
    // function of the operand elements it reads.
    llvm::DenseMap<Value, uint64_t> argsOf;
    for (BlockArgument arg : body->getArguments())
      argsOf[arg] = uint64_t(1) << arg.getArgNumber();
    for (Operation &bodyOp : body->without_terminator()) {
      if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp) ||
          isa<linalg::IndexOp>(bodyOp))
        return rewriter.notifyMatchFailure(op, "payload reads loop indices "
                                               "or has effects");
      uint64_t args = 0;
      for (Value operand : bodyOp.getOperands())
        args |= argsOf.lookup(operand);
      for (Value result : bodyOp.getResults())
        argsOf[result] = args;
    }

    // acc + product, and the accumulator read nowhere else.
    Value acc = body->getArgument(numInputs);
    auto add =
        body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != body || !acc.hasOneUse())
      return rewriter.notifyMatchFailure(op, "payload is not acc + product");
    Value product = add.getLhs() == acc   ? add.getRhs()
                    : add.getRhs() == acc ? add.getLhs()
                                          : Value();
    if (!product)
      return rewriter.notifyMatchFailure(op, "payload adds no accumulator");
    SmallVector<Value> values;
    collectFactors(product, body, values);
    if (values.size() > kMaxFactors)
      return rewriter.notifyMatchFailure(op, "too many factors");

    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numLoops = op.getNumLoops();
    SmallVector<Factor> factors;
    SmallVector<Value> constants;
    for (Value v : values) {
      uint64_t args = argsOf.lookup(v);
      if (args == 0) {
        // An infinite scale or a NaN is not moved: a * inf is no longer
        // the NaN of (a * b) * inf where b is 0.
        FloatAttr scale;
        if (matchPattern(v, m_Constant(&scale)) && !scale.getValue().isFinite())
          return rewriter.notifyMatchFailure(op, "a scale is not finite");
        constants.push_back(v);
        continue;
      }
      Factor factor{v, args, llvm::SmallBitVector(numLoops)};
      for (unsigned i = 0; i < numInputs; ++i)
        if (args & (uint64_t(1) << i))
          for (unsigned d = 0; d < numLoops; ++d)
            if (maps[i].isFunctionOfDim(d))
              factor.loops.set(d);
      factors.push_back(std::move(factor));
    }
    if (factors.size() < 2)
      return rewriter.notifyMatchFailure(op, "fewer than two sides");
    // Two operands multiplied are the plain contraction the import takes.
    auto isArgument = [&](Value v) {
      auto arg = dyn_cast<BlockArgument>(v);
      return arg && arg.getOwner() == body;
    };
    if (values.size() == 2 && isArgument(values[0]) && isArgument(values[1]) &&
        values[0] != values[1])
      return rewriter.notifyMatchFailure(op, "a plain contraction");

    // The output reads each parallel loop once.
    AffineMap initMap = maps[numInputs];
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (!initMap.isProjectedPermutation() ||
        initMap.getNumResults() != op.getNumParallelLoops())
      return rewriter.notifyMatchFailure(op, "output map is not the "
                                             "parallel loops");

    std::optional<std::pair<Side, Side>> best;
    int64_t bestCost = 0;
    unsigned n = factors.size();
    // Factor 0 on the first side: each partition once.
    for (uint64_t mask = 1; mask < (uint64_t(1) << n) - 1; mask += 2) {
      Side sides[2];
      for (unsigned f = 0; f < n; ++f) {
        Side &side = sides[(mask >> f) & 1 ? 0 : 1];
        side.factors.push_back(f);
        if (side.loops.empty())
          side.loops = factors[f].loops;
        else
          side.loops |= factors[f].loops;
      }
      if (!isMatmulSplit(sides[0].loops, sides[1].loops, iterators))
        continue;
      int64_t cost = 0;
      for (Side &side : sides) {
        for (int d : side.loops.set_bits())
          side.elements *= ranges[d];
        side.passThrough = getPassThrough(side, factors, maps);
        if (!side.passThrough)
          cost += side.elements;
      }
      if (!best || cost < bestCost) {
        best = {std::move(sides[0]), std::move(sides[1])};
        bestCost = cost;
      }
    }
    if (!best)
      return rewriter.notifyMatchFailure(
          op, "no split of the factors into the two sides of a matmul");

    // Constants join a side that is computed anyway, else the smaller.
    Side *scaled = nullptr;
    if (!constants.empty()) {
      Side &a = best->first, &b = best->second;
      if (!a.passThrough || !b.passThrough)
        scaled = a.passThrough ? &b : &a;
      else
        scaled = b.elements < a.elements ? &b : &a;
      scaled->passThrough.reset();
    }

    Location loc = op.getLoc();
    SmallVector<Value> operands;
    SmallVector<AffineMap> newMaps;
    for (Side *side : {&best->first, &best->second}) {
      if (side->passThrough) {
        operands.push_back(op.getDpsInputs()[*side->passThrough]);
        newMaps.push_back(maps[*side->passThrough]);
        continue;
      }
      auto [value, map] = materialize(
          rewriter, op, maps, *side, factors,
          side == scaled ? ArrayRef<Value>(constants) : ArrayRef<Value>(),
          elementType, ranges);
      operands.push_back(value);
      newMaps.push_back(map);
    }
    newMaps.push_back(initMap);
    auto plain = linalg::GenericOp::create(
        rewriter, loc, op->getResultTypes(), operands, op.getDpsInits(),
        newMaps, iterators, [](OpBuilder &b, Location l, ValueRange args) {
          Value p = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, args[2], p)));
        });
    rewriter.replaceOp(op, plain.getResults());
    return success();
  }

  /// Whether sides reading `a` and `b` make a matmul: every loop read,
  /// each reduction loop (K) by both, some parallel loop by `a` alone (M)
  /// and some by `b` alone (N); parallel loops both read are batch loops.
  static bool isMatmulSplit(const llvm::SmallBitVector &a,
                            const llvm::SmallBitVector &b,
                            ArrayRef<utils::IteratorType> iterators) {
    bool m = false, n = false;
    for (auto [d, iterator] : llvm::enumerate(iterators)) {
      bool inA = a.test(d), inB = b.test(d);
      if (!inA && !inB)
        return false;
      if (iterator == utils::IteratorType::reduction) {
        if (!inA || !inB)
          return false;
        continue;
      }
      m |= inA && !inB;
      n |= inB && !inA;
    }
    return m && n;
  }

  /// The input a side is, when it is one block argument read through a map
  /// that reads each of the side's loops once.
  static std::optional<unsigned> getPassThrough(const Side &side,
                                                ArrayRef<Factor> factors,
                                                ArrayRef<AffineMap> maps) {
    if (side.factors.size() != 1)
      return std::nullopt;
    auto arg = dyn_cast<BlockArgument>(factors[side.factors[0]].value);
    if (!arg)
      return std::nullopt;
    AffineMap map = maps[arg.getArgNumber()];
    if (!map.isProjectedPermutation() ||
        map.getNumResults() != side.loops.count())
      return std::nullopt;
    return arg.getArgNumber();
  }

  /// A parallel generic over the side's loops that multiplies its factors
  /// and `constants`, computed as the payload computes them, and the map by
  /// which the contraction reads it. `maps` are the op's indexing maps.
  static std::pair<Value, AffineMap>
  materialize(PatternRewriter &rewriter, linalg::GenericOp op,
              ArrayRef<AffineMap> maps, const Side &side,
              ArrayRef<Factor> factors, ArrayRef<Value> constants,
              Type elementType, ArrayRef<int64_t> ranges) {
    MLIRContext *ctx = op.getContext();
    unsigned numLoops = op.getNumLoops();
    SmallVector<AffineExpr> renumbered(numLoops, getAffineConstantExpr(0, ctx));
    // The loops in the order of an operand that reads them all (a weight
    // scaled by a vector stays in its layout, which the import then reads
    // without a transpose), else in loop order.
    SmallVector<unsigned> order(side.loops.set_bits());
    auto readsAll = [&](unsigned f) -> std::optional<AffineMap> {
      for (unsigned i = 0, e = op.getNumDpsInputs(); i < e; ++i)
        if ((factors[f].args & (uint64_t(1) << i)) &&
            maps[i].isProjectedPermutation() &&
            maps[i].getNumResults() == order.size())
          return maps[i];
      return std::nullopt;
    };
    for (unsigned f : side.factors) {
      if (std::optional<AffineMap> map = readsAll(f)) {
        for (auto [i, expr] : llvm::enumerate(map->getResults()))
          order[i] = cast<AffineDimExpr>(expr).getPosition();
        break;
      }
    }
    SmallVector<AffineExpr> sideLoops;
    SmallVector<int64_t> shape;
    for (unsigned d : order) {
      renumbered[d] = getAffineDimExpr(shape.size(), ctx);
      sideLoops.push_back(getAffineDimExpr(d, ctx));
      shape.push_back(ranges[d]);
    }

    // The payload ops the side's factors are computed from.
    Block *body = op.getBody();
    llvm::SmallPtrSet<Value, 8> needed;
    uint64_t args = 0;
    for (unsigned f : side.factors) {
      needed.insert(factors[f].value);
      args |= factors[f].args;
    }
    needed.insert(constants.begin(), constants.end());
    llvm::SmallPtrSet<Operation *, 8> slice;
    for (Operation &bodyOp : llvm::reverse(body->without_terminator())) {
      if (llvm::none_of(bodyOp.getResults(),
                        [&](Value r) { return needed.contains(r); }))
        continue;
      slice.insert(&bodyOp);
      needed.insert(bodyOp.operand_begin(), bodyOp.operand_end());
    }

    SmallVector<Value> inputs;
    SmallVector<AffineMap> inputMaps;
    SmallVector<BlockArgument> reads;
    for (unsigned i = 0, e = op.getNumDpsInputs(); i < e; ++i) {
      if (!(args & (uint64_t(1) << i)))
        continue;
      inputs.push_back(op.getDpsInputs()[i]);
      inputMaps.push_back(
          maps[i].replaceDimsAndSymbols(renumbered, {}, shape.size(), 0));
      reads.push_back(body->getArgument(i));
    }
    Location loc = op.getLoc();
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, elementType);
    inputMaps.push_back(rewriter.getMultiDimIdentityMap(shape.size()));
    SmallVector<utils::IteratorType> parallel(shape.size(),
                                              utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, empty.getType(), inputs, ValueRange{empty}, inputMaps,
        parallel, [&](OpBuilder &b, Location l, ValueRange blockArgs) {
          IRMapping mapping;
          for (auto [from, to] : llvm::zip(reads, blockArgs))
            mapping.map(from, to);
          for (Operation &bodyOp : body->without_terminator())
            if (slice.contains(&bodyOp))
              b.clone(bodyOp, mapping);
          Value result;
          auto multiply = [&](Value v) {
            v = mapping.lookupOrDefault(v);
            result = result ? Value(arith::MulFOp::create(b, l, result, v)) : v;
          };
          for (unsigned f : side.factors)
            multiply(factors[f].value);
          for (Value c : constants)
            multiply(c);
          linalg::YieldOp::create(b, l, result);
        });
    return {generic.getResult(0), AffineMap::get(numLoops, 0, sideLoops, ctx)};
  }
};

} // namespace

void mlsopt::populateFactoredContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<FactoredContraction>(patterns.getContext());
}
