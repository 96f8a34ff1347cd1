//===- Subprograms.cpp - Cutting a function into searchable pieces --------===//
//
// Greedy clustering on the op DAG of each block: every op starts alone, and
// the edges between searchable ops are tried largest tensor first, since the
// bigger the tensor a cut leaves between two kernels, the more the cut
// costs. Then ops that read the same tensor are tried together, largest
// tensor first: one kernel can read it once for both. Cutting in program order instead would put unrelated ops together
// whenever a front end interleaves independent computations (QKNorm prints
// the normalization of Q between the ops of K's).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Transforms/Subprograms.h"
#include "mlsopt/Dialect/Common/ElementwiseByIndex.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Transforms/ScoreChains.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <queue>

using namespace mlir;
using namespace mlsopt;

namespace {
/// Whether the results of `op` have an exponent image whatever its operands
/// have: sqrt, rsqrt and the random functions get theirs from a random
/// function of the operand's residue mod p (docs/verification.md).
bool makesExponentImage(Operation *op) {
  return isa<kernel::SqrtOp, kernel::RsqrtOp, kernel::LogOp, kernel::SiluOp,
             kernel::SigmoidOp, kernel::GeluOp, kernel::ReluOp, kernel::TanhOp,
             kernel::ErfOp, kernel::GeluTanhOp, kernel::SinOp, kernel::CosOp,
             kernel::Log1pOp, kernel::SoftplusOp, kernel::FloorOp,
             kernel::CeilOp, kernel::RoundOp>(op);
}

/// Whether `op` is `x - m` with `m = reduce_max(x)`, the stabilizer of a
/// safe softmax.
bool subtractsOwnMax(Operation *op) {
  auto sub = dyn_cast<kernel::SubOp>(op);
  if (!sub)
    return false;
  auto max = sub->getOperand(1).getDefiningOp<kernel::ReduceMaxOp>();
  return max && max->getOperand(0) == sub->getOperand(0);
}

/// The ops of a LayerNorm's centring and normalization, `rms_norm(x -
/// mean(x))` with the mean a sum scaled by a constant that only the
/// subtraction reads, in data-flow order, or none if `op` is no such
/// rms_norm.
SmallVector<Operation *, 4> getCentredNormOps(Operation *op) {
  auto norm = dyn_cast<kernel::RmsNormOp>(op);
  if (!norm)
    return {};
  auto sub = norm->getOperand(0).getDefiningOp<kernel::SubOp>();
  if (!sub)
    return {};
  auto mean = sub->getOperand(1).getDefiningOp<kernel::MulScalarOp>();
  if (!mean || !mean->hasOneUse())
    return {};
  auto sum = mean->getOperand(0).getDefiningOp<kernel::ReduceSumOp>();
  if (!sum || !sum->hasOneUse() || sum->getOperand(0) != sub->getOperand(0))
    return {};
  return {sum, mean, sub, norm};
}

/// Whether `op` is the second op of a pair that counts as one: its
/// operand is the result of a `First` op that nothing else reads.
template <typename First> bool completesPair(Operation *op) {
  auto first = op->getOperand(0).getDefiningOp<First>();
  return first && first->hasOneUse();
}

/// Whether `op` is a step of a score chain (matchScoreChain): a binary
/// elementwise op of a matmul's result (or of a scale of it, or of the
/// step before) and an input of the block that nothing else reads, the
/// chain's result read by a row maximum (or, a lone step, a row sum; a
/// longer chain, an exp): an attention mask added to the scores before
/// their softmax, applied where the matmul's tiles are.
/// The search sees a chain of several as one such op (foldScoreChains).
bool readsInputWithMatmulResult(Operation *op) {
  return matchScoreChain(op).has_value();
}

/// Whether `op`'s operand is the last step of a score chain that nothing
/// else reads.
bool scalesMaskedScores(Operation *op) {
  Operation *def = op->getOperand(0).getDefiningOp();
  return def && def->hasOneUse() && readsInputWithMatmulResult(def);
}

/// Whether `value` is a function argument or a constant, seen through
/// reshapes (a 1-D bias the import expands to [1, n]).
bool isArgumentOrConstant(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (def->hasTrait<OpTrait::ConstantLike>())
      return true;
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      return false;
    value = def->getOperand(0);
  }
  return true;
}

/// Whether a reduction (a sum, a max, an rms_norm) reads `op`'s result
/// through elementwise ops, within `depth` ops.
bool feedsReduction(Operation *op, unsigned depth) {
  for (Operation *user : op->getUsers()) {
    if (isa<kernel::ReduceSumOp, kernel::ReduceMaxOp, kernel::RmsNormOp>(user))
      return true;
    if (depth > 1 && isa<kernel::KernelDialect>(user->getDialect()) &&
        (user->hasTrait<OpTrait::ElementwiseByIndex>() ||
         isa<kernel::ConvertOp>(user)) &&
        feedsReduction(user, depth - 1))
      return true;
  }
  return false;
}

/// Whether `op` adds a bias, a row of arguments broadcast over the other
/// dims, to the product of a function argument, and no reduction reads the
/// sum through elementwise ops: a linear layer on an input before an
/// activation or a gate (a gated MLP's two layers on x, each with its
/// bias), not one before a LayerNorm.
bool addsBiasToInputProduct(Operation *op) {
  auto add = dyn_cast<kernel::AddOp>(op);
  if (!add || feedsReduction(op, /*depth=*/8))
    return false;
  for (auto [product, bias] : {std::pair(add.getLhs(), add.getRhs()),
                               std::pair(add.getRhs(), add.getLhs())}) {
    auto matmul = product.getDefiningOp<kernel::MatmulOp>();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(bias.getType()).getShape();
    if (matmul && isArgumentOrConstant(matmul.getLhs()) &&
        isArgumentOrConstant(bias) && !shape.empty() &&
        llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; }))
      return true;
  }
  return false;
}

/// What `op` counts against `max-kernel-ops` (a clamp or a mean as one op).
/// A maximum subtracted from the values it was taken over, and that
/// subtraction, count nothing: the abstract expressions erase the pair
/// (`x - max(x)` is `x` under exp, docs/search.md), so a safe softmax is as
/// large a search problem as the plain one, and counting the pair would cut
/// a safe attention (seven ops) where the plain one (five) stays whole. A
/// maximum read by anything else (an output, say) counts.
unsigned getWeight(Operation *op) {
  if (subtractsOwnMax(op))
    return 0;
  // A conversion is no op of the search's (it sees through them), so a
  // gated MLP whose SiLU is computed in f32 is as large a search problem
  // as the plain one.
  if (isa<kernel::ConvertOp>(op))
    return 0;
  // A causal mask counts nothing either: it adds no reduction, no input and
  // no tiling choice, only one op on the scores wherever they are, so a
  // masked attention stays as whole as the plain one (whose kernel the
  // mask must join to be computed on the tiles).
  if (isa<kernel::TriangleFillOp>(op))
    return 0;
  // A clamp (Mirage's one op) is max_scalar then min_scalar, so a clamped
  // gated MLP is as large a search problem as the plain one and stays
  // whole. A mean (torch.mean, a LayerNorm's centre) is a sum then a
  // scale, so a LayerNorm with gain and bias (six ops once its variance is
  // raised to rms_norm) stays whole, which its one-kernel μGraph needs.
  if ((isa<kernel::MinScalarOp>(op) &&
       completesPair<kernel::MaxScalarOp>(op)) ||
      (isa<kernel::MulScalarOp>(op) && completesPair<kernel::ReduceSumOp>(op)))
    return 0;
  // So does the scale of attention scores (1/sqrt(d) on Q K^T where the
  // scores are smaller than Q): the search computes it on the product's
  // tiles, in the thread graph after the matmul, and counted it cut the
  // attention of 24 queries by 40 keys of dim 64 (six ops) in two, the
  // scores through device memory (2 launches, 1 with the scale counted
  // nothing).
  // A scale after the masks (`where(m, s, min) * 0.125`) is the same scale
  // of the same tiles.
  if (isa<kernel::MulScalarOp>(op) &&
      (completesPair<kernel::MatmulOp>(op) || scalesMaskedScores(op)) &&
      !op->use_empty() && llvm::all_of(op->getUsers(), [](Operation *user) {
        return isa<kernel::ReduceMaxOp, kernel::ExpOp>(user) ||
               subtractsOwnMax(user) || readsInputWithMatmulResult(user);
      }))
    return 0;
  // So does a scale between a safe softmax's subtraction and its exp: a
  // base-2 softmax (Triton's and FlashAttention's `exp2(x - max(x))`)
  // imports as exp((x - max(x)) * ln 2), and counted, the scale cut the
  // product by V off its softmax (2 launches, one with it counted nothing,
  // found in 0.1 s).
  if (isa<kernel::MulScalarOp>(op) && completesPair<kernel::SubOp>(op) &&
      subtractsOwnMax(op->getOperand(0).getDefiningOp()) && !op->use_empty() &&
      llvm::all_of(op->getUsers(),
                   [](Operation *user) { return isa<kernel::ExpOp>(user); }))
    return 0;
  // An attention mask that only its add to the scores reads counts nothing
  // as well: the search counts it with that add (BlockGraph::
  // getNumBlockOps), and a masked attention stays as whole as the plain
  // one. A linear layer's bias counts: counted nothing, it let the layer
  // join the LayerNorm before it without the norm's mean, a subprogram the
  // search took 19 s over instead of 0.1.
  if (readsInputWithMatmulResult(op))
    return 0;
  // A bias of a linear layer on an input counts nothing where no reduction
  // follows: the search adds it to the product's tiles after the loop, and
  // the subprogram gains no row reduction to span the product with (a
  // linear layer, residual and LayerNorm, with its bias counted nothing,
  // became one subprogram: at 64 x 2048, 56 s of search for two kernels).
  // Counted, a SwiGLU with biases (six ops) was cut in two, two kernels of
  // 5.9 us against one of 3.8 found in 0.0 s.
  if (addsBiasToInputProduct(op))
    return 0;
  if (isa<kernel::ReduceMaxOp>(op) && !op->use_empty() &&
      llvm::all_of(op->getUsers(), [&](Operation *user) {
        return subtractsOwnMax(user) && user->getOperand(1) == op->getResult(0);
      }))
    return 0;
  return 1;
}

/// Whether `op` is a one-operand elementwise kernel op (unary, or with a
/// scalar) of a value no op of the block computes, read by one op: a scale
/// of an input. A cut after it costs no round trip once
/// --fuse-kernel-elementwise computes it on the reader's tiles.
bool isInputPrologue(Operation *op) {
  if (!isa<kernel::KernelDialect>(op->getDialect()) ||
      !op->hasTrait<OpTrait::ElementwiseByIndex>() ||
      op->getNumOperands() != 1 || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse())
    return false;
  Operation *def = op->getOperand(0).getDefiningOp();
  return !def || def->getBlock() != op->getBlock();
}

/// Whether `op` is an rms_norm of a value no op of the block computes, read
/// only by a matmul that contracts the normalized dim, and that dim is at
/// most a head dim (256): a query or key normalization. The attention's
/// blocks then load tiles that span the whole dim, so the norm joins them
/// after the search (--fuse-kernel-elementwise) as a scale of an input
/// does. A wider dim (a hidden size) is split by the matmul's for-loop,
/// and its norm must be searched with the matmul to be fused at all.
bool isInputHeadNorm(Operation *op) {
  constexpr int64_t kMaxHeadDim = 256;
  auto norm = dyn_cast<kernel::RmsNormOp>(op);
  if (!norm || !norm->getResult(0).hasOneUse())
    return false;
  Operation *def = norm->getOperand(0).getDefiningOp();
  if (def && def->getBlock() == op->getBlock())
    return false;
  auto matmul = dyn_cast<kernel::MatmulOp>(*norm->getUsers().begin());
  if (!matmul)
    return false;
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(norm.getResult().getType()).getShape();
  int64_t rank = shape.size();
  int64_t d = norm.getNormalizedDim();
  int64_t contracted =
      matmul.getLhs() == norm.getResult() ? rank - 1 : rank - 2;
  return d == contracted && shape[d] <= kMaxHeadDim;
}

/// Bytes of a statically shaped tensor value; 0 for anything else.
int64_t getBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return 0;
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The dependence DAG of the ops of one block (its terminator aside) and
/// the clusters grown on it.
class BlockPartition {
public:
  /// The partition of `members` (all of the block's ops but its terminator
  /// when empty), which are reordered in place: before the op that follows
  /// the last of them.
  BlockPartition(Block &block, ArrayRef<Operation *> members);
  /// Joins clusters along producer-consumer edges, then clusters that read
  /// a common tensor, largest tensor first.
  void cluster(unsigned maxOps);
  /// Moves the ops into a topological order in which each cluster is
  /// contiguous and returns the clusters of searchable ops in that order.
  SmallVector<SmallVector<Operation *>> reorder();

private:
  /// True if joining the clusters of `a` and `b` keeps them a subprogram.
  bool canJoin(unsigned a, unsigned b, unsigned maxOps);
  /// True if some path leaves the ops of `members` and comes back.
  bool leavesAndReturns(const llvm::DenseSet<unsigned> &members);
  /// True if the ops of `members`, in block order, exp a value without an
  /// exponent image that they compute themselves.
  static bool expsNoExponentValue(ArrayRef<Operation *> members);
  SmallVector<unsigned> getMembers(unsigned op);

  Block &block;
  /// The op the ops are moved before; null: the block's end.
  Operation *anchor = nullptr;
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> index;
  SmallVector<SmallVector<unsigned, 4>> succs;
  SmallVector<bool> searchable;
  /// What each op counts against the limit (getWeight).
  SmallVector<unsigned> weights;
  /// (bytes, producer, consumer) of every edge between searchable ops.
  SmallVector<std::tuple<int64_t, unsigned, unsigned>> edges;
  /// (producer, consumer) of the edges within a LayerNorm's centring and
  /// normalization (getCentredNormOps), joined before any other.
  SmallVector<std::pair<unsigned, unsigned>> normEdges;
  /// (bytes, reader, reader) of searchable ops that read a common tensor:
  /// the first reader paired with each later one, then each later one with
  /// the one before it.
  SmallVector<std::tuple<int64_t, unsigned, unsigned>> siblings;
  llvm::EquivalenceClasses<unsigned> clusters;
};
} // namespace

BlockPartition::BlockPartition(Block &block, ArrayRef<Operation *> members)
    : block(block) {
  if (members.empty()) {
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        anchor = &op;
        continue;
      }
      index[&op] = ops.size();
      ops.push_back(&op);
    }
  } else {
    // In block order, so that ties keep it.
    ops.assign(members.begin(), members.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    anchor = ops.back()->getNextNode();
    for (auto [i, op] : llvm::enumerate(ops))
      index[op] = i;
  }
  succs.resize(ops.size());
  searchable.resize(ops.size());
  // Ops with side effects keep their order among themselves.
  std::optional<unsigned> lastEffect;
  for (auto [i, op] : llvm::enumerate(ops)) {
    searchable[i] = search::isSearchableOp(op);
    weights.push_back(getWeight(op));
    clusters.insert(i);
    llvm::SetVector<unsigned> preds;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Operation *def = v.getDefiningOp();
        auto it = def ? index.find(def) : index.end();
        if (it == index.end() || it->second == i)
          continue;
        preds.insert(it->second);
        if (nested == op && searchable[i] && searchable[it->second])
          edges.emplace_back(getBytes(v), it->second, i);
      }
    });
    if (!isMemoryEffectFree(op)) {
      if (lastEffect)
        preds.insert(*lastEffect);
      lastEffect = i;
    }
    for (unsigned p : preds)
      succs[p].push_back(i);
  }
  for (Operation *op : ops) {
    SmallVector<Operation *, 4> norm = getCentredNormOps(op);
    if (norm.empty() || !llvm::all_of(norm, [&](Operation *member) {
          auto it = index.find(member);
          return it != index.end() && searchable[it->second];
        }))
      continue;
    for (auto [producer, consumer] :
         llvm::zip(ArrayRef(norm).drop_back(), ArrayRef(norm).drop_front()))
      normEdges.emplace_back(index[producer], index[consumer]);
  }
  // Readers of each tensor, in block order (a MapVector, so the order of
  // the tensors does not depend on where they live in memory).
  llvm::MapVector<Value, SmallVector<unsigned, 2>> readers;
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (!searchable[i])
      continue;
    for (Value v : op->getOperands()) {
      SmallVector<unsigned, 2> &list = readers[v];
      if (list.empty() || list.back() != i)
        list.push_back(i);
    }
  }
  // The first reader with each later one, then each later one with the
  // one before it: where the first reader's subprogram is full, the later
  // readers may still share the tensor (the x A_1 and x A_2 of two LoRA
  // adapters, beside the full base layer x W).
  for (auto &[v, list] : readers) {
    for (unsigned later : ArrayRef(list).drop_front())
      siblings.emplace_back(getBytes(v), list.front(), later);
    for (unsigned j = 2; j < list.size(); ++j)
      siblings.emplace_back(getBytes(v), list[j - 1], list[j]);
  }
  // Largest tensor first; ties in block order, so the result is the same
  // on every run.
  auto largestFirst = [](const auto &a, const auto &b) {
    return std::get<0>(a) > std::get<0>(b);
  };
  llvm::stable_sort(edges, largestFirst);
  // Edges out of a scale of an input go last: such an op joins its reader's
  // kernel after the search anyway, and in the subprogram it takes the
  // place of an op that would cross a cut otherwise (attention's scale on
  // Q, moved there from the scores, took the division's place).
  // So do edges out of a query or key normalization (isInputHeadNorm): in
  // a safe attention with QKNorm, K's norm took the division's place, and
  // the split kernel the search then needed (11 block ops) was out of its
  // reach in 60 s.
  std::stable_partition(edges.begin(), edges.end(), [&](const auto &edge) {
    Operation *producer = ops[std::get<1>(edge)];
    return !isInputPrologue(producer) && !isInputHeadNorm(producer);
  });
  llvm::stable_sort(siblings, largestFirst);
}

SmallVector<unsigned> BlockPartition::getMembers(unsigned op) {
  SmallVector<unsigned> members(clusters.findLeader(op),
                                clusters.member_end());
  llvm::sort(members);
  return members;
}

bool BlockPartition::leavesAndReturns(const llvm::DenseSet<unsigned> &members) {
  // A path may enter another cluster at one op and leave it at another that
  // the first does not reach: the clusters are placed whole, so that still
  // orders the cluster after `members` and before them. Reaching an op
  // therefore reaches its whole cluster. (Following op edges only, two
  // convex clusters could each need the other first; the reorder then
  // left both where they were, their readers ahead of them.)
  SmallVector<unsigned> worklist;
  llvm::DenseSet<unsigned> seen;
  auto reach = [&](unsigned op) {
    if (!seen.insert(op).second)
      return;
    for (unsigned m : getMembers(op))
      if (m == op || seen.insert(m).second)
        worklist.push_back(m);
  };
  for (unsigned m : members)
    for (unsigned s : succs[m])
      if (!members.contains(s))
        reach(s);
  while (!worklist.empty()) {
    unsigned op = worklist.pop_back_val();
    for (unsigned s : succs[op]) {
      if (members.contains(s))
        return true;
      reach(s);
    }
  }
  return false;
}

bool BlockPartition::expsNoExponentValue(ArrayRef<Operation *> members) {
  llvm::DenseSet<Value> noExponent;
  for (Operation *op : members) {
    if (isa<kernel::ExpOp>(op) && noExponent.contains(op->getOperand(0)))
      return true;
    // exp has no image; LAX ops and rms_norm have one when their operands
    // do.
    if (makesExponentImage(op))
      continue;
    if (isa<kernel::ExpOp>(op) || llvm::any_of(op->getOperands(), [&](Value v) {
          return noExponent.contains(v);
        }))
      noExponent.insert(op->getResults().begin(), op->getResults().end());
  }
  return false;
}

bool BlockPartition::canJoin(unsigned a, unsigned b, unsigned maxOps) {
  SmallVector<unsigned> joined = getMembers(a);
  llvm::append_range(joined, getMembers(b));
  unsigned weight = 0;
  for (unsigned m : joined)
    weight += weights[m];
  if (weight > maxOps)
    return false;
  llvm::sort(joined);
  SmallVector<Operation *> members;
  for (unsigned m : joined)
    members.push_back(ops[m]);
  if (expsNoExponentValue(members))
    return false;
  return !leavesAndReturns(llvm::DenseSet<unsigned>(joined.begin(),
                                                    joined.end()));
}

void BlockPartition::cluster(unsigned maxOps) {
  // A LayerNorm's mean, centring and normalization first: they are one
  // kernel only together, and tried in order of size with the ops around
  // them, the rows' other readers took the centring's place (a linear
  // layer's bias and residual before the norm, the next linear after it),
  // and the mean was cut off into a kernel of its own.
  for (auto [a, b] : normEdges)
    if (!clusters.isEquivalent(a, b) && canJoin(a, b, maxOps))
      clusters.unionSets(a, b);
  for (auto pairs : {&edges, &siblings})
    for (auto [bytes, a, b] : *pairs)
      if (!clusters.isEquivalent(a, b) && canJoin(a, b, maxOps))
        clusters.unionSets(a, b);
}

SmallVector<SmallVector<Operation *>> BlockPartition::reorder() {
  // The DAG of clusters (acyclic: no join made a path leave a cluster and
  // return, counting paths through whole clusters),
  // walked in topological order, the cluster with the earliest op first,
  // which keeps the block order wherever it already has contiguous clusters.
  llvm::DenseMap<unsigned, unsigned> indegree;
  llvm::DenseMap<unsigned, SmallVector<unsigned>> clusterSuccs;
  for (unsigned i = 0; i < ops.size(); ++i) {
    unsigned from = clusters.getLeaderValue(i);
    indegree.try_emplace(from, 0);
    for (unsigned s : succs[i]) {
      unsigned to = clusters.getLeaderValue(s);
      if (to == from)
        continue;
      clusterSuccs[from].push_back(to);
      ++indegree[to];
    }
  }
  auto firstOp = [&](unsigned leader) { return getMembers(leader).front(); };
  using Entry = std::pair<unsigned, unsigned>; // (first op, leader)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (auto [leader, degree] : indegree)
    if (degree == 0)
      ready.emplace(firstOp(leader), leader);
  SmallVector<SmallVector<Operation *>> result;
  while (!ready.empty()) {
    unsigned leader = ready.top().second;
    ready.pop();
    SmallVector<unsigned> memberIds = getMembers(leader);
    SmallVector<Operation *> members;
    for (unsigned m : memberIds) {
      if (anchor)
        ops[m]->moveBefore(anchor);
      else
        ops[m]->moveBefore(&block, block.end());
      members.push_back(ops[m]);
    }
    if (searchable[memberIds.front()])
      result.push_back(std::move(members));
    for (unsigned to : clusterSuccs[leader])
      if (--indegree[to] == 0)
        ready.emplace(firstOp(to), to);
  }
  return result;
}

/// The subprogram of `ops`, with the values that flow in and out.
static Subprogram makeSubprogram(SmallVector<Operation *> ops) {
  Subprogram sub;
  sub.ops = std::move(ops);
  llvm::SmallPtrSet<Operation *, 16> members(sub.ops.begin(), sub.ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : sub.ops)
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !members.contains(def))
        inputs.insert(v);
    }
  sub.inputs.assign(inputs.begin(), inputs.end());
  for (Operation *op : sub.ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        sub.outputs.push_back(r);
  return sub;
}

SmallVector<Subprogram> mlsopt::partitionIntoSubprograms(func::FuncOp func,
                                                         unsigned maxOps) {
  SmallVector<Subprogram> subprograms;
  for (Block &block : func.getBody()) {
    BlockPartition partition(block, {});
    partition.cluster(std::max(1u, maxOps));
    for (SmallVector<Operation *> &ops : partition.reorder())
      subprograms.push_back(makeSubprogram(std::move(ops)));
  }
  return subprograms;
}

unsigned mlsopt::getSubprogramWeight(const Subprogram &sub) {
  unsigned weight = 0;
  for (Operation *op : sub.ops)
    weight += getWeight(op);
  return weight;
}

SmallVector<Subprogram> mlsopt::splitSubprogram(const Subprogram &sub,
                                                unsigned maxOps) {
  BlockPartition partition(*sub.ops.front()->getBlock(), sub.ops);
  partition.cluster(std::max(1u, maxOps));
  SmallVector<Subprogram> pieces;
  for (SmallVector<Operation *> &ops : partition.reorder())
    pieces.push_back(makeSubprogram(std::move(ops)));
  return pieces;
}
