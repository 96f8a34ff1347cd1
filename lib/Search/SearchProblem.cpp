//===- SearchProblem.cpp - A subprogram handed to the search --------------===//

#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

/// Whether converting from `from` to `to` can change a value.
static bool rounds(Type from, Type to) {
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  return !fromFloat || !toFloat ||
         !llvm::APFloat::isRepresentableBy(fromFloat.getFloatSemantics(),
                                           toFloat.getFloatSemantics());
}

bool search::isRoundingConversion(kernel::ConvertOp convert) {
  return rounds(
      cast<RankedTensorType>(convert.getInput().getType()).getElementType(),
      convert.getType().getElementType());
}

/// Whether `value`, or a conversion of it (through any chain of them), is
/// read by an op that computes with it: anything but a conversion or the
/// function's return.
static bool reachesComputation(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto next = dyn_cast<kernel::ConvertOp>(user))
        worklist.push_back(next.getResult());
      else if (!user->hasTrait<OpTrait::ReturnLike>())
        return true;
    }
  }
  return false;
}

bool search::isExplicitRounding(kernel::ConvertOp convert) {
  Value input = convert.getInput();
  Type to = convert.getType().getElementType();
  if (!isRoundingConversion(convert) ||
      !reachesComputation(convert.getResult()))
    return false;
  // Where the unrounded value is otherwise only returned, the search's
  // kernels computing from it more exactly is the policy of
  // buildSearchProblem (f16 ops computed in f32). Where the program also
  // computes with it, unrounded or rounded otherwise, it uses both values
  // (the rounding error x - q(x), a straight-through estimator), which
  // abstract expressions and the finite field cannot tell apart: the search
  // would find x - x.
  // A function argument rounded and widened again before the program
  // computes with it (a quantization-aware weight, x.half().float()) is
  // the program's own request: no op of the program computed the wider
  // value, as a front end's f16 op computed in f32 does before it rounds
  // its result for the next op to widen again.
  if (isa<BlockArgument>(input) &&
      llvm::any_of(convert->getUsers(), [](Operation *user) {
        auto widen = dyn_cast<kernel::ConvertOp>(user);
        return widen && reachesComputation(widen.getResult());
      }))
    return true;
  return llvm::any_of(input.getUsers(), [&](Operation *user) {
    if (user == convert.getOperation() || user->hasTrait<OpTrait::ReturnLike>())
      return false;
    auto other = dyn_cast<kernel::ConvertOp>(user);
    if (!other)
      return true;
    return other.getType().getElementType() != to &&
           reachesComputation(other.getResult());
  });
}

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
  // Grids, imaps and tiles map tensor dims; a rank-0 result has none. Such
  // an op keeps its default block graph, on size-1 vectors. (A rank-0
  // operand of a broadcast is aligned to the result's rank before the
  // search.)
  if (auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      !result || result.getRank() == 0)
    return false;
  // The search sees through a conversion (buildSearchProblem): the kernels
  // it builds convert as they load and store. Not through a rounding the
  // program computes with (isExplicitRounding): it stays a kernel.convert
  // between subprograms.
  if (auto convert = dyn_cast<kernel::ConvertOp>(op))
    return !isExplicitRounding(convert);
  return lookupOpKind(op->getName().stripDialect()).has_value();
}

namespace {
/// What an op operand reads: a search input (an input slot) or the result
/// of an op of the subprogram.
struct Source {
  bool isInput;
  unsigned index;
};

/// The subprogram in the search's terms: which subprogram input each
/// search input reads, and the source of every operand of every op. The
/// same subprogram input may be read by several search inputs.
struct Numbering {
  SmallVector<Value> inputValues;
  SmallVector<SmallVector<Source, 2>> operands;

  /// The search's value id of `s`: inputs first, then the ops' results.
  unsigned getId(Source s) const {
    return s.isInput ? s.index : inputValues.size() + s.index;
  }
};

/// Union-find over (value id, dim) pairs: the dims that must share an
/// extent.
struct DimUnifier {
  SmallVector<RankedTensorType> types;
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> ids;
  llvm::EquivalenceClasses<unsigned> classes;

  /// The node of dim `d` of value `v`, or nothing for a size-1 dim.
  std::optional<unsigned> node(unsigned v, unsigned d) {
    if (types[v].getDimSize(d) == 1)
      return std::nullopt;
    auto [it, inserted] = ids.try_emplace({v, d}, ids.size());
    if (inserted)
      classes.insert(it->second);
    return it->second;
  }
  void unify(unsigned a, unsigned da, unsigned b, unsigned db) {
    std::optional<unsigned> x = node(a, da), y = node(b, db);
    if (x && y)
      classes.unionSets(*x, *y);
  }
};
} // namespace

/// Records in `u` the dims of `op`'s operands (value ids `operands`) and
/// result (`r`) that must match.
static LogicalResult unifyOp(Operation *op, OpKind kind,
                             ArrayRef<unsigned> operands, unsigned r,
                             DimUnifier &u) {
  unsigned a = operands[0];
  unsigned rank = u.types[r].getRank();
  if (kind == OpKind::Matmul) {
    unsigned b = operands[1];
    for (unsigned d = 0; d + 2 < rank; ++d) {
      // The search's matmul never broadcasts a batch dim.
      if (u.types[a].getDimSize(d) != u.types[b].getDimSize(d))
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
  for (unsigned operand : operands) {
    if (u.types[operand].getRank() != rank)
      return failure();
    for (unsigned d = 0; d < rank; ++d) {
      if ((kind == OpKind::ReduceSum || kind == OpKind::ReduceMax) &&
          static_cast<int64_t>(d) ==
              op->getAttrOfType<IntegerAttr>("dim").getInt()) {
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

/// Unifies the column dims of matmuls that multiply one left operand by
/// right operands of the same shape (two projections of the same
/// activations), and the row dims of matmuls that multiply left operands of
/// the same shape by one right operand. Nothing else relates them, so a
/// grid dim could place the tiles of one product but not of the other, and
/// no kernel could compute both: two launches, each loading the shared
/// operand, where one kernel that loads it once and multiplies it by both
/// tiles costs 6.33 us against 9.77 (x [128, 2048] by two [2048, 1024]).
/// Kernels that compute one of the products are cut as before.
static void unifyGroupedMatmuls(ArrayRef<Operation *> ops,
                                const Numbering &numbering, DimUnifier &u) {
  SmallVector<std::pair<unsigned, unsigned>> matmuls; // (lhs, rhs) ids
  for (auto [i, op] : llvm::enumerate(ops))
    if (lookupOpKind(op->getName().stripDialect()) == OpKind::Matmul)
      matmuls.emplace_back(numbering.getId(numbering.operands[i][0]),
                           numbering.getId(numbering.operands[i][1]));
  for (auto [i, first] : llvm::enumerate(matmuls))
    for (auto second : ArrayRef(matmuls).drop_front(i + 1)) {
      auto [lhs, rhs] = first;
      auto [otherLhs, otherRhs] = second;
      unsigned rank = u.types[lhs].getRank();
      if (lhs == otherLhs && rhs != otherRhs &&
          u.types[rhs].getShape() == u.types[otherRhs].getShape())
        u.unify(rhs, rank - 1, otherRhs, rank - 1);
      if (rhs == otherRhs && lhs != otherLhs &&
          u.types[lhs].getShape() == u.types[otherLhs].getShape())
        u.unify(lhs, rank - 2, otherLhs, rank - 2);
    }
}

/// The f16 or bf16 type every matmul of `ops` reads both its operands in,
/// if there is one such type and a matmul at all; else null. Not f16 where
/// the ops mix element types (`mixed`): a μGraph moves a normalization or
/// scale the program computes in f32 before its rounding to after the
/// product, so its matmul would round the unnormalized value, which f16's
/// range need not hold (an f32 softmax's exp(S) for scores near 17, an
/// f32 activation near 7e4 before its rms_norm: inf where the program is
/// finite). bf16 has f32's range, and its rounding the same relative error
/// at any magnitude. A program all in f16 holds every value it forms in
/// f16.
static Type getMatmulOperandType(ArrayRef<Operation *> ops, bool mixed) {
  Type common;
  for (Operation *op : ops) {
    if (lookupOpKind(op->getName().stripDialect()) != OpKind::Matmul)
      continue;
    for (Type type : op->getOperandTypes()) {
      Type element = cast<RankedTensorType>(type).getElementType();
      if (!(element.isF16() || element.isBF16()) ||
          (common && common != element))
        return Type();
      common = element;
    }
  }
  if (mixed && common && common.isF16())
    return Type();
  return common;
}

/// The problem of `ops` read through `numbering`.
static FailureOr<SearchProblem> buildProblem(ArrayRef<Operation *> ops,
                                             const Numbering &numbering,
                                             ArrayRef<Value> outputs) {
  SearchProblem problem;
  problem.inputValues = numbering.inputValues;
  Type elementType;
  bool mixed = false;
  DimUnifier u;
  for (Value v : numbering.inputValues) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return failure();
    u.types.push_back(type);
  }
  for (Operation *op : ops) {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape())
      return failure();
    u.types.push_back(type);
  }
  for (unsigned v = 0; v < numbering.inputValues.size(); ++v)
    for (unsigned d = 0; d < u.types[v].getRank(); ++d)
      u.node(v, d);
  for (auto [i, op] : llvm::enumerate(ops)) {
    std::optional<OpKind> kind = lookupOpKind(op->getName().stripDialect());
    RankedTensorType type = u.types[numbering.inputValues.size() + i];
    if (!kind)
      return failure();
    mixed |= elementType && elementType != type.getElementType();
    if (!elementType)
      elementType = type.getElementType();
    SmallVector<unsigned> operands;
    for (Source s : numbering.operands[i])
      operands.push_back(numbering.getId(s));
    if (failed(
            unifyOp(op, *kind, operands, numbering.inputValues.size() + i, u)))
      return failure();
  }
  if (!elementType)
    return failure();
  unifyGroupedMatmuls(ops, numbering, u);
  // Ops of f16 or bf16, or of several element types, are computed in f32,
  // which holds every f16 and bf16 value exactly: each value is then at
  // least as exact as the program has it, and in range where it is. A
  // μGraph reassociates: the sum of squares of an rms_norm before its 1/n,
  // or an attention's (E V) / S for (E / S) V, exceed f16's 65504 where the
  // program's values do not (an f16 RMSNorm of activations near 10 over
  // 1024 columns gave zeros); and partial sums of a split contraction
  // rounded to bf16 lose what cancels between them (a bf16 [4, 64, 8192]
  // product split 4 ways had a relative error of 0.64 where the program's
  // was 0.004). Loads convert, and matmuls keep f16 and bf16 operands
  // narrow for the tensor cores (widening block.matmul).
  if (mixed || elementType.isF16() || elementType.isBF16())
    elementType = Float32Type::get(elementType.getContext());
  problem.shapes.elementType = elementType;
  problem.shapes.matmulType = getMatmulOperandType(ops, mixed);

  // Number the classes in order of first appearance, so that equal programs
  // get equal numberings.
  llvm::DenseMap<unsigned, int> leaderToClass;
  auto dimsOf = [&](unsigned v) -> Dims {
    RankedTensorType type = u.types[v];
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

  KernelGraph &ref = problem.reference;
  ref.numInputs = numbering.inputValues.size();
  for (unsigned i = 0; i < ref.numInputs; ++i) {
    problem.shapes.inputDims.push_back(dimsOf(i));
    problem.referenceDims.push_back(problem.shapes.inputDims.back());
  }
  llvm::SmallSetVector<OpKind, 16> vocabulary;
  llvm::SmallVector<Scalar> scalars;
  for (auto [i, op] : llvm::enumerate(ops)) {
    KernelNode node;
    node.op.kind = *lookupOpKind(op->getName().stripDialect());
    for (Source s : numbering.operands[i])
      node.op.operands.push_back(numbering.getId(s));
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
    if (auto fill = dyn_cast<kernel::TriangleFillOp>(op)) {
      Dims dims = dimsOf(numbering.getId(numbering.operands[i][0]));
      for (unsigned k = 0; k < 2; ++k) {
        node.op.triangle[k] = fill.getDims()[k];
        node.op.triangleClasses[k] = dims[fill.getDims()[k]].cls;
      }
      node.op.diagonal = fill.getDiagonal();
      node.op.scalar.literal = fill.getValue().convertToDouble();
      SOp mask = node.op;
      mask.operands.clear();
      auto same = [&](const SOp &other) { return isSameMask(other, mask); };
      if (llvm::none_of(problem.triangles, same))
        problem.triangles.push_back(mask);
    }
    if (auto norm = dyn_cast<kernel::RmsNormOp>(op)) {
      node.op.dim = norm.getNormalizedDim();
      node.op.scalar.literal = norm.getEpsilon().convertToDouble();
      Dims dims = dimsOf(numbering.getId(numbering.operands[i][0]));
      scalars.push_back(Scalar{0.0, dims[node.op.dim].cls});
      scalars.push_back(Scalar{node.op.scalar.literal, Dim::kOne});
      if (!llvm::is_contained(problem.epsilons, node.op.scalar.literal))
        problem.epsilons.push_back(node.op.scalar.literal);
      for (OpKind k : {OpKind::Square, OpKind::ReduceSum, OpKind::MulScalar,
                       OpKind::AddScalar, OpKind::Sqrt, OpKind::Div,
                       OpKind::Rsqrt, OpKind::Mul})
        vocabulary.insert(k);
    }
    problem.referenceDims.push_back(dimsOf(problem.referenceDims.size()));
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
    auto *it = llvm::find_if(
        ops, [&](Operation *op) { return op->getResult(0) == out; });
    if (it == ops.end())
      return failure();
    ref.results.push_back(ref.numInputs + (it - ops.begin()));
  }
  // A long dim the program sums over may be split across the grid
  // (flash-decoding): each block sums one chunk and a later kernel sums the
  // chunks. The chunk count is a class of its own, so the kernel that
  // splits and the kernel that combines agree on it. Chunks of about
  // kChunkExtent elements leave each block a tile a few tensor-core steps
  // long, and at most kMaxChunks keep the partial results small. The count
  // divides the extent: a decode attention over 4000 keys is cut into 10
  // chunks of 400 (15 chunks of 256 would not be whole).
  //
  // A dim the program also outputs (a softmax's row) is split only from
  // kMinOutputSplitExtent on: the kernel combining the chunks then loads its
  // tile of the row after its loop. Shorter rows fit a block, which the
  // single-kernel sweep finds at once; a block per row of 8192 or more
  // walks it with one warp per reduction, which the latency term refuses
  // where rows are few (a softmax of 8 x 8192 kept 6 launches). Its chunks
  // are longer, about kOutputChunkExtent: the combining kernel walks them
  // in every block of the row, an iteration of loads each. A softmax of 8 x
  // 8192 is 11.86 us with latency in 32 chunks, 9.08 in 16, 8.59 in 8 and
  // 10.12 in 4.
  problem.shapes.chunkOf.assign(problem.shapes.extents.size(), Dim::kOne);
  llvm::SmallSetVector<int, 4> outputClasses;
  for (unsigned r : ref.results)
    for (Dim d : problem.referenceDims[r])
      outputClasses.insert(d.cls);
  constexpr int64_t kChunkExtent = 256, kMaxChunks = 32,
                    kMinOutputSplitExtent = 8192, kOutputChunkExtent = 1024;
  for (int cls : problem.sumClasses) {
    int64_t extent = problem.shapes.extents[cls];
    bool output = outputClasses.contains(cls);
    if (output && extent < kMinOutputSplitExtent)
      continue;
    int64_t wanted = std::min(
        extent / (output ? kOutputChunkExtent : kChunkExtent), kMaxChunks);
    int64_t chunks = wanted;
    while (chunks >= 2 && extent % chunks)
      --chunks;
    // An extent no count up to the wanted one divides (4097 keys = 17 x
    // 241) takes the next count that does, up to twice the most: 17 chunks
    // of 241 rather than one block walking every key.
    if (chunks < 2 && wanted >= 2)
      for (int64_t c = wanted + 1; c <= 2 * kMaxChunks && c < extent; ++c)
        if (extent % c == 0) {
          chunks = c;
          break;
        }
    if (chunks < 2)
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

/// How many matmuls of `problem` contract a class their product also has:
/// `x W + x` with a square W makes W's rows and columns one class, which
/// no tiling can split for the product and keep whole for the sum.
static unsigned countContractionConflicts(const SearchProblem &problem) {
  unsigned conflicts = 0;
  const KernelGraph &ref = problem.reference;
  for (auto [i, node] : llvm::enumerate(ref.nodes)) {
    if (node.op.kind != OpKind::Matmul)
      continue;
    Dim k = problem.referenceDims[node.op.operands[0]].back();
    const Dims &product = problem.referenceDims[ref.numInputs + i];
    if (!k.isOne() &&
        llvm::any_of(product, [&](Dim d) { return d.cls == k.cls; }))
      ++conflicts;
  }
  return conflicts;
}

FailureOr<SearchProblem>
search::buildSearchProblem(ArrayRef<Operation *> givenOps,
                           ArrayRef<Value> inputs,
                           ArrayRef<Value> givenOutputs) {
  // Conversions are transparent: abstract expressions and the finite field
  // have no element types. An operand reads the value a chain of
  // conversions starts from, and the problem records the element types of
  // its inputs and results, which the kernels found convert from and to.
  llvm::DenseMap<Value, Value> converted;
  auto seeThrough = [&](Value v) {
    Value from = converted.lookup(v);
    return from ? from : v;
  };
  SmallVector<Operation *> ops;
  for (Operation *op : givenOps) {
    if (auto convert = dyn_cast<kernel::ConvertOp>(op))
      converted[convert.getResult()] = seeThrough(convert.getInput());
    else
      ops.push_back(op);
  }
  // The element type the ops read each value in, after its conversions;
  // null where they read it in several.
  llvm::DenseMap<Value, Type> readTypes;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Type type = cast<RankedTensorType>(operand.getType()).getElementType();
      auto [it, inserted] = readTypes.try_emplace(seeThrough(operand), type);
      if (!inserted && it->second != type)
        it->second = Type();
    }
  // A value returned in two types is two results of one value, which the
  // kernel that computes it stores twice.
  SmallVector<Value> outputs;
  for (Value out : givenOutputs)
    outputs.push_back(seeThrough(out));

  Numbering numbering;
  numbering.inputValues.assign(inputs.begin(), inputs.end());
  llvm::DenseMap<Value, Source> sources;
  for (auto [i, v] : llvm::enumerate(inputs))
    sources.try_emplace(v, Source{true, static_cast<unsigned>(i)});
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (op->getNumResults() != 1)
      return failure();
    auto &operands = numbering.operands.emplace_back();
    for (Value operand : op->getOperands()) {
      auto it = sources.find(seeThrough(operand));
      if (it == sources.end())
        return failure();
      operands.push_back(it->second);
    }
    sources[op->getResult(0)] = Source{false, static_cast<unsigned>(i)};
  }
  FailureOr<SearchProblem> problem = buildProblem(ops, numbering, outputs);
  if (failed(problem))
    return failure();

  // An input that ops read in tilings no kernel can share (a residual
  // x W + x, or x * sigmoid(x W): x's columns are W's rows for the product
  // and the product's columns for the sum) is read by one search input per
  // tiling. Each input read more than once is tried split: each read with
  // an input of its own, then joined greedily, in program order, to the
  // first earlier group it can join without a conflict coming back. The
  // split is kept if fewer matmuls contract a class of their product.
  // Reads that agree (a gated MLP's two products of x) stay one input,
  // which a kernel loads once.
  unsigned conflicts = countContractionConflicts(*problem);
  for (unsigned input = 0; input < inputs.size() && conflicts; ++input) {
    // The operands that read `input`, as (op, operand) positions.
    SmallVector<std::pair<unsigned, unsigned>> reads;
    for (auto [i, operands] : llvm::enumerate(numbering.operands))
      for (auto [j, s] : llvm::enumerate(operands))
        if (s.isInput && s.index == input)
          reads.push_back({static_cast<unsigned>(i), static_cast<unsigned>(j)});
    if (reads.size() < 2)
      continue;
    // Every read but the first apart, on inputs appended in order.
    Numbering split = numbering;
    for (auto [op, operand] : ArrayRef(reads).drop_front()) {
      split.operands[op][operand].index = split.inputValues.size();
      split.inputValues.push_back(inputs[input]);
    }
    FailureOr<SearchProblem> apart = buildProblem(ops, split, outputs);
    if (failed(apart))
      continue;
    unsigned floor = countContractionConflicts(*apart);
    if (floor >= conflicts)
      continue;
    // The inputs of the groups so far: `input` for the first read's.
    SmallVector<unsigned> groups = {input};
    for (auto [op, operand] : ArrayRef(reads).drop_front()) {
      Source &s = split.operands[op][operand];
      unsigned own = s.index;
      bool joined = false;
      for (unsigned g : groups) {
        s.index = g;
        FailureOr<SearchProblem> tried = buildProblem(ops, split, outputs);
        if (succeeded(tried) && countContractionConflicts(*tried) <= floor) {
          joined = true;
          break;
        }
      }
      if (!joined) {
        s.index = own;
        groups.push_back(own);
      }
    }
    // Renumber the inputs the groups kept: appended in order, no gaps.
    Numbering grouped = numbering;
    for (auto [op, operand] : reads) {
      unsigned g = split.operands[op][operand].index;
      unsigned rank = llvm::find(groups, g) - groups.begin();
      if (rank == 0)
        continue;
      grouped.operands[op][operand].index =
          numbering.inputValues.size() + rank - 1;
    }
    for (unsigned g = 1; g < groups.size(); ++g)
      grouped.inputValues.push_back(inputs[input]);
    FailureOr<SearchProblem> candidate = buildProblem(ops, grouped, outputs);
    if (failed(candidate))
      continue;
    conflicts = countContractionConflicts(*candidate);
    numbering = std::move(grouped);
    problem = std::move(candidate);
  }

  auto getElementType = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType();
  };
  ShapeContext &shapes = problem->shapes;
  auto getReadType = [&](Value v) {
    Type type = readTypes.lookup(v);
    return type ? type : getElementType(v);
  };
  if (llvm::any_of(problem->inputValues, [&](Value v) {
        return getReadType(v) != getElementType(v);
      }))
    llvm::append_range(shapes.readTypes,
                       llvm::map_range(problem->inputValues, getReadType));
  if (llvm::any_of(
          problem->inputValues,
          [&](Value v) { return getElementType(v) != shapes.elementType; }) ||
      llvm::any_of(givenOutputs, [&](Value v) {
        return getElementType(v) != shapes.elementType;
      })) {
    llvm::append_range(shapes.inputTypes,
                       llvm::map_range(problem->inputValues, getElementType));
    llvm::append_range(shapes.resultTypes,
                       llvm::map_range(givenOutputs, getElementType));
  }
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
