//===- SearchProblem.cpp - A subprogram handed to the search --------------===//

#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

bool search::isSearchableOp(Operation *op) {
  // A transpose only moves data, and block graphs load tiles in the order
  // of their input's dims: a transposed operand is an input of the
  // subprogram, and --fuse-kernel-elementwise then loads the transpose's
  // operand in the kernel that reads it and permutes the tiles there.
  if (op->getDialect() == nullptr ||
      op->getDialect()->getNamespace() != "kernel" ||
      op->getNumResults() != 1 ||
      isa<kernel::CustomOp, kernel::TransposeOp>(op))
    return false;
  return lookupOpKind(op->getName().stripDialect()).has_value();
}

namespace {
/// Union-find over (value, dim) pairs: the dims that must share an extent.
struct DimUnifier {
  llvm::DenseMap<std::pair<Value, unsigned>, unsigned> ids;
  llvm::EquivalenceClasses<unsigned> classes;

  /// The node of dim `d` of `v`, or nothing for a size-1 dim.
  std::optional<unsigned> node(Value v, unsigned d) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getDimSize(d) == 1)
      return std::nullopt;
    auto [it, inserted] = ids.try_emplace({v, d}, ids.size());
    if (inserted)
      classes.insert(it->second);
    return it->second;
  }
  void unify(Value a, unsigned da, Value b, unsigned db) {
    std::optional<unsigned> x = node(a, da), y = node(b, db);
    if (x && y)
      classes.unionSets(*x, *y);
  }
};
} // namespace

/// Records in `u` the dims of `op`'s operands and result that must match.
static LogicalResult unifyOp(Operation *op, OpKind kind, DimUnifier &u) {
  Value r = op->getResult(0);
  Value a = op->getOperand(0);
  unsigned rank = cast<RankedTensorType>(r.getType()).getRank();
  auto sizeOf = [](Value v, unsigned d) {
    return cast<RankedTensorType>(v.getType()).getDimSize(d);
  };
  if (kind == OpKind::Matmul) {
    Value b = op->getOperand(1);
    for (unsigned d = 0; d + 2 < rank; ++d) {
      // The search's matmul never broadcasts a batch dim.
      if (sizeOf(a, d) != sizeOf(b, d))
        return failure();
      u.unify(a, d, b, d);
      u.unify(a, d, r, d);
    }
    u.unify(a, rank - 1, b, rank - 2);
    u.unify(a, rank - 2, r, rank - 2);
    u.unify(b, rank - 1, r, rank - 1);
    u.node(r, rank - 1);
    u.node(r, rank - 2);
    return success();
  }
  if (kind == OpKind::Transpose) {
    auto perm = cast<kernel::TransposeOp>(op).getPermutation();
    for (unsigned d = 0; d < rank; ++d)
      u.unify(r, d, a, perm[d]);
    return success();
  }
  for (Value operand : op->getOperands()) {
    if (cast<RankedTensorType>(operand.getType()).getRank() != rank)
      return failure();
    for (unsigned d = 0; d < rank; ++d) {
      if ((kind == OpKind::ReduceSum || kind == OpKind::ReduceMax) &&
          static_cast<int64_t>(d) == op->getAttrOfType<IntegerAttr>("dim").getInt()) {
        u.node(operand, d);
        continue;
      }
      u.unify(operand, d, r, d);
      u.node(operand, d);
    }
  }
  for (unsigned d = 0; d < rank; ++d)
    u.node(r, d);
  return success();
}

FailureOr<SearchProblem>
search::buildSearchProblem(ArrayRef<Operation *> ops, ArrayRef<Value> inputs,
                           ArrayRef<Value> outputs) {
  SearchProblem problem;
  Type elementType;
  DimUnifier u;
  for (Value v : inputs) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return failure();
    for (unsigned d = 0; d < type.getRank(); ++d)
      u.node(v, d);
  }
  for (Operation *op : ops) {
    std::optional<OpKind> kind = lookupOpKind(op->getName().stripDialect());
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!kind || !type || !type.hasStaticShape())
      return failure();
    if (elementType && elementType != type.getElementType())
      return failure();
    elementType = type.getElementType();
    if (failed(unifyOp(op, *kind, u)))
      return failure();
  }
  if (!elementType)
    return failure();
  problem.shapes.elementType = elementType;

  // Number the classes in order of first appearance, so that equal programs
  // get equal numberings.
  llvm::DenseMap<unsigned, int> leaderToClass;
  auto dimsOf = [&](Value v) -> Dims {
    auto type = cast<RankedTensorType>(v.getType());
    Dims dims;
    for (unsigned d = 0; d < type.getRank(); ++d) {
      std::optional<unsigned> n = u.node(v, d);
      if (!n) {
        dims.push_back(Dim());
        continue;
      }
      unsigned leader = u.classes.getLeaderValue(*n);
      auto [it, inserted] =
          leaderToClass.try_emplace(leader, problem.shapes.extents.size());
      if (inserted)
        problem.shapes.extents.push_back(type.getDimSize(d));
      dims.push_back(Dim{it->second, false});
    }
    return dims;
  };

  llvm::DenseMap<Value, unsigned> valueIds;
  KernelGraph &ref = problem.reference;
  ref.numInputs = inputs.size();
  for (auto [i, v] : llvm::enumerate(inputs)) {
    if (v.getType() != inputs[i].getType() ||
        cast<RankedTensorType>(v.getType()).getElementType() != elementType)
      return failure();
    valueIds[v] = i;
    problem.shapes.inputDims.push_back(dimsOf(v));
    problem.referenceDims.push_back(problem.shapes.inputDims.back());
  }
  llvm::SmallSetVector<OpKind, 16> vocabulary;
  llvm::SmallVector<Scalar> scalars;
  for (Operation *op : ops) {
    KernelNode node;
    node.op.kind = *lookupOpKind(op->getName().stripDialect());
    for (Value operand : op->getOperands()) {
      auto it = valueIds.find(operand);
      if (it == valueIds.end())
        return failure();
      node.op.operands.push_back(it->second);
    }
    if (auto dim = op->getAttrOfType<IntegerAttr>("dim"))
      node.op.dim = dim.getInt();
    if (auto scalar = op->getAttrOfType<FloatAttr>("scalar")) {
      node.op.scalar.literal = scalar.getValueAsDouble();
      scalars.push_back(node.op.scalar);
    }
    if (auto transpose = dyn_cast<kernel::TransposeOp>(op))
      node.op.permutation.assign(transpose.getPermutation().begin(),
                                 transpose.getPermutation().end());
    vocabulary.insert(node.op.kind);
    if (auto norm = dyn_cast<kernel::RmsNormOp>(op)) {
      node.op.dim = norm.getNormalizedDim();
      node.op.scalar.literal = norm.getEpsilon().convertToDouble();
      Dims dims = dimsOf(norm.getInput());
      scalars.push_back(Scalar{0.0, dims[node.op.dim].cls});
      scalars.push_back(Scalar{node.op.scalar.literal, Dim::kOne});
      if (!llvm::is_contained(problem.epsilons, node.op.scalar.literal))
        problem.epsilons.push_back(node.op.scalar.literal);
      for (OpKind k : {OpKind::Square, OpKind::ReduceSum, OpKind::MulScalar,
                       OpKind::AddScalar, OpKind::Sqrt, OpKind::Div,
                       OpKind::Rsqrt, OpKind::Mul})
        vocabulary.insert(k);
    }
    valueIds[op->getResult(0)] = problem.referenceDims.size();
    problem.referenceDims.push_back(dimsOf(op->getResult(0)));
    ref.nodes.push_back(std::move(node));
  }
  for (const KernelNode &node : ref.nodes) {
    const Dims &in = problem.referenceDims[node.op.operands[0]];
    switch (node.op.kind) {
    case OpKind::Matmul:
      if (!in.back().isOne())
        problem.sumClasses.insert(in.back().cls);
      break;
    case OpKind::RmsNorm:
      // Its mean is a sum over the dim, which fused kernels spell out.
      if (!in[node.op.dim].isOne()) {
        problem.sumClasses.insert(in[node.op.dim].cls);
        problem.normClasses.insert(in[node.op.dim].cls);
      }
      break;
    case OpKind::ReduceSum:
      problem.sumClasses.insert(in[node.op.dim].cls);
      break;
    case OpKind::ReduceMax:
      problem.maxClasses.insert(in[node.op.dim].cls);
      break;
    default:
      break;
    }
  }
  for (Value out : outputs) {
    auto it = valueIds.find(out);
    if (it == valueIds.end())
      return failure();
    ref.results.push_back(it->second);
  }
  // A long dim the program sums over and does not output may be split
  // across the grid (flash-decoding): each block sums one chunk and a later
  // kernel sums the chunks. The chunk count is a class of its own, so the
  // kernel that splits and the kernel that combines agree on it. Chunks of
  // kChunkExtent elements leave each block a tile a few tensor-core steps
  // long, and at most kMaxChunks keep the partial results small.
  problem.shapes.chunkOf.assign(problem.shapes.extents.size(), Dim::kOne);
  llvm::SmallSetVector<int, 4> outputClasses;
  for (unsigned r : ref.results)
    for (Dim d : problem.referenceDims[r])
      outputClasses.insert(d.cls);
  constexpr int64_t kChunkExtent = 256, kMaxChunks = 32;
  for (int cls : problem.sumClasses) {
    int64_t extent = problem.shapes.extents[cls];
    int64_t chunks = std::min(extent / kChunkExtent, kMaxChunks);
    if (outputClasses.contains(cls) || chunks < 2 || extent % chunks)
      continue;
    problem.shapes.extents.push_back(chunks);
    problem.shapes.chunkOf.push_back(cls);
  }

  // Transposes only move data; the search builds layouts instead.
  vocabulary.remove(OpKind::Transpose);
  problem.vocabulary.assign(vocabulary.begin(), vocabulary.end());
  llvm::sort(problem.vocabulary);
  llvm::sort(scalars);
  scalars.erase(std::unique(scalars.begin(), scalars.end()), scalars.end());
  problem.scalars = std::move(scalars);
  return problem;
}

ShapeContext search::getScreeningShapes(const ShapeContext &shapes,
                                        int64_t smallExtent) {
  ShapeContext small = shapes;
  for (int64_t &extent : small.extents)
    extent = std::min(extent, smallExtent);
  // Two chunks, each a whole number of elements of the class they cut.
  for (auto [cls, of] : llvm::enumerate(small.chunkOf))
    if (of != Dim::kOne)
      small.extents[cls] = small.extents[of] % 2 == 0 ? 2 : 1;
  return small;
}
