//===- ActivationIdioms.cpp - Spelled-out activations as one kernel op ----===//
//
// Front ends spell some activations out in elementwise ops:
// - GPT-2, Gemma and torch's gelu(approximate='tanh'):
//   0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), nine ops;
// - the logistic function through tanh, 0.5 * tanh(x / 2) + 0.5 (XLA's
//   expansion, and how JAX programs reach linalg), or through exp written
//   as separate tensor ops, 1 / (1 + exp(-x));
// - silu as x times either of those.
// Imported op by op, the search's cut (max-kernel-ops) would split them
// from the matmul before them: a gated MLP with a tanh sigmoid was two
// launches. The import raises each to its kernel op, as it raises the
// payload forms it matches: the raised program is the reference the search
// and the verifier start from (the field models each activation as a
// function of its own, not as its spelled-out form).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;

namespace {
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// An activation the import recognizes by the values its ops compute.
struct Activation {
  /// Its value at x.
  double (*function)(double);
  /// Whether `op` may be the one transcendental op of its spelled-out form.
  bool (*isCore)(Operation *op);
  /// Whether a constant of the spelled-out form may be `c` (up to sign):
  /// a near-miss function (0.05 for GELU's 0.044715) may agree with the
  /// activation within a bf16 rounding at every sample point; its constant
  /// gives it away.
  bool (*isConstant)(double c);
  /// The fewest ops that spell it, the transcendental one included.
  unsigned minParts;
  Value (*build)(OpBuilder &b, Location loc, Value x);
};

bool isHalfOneOrTwo(double c) { return c == 0.5 || c == 1.0 || c == 2.0; }

/// GELU's constants (1/2, 1, 2, 0.044715, sqrt(2/pi)) or products of them,
/// as written in f64 or rounded to f32, f16 or bf16.
bool isGeluConstant(double c) {
  const double alpha = 0.044715, beta = std::sqrt(2.0 / M_PI);
  for (double base : {1.0, alpha, beta, alpha * beta})
    for (double factor : {0.5, 1.0, 2.0})
      if (isRoundingOf(c, base * factor))
        return true;
  return false;
}

/// The transcendental ops a spelled-out activation is built around; the
/// logistic function may be built around any of them.
bool isTranscendental(Operation *op) {
  return isa<kernel::TanhOp, kernel::ExpOp, kernel::SigmoidOp>(op);
}

template <typename OpTy> Value buildUnary(OpBuilder &b, Location loc, Value x) {
  return OpTy::create(b, loc, x);
}

const Activation kActivations[] = {
    {[](double x) {
       double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
       return 0.5 * x * (1.0 + std::tanh(inner));
     },
     [](Operation *op) { return isa<kernel::TanhOp>(op); }, isGeluConstant,
     /*minParts=*/4, buildUnary<kernel::GeluTanhOp>},
    {sigmoid, isTranscendental, isHalfOneOrTwo, /*minParts=*/3,
     buildUnary<kernel::SigmoidOp>},
    // x * sigmoid(x): two ops once the sigmoid is raised.
    {[](double x) { return x * sigmoid(x); }, isTranscendental, isHalfOneOrTwo,
     /*minParts=*/2, buildUnary<kernel::SiluOp>},
};

/// The value of a splat constant (a scalar the import broadcasts, as in
/// `1 / x`), if `value` is one.
std::optional<double> getSplatConstant(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) || !dense.isSplat() ||
      !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

/// Spelled-out activations' kernel ops (in any association) -> the
/// activation's op. The match is by value: an elementwise subgraph of one
/// tensor x (and scalar constants) with one transcendental op, whose
/// intermediates nothing else reads, that computes the activation at sample
/// points within two ulps of the element type (the front end rounded its
/// constants to it), with only the activation's own constants.
struct RaiseActivation : RewritePattern {
  RaiseActivation(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  static constexpr unsigned kMaxOps = 16;

  /// The elementwise ops an activation is spelled with.
  static bool isPart(Operation *op) {
    return isa_and_nonnull<kernel::MulOp, kernel::AddOp, kernel::SubOp,
                           kernel::DivOp, kernel::MulScalarOp,
                           kernel::AddScalarOp, kernel::SquareOp, kernel::NegOp,
                           kernel::TanhOp, kernel::ExpOp, kernel::SigmoidOp,
                           kernel::ConvertOp>(op);
  }

  static unsigned precisionOf(Type type) {
    return APFloat::semanticsPrecision(
        cast<FloatType>(cast<RankedTensorType>(type).getElementType())
            .getFloatSemantics());
  }

  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }

  /// The value of `v` at x = `x` in f64, with `leaf` standing for x.
  static double evaluate(Value v, Value leaf, double x,
                         DenseMap<Value, double> &memo) {
    if (v == leaf)
      return x;
    if (std::optional<double> constant = getSplatConstant(v))
      return *constant;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    Operation *op = v.getDefiningOp();
    auto arg = [&](unsigned i) {
      return evaluate(op->getOperand(i), leaf, x, memo);
    };
    double r = TypeSwitch<Operation *, double>(op)
                   .Case([&](kernel::MulOp) { return arg(0) * arg(1); })
                   .Case([&](kernel::AddOp) { return arg(0) + arg(1); })
                   .Case([&](kernel::SubOp) { return arg(0) - arg(1); })
                   .Case([&](kernel::DivOp) { return arg(0) / arg(1); })
                   .Case([&](kernel::MulScalarOp m) {
                     return arg(0) * m.getScalar().convertToDouble();
                   })
                   .Case([&](kernel::AddScalarOp a) {
                     return arg(0) + a.getScalar().convertToDouble();
                   })
                   .Case([&](kernel::SquareOp) { return arg(0) * arg(0); })
                   .Case([&](kernel::NegOp) { return -arg(0); })
                   .Case([&](kernel::TanhOp) { return std::tanh(arg(0)); })
                   .Case([&](kernel::ExpOp) { return std::exp(arg(0)); })
                   .Case([&](kernel::SigmoidOp) { return sigmoid(arg(0)); })
                   .Case([&](kernel::ConvertOp) { return arg(0); });
    memo[v] = r;
    return r;
  }

  /// The parts between `root` and `x`, if every path from `root` ends at
  /// `x` or at a scalar constant the activation is written with, through
  /// parts of `root`'s shape with one transcendental op among them that
  /// the activation may have, and nothing outside reads a part but the
  /// root. Parts may convert between element types (torch-mlir computes
  /// some f16 ops in f32).
  static std::optional<llvm::SmallPtrSet<Operation *, 16>>
  collect(Operation *root, Value x, const Activation &activation) {
    ArrayRef<int64_t> shape = shapeOf(root->getResult(0));
    SmallVector<Operation *> parts{root};
    llvm::SmallPtrSet<Operation *, 16> inGraph{root};
    unsigned transcendentals = 0;
    for (unsigned i = 0; i < parts.size(); ++i) {
      if (parts.size() > kMaxOps)
        return std::nullopt;
      if (isTranscendental(parts[i])) {
        if (!activation.isCore(parts[i]))
          return std::nullopt;
        ++transcendentals;
      }
      for (Value operand : parts[i]->getOperands()) {
        if (operand == x)
          continue;
        if (std::optional<double> constant = getSplatConstant(operand)) {
          if (!activation.isConstant(std::fabs(*constant)) ||
              llvm::any_of(shapeOf(operand), [](int64_t d) { return d != 1; }))
            return std::nullopt;
          continue;
        }
        Operation *def = operand.getDefiningOp();
        if (shapeOf(operand) != shape || !isPart(def))
          return std::nullopt;
        if (inGraph.insert(def).second)
          parts.push_back(def);
      }
    }
    if (transcendentals != 1 || parts.size() < activation.minParts)
      return std::nullopt;
    for (Operation *part : parts)
      if (auto scalar = part->getAttrOfType<FloatAttr>("scalar"))
        if (!activation.isConstant(std::fabs(scalar.getValueAsDouble())))
          return std::nullopt;
    for (Operation *part : llvm::drop_begin(parts))
      for (Operation *user : part->getUsers())
        if (!inGraph.contains(user))
          return std::nullopt;
    return inGraph;
  }

  /// Whether `root` computes `activation` of `x` through `parts`: the
  /// narrowest element type's precision bounds how far the front end's
  /// rounded constants move the function (a rounded sqrt(2 / pi) in bf16
  /// moves GELU by about 5e-4), two ulps.
  static bool computes(Operation *root, Value x,
                       const llvm::SmallPtrSet<Operation *, 16> &parts,
                       const Activation &activation) {
    unsigned precision = precisionOf(x.getType());
    for (Operation *part : parts)
      precision =
          std::min(precision, precisionOf(part->getResult(0).getType()));
    double tolerance = std::ldexp(1.0, 1 - static_cast<int>(precision));
    for (double sample : {-3.1, -1.3, -0.45, 0.2, 0.7, 1.9, 4.3}) {
      DenseMap<Value, double> memo;
      double got = evaluate(root->getResult(0), x, sample, memo);
      double want = activation.function(sample);
      if (!(std::fabs(got - want) <= tolerance * (1.0 + std::fabs(want))))
        return false;
    }
    return true;
  }

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    if (!isPart(root) || isTranscendental(root))
      return failure();
    // An activation computed in f32 and rounded back ends at the
    // conversion: raise it there, not at the f32 op before it.
    if (root->hasOneUse() && isa<kernel::ConvertOp>(*root->user_begin()))
      return failure();
    auto type = cast<RankedTensorType>(root->getResult(0).getType());
    // x is a value the parts read: try each, nearest the root first (a bias
    // added before a GELU is a part too, but not of the GELU).
    SmallVector<Value> candidates;
    llvm::SmallPtrSet<Operation *, 16> seen{root};
    SmallVector<Operation *> frontier{root};
    for (unsigned i = 0; i < frontier.size() && i < kMaxOps; ++i)
      for (Value operand : frontier[i]->getOperands()) {
        if (shapeOf(operand) == type.getShape() &&
            !llvm::is_contained(candidates, operand))
          candidates.push_back(operand);
        Operation *def = operand.getDefiningOp();
        if (isPart(def) && seen.insert(def).second)
          frontier.push_back(def);
      }
    for (const Activation &activation : kActivations)
      for (Value x : candidates) {
        std::optional<llvm::SmallPtrSet<Operation *, 16>> parts =
            collect(root, x, activation);
        if (!parts || !computes(root, x, *parts, activation))
          continue;
        // The activation in x's type (computed in f32, rounded once),
        // converted to the root's if the spelled-out form ended in another
        // type.
        Value raised = activation.build(rewriter, root->getLoc(), x);
        if (raised.getType() != type)
          raised =
              kernel::ConvertOp::create(rewriter, root->getLoc(), type, raised);
        rewriter.replaceOp(root, raised);
        return success();
      }
    return failure();
  }
};

} // namespace

void mlsopt::populateActivationIdiomPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseActivation>(patterns.getContext());
}
