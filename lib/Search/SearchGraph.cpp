//===- SearchGraph.cpp - The search's compact form of a μGraph ------------===//

#include "mlsopt/Search/SearchGraph.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

//===----------------------------------------------------------------------===//
// Op kinds
//===----------------------------------------------------------------------===//

StringRef search::getMnemonic(OpKind kind) {
  switch (kind) {
  case OpKind::Matmul:
    return "matmul";
  case OpKind::Add:
    return "add";
  case OpKind::Sub:
    return "sub";
  case OpKind::Mul:
    return "mul";
  case OpKind::Div:
    return "div";
  case OpKind::Max:
    return "max";
  case OpKind::Min:
    return "min";
  case OpKind::Exp:
    return "exp";
  case OpKind::Log:
    return "log";
  case OpKind::Sqrt:
    return "sqrt";
  case OpKind::Rsqrt:
    return "rsqrt";
  case OpKind::Square:
    return "square";
  case OpKind::Silu:
    return "silu";
  case OpKind::Sigmoid:
    return "sigmoid";
  case OpKind::Gelu:
    return "gelu";
  case OpKind::Relu:
    return "relu";
  case OpKind::Tanh:
    return "tanh";
  case OpKind::Erf:
    return "erf";
  case OpKind::Neg:
    return "neg";
  case OpKind::GeluTanh:
    return "gelu_tanh";
  case OpKind::Sin:
    return "sin";
  case OpKind::Cos:
    return "cos";
  case OpKind::Log1p:
    return "log1p";
  case OpKind::Softplus:
    return "softplus";
  case OpKind::Floor:
    return "floor";
  case OpKind::Ceil:
    return "ceil";
  case OpKind::Round:
    return "round";
  case OpKind::MulScalar:
    return "mul_scalar";
  case OpKind::AddScalar:
    return "add_scalar";
  case OpKind::MaxScalar:
    return "max_scalar";
  case OpKind::MinScalar:
    return "min_scalar";
  case OpKind::ReduceSum:
    return "reduce_sum";
  case OpKind::ReduceMax:
    return "reduce_max";
  case OpKind::RmsNorm:
    return "rms_norm";
  case OpKind::TriangleFill:
    return "triangle_fill";
  case OpKind::Transpose:
    return "transpose";
  }
  llvm_unreachable("unknown op kind");
}

std::optional<OpKind> search::lookupOpKind(StringRef mnemonic) {
  for (unsigned i = 0; i <= static_cast<unsigned>(OpKind::Transpose); ++i)
    if (getMnemonic(static_cast<OpKind>(i)) == mnemonic)
      return static_cast<OpKind>(i);
  return std::nullopt;
}

bool search::isBinaryKind(OpKind kind) {
  return kind == OpKind::Add || kind == OpKind::Sub || kind == OpKind::Mul ||
         kind == OpKind::Div || kind == OpKind::Max || kind == OpKind::Min;
}

bool search::isScalarKind(OpKind kind) {
  return kind == OpKind::MulScalar || kind == OpKind::AddScalar ||
         kind == OpKind::MaxScalar || kind == OpKind::MinScalar;
}

bool search::isUnaryKind(OpKind kind) {
  return kind >= OpKind::Exp && kind <= OpKind::Round;
}

bool search::isCommutativeKind(OpKind kind) {
  return kind == OpKind::Add || kind == OpKind::Mul;
}

bool search::isSameMask(const SOp &a, const SOp &b) {
  // Bitwise: -inf and NaN fills are told apart, and compare equal to
  // themselves.
  return a.triangle == b.triangle && a.triangleClasses == b.triangleClasses &&
         a.diagonal == b.diagonal &&
         llvm::bit_cast<uint64_t>(a.scalar.literal) ==
             llvm::bit_cast<uint64_t>(b.scalar.literal);
}

bool search::isTriangleApplicable(const SOp &op, const Dims &dims) {
  for (unsigned i = 0; i < 2; ++i) {
    int64_t d = op.triangle[i];
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) ||
        dims[d].isChunked() || dims[d].cls != op.triangleClasses[i])
      return false;
  }
  return op.triangle[0] != op.triangle[1];
}

double Scalar::getValue(ArrayRef<int64_t> extents) const {
  if (reciprocalOf == Dim::kOne)
    return literal;
  return 1.0 / static_cast<double>(extents[reciprocalOf]);
}

std::optional<unsigned> Layout::getGridDimOf(int cls) const {
  if (cls == Dim::kOne)
    return std::nullopt;
  if (cls == splitClass && splitGridDim >= 0)
    return splitGridDim;
  for (unsigned g = 0; g < 3; ++g)
    if (gridClass[g] == cls)
      return g;
  return std::nullopt;
}

unsigned Layout::getNumGridDims() const {
  return llvm::count_if(gridClass, [](int c) { return c != Dim::kOne; });
}

unsigned KernelGraph::getNumValues() const {
  unsigned n = numInputs;
  for (const KernelNode &node : nodes)
    n += getNumResults(node);
  return n;
}

//===----------------------------------------------------------------------===//
// Dims
//===----------------------------------------------------------------------===//

std::optional<Dims> search::inferDims(const SOp &op,
                                      ArrayRef<const Dims *> operands) {
  const Dims &a = *operands[0];
  if (op.kind == OpKind::Matmul) {
    const Dims &b = *operands[1];
    size_t rank = a.size();
    if (rank < 2 || b.size() != rank)
      return std::nullopt;
    for (size_t d = 0; d + 2 < rank; ++d)
      if (a[d] != b[d])
        return std::nullopt;
    if (a[rank - 1] != b[rank - 2] || a[rank - 1].isChunked())
      return std::nullopt;
    Dims result(a.begin(), a.end() - 1);
    result.push_back(b[rank - 1]);
    return result;
  }
  if (isBinaryKind(op.kind)) {
    const Dims &b = *operands[1];
    if (a.size() != b.size())
      return std::nullopt;
    Dims result;
    for (auto [x, y] : llvm::zip_equal(a, b)) {
      if (x == y || y.isOne())
        result.push_back(x);
      else if (x.isOne())
        result.push_back(y);
      else
        return std::nullopt;
    }
    return result;
  }
  if (op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMax) {
    if (op.dim < 0 || op.dim >= static_cast<int64_t>(a.size()) ||
        a[op.dim].isOne() || a[op.dim].isChunked())
      return std::nullopt;
    Dims result = a;
    result[op.dim] = Dim();
    return result;
  }
  if (op.kind == OpKind::RmsNorm) {
    if (op.dim < 0 || op.dim >= static_cast<int64_t>(a.size()) ||
        a[op.dim].isOne() || a[op.dim].isChunked())
      return std::nullopt;
    return a;
  }
  if (op.kind == OpKind::TriangleFill) {
    if (!isTriangleApplicable(op, a))
      return std::nullopt;
    return a;
  }
  if (op.kind == OpKind::Transpose) {
    if (op.permutation.size() != a.size())
      return std::nullopt;
    Dims result;
    for (int64_t p : op.permutation)
      result.push_back(a[p]);
    return result;
  }
  return a;
}

/// Appends to `dims` the results of `ops` over `dims`; false if one does
/// not type-check.
static bool appendOpDims(ArrayRef<SOp> ops, SmallVectorImpl<Dims> &dims) {
  for (const SOp &op : ops) {
    SmallVector<const Dims *> operands;
    for (unsigned v : op.operands)
      operands.push_back(&dims[v]);
    std::optional<Dims> result = inferDims(op, operands);
    if (!result)
      return false;
    dims.push_back(std::move(*result));
  }
  return true;
}

bool Layout::walks(Dim d) const {
  if (loopClass == Dim::kOne)
    return false;
  return d.isChunked() ? d.chunks == loopClass : d.cls == loopClass;
}

/// The masks among `ops` (numbered after `numLeading` other values) applied
/// to another mask's result with a mask that no mask below them in that
/// chain applies. A band (a sliding window with its causal edge) is such a
/// chain, and one element-wise select in the generated code; counted as one
/// op, it fits the default `max-block-ops`. Each mask of a chain differs
/// from those below it and the program has finitely many, so chains stay
/// bounded even with abstract pruning off.
static unsigned countChainedMasks(ArrayRef<SOp> ops, unsigned numLeading) {
  auto maskBelow = [&](const SOp &op) -> const SOp * {
    unsigned v = op.operands[0];
    if (v < numLeading || ops[v - numLeading].kind != OpKind::TriangleFill)
      return nullptr;
    return &ops[v - numLeading];
  };
  unsigned chained = 0;
  for (const SOp &op : ops) {
    if (op.kind != OpKind::TriangleFill || !maskBelow(op))
      continue;
    bool repeats = false;
    for (const SOp *below = maskBelow(op); below && !repeats;
         below = maskBelow(*below))
      repeats = isSameMask(op, *below);
    if (!repeats)
      ++chained;
  }
  return chained;
}

bool search::readsInputWithOp(ArrayRef<SOp> body, const SOp &op, unsigned input,
                              unsigned numInputs) {
  if (op.kind == OpKind::Transpose)
    return true;
  if (!isBinaryKind(op.kind) || op.operands.size() != 2)
    return false;
  unsigned other = op.operands[0] == input ? op.operands[1] : op.operands[0];
  if (other == input || other < numInputs)
    return false;
  // A matmul's tile, or a scale of it.
  const SOp *def = &body[other - numInputs];
  if ((def->kind == OpKind::MulScalar || def->kind == OpKind::AddScalar) &&
      def->operands[0] >= numInputs)
    def = &body[def->operands[0] - numInputs];
  return def->kind == OpKind::Matmul;
}

/// How many reads of each input the ops of a body make, and the last op
/// that reads it.
namespace {
struct InputReaders {
  SmallVector<unsigned> count;
  SmallVector<const SOp *> last;
};
} // namespace

static InputReaders getInputReaders(ArrayRef<SOp> body, unsigned numInputs) {
  InputReaders readers{SmallVector<unsigned>(numInputs, 0),
                       SmallVector<const SOp *>(numInputs, nullptr)};
  for (const SOp &op : body)
    for (unsigned v : op.operands)
      if (v < numInputs) {
        ++readers.count[v];
        readers.last[v] = &op;
      }
  return readers;
}

/// The inputs whose one reader takes them as part of its own op
/// (readsInputWithOp), counted with it: such a load adds no computation of
/// its own, and counting it left a masked attention (a mask input and its
/// add) two ops past the default `max-block-ops`. A tile the loop
/// accumulates as loaded is read by no op, and its load counts.
static unsigned countLoadsReadWithOneOp(ArrayRef<SOp> body,
                                        ArrayRef<Accum> accums,
                                        unsigned numInputs,
                                        const InputReaders &bodyReaders) {
  SmallVector<unsigned> readers = bodyReaders.count;
  ArrayRef<const SOp *> reader = bodyReaders.last;
  for (const Accum &acc : accums)
    if (acc.value < numInputs)
      readers[acc.value] += 2;
  unsigned count = 0;
  for (unsigned i = 0; i < numInputs; ++i) {
    if (readers[i] != 1 || !readsInputWithOp(body, *reader[i], i, numInputs))
      continue;
    // An elementwise reader (a bias, an additive mask on the scores) counts
    // nothing either, as the partition counts a mask on the scores: a
    // masked attention whose probabilities are divided before their
    // product by V (where there are no more keys than the head dim) was
    // 12 block ops, one past the default, and the search kept it as ten
    // launches. Each input has one such reader, so the body stays bounded.
    count += reader[i]->kind == OpKind::Transpose ? 1 : 2;
  }
  return count;
}

/// The causal fills of `body` applied to scores masked with an input that
/// counts with its reader (countLoadsReadWithOneOp): a padding mask and a
/// causal one on the same scores are one select in the generated code.
/// Counted, a scaled, padded causal attention whose probabilities are
/// divided before their product by V (no more keys than the head dim) was
/// 12 block ops, one past the default, and took 8 launches. A fill of a
/// fill is left to countChainedMasks; the masked scores' op has one input,
/// read by it alone, so each masked tile adds at most one such fill.
static unsigned countCausalFillsOfMaskedScores(ArrayRef<SOp> body,
                                               unsigned numInputs,
                                               ArrayRef<unsigned> readers) {
  unsigned count = 0;
  for (const SOp &op : body) {
    if (op.kind != OpKind::TriangleFill || op.operands[0] < numInputs)
      continue;
    const SOp &masked = body[op.operands[0] - numInputs];
    if (!isBinaryKind(masked.kind) || masked.operands.size() != 2)
      continue;
    if (llvm::any_of(masked.operands, [&](unsigned v) {
          return v < numInputs && readers[v] == 1 &&
                 readsInputWithOp(body, masked, v, numInputs);
        }))
      ++count;
  }
  return count;
}

unsigned BlockGraph::getNumBlockOps() const {
  // Each maximum that a body op subtracts from the values it was taken over
  // counts once, with its subtraction. Not counting the subtraction instead
  // would let x - max(x), max of that, and so on grow without end.
  unsigned numInputs = inputs.size();
  llvm::SmallBitVector stabilizing(body.size());
  for (const SOp &op : body) {
    if (op.kind != OpKind::Sub || op.operands[1] < numInputs)
      continue;
    unsigned m = op.operands[1] - numInputs;
    if (body[m].kind == OpKind::ReduceMax &&
        body[m].operands[0] == op.operands[0])
      stabilizing.set(m);
  }
  InputReaders readers = getInputReaders(body, numInputs);
  return numInputs - countLoadsReadWithOneOp(body, accums, numInputs, readers) +
         body.size() - stabilizing.count() -
         countChainedMasks(body, numInputs) -
         countCausalFillsOfMaskedScores(body, numInputs, readers.count) +
         post.size() - countChainedMasks(post, accums.size()) + stores.size();
}

Dims search::getAccumulatedDims(const Layout &layout, const Dims &dims) {
  Dims result = dims;
  for (Dim &d : result)
    if (d.isChunked() && d.chunks == layout.loopClass)
      d = Dim{d.cls, false, Dim::kOne};
  return result;
}

std::optional<Dims> search::getStoredDims(const Layout &layout,
                                          const Dims &dims) {
  if (!layout.splitsReduction() ||
      llvm::any_of(dims, [&](Dim d) {
        return !d.isChunked() && d.cls == layout.splitClass;
      }))
    return dims;
  if (dims.empty())
    return std::nullopt;
  Dims result = dims;
  Dim &last = result.back();
  if (last.isChunked() || last.loopSplit ||
      (last.cls != Dim::kOne && layout.getGridDimOf(last.cls)))
    return std::nullopt;
  last.chunks = layout.gridClass[layout.splitGridDim];
  return result;
}

std::optional<BlockGraphDims>
search::inferBlockGraphDims(const BlockGraph &bg, ArrayRef<Dims> inputDims) {
  BlockGraphDims dims;
  for (const Dims &input : inputDims) {
    Dims tile = input;
    for (Dim &d : tile)
      d.loopSplit = bg.layout.walks(d);
    dims.body.push_back(std::move(tile));
  }
  if (!appendOpDims(bg.body, dims.body))
    return std::nullopt;
  for (const Accum &acc : bg.accums)
    dims.post.push_back(getAccumulatedDims(bg.layout, dims.body[acc.value]));
  if (!appendOpDims(bg.post, dims.post))
    return std::nullopt;
  return dims;
}

std::optional<SmallVector<Dims>>
search::inferKernelGraphDims(const KernelGraph &graph,
                             ArrayRef<Dims> inputDims) {
  SmallVector<Dims> dims(inputDims.begin(), inputDims.end());
  for (const KernelNode &node : graph.nodes) {
    if (!node.isCustom()) {
      SmallVector<const Dims *> operands;
      for (unsigned v : node.op.operands)
        operands.push_back(&dims[v]);
      std::optional<Dims> result = inferDims(node.op, operands);
      if (!result)
        return std::nullopt;
      dims.push_back(std::move(*result));
      continue;
    }
    // A custom kernel's outputs are its stored tiles with the grid's cuts
    // undone, so they have the tiles' classes.
    const BlockGraph &bg = graph.customs[node.custom];
    SmallVector<Dims> inputDims;
    for (unsigned in : bg.inputs)
      inputDims.push_back(dims[in]);
    std::optional<BlockGraphDims> blockDims =
        inferBlockGraphDims(bg, inputDims);
    if (!blockDims)
      return std::nullopt;
    SmallVector<Dims> &postDims = blockDims->post;
    for (unsigned s : bg.stores) {
      std::optional<Dims> stored = getStoredDims(bg.layout, postDims[s]);
      if (!stored)
        return std::nullopt;
      dims.push_back(std::move(*stored));
    }
  }
  return dims;
}

SmallVector<Type, 1> search::getStoredTypes(const KernelGraph &graph,
                                            const ShapeContext &shapes,
                                            unsigned value) {
  SmallVector<Type, 1> types;
  for (auto [index, r] : llvm::enumerate(graph.results))
    if (r == value && !llvm::is_contained(types, shapes.getResultType(index)))
      types.push_back(shapes.getResultType(index));
  if (types.empty())
    types.push_back(shapes.elementType);
  return types;
}

Type search::getValueElementType(const KernelGraph &graph,
                                 const ShapeContext &shapes, unsigned value) {
  if (value < graph.numInputs)
    return shapes.getInputType(value);
  unsigned next = graph.numInputs;
  for (const KernelNode &node : graph.nodes) {
    unsigned count = graph.getNumResults(node);
    if (value < next + count)
      return node.isCustom() ? getStoredTypes(graph, shapes, value).front()
                             : shapes.elementType;
    next += count;
  }
  return shapes.elementType;
}

Type search::getValueReadType(const KernelGraph &graph,
                              const ShapeContext &shapes, unsigned value) {
  return value < graph.numInputs ? shapes.getReadType(value) : Type();
}

unsigned ShapeContext::getMinElementBytes() const {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  for (Type type : llvm::concat<const Type>(inputTypes, resultTypes))
    bits = std::min(bits, type.getIntOrFloatBitWidth());
  return bits / 8;
}

int64_t search::getExtent(Dim dim, ArrayRef<int64_t> extents,
                          const Layout *layout) {
  int64_t extent = dim.cls == Dim::kOne ? 1 : extents[dim.cls];
  if (dim.isChunked())
    extent *= extents[dim.chunks];
  if (!layout)
    return extent;
  // The grid never cuts a chunked dim: a for-loop walks its chunks. A grid
  // size that does not divide the extent cuts it raggedly, in the smallest
  // tiles that cover it (gridTileSize).
  if (std::optional<unsigned> g = layout->getGridDimOf(dim.cls);
      g && !dim.isChunked())
    extent = gridTileSize(extent, layout->gridSize[*g]);
  if (dim.loopSplit)
    extent /= layout->iterations;
  return extent;
}

//===----------------------------------------------------------------------===//
// Materialization
//===----------------------------------------------------------------------===//

namespace {
/// Where a tile of some dims sits in its tensor: the tile dim each grid dim
/// splits (-1: none), and the one the for-loop walks.
struct TilePlacement {
  std::array<int64_t, 3> imap = {-1, -1, -1};
  std::optional<int64_t> fmap;
};

/// The placement of a tile of `dims` under `layout`: each grid dim splits
/// the first dim of its class, and inside the for-loop (`inLoop`) the loop
/// walks the first dim it walks. The imaps and fmaps of the loads.
TilePlacement getTilePlacement(const Dims &dims, const Layout &layout,
                               bool inLoop) {
  TilePlacement place;
  for (auto [index, d] : llvm::enumerate(dims))
    if (std::optional<unsigned> g = layout.getGridDimOf(d.cls);
        g && !d.isChunked() && place.imap[*g] < 0)
      place.imap[*g] = index;
  if (inLoop)
    for (auto [index, d] : llvm::enumerate(dims))
      if (layout.walks(d)) {
        place.fmap = index;
        break;
      }
  return place;
}

/// Builds the ops of one graph; `layout` is set inside a block graph.
struct Materializer {
  Materializer(OpBuilder &b, Location loc, const ShapeContext &shapes)
      : b(b), loc(loc), shapes(shapes) {}

  OpBuilder &b;
  Location loc;
  const ShapeContext &shapes;

  RankedTensorType getType(const Dims &dims, const Layout *layout,
                           Type elementType = {}) {
    SmallVector<int64_t> shape;
    for (Dim d : dims)
      shape.push_back(getExtent(d, shapes.extents, layout));
    return RankedTensorType::get(shape, elementType ? elementType
                                                    : shapes.elementType);
  }

  /// `value` with element type `elementType`: itself, or a kernel.convert
  /// of it (one per value and type), appended to `built`.
  Value convertTo(Value value, Type elementType,
                  SmallVectorImpl<Operation *> &built) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == elementType)
      return value;
    Value &converted = conversions[{value, elementType}];
    if (!converted) {
      converted =
          kernel::ConvertOp::create(b, loc, type.clone(elementType), value);
      built.push_back(converted.getDefiningOp());
    }
    return converted;
  }
  llvm::DenseMap<std::pair<Value, Type>, Value> conversions;

  /// One pre-defined kernel op or block compute op. A block op's operand
  /// tile has `operandDims` under `layout`, inside the for-loop when
  /// `inLoop`.
  Value buildOp(StringRef dialect, const SOp &op, ValueRange operands,
                RankedTensorType type, const Dims *operandDims = nullptr,
                const Layout *layout = nullptr, bool inLoop = false) {
    OperationState state(loc, (dialect + "." + getMnemonic(op.kind)).str());
    state.addOperands(operands);
    state.addTypes(type);
    switch (op.kind) {
    case OpKind::TriangleFill:
      state.addAttribute("dims", b.getDenseI64ArrayAttr(op.triangle));
      state.addAttribute("diagonal", b.getI64IntegerAttr(op.diagonal));
      state.addAttribute("value", b.getF64FloatAttr(op.scalar.literal));
      // A tile sits in the masked tensor as a load of a tensor of its dims
      // would: the layout cuts every value the same way.
      if (layout) {
        TilePlacement place = getTilePlacement(*operandDims, *layout, inLoop);
        state.addAttribute(
            "imap", block::DimMapAttr::get(b.getContext(), place.imap[0],
                                           place.imap[1], place.imap[2]));
        if (place.fmap)
          state.addAttribute("fmap", b.getI64IntegerAttr(*place.fmap));
      }
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      state.addAttribute("dim", b.getI64IntegerAttr(op.dim));
      break;
    case OpKind::MulScalar:
    case OpKind::AddScalar:
    case OpKind::MaxScalar:
    case OpKind::MinScalar:
      state.addAttribute("scalar",
                         b.getF64FloatAttr(op.scalar.getValue(shapes.extents)));
      break;
    case OpKind::RmsNorm:
      state.addAttribute("epsilon", b.getF64FloatAttr(op.scalar.literal));
      // The last dim is the default, left out as the op's builder does.
      if (op.dim != type.getRank() - 1)
        state.addAttribute("dim", b.getI64IntegerAttr(op.dim));
      break;
    case OpKind::Transpose:
      state.addAttribute("permutation",
                         b.getDenseI64ArrayAttr(op.permutation));
      break;
    default:
      break;
    }
    return b.create(state)->getResult(0);
  }

  /// The operands of a block.matmul, each in the type the program
  /// multiplies in (shapes.matmulType): an f32 tile rounded to it, once
  /// per tile, where both operands are that type or f32. `operands` as they
  /// are where the program has no such type.
  SmallVector<Value> getMatmulOperands(ValueRange operands) {
    Type to = shapes.matmulType;
    auto fits = [&](Value v) {
      Type element = cast<RankedTensorType>(v.getType()).getElementType();
      return element == to || element.isF32();
    };
    if (!to || !llvm::all_of(operands, fits))
      return SmallVector<Value>(operands);
    return llvm::map_to_vector(operands, [&](Value v) { return roundTile(v); });
  }

  /// `tile` rounded to shapes.matmulType with block.convert. A transposed
  /// view is rounded before it is transposed, so that it stays a view the
  /// matmul reads in place; the f32 view is erased once nothing reads it.
  Value roundTile(Value tile) {
    auto type = cast<RankedTensorType>(tile.getType());
    if (type.getElementType() == shapes.matmulType)
      return tile;
    if (Value rounded = roundedTiles.lookup(tile))
      return rounded;
    Value rounded;
    if (auto transpose = tile.getDefiningOp<block::TransposeOp>()) {
      rounded =
          block::TransposeOp::create(b, loc, roundTile(transpose.getInput()),
                                     transpose.getPermutationAttr());
      replacedViews.push_back(transpose);
    } else {
      rounded =
          block::ConvertOp::create(b, loc, type.clone(shapes.matmulType), tile);
    }
    roundedTiles[tile] = rounded;
    return rounded;
  }
  llvm::DenseMap<Value, Value> roundedTiles;
  SmallVector<block::TransposeOp> replacedViews;

  /// Erases the f32 views roundTile replaced that nothing reads.
  void eraseReplacedViews() {
    for (block::TransposeOp view : llvm::reverse(replacedViews))
      if (view->use_empty()) {
        roundedTiles.erase(view.getResult());
        view->erase();
      }
    replacedViews.clear();
  }

  /// Builds custom kernel `bg` on `inputs`. Store `s` writes one output
  /// per element type in `storeTypes[s]` (converting to each), the first
  /// of them among the first bg.stores.size() results, the others after.
  FailureOr<SmallVector<Value>>
  buildCustom(const BlockGraph &bg, ValueRange inputs, ArrayRef<Dims> inputDims,
              ArrayRef<Type> readTypes,
              ArrayRef<SmallVector<Type, 1>> storeTypes);

  /// A block.load of `source` (of `dims`) as a tile of `tileDims`, in the
  /// loop or after it.
  Value buildLoad(Value source, const Dims &dims, const Dims &tileDims,
                  const Layout &layout, bool inLoop, Type elementType = {}) {
    MLIRContext *ctx = b.getContext();
    TilePlacement place = getTilePlacement(dims, layout, inLoop);
    IntegerAttr fmap;
    if (place.fmap)
      fmap = b.getI64IntegerAttr(*place.fmap);
    auto imap = block::DimMapAttr::get(ctx, place.imap[0], place.imap[1],
                                       place.imap[2]);
    return block::LoadOp::create(
        b, loc, getType(tileDims, &layout, elementType), source, imap, fmap);
  }
};

/// The element type each load of `bg` (on `inputs`) keeps its input's f16
/// or bf16 in, where the graph computes in f32: a load that only matmuls
/// read, directly or through transposes (a weight stored [n, k], as torch's
/// linear layers keep it), each with another such tile of the same type
/// (or, where the program multiplies in `matmulType`, with a tile the
/// kernel rounds to it), is multiplied as it is (a widening block.matmul, on
/// the tensor cores at the narrow type's rate and in half the shared memory).
/// The narrow type is the one the program's ops read the input in (`readTypes`,
/// null for an intermediate: an f32 activation it rounds to bf16 for the
/// product is loaded rounded, as it is), else the input's own. Null: the
/// graph's type.
static SmallVector<Type> getNarrowLoadTypes(const BlockGraph &bg,
                                            ValueRange inputs,
                                            ArrayRef<Type> readTypes,
                                            Type elementType, Type matmulType) {
  unsigned numInputs = bg.inputs.size();
  SmallVector<Type> narrow(numInputs);
  if (!elementType.isF32())
    return narrow;
  // The input a body value is a transposed view of (or is), if any.
  SmallVector<std::optional<unsigned>> loadOf(numInputs + bg.body.size());
  for (unsigned i = 0; i < numInputs; ++i)
    loadOf[i] = i;
  for (auto [index, op] : llvm::enumerate(bg.body))
    if (op.kind == OpKind::Transpose)
      loadOf[numInputs + index] = loadOf[op.operands[0]];
  auto isNarrow = [](Type type) {
    return type && (type.isF16() || type.isBF16());
  };
  for (unsigned i = 0; i < numInputs; ++i) {
    Type type = readTypes[i];
    if (!isNarrow(type))
      type = cast<RankedTensorType>(inputs[i].getType()).getElementType();
    if (!isNarrow(type))
      continue;
    auto isView = [&](unsigned v) { return loadOf[v] == i; };
    bool accumulated = llvm::any_of(
        bg.accums, [&](const Accum &acc) { return isView(acc.value); });
    bool onlyMatmuls = llvm::all_of(bg.body, [&](const SOp &op) {
      return op.kind == OpKind::Matmul || op.kind == OpKind::Transpose ||
             llvm::none_of(op.operands, isView);
    });
    if (!accumulated && onlyMatmuls)
      narrow[i] = type;
  }
  // Both operands of a matmul of one type, or neither narrow. Where the
  // program multiplies in `matmulType`, an operand that is no narrow load
  // is rounded to it (Materializer::getMatmulOperands).
  auto typeOf = [&](unsigned v) {
    Type type = loadOf[v] ? narrow[*loadOf[v]] : Type();
    return type ? type : matmulType;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const SOp &op : bg.body) {
      if (op.kind != OpKind::Matmul ||
          typeOf(op.operands[0]) == typeOf(op.operands[1]))
        continue;
      for (unsigned v : op.operands)
        if (typeOf(v)) {
          narrow[*loadOf[v]] = Type();
          changed = true;
        }
    }
  }
  return narrow;
}
} // namespace

/// Whether every cut of `dims` under `layout` exists at these extents: the
/// grid's give every block an element (a ragged cut's last tile runs past
/// the end, see isGridTile), the loop's are exact.
static bool hasEveryCut(const Dims &dims, ArrayRef<int64_t> extents,
                        const Layout &layout) {
  for (Dim d : dims) {
    if (d.isOne())
      continue;
    int64_t extent = getExtent(d, extents);
    if (std::optional<unsigned> g = layout.getGridDimOf(d.cls);
        g && !d.isChunked()) {
      int64_t tile = gridTileSize(extent, layout.gridSize[*g]);
      if (!isGridTile(tile, extent, layout.gridSize[*g]))
        return false;
      extent = tile;
    }
    if (d.loopSplit && extent % layout.iterations)
      return false;
  }
  return true;
}

FailureOr<SmallVector<Value>>
Materializer::buildCustom(const BlockGraph &bg, ValueRange inputs,
                          ArrayRef<Dims> inputDims, ArrayRef<Type> readTypes,
                          ArrayRef<SmallVector<Type, 1>> storeTypes) {
  MLIRContext *ctx = b.getContext();
  const Layout &layout = bg.layout;

  // Tile dims of every body and epilogue value.
  std::optional<BlockGraphDims> blockDims = inferBlockGraphDims(bg, inputDims);
  if (!blockDims)
    return failure();
  for (unsigned i = 0; i < bg.inputs.size(); ++i)
    if (!hasEveryCut(blockDims->body[i], shapes.extents, layout))
      return failure();
  SmallVector<Dims> &bodyDims = blockDims->body;
  SmallVector<Dims> &postDims = blockDims->post;

  // Outputs in store order, then the second types of stores.
  SmallVector<Type> outputTypes;
  SmallVector<Dims> storedDims;
  SmallVector<unsigned> storeOf;
  for (auto [index, s] : llvm::enumerate(bg.stores)) {
    std::optional<Dims> stored = getStoredDims(layout, postDims[s]);
    if (!stored)
      return failure();
    outputTypes.push_back(getType(*stored, nullptr, storeTypes[index][0]));
    storedDims.push_back(std::move(*stored));
    storeOf.push_back(index);
  }
  for (auto [index, types] : llvm::enumerate(storeTypes))
    for (Type type : ArrayRef(types).drop_front()) {
      outputTypes.push_back(getType(storedDims[index], nullptr, type));
      storeOf.push_back(index);
    }
  auto grid = kernel::Dim3Attr::get(ctx, layout.gridSize[0],
                                    layout.gridSize[1], layout.gridSize[2]);
  auto block = kernel::Dim3Attr::get(ctx, bg.threadsPerBlock, 1, 1);
  auto custom =
      kernel::CustomOp::create(b, loc, outputTypes, inputs, grid, block);
  Block *entry = new Block();
  custom.getBody().push_back(entry);
  for (Value in : inputs)
    entry->addArgument(in.getType(), loc);
  for (Type t : outputTypes)
    entry->addArgument(t, loc);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);

  // The for-loop and its accumulators.
  // Tiles loaded after the loop are no accumulators: the loop's are the
  // others, renumbered.
  SmallVector<int64_t> loopIndex;
  int64_t numLoopAccums = 0;
  for (const Accum &acc : bg.accums)
    loopIndex.push_back(acc.afterLoop ? -1 : numLoopAccums++);
  SmallVector<Attribute> accumulators;
  SmallVector<Type> accumTypes;
  for (const Accum &acc : bg.accums) {
    if (acc.afterLoop)
      continue;
    std::optional<int64_t> by;
    if (acc.scaleBy >= 0)
      by = loopIndex[acc.scaleBy];
    accumulators.push_back(block::AccumulatorAttr::get(ctx, acc.kind, by));
    accumTypes.push_back(getType(bodyDims[acc.value], &layout));
  }
  auto loop = block::ForLoopOp::create(b, loc, accumTypes, layout.iterations,
                                       b.getArrayAttr(accumulators));
  Block *body = new Block();
  loop.getBody().push_back(body);
  SmallVector<Value> bodyValues;
  SmallVector<Type> narrowLoads = getNarrowLoadTypes(
      bg, inputs, readTypes, shapes.elementType, shapes.matmulType);
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(body);
    for (unsigned i = 0; i < bg.inputs.size(); ++i) {
      // An input loaded after the loop has no load in it.
      if (llvm::any_of(bg.accums, [&](const Accum &acc) {
            return acc.afterLoop && acc.value == i;
          })) {
        bodyValues.push_back(Value());
        continue;
      }
      bodyValues.push_back(buildLoad(entry->getArgument(i), inputDims[i],
                                     bodyDims[i], layout, /*inLoop=*/true,
                                     narrowLoads[i]));
    }
    for (auto [index, op] : llvm::enumerate(bg.body)) {
      SmallVector<Value> operands;
      for (unsigned v : op.operands)
        operands.push_back(bodyValues[v]);
      if (op.kind == OpKind::Matmul)
        operands = getMatmulOperands(operands);
      RankedTensorType type =
          getType(bodyDims[bg.inputs.size() + index], &layout);
      // A transpose keeps a narrow load's type (getNarrowLoadTypes).
      if (op.kind == OpKind::Transpose)
        type = type.clone(
            cast<RankedTensorType>(operands[0].getType()).getElementType());
      bodyValues.push_back(buildOp("block", op, operands, type,
                                   &bodyDims[op.operands[0]], &layout,
                                   /*inLoop=*/true));
    }
    SmallVector<Value> yielded;
    for (const Accum &acc : bg.accums)
      if (!acc.afterLoop)
        yielded.push_back(bodyValues[acc.value]);
    block::YieldOp::create(b, loc, yielded);
    eraseReplacedViews();
  }

  SmallVector<Value> postValues;
  for (auto [acc, index] : llvm::zip_equal(bg.accums, loopIndex))
    postValues.push_back(
        acc.afterLoop
            ? buildLoad(entry->getArgument(acc.value), inputDims[acc.value],
                        bodyDims[acc.value], layout, /*inLoop=*/false)
            : loop.getResult(index));
  for (auto [index, op] : llvm::enumerate(bg.post)) {
    SmallVector<Value> operands;
    for (unsigned v : op.operands)
      operands.push_back(postValues[v]);
    if (op.kind == OpKind::Matmul)
      operands = getMatmulOperands(operands);
    postValues.push_back(
        buildOp("block", op, operands,
                getType(postDims[bg.accums.size() + index], &layout),
                &postDims[op.operands[0]], &layout, /*inLoop=*/false));
  }
  for (auto [output, index] : llvm::enumerate(storeOf)) {
    // Partial results of a split reduction go side by side along their
    // chunked dim, one chunk per block of the split grid dim.
    int64_t omap[3] = {-1, -1, -1};
    for (auto [dimIndex, d] : llvm::enumerate(storedDims[index])) {
      std::optional<unsigned> g;
      if (!d.isChunked())
        g = layout.getGridDimOf(d.cls);
      else if (layout.splitsReduction())
        g = layout.splitGridDim;
      if (g && omap[*g] < 0)
        omap[*g] = dimIndex;
    }
    block::StoreOp::create(
        b, loc, postValues[bg.stores[index]],
        entry->getArgument(bg.inputs.size() + output),
        block::DimMapAttr::get(ctx, omap[0], omap[1], omap[2]));
  }
  block::ReturnOp::create(b, loc);
  eraseReplacedViews();
  // Tiles of this block graph are read by no other.
  roundedTiles.clear();
  return SmallVector<Value>(custom.getResults().begin(),
                            custom.getResults().end());
}

FailureOr<SmallVector<Value>>
search::materialize(OpBuilder &builder, Location loc, const KernelGraph &graph,
                    const ShapeContext &shapes, ValueRange inputs) {
  std::optional<SmallVector<Dims>> dims =
      inferKernelGraphDims(graph, shapes.inputDims);
  if (!dims)
    return failure();
  Materializer m{builder, loc, shapes};
  SmallVector<Value> values(inputs.begin(), inputs.end());
  SmallVector<Operation *> built;
  // A value the graph returns is stored in the element types of its
  // results (a value returned in two types twice); any other leaves its
  // kernel in the type the graph computes in. The second and later types
  // of stored values: (value, type) -> output.
  llvm::DenseMap<std::pair<unsigned, Type>, Value> alsoStored;
  for (const KernelNode &node : graph.nodes) {
    SmallVector<Value> operands;
    if (!node.isCustom()) {
      for (unsigned v : node.op.operands)
        operands.push_back(m.convertTo(values[v], shapes.elementType, built));
      Value result = m.buildOp("kernel", node.op, operands,
                               m.getType((*dims)[values.size()], nullptr));
      built.push_back(result.getDefiningOp());
      values.push_back(result);
      continue;
    }
    const BlockGraph &bg = graph.customs[node.custom];
    SmallVector<Dims> inputDims;
    SmallVector<Type> readTypes;
    for (unsigned v : bg.inputs) {
      operands.push_back(values[v]);
      inputDims.push_back((*dims)[v]);
      readTypes.push_back(getValueReadType(graph, shapes, v));
    }
    SmallVector<SmallVector<Type, 1>> storeTypes;
    for (unsigned s = 0; s < bg.stores.size(); ++s)
      storeTypes.push_back(getStoredTypes(graph, shapes, values.size() + s));
    FailureOr<SmallVector<Value>> results =
        m.buildCustom(bg, operands, inputDims, readTypes, storeTypes);
    if (failed(results)) {
      for (Operation *op : llvm::reverse(built))
        op->erase();
      return failure();
    }
    if (!results->empty())
      built.push_back(results->front().getDefiningOp());
    unsigned first = values.size();
    values.append(results->begin(), results->begin() + bg.stores.size());
    ArrayRef<Value> extra = ArrayRef(*results).drop_front(bg.stores.size());
    for (auto [s, types] : llvm::enumerate(storeTypes))
      for (Type type : ArrayRef(types).drop_front()) {
        alsoStored[{first + static_cast<unsigned>(s), type}] = extra.front();
        extra = extra.drop_front();
      }
  }
  SmallVector<Value> results;
  for (auto [index, r] : llvm::enumerate(graph.results)) {
    Type type = shapes.getResultType(index);
    Value stored = alsoStored.lookup({r, type});
    results.push_back(stored ? stored : m.convertTo(values[r], type, built));
  }
  return results;
}

FailureOr<func::FuncOp>
search::materializeFunction(OpBuilder &builder, Location loc, StringRef name,
                            const KernelGraph &graph,
                            const ShapeContext &shapes) {
  std::optional<SmallVector<Dims>> dims =
      inferKernelGraphDims(graph, shapes.inputDims);
  if (!dims)
    return failure();
  Materializer m{builder, loc, shapes};
  SmallVector<Type> argTypes, resultTypes;
  for (auto [index, d] : llvm::enumerate(shapes.inputDims))
    argTypes.push_back(m.getType(d, nullptr, shapes.getInputType(index)));
  for (auto [index, r] : llvm::enumerate(graph.results))
    resultTypes.push_back(
        m.getType((*dims)[r], nullptr, shapes.getResultType(index)));
  auto func = func::FuncOp::create(builder, loc, name,
                                   builder.getFunctionType(argTypes,
                                                           resultTypes));
  Block *entry = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(entry);
  FailureOr<SmallVector<Value>> results =
      materialize(builder, loc, graph, shapes, entry->getArguments());
  if (failed(results)) {
    func.erase();
    return failure();
  }
  func::ReturnOp::create(builder, loc, *results);
  return func;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static void printOp(const SOp &op, raw_ostream &os) {
  os << getMnemonic(op.kind) << "(";
  llvm::interleaveComma(op.operands, os);
  os << ")";
  if (op.dim >= 0)
    os << " dim " << op.dim;
  if (isScalarKind(op.kind) || op.kind == OpKind::RmsNorm) {
    if (op.scalar.reciprocalOf != Dim::kOne)
      os << " 1/extent(c" << op.scalar.reciprocalOf << ")";
    else
      os << " " << llvm::format("%a", op.scalar.literal);
  }
  if (!op.permutation.empty()) {
    os << " perm ";
    llvm::interleaveComma(op.permutation, os);
  }
  if (op.kind == OpKind::TriangleFill)
    os << " dims " << op.triangle[0] << ", " << op.triangle[1] << " classes c"
       << op.triangleClasses[0] << ", c" << op.triangleClasses[1]
       << " diagonal " << op.diagonal << " value "
       << llvm::format("%a", op.scalar.literal);
}

void search::print(const KernelGraph &graph, raw_ostream &os) {
  os << "inputs " << graph.numInputs << "\n";
  unsigned next = graph.numInputs;
  for (const KernelNode &node : graph.nodes) {
    if (!node.isCustom()) {
      os << "%" << next++ << " = ";
      printOp(node.op, os);
      os << "\n";
      continue;
    }
    const BlockGraph &bg = graph.customs[node.custom];
    const Layout &l = bg.layout;
    os << "custom(";
    llvm::interleaveComma(bg.inputs, os);
    os << ") grid";
    for (unsigned g = 0; g < 3; ++g)
      os << " c" << l.gridClass[g] << "x" << l.gridSize[g];
    os << " loop c" << l.loopClass << "x" << l.iterations;
    if (l.splitsReduction())
      os << " split c" << l.splitClass << " on " << l.splitGridDim;
    os << " threads " << bg.threadsPerBlock << " {\n";
    unsigned v = bg.inputs.size();
    for (const SOp &op : bg.body) {
      os << "  b" << v++ << " = ";
      printOp(op, os);
      os << "\n";
    }
    os << "  accumulate";
    for (const Accum &acc : bg.accums)
      os << " "
         << (acc.afterLoop ? StringRef("after_loop")
                           : block::stringifyAccumKind(acc.kind))
         << "(b" << acc.value << ")"
         << (acc.scaleBy >= 0 ? " by " + std::to_string(acc.scaleBy)
                              : std::string());
    os << "\n";
    v = bg.accums.size();
    for (const SOp &op : bg.post) {
      os << "  e" << v++ << " = ";
      printOp(op, os);
      os << "\n";
    }
    os << "  store";
    for (unsigned s : bg.stores)
      os << " e" << s << " -> %" << next++;
    os << "\n}\n";
  }
  os << "return";
  for (unsigned r : graph.results)
    os << " %" << r;
  os << "\n";
}

std::string search::toString(const KernelGraph &graph) {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(graph, os);
  return s;
}
