//===- GeluTanh.cpp - GELU's tanh approximation as one kernel op ----------===//
//
// GPT-2, Gemma and torch's gelu(approximate='tanh') spell GELU out as
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): nine kernel ops
// once imported, which the search's cut (max-kernel-ops) would split from
// the matmul before them. The import raises them to kernel.gelu_tanh, as it
// raises x * sigmoid(x) to silu: the raised program is the reference the
// search and the verifier start from (the field models gelu_tanh as a
// function of its own, not as its spelled-out form).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/Constants.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;

namespace {
/// The spelled-out GELU's kernel ops (in any association) -> gelu_tanh(x).
/// The match is by value: an elementwise subgraph of one tensor x with one
/// tanh, whose intermediates nothing else reads, that computes gelu_tanh at
/// sample points within two ulps of the element type (the front end
/// rounded its constants to it), with only GELU's own constants.
struct RaiseGeluTanh : RewritePattern {
  RaiseGeluTanh(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  static constexpr unsigned kMaxOps = 16;

  /// The elementwise ops a spelled-out GELU is made of.
  static bool isPart(Operation *op) {
    return isa_and_nonnull<kernel::MulOp, kernel::AddOp, kernel::SubOp,
                           kernel::DivOp, kernel::MulScalarOp,
                           kernel::AddScalarOp, kernel::SquareOp, kernel::NegOp,
                           kernel::TanhOp, kernel::ConvertOp>(op);
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
                   .Case([&](kernel::ConvertOp) { return arg(0); });
    memo[v] = r;
    return r;
  }

  /// Whether `c` is, up to sign, one of the constants GELU's tanh form is
  /// written with (1/2, 1, 2, 0.044715, sqrt(2/pi)) or a product of them, as
  /// written in f64 or rounded to f32, f16 or bf16. A near-miss function
  /// (0.05 for 0.044715) may agree with gelu_tanh within a bf16 rounding at
  /// every sample point; its constant gives it away.
  static bool isGeluConstant(double c) {
    const double alpha = 0.044715, beta = std::sqrt(2.0 / M_PI);
    for (double base : {1.0, alpha, beta, alpha * beta})
      for (double factor : {0.5, 1.0, 2.0})
        if (isRoundingOf(std::fabs(c), base * factor))
          return true;
    return false;
  }

  /// The parts between `root` and `x`, if every path from `root` ends at
  /// `x` through parts of `root`'s shape with one tanh among them, and
  /// nothing outside reads a part but the root. Parts may convert between
  /// element types (torch-mlir computes some f16 ops in f32).
  static std::optional<llvm::SmallPtrSet<Operation *, 16>>
  collect(Operation *root, Value x) {
    ArrayRef<int64_t> shape = shapeOf(root->getResult(0));
    SmallVector<Operation *> parts{root};
    llvm::SmallPtrSet<Operation *, 16> inGraph{root};
    unsigned tanhs = 0;
    for (unsigned i = 0; i < parts.size(); ++i) {
      if (parts.size() > kMaxOps)
        return std::nullopt;
      tanhs += isa<kernel::TanhOp>(parts[i]);
      for (Value operand : parts[i]->getOperands()) {
        if (operand == x)
          continue;
        Operation *def = operand.getDefiningOp();
        if (shapeOf(operand) != shape || !isPart(def))
          return std::nullopt;
        if (inGraph.insert(def).second)
          parts.push_back(def);
      }
    }
    if (tanhs != 1 || parts.size() < 4)
      return std::nullopt;
    for (Operation *part : parts)
      if (auto scalar = part->getAttrOfType<FloatAttr>("scalar"))
        if (!isGeluConstant(scalar.getValueAsDouble()))
          return std::nullopt;
    for (Operation *part : llvm::drop_begin(parts))
      for (Operation *user : part->getUsers())
        if (!inGraph.contains(user))
          return std::nullopt;
    return inGraph;
  }

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    if (!isPart(root) || isa<kernel::TanhOp>(root))
      return failure();
    // A GELU computed in f32 and rounded back ends at the conversion: raise
    // it there, not at the f32 op before it.
    if (root->hasOneUse() && isa<kernel::ConvertOp>(*root->user_begin()))
      return failure();
    auto type = cast<RankedTensorType>(root->getResult(0).getType());
    // x is a value the parts read: try each, nearest the root first (a bias
    // added before the GELU is a part too, but not of the GELU).
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
    // The narrowest element type's precision bounds how far the front end's
    // rounded constants move the function: two ulps (a rounded sqrt(2 / pi)
    // in bf16 moves it by about 5e-4).
    auto computesGelu = [&](Value x,
                            const llvm::SmallPtrSet<Operation *, 16> &parts) {
      unsigned precision = precisionOf(x.getType());
      for (Operation *part : parts)
        precision =
            std::min(precision, precisionOf(part->getResult(0).getType()));
      double tolerance = std::ldexp(1.0, 1 - static_cast<int>(precision));
      for (double sample : {-3.1, -1.3, -0.45, 0.2, 0.7, 1.9, 4.3}) {
        DenseMap<Value, double> memo;
        double got = evaluate(root->getResult(0), x, sample, memo);
        double inner = std::sqrt(2.0 / M_PI) *
                       (sample + 0.044715 * sample * sample * sample);
        double want = 0.5 * sample * (1.0 + std::tanh(inner));
        if (!(std::fabs(got - want) <= tolerance * (1.0 + std::fabs(want))))
          return false;
      }
      return true;
    };
    Value x;
    for (Value candidate : candidates) {
      std::optional<llvm::SmallPtrSet<Operation *, 16>> parts =
          collect(root, candidate);
      if (parts && computesGelu(candidate, *parts)) {
        x = candidate;
        break;
      }
    }
    if (!x)
      return failure();
    // gelu_tanh in x's type (computed in f32, rounded once), converted to
    // the root's if the spelled-out form ended in another type.
    Value gelu = kernel::GeluTanhOp::create(rewriter, root->getLoc(), x);
    if (gelu.getType() != type)
      gelu = kernel::ConvertOp::create(rewriter, root->getLoc(), type, gelu);
    rewriter.replaceOp(root, gelu);
    return success();
  }
};

} // namespace

void mlsopt::populateGeluTanhPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseGeluTanh>(patterns.getContext());
}
