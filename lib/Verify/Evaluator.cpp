//===- Evaluator.cpp - Tensor programs evaluated over finite fields -------===//
//
// FieldEvaluator::create compiles a function once into a tree of
// instructions over numbered tensor slots (one per SSA value; values that
// always hold the same data share a slot), analyses it, and evaluate runs the
// tree as often as the search wants:
//
//   - forward, while compiling: which values have a residue mod q (the LAX
//     check of exp: everything but exp's result and what depends on it),
//     and a degree bound per value;
//   - backward: which values' q-parts some exp needs. Only those compute the
//     q plane, which halves the work of programs without exp.
//
// Custom kernels run their block graph block by block and iteration by
// iteration, with the tile offsets of --convert-custom-kernel-to-loops.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Verify/Evaluator.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlsopt/Support/Constants.h"
#include "mlsopt/Support/TileShapes.h"
#include "mlsopt/Support/UnsupportedOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cstring>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;

using PF = PrimeField;
using EP = ExponentPart;

//===----------------------------------------------------------------------===//
// FieldTensor
//===----------------------------------------------------------------------===//

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

FieldTensor::FieldTensor(ArrayRef<int64_t> shape, bool withExponents)
    : shape(shape) {
  int64_t n = numElements(shape);
  p.assign(n, 0);
  if (withExponents)
    q.assign(n, 0);
}

void FieldTensor::reshape(ArrayRef<int64_t> newShape, bool withExponents) {
  shape.assign(newShape.begin(), newShape.end());
  int64_t n = numElements(newShape);
  p.resize(n);
  if (withExponents)
    q.resize(n);
  else
    q.clear();
}

void mlsopt::verify::fillRandom(FieldTensor &tensor, ArrayRef<int64_t> shape,
                                FieldRandom &random, bool withExponents) {
  tensor.reshape(shape, withExponents);
  // The p plane first: its values do not depend on whether q-parts follow.
  for (uint64_t &v : tensor.p)
    v = random.nextResidue();
  for (uint64_t &v : tensor.q)
    v = random.nextExponent();
}

FieldTensor mlsopt::verify::drawRandomFieldTensor(ArrayRef<int64_t> shape,
                                                  FieldRandom &random,
                                                  bool withExponents) {
  FieldTensor t;
  fillRandom(t, shape, random, withExponents);
  return t;
}

void mlsopt::verify::fillRandomInputs(SmallVectorImpl<FieldTensor> &inputs,
                                      func::FuncOp func, FieldRandom &random,
                                      ArrayRef<bool> withExponents) {
  inputs.resize(func.getNumArguments());
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    // One generator per input, so that input i's values do not depend on
    // which other inputs have q-parts drawn.
    FieldRandom own(random.next());
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      inputs[i] = FieldTensor();
      continue;
    }
    fillRandom(inputs[i], tensor.getShape(), own,
               withExponents.empty() || withExponents[i]);
  }
}

SmallVector<FieldTensor>
mlsopt::verify::drawRandomInputs(func::FuncOp func, FieldRandom &random,
                                 ArrayRef<bool> withExponents) {
  SmallVector<FieldTensor> inputs;
  fillRandomInputs(inputs, func, random, withExponents);
  return inputs;
}

//===----------------------------------------------------------------------===//
// Index iteration
//===----------------------------------------------------------------------===//

using Strides = SmallVector<int64_t, 6>;

static Strides rowMajorStrides(ArrayRef<int64_t> shape) {
  Strides strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Strides that read `operand` while iterating over `result` under numpy
/// broadcasting: 0 along missing and stretched dims.
static Strides broadcastStrides(ArrayRef<int64_t> operand,
                                ArrayRef<int64_t> result) {
  Strides own = rowMajorStrides(operand);
  Strides strides(result.size(), 0);
  size_t offset = result.size() - operand.size();
  for (size_t j = 0; j < operand.size(); ++j)
    if (operand[j] == result[offset + j])
      strides[offset + j] = own[j];
  return strides;
}

/// Calls fn(i, a, b) for every element i (row-major) of `shape`, where a and
/// b are its offsets under `sa` and `sb`.
template <typename Fn>
static void forEachStrided(ArrayRef<int64_t> shape, ArrayRef<int64_t> sa,
                           ArrayRef<int64_t> sb, Fn &&fn) {
  int64_t rank = shape.size();
  if (rank == 0) {
    fn(0, 0, 0);
    return;
  }
  int64_t total = numElements(shape);
  int64_t inner = shape[rank - 1];
  if (total == 0)
    return;
  int64_t innerA = sa[rank - 1], innerB = sb[rank - 1];
  SmallVector<int64_t, 6> counter(rank, 0);
  int64_t a = 0, b = 0;
  for (int64_t i = 0; i < total; i += inner) {
    for (int64_t j = 0; j < inner; ++j)
      fn(i + j, a + j * innerA, b + j * innerB);
    for (int64_t d = rank - 2; d >= 0; --d) {
      a += sa[d];
      b += sb[d];
      if (++counter[d] < shape[d])
        break;
      a -= sa[d] * shape[d];
      b -= sb[d] * shape[d];
      counter[d] = 0;
    }
  }
}

/// Calls fn(boxRow, bigRow, length) for every row (a run along the last dim)
/// of the box of `shape` at `offsets` inside a row-major tensor of `bigShape`:
/// the row's start in the box and in the big tensor, and its length. Rows are
/// contiguous in both, so loads and stores copy them with memcpy.
template <typename Fn>
static void forEachBoxRow(ArrayRef<int64_t> bigShape, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> offsets, Fn &&fn) {
  int64_t rank = shape.size();
  Strides bigStrides = rowMajorStrides(bigShape);
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d)
    base += offsets[d] * bigStrides[d];
  if (rank == 0) {
    fn(0, 0, 1);
    return;
  }
  int64_t row = shape[rank - 1];
  SmallVector<int64_t, 6> rowShape(shape.drop_back());
  rowShape.push_back(1);
  forEachStrided(
      rowShape, bigStrides, bigStrides,
      [&](int64_t r, int64_t at, int64_t) { fn(r * row, base + at, row); });
}

/// The part of the box of `shape` at `offsets` that lies before `limits`
/// (where a ragged grid split's last tile ends; empty: the whole box), or
/// nothing when the whole box does.
static std::optional<SmallVector<int64_t, 6>>
clippedBox(ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
           ArrayRef<int64_t> limits) {
  if (limits.empty())
    return std::nullopt;
  SmallVector<int64_t, 6> clipped(shape);
  bool clips = false;
  for (auto [size, offset, limit] : llvm::zip_equal(clipped, offsets, limits))
    if (offset + size > limit) {
      size = std::max<int64_t>(limit - offset, 0);
      clips = true;
    }
  if (!clips)
    return std::nullopt;
  return clipped;
}

/// Calls fn(boxAt, bigAt) for every element of the part `clipped` (see
/// clippedBox) of the box of `shape` at `offsets` inside a row-major tensor
/// of `bigShape`: its offset in the box and in the big tensor.
template <typename Fn>
static void forEachClippedElement(ArrayRef<int64_t> bigShape,
                                  ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> offsets,
                                  ArrayRef<int64_t> clipped, Fn &&fn) {
  Strides bigStrides = rowMajorStrides(bigShape);
  int64_t base = 0;
  for (auto [offset, stride] : llvm::zip_equal(offsets, bigStrides))
    base += offset * stride;
  forEachStrided(
      clipped, rowMajorStrides(shape), bigStrides,
      [&](int64_t, int64_t at, int64_t bigAt) { fn(at, base + bigAt); });
}

/// Copies the box of `tile`'s shape at `offsets` out of `big` into `tile`;
/// past `limits` the tile reads `padding()`, or zeros without it.
static void extractBox(const std::vector<uint64_t> &big,
                       ArrayRef<int64_t> bigShape, std::vector<uint64_t> &tile,
                       ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                       ArrayRef<int64_t> limits = {},
                       function_ref<uint64_t()> padding = nullptr) {
  if (auto clipped = clippedBox(shape, offsets, limits)) {
    if (padding)
      std::generate(tile.begin(), tile.end(), padding);
    else
      std::fill(tile.begin(), tile.end(), 0);
    forEachClippedElement(
        bigShape, shape, offsets, *clipped,
        [&](int64_t at, int64_t from) { tile[at] = big[from]; });
    return;
  }
  forEachBoxRow(bigShape, shape, offsets,
                [&](int64_t boxRow, int64_t bigRow, int64_t length) {
                  std::memcpy(tile.data() + boxRow, big.data() + bigRow,
                              length * sizeof(uint64_t));
                });
}

/// Writes `tile` into the box of its shape at `offsets` of `big`, but for
/// what lies past `limits`.
static void insertBox(std::vector<uint64_t> &big, ArrayRef<int64_t> bigShape,
                      const std::vector<uint64_t> &tile,
                      ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                      ArrayRef<int64_t> limits = {}) {
  if (auto clipped = clippedBox(shape, offsets, limits)) {
    forEachClippedElement(bigShape, shape, offsets, *clipped,
                          [&](int64_t at, int64_t to) { big[to] = tile[at]; });
    return;
  }
  forEachBoxRow(bigShape, shape, offsets,
                [&](int64_t boxRow, int64_t bigRow, int64_t length) {
                  std::memcpy(big.data() + bigRow, tile.data() + boxRow,
                              length * sizeof(uint64_t));
                });
}

//===----------------------------------------------------------------------===//
// Degree bounds
//===----------------------------------------------------------------------===//

namespace {
/// The degrees of the numerator and denominator of a rational function of
/// the inputs, saturated at 2^62.
struct Degree {
  uint64_t num = 0;
  uint64_t den = 0;
  uint64_t total() const;
};

constexpr uint64_t kDegreeCap = uint64_t(1) << 62;

uint64_t satAdd(uint64_t a, uint64_t b) { return std::min(a + b, kDegreeCap); }
uint64_t satMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > kDegreeCap / b ? kDegreeCap : std::min(a * b, kDegreeCap);
}
uint64_t Degree::total() const { return satAdd(num, den); }

/// A fresh variable: the value of exp, rsqrt or a random function.
Degree freshDegree() { return {1, 0}; }

/// A square root: the inverse of the fresh variable that stands for its
/// reciprocal. The model takes root values as independent uniform field
/// elements (docs/verification.md, "The false-positive bound"), so their
/// inverses are as good a choice of variables, and the better one: the
/// programs normalize by 1/rms, and a variable in each denominator summed
/// over a matmul's k, which the bound cannot see is shared, multiplied
/// the degree by k at every layer (two RMSNorm + MLP layers had a bound
/// past 2^62, which no test count reaches).
Degree rootDegree() { return {0, 1}; }

Degree addDegree(Degree a, Degree b) {
  if (a.den == 0 && b.den == 0)
    return {std::max(a.num, b.num), 0};
  return {std::max(satAdd(a.num, b.den), satAdd(b.num, a.den)),
          satAdd(a.den, b.den)};
}
Degree mulDegree(Degree a, Degree b) {
  return {satAdd(a.num, b.num), satAdd(a.den, b.den)};
}
Degree divDegree(Degree a, Degree b) {
  return {satAdd(a.num, b.den), satAdd(a.den, b.num)};
}
/// A sum of `count` terms of degree `term` (terms with denominators may not
/// share them).
Degree sumDegree(Degree term, int64_t count) {
  if (term.den == 0 || count <= 1)
    return term;
  return {satAdd(term.num, satMul(count - 1, term.den)),
          satMul(count, term.den)};
}
} // namespace

//===----------------------------------------------------------------------===//
// Compiled programs
//===----------------------------------------------------------------------===//

namespace {
enum class OpClass {
  Unary,
  Binary,
  MulScalar,
  AddScalar,
  /// max_scalar and min_scalar: random functions keyed by op and constant
  /// (scalarFunctionId).
  ScalarFunction,
  /// max and min of two tensors: symmetric random functions of the pair
  /// (binaryFunctionId).
  PairFunction,
  Matmul,
  ReduceSum,
  ReduceMax,
  RmsNorm,
  Concat,
  Transpose,
  /// triangle_fill: the fill value (`scalar`) where the element's place in
  /// the masked tensor (the tile's place by `gridMap` and `loopDim`, as a
  /// load's) is in the triangle `dims`, `diagonal`.
  TriangleFill,
  /// where: `scalar` (on_true) where the mask is 1 and `otherScalar`
  /// (on_false) where it is 0, as the affine `f + m (t - f)` of the mask's
  /// element m, which is a field element like every input's.
  Where,
  /// A static tensor.extract_slice or a linalg.broadcast: each result
  /// element reads the operand at gatherBase plus the strides.
  Gather,
  Reshape,
  Custom,
  ForLoop,
  Load,
  Store,
  ThreadGraph,
  Return,
};

constexpr unsigned kNumUnaryKinds = thread::getMaxEnumValForUnaryKind() + 1;

/// Unary ops that compute in Z_q as well, from their operand's residue mod q.
bool isLaxUnary(thread::UnaryKind kind) {
  return kind == thread::UnaryKind::neg || kind == thread::UnaryKind::square;
}

/// Unary ops modelled as random functions over the field.
bool isRandomFunction(thread::UnaryKind kind) {
  switch (kind) {
  case thread::UnaryKind::log:
  case thread::UnaryKind::silu:
  case thread::UnaryKind::sigmoid:
  case thread::UnaryKind::gelu:
  case thread::UnaryKind::relu:
  case thread::UnaryKind::tanh:
  case thread::UnaryKind::erf:
  case thread::UnaryKind::gelu_tanh:
  case thread::UnaryKind::sin:
  case thread::UnaryKind::cos:
  case thread::UnaryKind::log1p:
  case thread::UnaryKind::softplus:
  case thread::UnaryKind::floor:
  case thread::UnaryKind::ceil:
  case thread::UnaryKind::round:
    return true;
  default:
    return false;
  }
}

/// Unary ops whose residue mod q is a random function of their operand's
/// residue mod p (sqrt and rsqrt through sqrt's): they have one whatever
/// their operand has, and read no q-part.
bool hasExponentFunction(thread::UnaryKind kind) {
  return kind == thread::UnaryKind::sqrt || kind == thread::UnaryKind::rsqrt ||
         isRandomFunction(kind);
}

/// Calls `fn` with `op` cast to whichever of the kernel-level and block-level
/// classes of one computation it is; false if it is neither.
template <typename KernelOp, typename BlockOp, typename Fn>
bool matchEither(Operation &op, Fn &&fn) {
  if (auto typed = dyn_cast<KernelOp>(op)) {
    fn(typed);
    return true;
  }
  if (auto typed = dyn_cast<BlockOp>(op)) {
    fn(typed);
    return true;
  }
  return false;
}

/// One op, with everything its evaluation needs decoded once.
struct Instr {
  OpClass cls = OpClass::Return;
  Operation *op = nullptr;
  thread::UnaryKind unary = thread::UnaryKind::neg;
  thread::BinaryKind binary = thread::BinaryKind::add;
  SmallVector<unsigned, 3> operands;
  SmallVector<unsigned, 2> results;
  /// Reduction or concat dim.
  int64_t dim = 0;
  /// The constant of mul_scalar/add_scalar, the epsilon of rms_norm,
  /// where's on_true.
  FieldElement scalar;
  /// where's on_false.
  FieldElement otherScalar;
  /// The random function of max_scalar/min_scalar (scalarFunctionId), or
  /// of max/min (binaryFunctionId).
  uint64_t function = 0;
  SmallVector<int64_t, 4> permutation;
  /// triangle_fill: [rows, cols] and the diagonal.
  std::array<int64_t, 2> triangleDims = {0, 0};
  int64_t diagonal = 0;
  /// Gather: the operand's row-major offset of each result dim's step, and
  /// of the result's first element.
  SmallVector<int64_t, 4> gatherStrides;
  int64_t gatherBase = 0;
  /// imap/omap of a load/store, fmap of a load.
  std::array<std::optional<int64_t>, 3> gridMap;
  std::optional<int64_t> loopDim;
  /// Where the window of a load starts in its input (empty: no window).
  SmallVector<int64_t, 4> windowOffsets;
  /// Where a load's or store's tiles must end in the tensor (the window's
  /// ends, the output's shape); empty when the grid splits no dim raggedly,
  /// so that every tile lies inside.
  SmallVector<int64_t, 4> limits;
  /// Custom kernel grid; for-loop iterations (of a load: those of the loop
  /// around it).
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t iterations = 1;
  SmallVector<block::AccumulatorAttr> accumulators;
  /// For-loop: the yielded slots. Thread graph: (operand, argument) slot
  /// pairs whose argument holds the operand broadcast to the result shape.
  SmallVector<unsigned, 3> yields;
  SmallVector<std::pair<unsigned, unsigned>, 2> broadcasts;
  /// The ops of a custom kernel, for-loop or thread graph body.
  std::vector<Instr> body;
};

/// Which block of the grid and which for-loop iteration is running.
struct BlockPosition {
  std::array<int64_t, 3> block = {0, 0, 0};
  int64_t iteration = 0;
};
} // namespace

struct FieldEvaluator::Impl {
  func::FuncOp func;
  /// getReciprocalExtents(func): a rounded 1/n reads as one of these.
  SmallVector<int64_t> constantExtents;
  Type constantRoundingType;
  std::vector<Instr> program;
  SmallVector<unsigned> argumentSlots;
  SmallVector<unsigned> resultSlots;

  // Per slot.
  std::vector<SmallVector<int64_t, 4>> shapes;
  std::vector<char> hasResidueQ; // the value has a residue mod q
  std::vector<char> needsQ;      // some exp (transitively) reads it mod q
  std::vector<char> withQ;       // both: its q plane is computed
  std::vector<Degree> degrees;
  DenseMap<Value, unsigned> slotOf;

  SmallVector<uint64_t> resultDegrees;
  uint64_t exponentDegree = 0;
  bool hasMaxSelection = false;

  // Evaluation state.
  std::vector<FieldTensor> storage;
  std::vector<const FieldTensor *> view;
  std::array<uint64_t, kNumUnaryKinds> functionKeys = {};
  std::array<uint64_t, kNumUnaryKinds> exponentKeys = {};
  /// The seed of the keys, for the functions keyed by op and constant.
  uint64_t functionSeed = 0;
  /// Draws the padding of ragged tiles (FieldOptions::paddingSeed).
  std::optional<FieldRandom> padding;
  bool divisionByZero = false;
  FieldTensor scratch, scratch2, oldMax;
  std::vector<uint64_t> transposed, rowMarkers, colMarkers;
  /// Threads that share the work of large ops (setThreadPool); null in
  /// the evaluators of a grid's threads, whose ops run alone.
  llvm::ThreadPoolInterface *pool = nullptr;
  /// A grid thread's evaluator (makeGridWorker): the one whose storage holds
  /// the custom kernel's outputs.
  Impl *owner = nullptr;

  //===--------------------------------------------------------------------===//
  // Compilation and forward analysis
  //===--------------------------------------------------------------------===//

  unsigned newSlot(ArrayRef<int64_t> shape) {
    shapes.emplace_back(shape.begin(), shape.end());
    hasResidueQ.push_back(true);
    degrees.push_back({});
    return shapes.size() - 1;
  }
  unsigned newSlot(Value value, ArrayRef<int64_t> shape) {
    unsigned slot = newSlot(shape);
    slotOf[value] = slot;
    return slot;
  }
  void alias(Value value, unsigned slot) { slotOf[value] = slot; }

  /// The static shape of a tensor value; fails on anything else.
  FailureOr<ArrayRef<int64_t>> tensorShape(Operation *op, Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return op->emitError("the finite-field evaluator needs statically "
                           "shaped tensors, got ")
             << value.getType();
    // Slots are dense; refuse what could not be allocated.
    std::optional<int64_t> n = int64_t(1);
    for (int64_t s : type.getShape())
      n = n ? llvm::checkedMul(*n, s) : std::nullopt;
    if (!n || *n > (int64_t(1) << 31))
      return op->emitError("tensor of type ")
             << type << " is too large for the finite-field evaluator";
    return type.getShape();
  }

  LogicalResult compileFunction() {
    Block &entry = func.getBody().front();
    // A linalg op the import did not take is the cause to report, rather
    // than the constant or the fill of its init before it.
    Operation *leftover = nullptr;
    for (Operation &op : entry)
      if (isa<linalg::LinalgOp>(op) &&
          !isa<linalg::BroadcastOp, linalg::FillOp>(op)) {
        leftover = &op;
        break;
      }
    if (leftover)
      return leftover->emitError(
                 "the finite-field evaluator does not support '")
             << leftover->getName()
             << "' (--convert-linalg-to-kernel did not import it)";
    for (BlockArgument arg : entry.getArguments()) {
      FailureOr<ArrayRef<int64_t>> shape = tensorShape(func, arg);
      if (failed(shape))
        return failure();
      unsigned slot = newSlot(arg, *shape);
      degrees[slot] = {1, 0};
      argumentSlots.push_back(slot);
    }
    if (failed(compileBlock(entry, program, /*elementShape=*/std::nullopt)))
      return failure();
    for (unsigned slot : resultSlots)
      resultDegrees.push_back(degrees[slot].total());
    return success();
  }

  /// Compiles the ops of `block`; inside a thread graph, `elementShape` is
  /// the graph's result shape, which every scalar of its body stands for.
  LogicalResult compileBlock(Block &block, std::vector<Instr> &out,
                             std::optional<ArrayRef<int64_t>> elementShape) {
    for (Operation &op : block) {
      Instr instr;
      instr.op = &op;
      FailureOr<bool> emitted = compileOp(op, instr, elementShape);
      if (failed(emitted))
        return failure();
      if (*emitted)
        out.push_back(std::move(instr));
    }
    return success();
  }

  /// Slots for the results of a plain compute op.
  LogicalResult addResults(Operation &op, Instr &instr,
                           std::optional<ArrayRef<int64_t>> elementShape) {
    for (Value result : op.getResults()) {
      if (elementShape) {
        instr.results.push_back(newSlot(result, *elementShape));
        continue;
      }
      FailureOr<ArrayRef<int64_t>> shape = tensorShape(&op, result);
      if (failed(shape))
        return failure();
      instr.results.push_back(newSlot(result, *shape));
    }
    return success();
  }

  /// Returns whether `op` became an instruction (terminators handled by
  /// their parent do not).
  FailureOr<bool> compileOp(Operation &op, Instr &instr,
                            std::optional<ArrayRef<int64_t>> elementShape) {
    // A broadcast's init (a tensor.empty) gives its shape only.
    SmallVector<Value> operands(op.getOperands());
    if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op))
      operands = {broadcast.getInput()};
    if (isa<tensor::EmptyOp>(op) && llvm::all_of(op.getUsers(), [](auto *u) {
          return isa<linalg::BroadcastOp>(u);
        }))
      return false;
    for (Value operand : operands) {
      auto it = slotOf.find(operand);
      if (it == slotOf.end())
        return op.emitError("the finite-field evaluator cannot find the "
                            "definition of an operand");
      instr.operands.push_back(it->second);
    }

    if (isa<func::ReturnOp>(op)) {
      resultSlots.assign(instr.operands.begin(), instr.operands.end());
      return false;
    }
    if (isa<block::ReturnOp, block::YieldOp, thread::YieldOp>(op))
      return false;
    if (auto custom = dyn_cast<kernel::CustomOp>(op))
      return compileCustom(custom, instr);
    if (auto loop = dyn_cast<block::ForLoopOp>(op))
      return compileForLoop(loop, instr);
    if (auto graph = dyn_cast<thread::GraphOp>(op))
      return compileThreadGraph(graph, instr);
    if (auto load = dyn_cast<block::LoadOp>(op)) {
      instr.cls = OpClass::Load;
      instr.gridMap = load.getImap().getGridToTensorDims();
      instr.loopDim = load.getFmap();
      instr.iterations = load.getLoopIterations();
      if (load.getOffsets())
        instr.windowOffsets = load.getWindowOffsets();
      if (load.hasRaggedTiles())
        instr.limits = load.getWindowEnds();
      if (failed(addResults(op, instr, elementShape)))
        return failure();
      forward(instr, degrees[instr.operands[0]]);
      return true;
    }
    if (auto store = dyn_cast<block::StoreOp>(op)) {
      instr.cls = OpClass::Store;
      instr.gridMap = store.getOmap().getGridToTensorDims();
      if (store.hasRaggedTiles())
        instr.limits = llvm::to_vector(
            cast<RankedTensorType>(store.getDest().getType()).getShape());
      unsigned tile = instr.operands[0], dest = instr.operands[1];
      hasResidueQ[dest] = hasResidueQ[tile];
      degrees[dest] = degrees[tile];
      return true;
    }

    if (failed(classifyCompute(op, instr)))
      return failure();
    if (failed(addResults(op, instr, elementShape)) ||
        failed(analyzeCompute(instr)))
      return failure();
    return true;
  }

  /// An elementwise op of two tensors: arithmetic, or max and min, which are
  /// random functions.
  static LogicalResult setBinary(Instr &instr, thread::BinaryKind kind) {
    if (kind == thread::BinaryKind::max || kind == thread::BinaryKind::min) {
      instr.cls = OpClass::PairFunction;
      instr.function = binaryFunctionId(kind == thread::BinaryKind::min);
      return success();
    }
    instr.cls = OpClass::Binary;
    instr.binary = kind;
    return success();
  }

  /// Decodes a compute op of the kernel, block or thread level.
  LogicalResult classifyCompute(Operation &op, Instr &instr) {
    auto scalarOf = [&](double value) -> LogicalResult {
      std::optional<FieldElement> c =
          fieldConstant(value, constantExtents, constantRoundingType);
      if (!c)
        return op.emitError("the constant ")
               << value << " has no finite-field image";
      instr.scalar = *c;
      return success();
    };
    if (auto unary = dyn_cast<thread::UnaryOp>(op)) {
      instr.cls = OpClass::Unary;
      instr.unary = unary.getKind();
      return success();
    }
    if (auto binary = dyn_cast<thread::BinaryOp>(op))
      return setBinary(instr, binary.getKind());
    if (isa_and_nonnull<kernel::KernelDialect, block::BlockDialect,
                        thread::ThreadDialect>(op.getDialect()) &&
        isScalarOpName(op.getName().stripDialect())) {
      StringRef name = op.getName().stripDialect();
      auto scalar = op.getAttrOfType<FloatAttr>("scalar");
      if (!scalar)
        return op.emitError("scalar op without a 'scalar' attribute");
      // max and min need no field image of their constant: it only keys
      // their random function.
      if (std::optional<uint64_t> function =
              scalarFunctionId(name, scalar.getValueAsDouble())) {
        instr.cls = OpClass::ScalarFunction;
        instr.function = *function;
        return success();
      }
      instr.cls =
          name == "mul_scalar" ? OpClass::MulScalar : OpClass::AddScalar;
      return scalarOf(scalar.getValueAsDouble());
    }
    if (isa<kernel::MatmulOp, block::MatmulOp>(op)) {
      instr.cls = OpClass::Matmul;
      return success();
    }
    double fillValue = 0;
    if (matchEither<kernel::TriangleFillOp, block::TriangleFillOp>(
            op, [&](auto fill) {
              instr.triangleDims = {fill.getDims()[0], fill.getDims()[1]};
              instr.diagonal = fill.getDiagonal();
              fillValue = fill.getValue().convertToDouble();
            })) {
      instr.cls = OpClass::TriangleFill;
      if (auto fill = dyn_cast<block::TriangleFillOp>(op)) {
        instr.gridMap = fill.getImap().getGridToTensorDims();
        instr.loopDim = fill.getFmap();
      }
      instr.scalar =
          fieldFillConstant(fillValue, constantExtents, constantRoundingType);
      return success();
    }
    if (isa<kernel::WhereOp, block::WhereOp, thread::WhereOp>(op)) {
      // The constants as a fill's (fieldFillConstant): -inf, the usual
      // on_false of a mask, has an image.
      instr.cls = OpClass::Where;
      auto constant = [&](StringRef name) {
        return fieldFillConstant(
            op.getAttrOfType<FloatAttr>(name).getValueAsDouble(),
            constantExtents, constantRoundingType);
      };
      instr.scalar = constant("on_true");
      instr.otherScalar = constant("on_false");
      return success();
    }
    auto setDim = [&](OpClass cls) {
      return [&instr, cls](auto typed) {
        instr.cls = cls;
        instr.dim = typed.getDim();
      };
    };
    if (matchEither<kernel::ReduceSumOp, block::ReduceSumOp>(
            op, setDim(OpClass::ReduceSum)) ||
        matchEither<kernel::ReduceMaxOp, block::ReduceMaxOp>(
            op, setDim(OpClass::ReduceMax)) ||
        matchEither<kernel::ConcatOp, block::ConcatOp>(op,
                                                       setDim(OpClass::Concat)))
      return success();
    double epsilon = 0;
    if (matchEither<kernel::RmsNormOp, block::RmsNormOp>(op, [&](auto norm) {
          epsilon = norm.getEpsilon().convertToDouble();
          instr.dim = norm.getNormalizedDim();
        })) {
      instr.cls = OpClass::RmsNorm;
      return scalarOf(epsilon);
    }
    // A collapse or expand keeps the elements in row-major order (a kernel
    // reduction's result reshaped to the type a front end gave it).
    // A conversion between float types keeps every element's value, up to
    // the rounding the field does not model (as for every float op).
    // An integer made a float is the integer: its residue, as an input's.
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, kernel::ConvertOp,
            block::ConvertOp, thread::ConvertOp, kernel::IntToFloatOp,
            block::IntToFloatOp, thread::IntToFloatOp>(op)) {
      instr.cls = OpClass::Reshape;
      return success();
    }
    if (isa<tensor::ExtractSliceOp, linalg::BroadcastOp>(op))
      return classifyGather(op, instr);
    if (matchEither<kernel::TransposeOp, block::TransposeOp>(
            op, [&](auto transpose) {
              instr.permutation.assign(transpose.getPermutation().begin(),
                                       transpose.getPermutation().end());
            })) {
      instr.cls = OpClass::Transpose;
      return success();
    }
    // The remaining elementwise kernel and block ops share their mnemonics
    // with the thread kinds (one list in TensorOps.td).
    if (isa_and_nonnull<kernel::KernelDialect, block::BlockDialect>(
            op.getDialect())) {
      StringRef name = op.getName().stripDialect();
      if (std::optional<thread::UnaryKind> kind =
              thread::symbolizeUnaryKind(name);
          kind && op.getNumOperands() == 1) {
        instr.cls = OpClass::Unary;
        instr.unary = *kind;
        return success();
      }
      if (std::optional<thread::BinaryKind> kind =
              thread::symbolizeBinaryKind(name);
          kind && op.getNumOperands() == 2) {
        return setBinary(instr, *kind);
      }
    }
    Operation *cause = getUnsupportedCause(&op);
    return cause->emitError("the finite-field evaluator does not support '")
           << cause->getName() << "'";
  }

  /// A static slice (any offsets and strides, rank-reducing too) or a
  /// broadcast (linalg.broadcast on tensors) as strides into its operand:
  /// both copy elements, as a transpose does.
  LogicalResult classifyGather(Operation &op, Instr &instr) {
    ArrayRef<int64_t> source = shapes[instr.operands[0]];
    SmallVector<int64_t> own(source.size(), 1);
    for (int64_t d = static_cast<int64_t>(source.size()) - 2; d >= 0; --d)
      own[d] = own[d + 1] * source[d + 1];
    instr.cls = OpClass::Gather;
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
          !slice.getStrides().empty())
        return op.emitError("the finite-field evaluator needs static "
                            "offsets, sizes and strides");
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      for (auto [d, offset, stride] : llvm::enumerate(
               slice.getStaticOffsets(), slice.getStaticStrides())) {
        instr.gatherBase += offset * own[d];
        if (!dropped.test(d))
          instr.gatherStrides.push_back(stride * own[d]);
      }
      return success();
    }
    auto broadcast = cast<linalg::BroadcastOp>(op);
    if (!broadcast.hasPureTensorSemantics())
      return op.emitError("the finite-field evaluator needs tensors");
    ArrayRef<int64_t> added = broadcast.getDimensions();
    int64_t rank = broadcast.getInit().getType().getRank();
    for (int64_t d = 0, next = 0; d < rank; ++d)
      instr.gatherStrides.push_back(llvm::is_contained(added, d) ? 0
                                                                 : own[next++]);
    return success();
  }

  /// Where the results of an op get their residue mod q.
  enum class ExponentImage {
    /// Computed from the operands' (LAX ops): there if all of them have one.
    FromOperands,
    /// A random function of an operand's residue mod p: always there.
    Own,
    /// None (exp).
    None,
  };

  /// Sets the results' residue-mod-q flag and degree.
  void forward(Instr &instr, Degree degree,
               ExponentImage image = ExponentImage::FromOperands) {
    bool q = image == ExponentImage::Own ||
             (image == ExponentImage::FromOperands &&
              llvm::all_of(instr.operands,
                           [&](unsigned s) { return hasResidueQ[s]; }));
    for (unsigned r : instr.results) {
      hasResidueQ[r] = q;
      degrees[r] = degree;
    }
  }

  LogicalResult analyzeCompute(Instr &instr) {
    auto in = [&](unsigned i) { return degrees[instr.operands[i]]; };
    switch (instr.cls) {
    case OpClass::Unary: {
      using thread::UnaryKind;
      Degree d = in(0);
      if (instr.unary == UnaryKind::exp) {
        if (!hasResidueQ[instr.operands[0]])
          return instr.op->emitError(
              "the argument of exp has no value mod q: it depends on another "
              "exp (the program is not LAX), so it cannot be verified over "
              "finite fields");
        exponentDegree = std::max(exponentDegree, d.total());
      }
      Degree result = instr.unary == UnaryKind::neg      ? d
                      : instr.unary == UnaryKind::square ? mulDegree(d, d)
                      : instr.unary == UnaryKind::sqrt   ? rootDegree()
                                                         : freshDegree();
      forward(instr, result,
              isLaxUnary(instr.unary)            ? ExponentImage::FromOperands
              : hasExponentFunction(instr.unary) ? ExponentImage::Own
                                                 : ExponentImage::None);
      return success();
    }
    case OpClass::Binary: {
      switch (instr.binary) {
      case thread::BinaryKind::add:
      case thread::BinaryKind::sub:
        forward(instr, addDegree(in(0), in(1)));
        break;
      case thread::BinaryKind::mul:
        forward(instr, mulDegree(in(0), in(1)));
        break;
      case thread::BinaryKind::div:
        forward(instr, divDegree(in(0), in(1)));
        break;
      case thread::BinaryKind::max:
      case thread::BinaryKind::min:
        llvm_unreachable("max and min are pair functions");
      }
      return success();
    }
    case OpClass::MulScalar:
      forward(instr, in(0));
      return success();
    case OpClass::AddScalar:
      forward(instr, {std::max(in(0).num, in(0).den), in(0).den});
      return success();
    case OpClass::ScalarFunction:
    case OpClass::PairFunction:
      // A random function, as log or tanh: a fresh variable in both fields.
      forward(instr, freshDegree(), ExponentImage::Own);
      return success();
    case OpClass::Matmul:
      forward(instr, sumDegree(mulDegree(in(0), in(1)),
                               shapes[instr.operands[0]].back()));
      return success();
    case OpClass::ReduceSum:
      forward(instr, sumDegree(in(0), shapes[instr.operands[0]][instr.dim]));
      return success();
    case OpClass::ReduceMax:
      // max picks one of its operands.
      hasMaxSelection = true;
      forward(instr, in(0));
      return success();
    case OpClass::RmsNorm:
      // x times a fresh variable, 1/rms (rootDegree), in both fields: mod q
      // the variable is the inverse of sqrt's random function of the mean
      // square mod p.
      forward(instr, mulDegree(in(0), freshDegree()));
      return success();
    case OpClass::TriangleFill:
      // Each element is x's or a constant: no degree above x's.
      forward(instr, in(0));
      return success();
    case OpClass::Where:
      // Affine in the mask's element.
      forward(instr, {std::max(in(0).num, in(0).den), in(0).den});
      return success();
    case OpClass::Concat: {
      Degree d;
      for (unsigned i = 0; i < instr.operands.size(); ++i)
        d = {std::max(d.num, in(i).num), std::max(d.den, in(i).den)};
      forward(instr, d);
      return success();
    }
    case OpClass::Transpose:
    case OpClass::Gather:
    case OpClass::Reshape:
      forward(instr, in(0));
      return success();
    default:
      llvm_unreachable("not a compute op");
    }
  }

  FailureOr<bool> compileCustom(kernel::CustomOp custom, Instr &instr) {
    instr.cls = OpClass::Custom;
    for (unsigned g = 0; g < 3; ++g)
      instr.grid[g] = custom.getGrid().getSize(g);
    if (failed(addResults(*custom, instr, std::nullopt)))
      return failure();
    // The region's arguments are the kernel's inputs and outputs: loads read
    // the operands' slots, stores write the results'.
    for (unsigned i = 0; i < custom.getInputs().size(); ++i)
      alias(custom.getInputArgument(i), instr.operands[i]);
    for (unsigned i = 0; i < custom.getOutputs().size(); ++i)
      alias(custom.getOutputArgument(i), instr.results[i]);
    if (failed(
            compileBlock(custom.getBody().front(), instr.body, std::nullopt)))
      return failure();
    return true;
  }

  FailureOr<bool> compileForLoop(block::ForLoopOp loop, Instr &instr) {
    instr.cls = OpClass::ForLoop;
    instr.iterations = loop.getIterations();
    for (unsigned i = 0; i < loop.getNumResults(); ++i)
      instr.accumulators.push_back(loop.getAccumulator(i));
    if (failed(addResults(*loop, instr, std::nullopt)))
      return failure();
    Block &body = loop.getBody().front();
    if (failed(compileBlock(body, instr.body, std::nullopt)))
      return failure();
    auto yield = cast<block::YieldOp>(body.getTerminator());
    for (Value v : yield.getValues())
      instr.yields.push_back(slotOf.lookup(v));
    if (instr.yields.size() != instr.results.size())
      return loop.emitError("the loop yields ")
             << instr.yields.size() << " values for " << instr.results.size()
             << " accumulators";

    int64_t n = instr.iterations;
    for (unsigned j = 0; j < instr.results.size(); ++j) {
      unsigned result = instr.results[j], yielded = instr.yields[j];
      if (shapes[result] != shapes[yielded])
        return loop.emitError("accumulator ")
               << j << " yields a different shape than its result";
      Degree d = degrees[yielded];
      block::AccumulatorAttr acc = instr.accumulators[j];
      switch (acc.getKind()) {
      case block::AccumKind::sum:
      case block::AccumKind::mean:
        hasResidueQ[result] = hasResidueQ[yielded];
        degrees[result] = sumDegree(d, n);
        break;
      case block::AccumKind::max:
        hasMaxSelection = true;
        hasResidueQ[result] = hasResidueQ[yielded];
        degrees[result] = d;
        break;
      case block::AccumKind::rms:
        // sqrt of the mean square (rootDegree), whose residue mod q is
        // sqrt's random function of the mean mod p.
        hasResidueQ[result] = true;
        degrees[result] = rootDegree();
        break;
      case block::AccumKind::rescale: {
        std::optional<int64_t> k = acc.getScaleBy();
        if (!k || *k < 0 || *k >= static_cast<int64_t>(instr.results.size()) ||
            instr.accumulators[*k].getKind() != block::AccumKind::max)
          return loop.emitError("accumulator ")
                 << j << " rescales by an accumulator that is not a max";
        unsigned maxSlot = instr.yields[*k];
        if (!hasResidueQ[maxSlot])
          return loop.emitError("accumulator ")
                 << j << " rescales by exp of a maximum that has no value "
                 << "mod q (the program is not LAX), so it cannot be "
                    "verified over finite fields";
        if (failed(checkBroadcastable(loop, shapes[maxSlot], shapes[result])))
          return failure();
        // exp(m_i - M): a difference of two maxima.
        exponentDegree =
            std::max(exponentDegree, satMul(2, degrees[maxSlot].total()));
        hasResidueQ[result] = false;
        degrees[result] = sumDegree(mulDegree(d, freshDegree()), n);
        break;
      }
      }
    }
    return true;
  }

  LogicalResult checkBroadcastable(Operation *op, ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
    bool ok = from.size() <= to.size();
    for (size_t j = 0; ok && j < from.size(); ++j) {
      int64_t s = from[j], t = to[to.size() - from.size() + j];
      ok = s == t || s == 1;
    }
    if (!ok)
      return op->emitError("shape ")
             << formatShape(from) << " does not broadcast to "
             << formatShape(to);
    return success();
  }

  FailureOr<bool> compileThreadGraph(thread::GraphOp graph, Instr &instr) {
    instr.cls = OpClass::ThreadGraph;
    if (graph.getNumResults() == 0)
      return graph.emitError("a thread graph without results");
    FailureOr<ArrayRef<int64_t>> resultShape =
        tensorShape(graph, graph.getResult(0));
    if (failed(resultShape))
      return failure();
    SmallVector<int64_t, 4> shape(resultShape->begin(), resultShape->end());
    Block &body = graph.getBody().front();
    for (auto [operand, arg] :
         llvm::zip_equal(graph.getInputs(), body.getArguments())) {
      unsigned slot = slotOf.lookup(operand);
      if (ArrayRef<int64_t>(shapes[slot]) == ArrayRef<int64_t>(shape)) {
        alias(arg, slot);
        continue;
      }
      if (failed(checkBroadcastable(graph, shapes[slot], shape)))
        return failure();
      unsigned argSlot = newSlot(arg, shape);
      hasResidueQ[argSlot] = hasResidueQ[slot];
      degrees[argSlot] = degrees[slot];
      instr.broadcasts.push_back({slot, argSlot});
    }
    if (failed(compileBlock(body, instr.body, ArrayRef<int64_t>(shape))))
      return failure();
    // The results are the yielded values: they share their slots.
    auto yield = cast<thread::YieldOp>(body.getTerminator());
    for (auto [result, value] :
         llvm::zip_equal(graph.getResults(), yield.getValues())) {
      FailureOr<ArrayRef<int64_t>> s = tensorShape(graph, result);
      if (failed(s))
        return failure();
      if (*s != ArrayRef<int64_t>(shape))
        return graph.emitError("thread graph results of different shapes");
      unsigned slot = slotOf.lookup(value);
      alias(result, slot);
      instr.results.push_back(slot);
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Backward analysis: who needs q-parts
  //===--------------------------------------------------------------------===//

  void markNeeds(std::vector<Instr> &instrs) {
    auto needed = [&](const Instr &instr) {
      return llvm::any_of(instr.results,
                          [&](unsigned r) { return needsQ[r] != 0; });
    };
    auto needOperands = [&](const Instr &instr) {
      for (unsigned s : instr.operands)
        needsQ[s] = true;
    };
    for (Instr &instr : llvm::reverse(instrs)) {
      switch (instr.cls) {
      case OpClass::Unary:
        if (instr.unary == thread::UnaryKind::exp ||
            (isLaxUnary(instr.unary) && needed(instr)))
          needOperands(instr);
        break;
      case OpClass::Binary:
      case OpClass::MulScalar:
      case OpClass::AddScalar:
      case OpClass::Matmul:
      case OpClass::ReduceSum:
      case OpClass::ReduceMax:
      case OpClass::Concat:
      case OpClass::TriangleFill:
      case OpClass::Where:
      case OpClass::Transpose:
      case OpClass::Gather:
      case OpClass::Reshape:
      case OpClass::Load:
        if (needed(instr))
          needOperands(instr);
        break;
      case OpClass::RmsNorm:
        // x's q-part times the scale's, which reads the row mod p only.
        if (needed(instr))
          needOperands(instr);
        break;
      case OpClass::Return:
      case OpClass::ScalarFunction:
      case OpClass::PairFunction:
        // A random function reads its operands mod p only.
        break;
      case OpClass::Store:
        if (needsQ[instr.operands[1]])
          needsQ[instr.operands[0]] = true;
        break;
      case OpClass::Custom:
        markNeeds(instr.body);
        break;
      case OpClass::ForLoop:
        // A rescale needs its maximum's running value and yields mod q.
        for (block::AccumulatorAttr acc : instr.accumulators)
          if (acc.getKind() == block::AccumKind::rescale) {
            needsQ[instr.results[*acc.getScaleBy()]] = true;
            needsQ[instr.yields[*acc.getScaleBy()]] = true;
          }
        // rms reads its values mod p only.
        for (unsigned j = 0; j < instr.results.size(); ++j) {
          block::AccumKind kind = instr.accumulators[j].getKind();
          if ((kind == block::AccumKind::sum ||
               kind == block::AccumKind::mean ||
               kind == block::AccumKind::max) &&
              needsQ[instr.results[j]])
            needsQ[instr.yields[j]] = true;
        }
        markNeeds(instr.body);
        break;
      case OpClass::ThreadGraph:
        markNeeds(instr.body);
        for (auto [operand, arg] : instr.broadcasts)
          if (needsQ[arg])
            needsQ[operand] = true;
        break;
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Evaluation
  //===--------------------------------------------------------------------===//

  const FieldTensor &in(unsigned slot) const { return *view[slot]; }
  /// The slot's tensor, shaped for writing.
  FieldTensor &out(unsigned slot) {
    FieldTensor &t = storage[slot];
    t.reshape(shapes[slot], withQ[slot]);
    return t;
  }

  LogicalResult run(std::vector<Instr> &instrs, const BlockPosition &pos) {
    for (Instr &instr : instrs)
      if (failed(runInstr(instr, pos)))
        return failure();
    return success();
  }

  LogicalResult runInstr(Instr &instr, const BlockPosition &pos) {
    switch (instr.cls) {
    case OpClass::Unary:
      return runUnary(instr);
    case OpClass::Binary:
      runBinary(instr);
      return success();
    case OpClass::MulScalar:
    case OpClass::AddScalar:
      runScalar(instr);
      return success();
    case OpClass::ScalarFunction:
      runScalarFunction(instr);
      return success();
    case OpClass::PairFunction:
      runPairFunction(instr);
      return success();
    case OpClass::Matmul:
      runMatmul(instr);
      return success();
    case OpClass::ReduceSum:
    case OpClass::ReduceMax:
      runReduce(instr);
      return success();
    case OpClass::RmsNorm:
      runRmsNorm(instr);
      return success();
    case OpClass::Concat:
      runConcat(instr);
      return success();
    case OpClass::TriangleFill:
      runTriangleFill(instr, pos);
      return success();
    case OpClass::Where:
      runWhere(instr);
      return success();
    case OpClass::Transpose:
      runTranspose(instr);
      return success();
    case OpClass::Gather:
      runGather(instr);
      return success();
    case OpClass::Reshape: {
      const FieldTensor &x = in(instr.operands[0]);
      FieldTensor &y = out(instr.results[0]);
      y.p = x.p;
      if (y.hasExponents())
        y.q = x.q;
      return success();
    }
    case OpClass::Load:
      runLoad(instr, pos);
      return success();
    case OpClass::Store:
      runStore(instr, pos);
      return success();
    case OpClass::Custom:
      return runCustom(instr);
    case OpClass::ForLoop:
      return runForLoop(instr, pos);
    case OpClass::ThreadGraph:
      for (auto [operand, arg] : instr.broadcasts)
        broadcastInto(in(operand), out(arg));
      return run(instr.body, pos);
    case OpClass::Return:
      return success();
    }
    llvm_unreachable("unknown op class");
  }

  /// exp of one q-part; fails on a value that is not LAX.
  bool expOf(uint64_t e, uint64_t &result) {
    if (LLVM_LIKELY(isExponentResidue(e))) {
      result = fieldExp(e);
      return true;
    }
    result = 0;
    if (e == kDivisionByZeroExponent) {
      divisionByZero = true;
      return true;
    }
    return false;
  }

  LogicalResult notLax(Operation *op) {
    return op->emitError("exp of a value without a residue mod q: the "
                         "program is not LAX");
  }

  LogicalResult runUnary(Instr &instr) {
    using thread::UnaryKind;
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    int64_t n = y.getNumElements();
    bool q = y.hasExponents();
    switch (instr.unary) {
    case UnaryKind::neg:
      for (int64_t i = 0; i < n; ++i)
        y.p[i] = PF::neg(x.p[i]);
      if (q)
        for (int64_t i = 0; i < n; ++i)
          y.q[i] = EP::neg(x.q[i]);
      return success();
    case UnaryKind::square:
      for (int64_t i = 0; i < n; ++i)
        y.p[i] = PF::mul(x.p[i], x.p[i]);
      if (q)
        for (int64_t i = 0; i < n; ++i)
          y.q[i] = EP::mul(x.q[i], x.q[i]);
      return success();
    case UnaryKind::exp:
      if (!x.hasExponents())
        return notLax(instr.op);
      for (int64_t i = 0; i < n; ++i)
        if (!expOf(x.q[i], y.p[i]))
          return notLax(instr.op);
      return success();
    case UnaryKind::sqrt:
      for (int64_t i = 0; i < n; ++i)
        y.p[i] = fieldSqrt(x.p[i]);
      if (q)
        for (int64_t i = 0; i < n; ++i)
          y.q[i] = sqrtExponent(x.p[i]);
      return success();
    case UnaryKind::rsqrt:
      for (int64_t i = 0; i < n; ++i)
        y.p[i] = inverseP(fieldSqrt(x.p[i]));
      if (q)
        for (int64_t i = 0; i < n; ++i)
          y.q[i] = EP::inverse(sqrtExponent(x.p[i]));
      return success();
    default: {
      assert(isRandomFunction(instr.unary) && "unexpected unary kind");
      auto kind = static_cast<unsigned>(instr.unary);
      uint64_t key = functionKeys[kind];
      for (int64_t i = 0; i < n; ++i)
        y.p[i] = applyRandomFunction(key, x.p[i]);
      if (q) {
        uint64_t exponentKey = exponentKeys[kind];
        for (int64_t i = 0; i < n; ++i)
          y.q[i] = applyExponentFunction(exponentKey, x.p[i]);
      }
      return success();
    }
    }
  }

  /// The residue mod q of sqrt at residue `x` mod p. rsqrt, rms_norm and the
  /// rms accumulator use it too, so that every spelling of a root of the
  /// same value agrees mod q as it does mod p.
  uint64_t sqrtExponent(uint64_t x) const {
    return applyExponentFunction(
        exponentKeys[static_cast<unsigned>(thread::UnaryKind::sqrt)], x);
  }

  uint64_t inverseP(uint64_t x) {
    if (LLVM_UNLIKELY(x == 0)) {
      divisionByZero = true;
      return 0;
    }
    return PF::inverse(x);
  }

  /// out = a (op) b elementwise under broadcasting, mod p and, when `out`
  /// has a q plane, mod q.
  template <typename POp, typename QOp>
  void binaryKernel(const FieldTensor &a, const FieldTensor &b, FieldTensor &y,
                    POp pop, QOp qop) {
    bool q = y.hasExponents();
    if (a.shape == y.shape && b.shape == y.shape) {
      int64_t n = y.getNumElements();
      for (int64_t i = 0; i < n; ++i)
        y.p[i] = pop(a.p[i], b.p[i]);
      if (q)
        for (int64_t i = 0; i < n; ++i)
          y.q[i] = qop(a.q[i], b.q[i]);
      return;
    }
    Strides sa = broadcastStrides(a.shape, y.shape);
    Strides sb = broadcastStrides(b.shape, y.shape);
    forEachStrided(y.shape, sa, sb, [&](int64_t i, int64_t ia, int64_t ib) {
      y.p[i] = pop(a.p[ia], b.p[ib]);
    });
    if (q)
      forEachStrided(y.shape, sa, sb, [&](int64_t i, int64_t ia, int64_t ib) {
        y.q[i] = qop(a.q[ia], b.q[ib]);
      });
  }

  void runBinary(Instr &instr) {
    const FieldTensor &a = in(instr.operands[0]);
    const FieldTensor &b = in(instr.operands[1]);
    FieldTensor &y = out(instr.results[0]);
    switch (instr.binary) {
    case thread::BinaryKind::add:
      return binaryKernel(a, b, y, PF::add, EP::add);
    case thread::BinaryKind::sub:
      return binaryKernel(a, b, y, PF::sub, EP::sub);
    case thread::BinaryKind::mul:
      return binaryKernel(a, b, y, PF::mul, EP::mul);
    case thread::BinaryKind::div: {
      // Invert the divisor at its own (unbroadcast) shape, then multiply.
      scratch.reshape(b.shape, y.hasExponents());
      for (int64_t i = 0, n = b.getNumElements(); i < n; ++i)
        scratch.p[i] = inverseP(b.p[i]);
      if (y.hasExponents())
        for (int64_t i = 0, n = b.getNumElements(); i < n; ++i)
          scratch.q[i] = EP::inverse(b.q[i]);
      return binaryKernel(a, scratch, y, PF::mul, EP::mul);
    }
    case thread::BinaryKind::max:
    case thread::BinaryKind::min:
      llvm_unreachable("max and min are pair functions");
    }
  }

  void runScalar(Instr &instr) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    int64_t n = y.getNumElements();
    FieldElement c = instr.scalar;
    bool mul = instr.cls == OpClass::MulScalar;
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = mul ? PF::mul(x.p[i], c.p) : PF::add(x.p[i], c.p);
    if (y.hasExponents())
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = mul ? EP::mul(x.q[i], c.q) : EP::add(x.q[i], c.q);
  }

  /// max_scalar or min_scalar: its random function of x mod p, and the
  /// independent one mod q, as mlsopt_field_random_scalar computes them.
  void runScalarFunction(Instr &instr) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    int64_t n = y.getNumElements();
    uint64_t key = randomFunctionKey(functionSeed, instr.function);
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = applyRandomFunction(key, x.p[i]);
    if (y.hasExponents()) {
      uint64_t exponentKey = exponentFunctionKey(functionSeed, instr.function);
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = applyExponentFunction(exponentKey, x.p[i]);
    }
  }

  /// max or min of two tensors under broadcasting: the symmetric random
  /// function of each pair of residues mod p, and its independent one mod
  /// q, as mlsopt_field_random_pair computes them.
  void runPairFunction(Instr &instr) {
    const FieldTensor &a = in(instr.operands[0]);
    const FieldTensor &b = in(instr.operands[1]);
    FieldTensor &y = out(instr.results[0]);
    uint64_t key = randomFunctionKey(functionSeed, instr.function);
    uint64_t exponentKey = exponentFunctionKey(functionSeed, instr.function);
    bool q = y.hasExponents();
    forEachStrided(y.shape, broadcastStrides(a.shape, y.shape),
                   broadcastStrides(b.shape, y.shape),
                   [&](int64_t i, int64_t ia, int64_t ib) {
                     uint64_t pair = symmetricPairResidue(a.p[ia], b.p[ib]);
                     y.p[i] = applyRandomFunction(key, pair);
                     if (q)
                       y.q[i] = applyExponentFunction(exponentKey, pair);
                   });
  }

  /// The sum of a[i] * b[i * bStride] mod the field's modulus: 128-bit
  /// products summed in 192 bits, reduced once.
  template <typename Field>
  static uint64_t dot(const uint64_t *a, const uint64_t *b, int64_t k) {
    uint128_t acc0 = 0, acc1 = 0;
    uint64_t top0 = 0, top1 = 0;
    int64_t i = 0;
    for (; i + 1 < k; i += 2) {
      uint128_t p0 = uint128_t(a[i]) * b[i];
      uint128_t p1 = uint128_t(a[i + 1]) * b[i + 1];
      acc0 += p0;
      top0 += acc0 < p0;
      acc1 += p1;
      top1 += acc1 < p1;
    }
    if (i < k) {
      uint128_t p0 = uint128_t(a[i]) * b[i];
      acc0 += p0;
      top0 += acc0 < p0;
    }
    return Field::add(Field::reduceWide(top0, acc0),
                      Field::reduceWide(top1, acc1));
  }

  static constexpr int64_t kPairBlock = kMatmulPairBlock;

  /// Calls fn(i, j) for every row rowBegin <= i < rowEnd and column j < n,
  /// in blocks of kMatmulPairBlock rows and columns.
  template <typename Fn>
  static void forEachBlockedPair(int64_t rowBegin, int64_t rowEnd, int64_t n,
                                 Fn &&fn) {
    for (int64_t i0 = rowBegin; i0 < rowEnd; i0 += kPairBlock)
      for (int64_t j0 = 0; j0 < n; j0 += kPairBlock)
        for (int64_t i = i0, ie = std::min(i0 + kPairBlock, rowEnd); i < ie;
             ++i)
          for (int64_t j = j0, je = std::min(j0 + kPairBlock, n); j < je; ++j)
            fn(i, j);
  }

  /// forEachBlockedPair over m rows, the blocks of rows shared among the
  /// pool's threads when the m x n pairs of k-vectors are enough work.
  /// fn must only write what pair (i, j) owns.
  template <typename Fn>
  void forEachBlockedPairShared(int64_t m, int64_t n, int64_t k, Fn &&fn) {
    int64_t rowBlocks = llvm::divideCeil(m, kPairBlock);
    int64_t threads =
        pool ? std::min<int64_t>(pool->getMaxConcurrency(), rowBlocks) : 1;
    // A task costs microseconds to start: a product of fewer than about a
    // million multiply-adds is done sooner alone.
    if (threads < 2 || m * n * k < (int64_t(1) << 20)) {
      forEachBlockedPair(0, m, n, fn);
      return;
    }
    llvm::ThreadPoolTaskGroup group(*pool);
    for (int64_t t = 0; t < threads; ++t)
      group.async([&, t] {
        forEachBlockedPair(
            rowBlocks * t / threads * kPairBlock,
            std::min(m, rowBlocks * (t + 1) / threads * kPairBlock), n, fn);
      });
    group.wait();
  }

  /// Transposes the k x n matrix at `b` into `transposed` (n x k).
  void transposeInto(const uint64_t *b, int64_t k, int64_t n) {
    transposed.resize(k * n);
    constexpr int64_t tile = 32;
    for (int64_t i0 = 0; i0 < k; i0 += tile)
      for (int64_t j0 = 0; j0 < n; j0 += tile)
        for (int64_t i = i0, ie = std::min(i0 + tile, k); i < ie; ++i)
          for (int64_t j = j0, je = std::min(j0 + tile, n); j < je; ++j)
            transposed[j * k + i] = b[i * n + j];
  }

  void runMatmul(Instr &instr) {
    const FieldTensor &a = in(instr.operands[0]);
    const FieldTensor &b = in(instr.operands[1]);
    FieldTensor &y = out(instr.results[0]);
    int64_t rank = y.shape.size();
    int64_t m = y.shape[rank - 2], n = y.shape[rank - 1];
    int64_t k = a.shape[rank - 1];
    int64_t batches = numElements(ArrayRef<int64_t>(y.shape).drop_back(2));
    for (int64_t batch = 0; batch < batches; ++batch) {
      const uint64_t *ap = a.p.data() + batch * m * k;
      uint64_t *yp = y.p.data() + batch * m * n;
      transposeInto(b.p.data() + batch * k * n, k, n);
      forEachBlockedPairShared(m, n, k, [&](int64_t i, int64_t j) {
        yp[i * n + j] =
            dot<PrimeField>(ap + i * k, transposed.data() + j * k, k);
      });
      if (!y.hasExponents())
        continue;
      // q-parts: a row or column holding a marker makes its outputs markers.
      const uint64_t *aq = a.q.data() + batch * m * k;
      uint64_t *yq = y.q.data() + batch * m * n;
      transposeInto(b.q.data() + batch * k * n, k, n);
      auto markerOf = [](const uint64_t *v, int64_t len) {
        uint64_t marker = 0;
        for (int64_t i = 0; i < len; ++i)
          if (!isExponentResidue(v[i]))
            marker = std::max(marker, v[i]);
        return marker;
      };
      rowMarkers.resize(m);
      colMarkers.resize(n);
      for (int64_t i = 0; i < m; ++i)
        rowMarkers[i] = markerOf(aq + i * k, k);
      for (int64_t j = 0; j < n; ++j)
        colMarkers[j] = markerOf(transposed.data() + j * k, k);
      forEachBlockedPairShared(m, n, k, [&](int64_t i, int64_t j) {
        uint64_t marker = std::max(rowMarkers[i], colMarkers[j]);
        yq[i * n + j] =
            marker
                ? marker
                : dot<ExponentField>(aq + i * k, transposed.data() + j * k, k);
      });
    }
  }

  /// Splits `shape` around `dim` into (outer, size of dim, inner).
  static std::array<int64_t, 3> splitAt(ArrayRef<int64_t> shape, int64_t dim) {
    return {numElements(shape.take_front(dim)), shape[dim],
            numElements(shape.drop_front(dim + 1))};
  }

  void runReduce(Instr &instr) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    auto [outer, count, inner] = splitAt(x.shape, instr.dim);
    bool q = y.hasExponents();
    bool isMax = instr.cls == OpClass::ReduceMax;
    for (int64_t o = 0; o < outer; ++o) {
      uint64_t *yp = y.p.data() + o * inner;
      uint64_t *yq = q ? y.q.data() + o * inner : nullptr;
      const uint64_t *xp = x.p.data() + o * count * inner;
      const uint64_t *xq = q ? x.q.data() + o * count * inner : nullptr;
      std::copy(xp, xp + inner, yp);
      if (q)
        std::copy(xq, xq + inner, yq);
      for (int64_t c = 1; c < count; ++c) {
        const uint64_t *rp = xp + c * inner;
        const uint64_t *rq = q ? xq + c * inner : nullptr;
        if (isMax) {
          for (int64_t i = 0; i < inner; ++i)
            if (fieldGreater(rp[i], q ? rq[i] : 0, yp[i], q ? yq[i] : 0)) {
              yp[i] = rp[i];
              if (q)
                yq[i] = rq[i];
            }
          continue;
        }
        for (int64_t i = 0; i < inner; ++i)
          yp[i] = PF::add(yp[i], rp[i]);
        if (q)
          for (int64_t i = 0; i < inner; ++i)
            yq[i] = EP::add(yq[i], rq[i]);
      }
    }
  }

  /// Each row along the normalized dim (elements `inner` apart) is scaled
  /// by the inverse square root of its mean square plus epsilon.
  void runRmsNorm(Instr &instr) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    int64_t n = x.shape.empty() ? 1 : x.shape[instr.dim];
    int64_t inner = 1;
    for (int64_t d : ArrayRef<int64_t>(x.shape).drop_front(instr.dim + 1))
      inner *= d;
    int64_t outer = n == 0 ? 0 : x.getNumElements() / (n * inner);
    uint64_t inverseN = inverseP(PF::fromInteger(n));
    SmallVector<uint64_t> row(n);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t first = o * n * inner + i;
        for (int64_t c = 0; c < n; ++c)
          row[c] = x.p[first + c * inner];
        uint64_t meanSquare =
            PF::mul(dot<PrimeField>(row.data(), row.data(), n), inverseN);
        uint64_t shifted = PF::add(meanSquare, instr.scalar.p);
        uint64_t scale = inverseP(fieldSqrt(shifted));
        for (int64_t c = 0; c < n; ++c)
          y.p[first + c * inner] = PF::mul(row[c], scale);
        if (!y.hasExponents())
          continue;
        uint64_t scaleQ = EP::inverse(sqrtExponent(shifted));
        for (int64_t c = 0; c < n; ++c)
          y.q[first + c * inner] = EP::mul(x.q[first + c * inner], scaleQ);
      }
    }
  }

  void runConcat(Instr &instr) {
    FieldTensor &y = out(instr.results[0]);
    SmallVector<int64_t, 6> offsets(y.shape.size(), 0);
    for (unsigned operand : instr.operands) {
      const FieldTensor &x = in(operand);
      insertBox(y.p, y.shape, x.p, x.shape, offsets);
      if (y.hasExponents())
        insertBox(y.q, y.shape, x.q, x.shape, offsets);
      offsets[instr.dim] += x.shape[instr.dim];
    }
  }

  void runTranspose(Instr &instr) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    Strides own = rowMajorStrides(x.shape);
    Strides strides;
    for (int64_t p : instr.permutation)
      strides.push_back(own[p]);
    Strides zero(strides.size(), 0);
    forEachStrided(y.shape, strides, zero,
                   [&](int64_t i, int64_t at, int64_t) { y.p[i] = x.p[at]; });
    if (y.hasExponents())
      forEachStrided(y.shape, strides, zero,
                     [&](int64_t i, int64_t at, int64_t) { y.q[i] = x.q[at]; });
  }

  void runGather(Instr &instr) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    int64_t base = instr.gatherBase;
    Strides zero(instr.gatherStrides.size(), 0);
    forEachStrided(
        y.shape, instr.gatherStrides, zero,
        [&](int64_t i, int64_t at, int64_t) { y.p[i] = x.p[base + at]; });
    if (y.hasExponents())
      forEachStrided(
          y.shape, instr.gatherStrides, zero,
          [&](int64_t i, int64_t at, int64_t) { y.q[i] = x.q[base + at]; });
  }

  void broadcastInto(const FieldTensor &x, FieldTensor &y) {
    Strides strides = broadcastStrides(x.shape, y.shape);
    forEachStrided(y.shape, strides, strides,
                   [&](int64_t i, int64_t at, int64_t) { y.p[i] = x.p[at]; });
    if (y.hasExponents())
      forEachStrided(y.shape, strides, strides,
                     [&](int64_t i, int64_t at, int64_t) { y.q[i] = x.q[at]; });
  }

  /// The offsets of this block's tile: grid index times the block's span
  /// (blockSpan) along the dims the grid splits, plus iteration times tile
  /// size along the loop's dim, as in --convert-custom-kernel-to-loops.
  static SmallVector<int64_t, 6> tileOffsets(const Instr &instr,
                                             ArrayRef<int64_t> tile,
                                             const BlockPosition &pos) {
    SmallVector<int64_t, 6> offsets(tile.size(), 0);
    for (unsigned g = 0; g < 3; ++g)
      if (std::optional<int64_t> d = instr.gridMap[g])
        offsets[*d] = pos.block[g] *
                      blockSpan(tile[*d], *d, instr.loopDim, instr.iterations);
    if (instr.loopDim)
      offsets[*instr.loopDim] += pos.iteration * tile[*instr.loopDim];
    return offsets;
  }

  void runTriangleFill(Instr &instr, const BlockPosition &pos) {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    ArrayRef<int64_t> shape = y.shape;
    SmallVector<int64_t, 6> offsets = tileOffsets(instr, shape, pos);
    auto [rows, cols] = instr.triangleDims;
    // Row-major strides of the two dims.
    int64_t rowStride = 1, colStride = 1;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d > rows; --d)
      rowStride *= shape[d];
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d > cols; --d)
      colStride *= shape[d];
    for (int64_t i = 0, n = y.getNumElements(); i < n; ++i) {
      int64_t row = offsets[rows] + (i / rowStride) % shape[rows];
      int64_t col = offsets[cols] + (i / colStride) % shape[cols];
      bool filled = col - row >= instr.diagonal;
      y.p[i] = filled ? instr.scalar.p : x.p[i];
      if (y.hasExponents())
        y.q[i] = filled ? instr.scalar.q : x.q[i];
    }
  }

  void runWhere(Instr &instr) {
    const FieldTensor &m = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    FieldElement t = instr.scalar, f = instr.otherScalar;
    uint64_t step = PF::sub(t.p, f.p);
    for (int64_t i = 0, n = y.getNumElements(); i < n; ++i)
      y.p[i] = PF::add(f.p, PF::mul(m.p[i], step));
    if (y.hasExponents()) {
      uint64_t exponentStep = EP::sub(t.q, f.q);
      for (int64_t i = 0, n = y.getNumElements(); i < n; ++i)
        y.q[i] = EP::add(f.q, EP::mul(m.q[i], exponentStep));
    }
  }

  void runLoad(Instr &instr, const BlockPosition &pos) {
    const FieldTensor &source = in(instr.operands[0]);
    FieldTensor &tile = out(instr.results[0]);
    SmallVector<int64_t, 6> offsets = tileOffsets(instr, tile.shape, pos);
    for (auto [offset, start] : llvm::zip(offsets, instr.windowOffsets))
      offset += start;
    auto nextResidue = [&] { return padding->nextResidue(); };
    auto nextExponent = [&] { return padding->nextExponent(); };
    using Draw = function_ref<uint64_t()>;
    extractBox(source.p, source.shape, tile.p, tile.shape, offsets,
               instr.limits, padding ? Draw(nextResidue) : nullptr);
    if (tile.hasExponents())
      extractBox(source.q, source.shape, tile.q, tile.shape, offsets,
                 instr.limits, padding ? Draw(nextExponent) : nullptr);
  }

  void runStore(Instr &instr, const BlockPosition &pos) {
    const FieldTensor &tile = in(instr.operands[0]);
    FieldTensor &dest = (owner ? owner->storage : storage)[instr.operands[1]];
    SmallVector<int64_t, 6> offsets = tileOffsets(instr, tile.shape, pos);
    insertBox(dest.p, dest.shape, tile.p, tile.shape, offsets, instr.limits);
    if (dest.hasExponents())
      insertBox(dest.q, dest.shape, tile.q, tile.shape, offsets, instr.limits);
  }

  LogicalResult runCustom(Instr &instr) {
    auto clearResults = [&] {
      for (unsigned r : instr.results) {
        FieldTensor &t = out(r);
        std::fill(t.p.begin(), t.p.end(), 0);
        std::fill(t.q.begin(), t.q.end(), 0);
      }
    };
    clearResults();
    // The verifier has every store map each grid dim of several blocks, so
    // the blocks write disjoint tiles and may run at once. Random padding
    // is drawn in the blocks' order, so it keeps them in it.
    if (pool && !padding && pool->getMaxConcurrency() > 1) {
      if (succeeded(runGridInParallel(instr)))
        return success();
      // A block failed: run them in order, so that the error is the one
      // the first failing block gives without threads.
      clearResults();
    }
    return runSerialGrid(instr);
  }

  /// Adds the slots the ops of `body` define, at every depth.
  static void collectDefinedSlots(const std::vector<Instr> &body,
                                  SmallVectorImpl<unsigned> &slots) {
    for (const Instr &op : body) {
      slots.append(op.results.begin(), op.results.end());
      for (auto [operand, arg] : op.broadcasts)
        slots.push_back(arg);
      collectDefinedSlots(op.body, slots);
    }
  }

  /// The evaluator of one thread of a custom kernel's grid: it reads the
  /// slots outside the kernel through this one's views, stores into this
  /// one's outputs, and has its own storage and scratch for the slots
  /// `bodySlots` the kernel defines.
  std::unique_ptr<Impl> makeGridWorker(ArrayRef<unsigned> bodySlots) {
    auto worker = std::make_unique<Impl>();
    worker->func = func;
    worker->shapes = shapes;
    worker->withQ = withQ;
    worker->functionKeys = functionKeys;
    worker->exponentKeys = exponentKeys;
    worker->functionSeed = functionSeed;
    worker->owner = this;
    worker->storage.resize(storage.size());
    worker->view = view;
    for (unsigned slot : bodySlots)
      worker->view[slot] = &worker->storage[slot];
    return worker;
  }

  /// Runs the grid's blocks as contiguous ranges of the order runCustom
  /// follows, one range per thread of the pool.
  LogicalResult runGridInParallel(Instr &instr) {
    auto [gx, gy, gz] = instr.grid;
    int64_t blocks = gx * gy * gz;
    int64_t threads = std::min<int64_t>(pool->getMaxConcurrency(), blocks);
    if (threads < 2)
      return runSerialGrid(instr);
    SmallVector<unsigned> bodySlots;
    collectDefinedSlots(instr.body, bodySlots);
    std::vector<std::unique_ptr<Impl>> workers;
    for (int64_t t = 0; t < threads; ++t)
      workers.push_back(makeGridWorker(bodySlots));
    std::vector<char> failedAt(threads, 0);
    {
      // Errors a worker would emit are dropped: the serial rerun emits the
      // first block's.
      ScopedDiagnosticHandler quiet(func.getContext(),
                                    [](Diagnostic &) { return success(); });
      llvm::ThreadPoolTaskGroup group(*pool);
      for (int64_t t = 0; t < threads; ++t)
        group.async([&, t] {
          Impl &worker = *workers[t];
          for (int64_t b = blocks * t / threads,
                       end = blocks * (t + 1) / threads;
               b < end; ++b) {
            BlockPosition pos;
            pos.block = {b / (gy * gz), b / gz % gy, b % gz};
            if (failed(worker.run(instr.body, pos))) {
              failedAt[t] = 1;
              return;
            }
          }
        });
      group.wait();
    }
    for (const auto &worker : workers)
      divisionByZero |= worker->divisionByZero;
    return success(llvm::none_of(failedAt, [](char f) { return f; }));
  }

  LogicalResult runSerialGrid(Instr &instr) {
    BlockPosition pos;
    for (pos.block[0] = 0; pos.block[0] < instr.grid[0]; ++pos.block[0])
      for (pos.block[1] = 0; pos.block[1] < instr.grid[1]; ++pos.block[1])
        for (pos.block[2] = 0; pos.block[2] < instr.grid[2]; ++pos.block[2])
          if (failed(run(instr.body, pos)))
            return failure();
    return success();
  }

  /// exp(a - b) for every element of the max accumulator's shape, from the
  /// q-parts of `a` and `b`, into `factor`.
  bool expDifference(const FieldTensor &a, const FieldTensor &b,
                     FieldTensor &factor) {
    factor.reshape(a.shape, /*withExponents=*/false);
    for (int64_t i = 0, n = a.getNumElements(); i < n; ++i)
      if (!expOf(EP::sub(a.q[i], b.q[i]), factor.p[i]))
        return false;
    return true;
  }

  LogicalResult runForLoop(Instr &instr, const BlockPosition &outer) {
    BlockPosition pos = outer;
    unsigned numAccs = instr.results.size();
    for (pos.iteration = 0; pos.iteration < instr.iterations; ++pos.iteration) {
      if (failed(run(instr.body, pos)))
        return failure();
      bool first = pos.iteration == 0;
      // Max accumulators first: a rescale needs the old and the new maximum.
      // Only one maximum's old value is kept at a time, so rescales are
      // applied right after the maximum they refer to is updated.
      for (unsigned k = 0; k < numAccs; ++k) {
        if (instr.accumulators[k].getKind() != block::AccumKind::max)
          continue;
        FieldTensor &running = storage[instr.results[k]];
        const FieldTensor &value = in(instr.yields[k]);
        bool rescaled = llvm::any_of(instr.accumulators, [&](auto acc) {
          return acc.getKind() == block::AccumKind::rescale &&
                 *acc.getScaleBy() == k;
        });
        if (!first && rescaled)
          oldMax = running;
        if (first) {
          running.reshape(shapes[instr.results[k]], withQ[instr.results[k]]);
          running.p = value.p;
          if (running.hasExponents())
            running.q = value.q;
        } else {
          bool q = running.hasExponents();
          for (int64_t i = 0, n = running.getNumElements(); i < n; ++i)
            if (fieldGreater(value.p[i], q ? value.q[i] : 0, running.p[i],
                             q ? running.q[i] : 0)) {
              running.p[i] = value.p[i];
              if (q)
                running.q[i] = value.q[i];
            }
        }
        for (unsigned j = 0; j < numAccs; ++j) {
          block::AccumulatorAttr acc = instr.accumulators[j];
          if (acc.getKind() == block::AccumKind::rescale &&
              *acc.getScaleBy() == k &&
              failed(updateRescale(instr, j, k, first)))
            return failure();
        }
      }
      for (unsigned j = 0; j < numAccs; ++j) {
        block::AccumKind kind = instr.accumulators[j].getKind();
        if (kind == block::AccumKind::max || kind == block::AccumKind::rescale)
          continue;
        FieldTensor &running = storage[instr.results[j]];
        const FieldTensor &value = in(instr.yields[j]);
        bool rms = kind == block::AccumKind::rms;
        if (first)
          running.reshape(shapes[instr.results[j]], withQ[instr.results[j]]);
        int64_t n = running.getNumElements();
        for (int64_t i = 0; i < n; ++i) {
          uint64_t v = rms ? PF::mul(value.p[i], value.p[i]) : value.p[i];
          running.p[i] = first ? v : PF::add(running.p[i], v);
        }
        // rms gets its q-part from the mean mod p once the loop is done.
        if (running.hasExponents() && !rms)
          for (int64_t i = 0; i < n; ++i)
            running.q[i] =
                first ? value.q[i] : EP::add(running.q[i], value.q[i]);
      }
    }
    // Finalize: mean and rms divide by the iteration count.
    FieldElement inverseN = {
        inverseP(PF::fromInteger(instr.iterations)),
        EP::inverse(ExponentField::fromInteger(instr.iterations))};
    for (unsigned j = 0; j < numAccs; ++j) {
      block::AccumKind kind = instr.accumulators[j].getKind();
      FieldTensor &running = storage[instr.results[j]];
      int64_t n = running.getNumElements();
      if (kind == block::AccumKind::mean) {
        for (int64_t i = 0; i < n; ++i)
          running.p[i] = PF::mul(running.p[i], inverseN.p);
        if (running.hasExponents())
          for (int64_t i = 0; i < n; ++i)
            running.q[i] = EP::mul(running.q[i], inverseN.q);
      } else if (kind == block::AccumKind::rms) {
        bool q = running.hasExponents();
        for (int64_t i = 0; i < n; ++i) {
          uint64_t mean = PF::mul(running.p[i], inverseN.p);
          running.p[i] = fieldSqrt(mean);
          if (q)
            running.q[i] = sqrtExponent(mean);
        }
      }
    }
    return success();
  }

  /// running_j = running_j * exp(M_old - M_new) + v_j * exp(m - M_new), with
  /// the factors computed at the maximum's shape and broadcast.
  LogicalResult updateRescale(Instr &instr, unsigned j, unsigned k,
                              bool first) {
    const FieldTensor &newMax = storage[instr.results[k]];
    const FieldTensor &m = in(instr.yields[k]);
    const FieldTensor &v = in(instr.yields[j]);
    FieldTensor &running = storage[instr.results[j]];
    if (!expDifference(m, newMax, scratch))
      return notLax(instr.op);
    if (first) {
      running.reshape(shapes[instr.results[j]], /*withExponents=*/false);
      Strides sv = broadcastStrides(v.shape, running.shape);
      Strides sf = broadcastStrides(scratch.shape, running.shape);
      forEachStrided(running.shape, sv, sf,
                     [&](int64_t i, int64_t iv, int64_t f) {
                       running.p[i] = PF::mul(v.p[iv], scratch.p[f]);
                     });
      return success();
    }
    if (!expDifference(oldMax, newMax, scratch2))
      return notLax(instr.op);
    Strides sf = broadcastStrides(scratch.shape, running.shape);
    Strides sv = broadcastStrides(v.shape, running.shape);
    forEachStrided(running.shape, sf, sf, [&](int64_t i, int64_t f, int64_t) {
      running.p[i] = PF::mul(running.p[i], scratch2.p[f]);
    });
    forEachStrided(
        running.shape, sv, sf, [&](int64_t i, int64_t iv, int64_t f) {
          running.p[i] = PF::add(running.p[i], PF::mul(v.p[iv], scratch.p[f]));
        });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// FieldEvaluator
//===----------------------------------------------------------------------===//

FieldEvaluator::FieldEvaluator(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
FieldEvaluator::FieldEvaluator(FieldEvaluator &&) = default;
FieldEvaluator &FieldEvaluator::operator=(FieldEvaluator &&) = default;
FieldEvaluator::~FieldEvaluator() = default;

FailureOr<FieldEvaluator> FieldEvaluator::create(func::FuncOp func) {
  // The evaluator trusts shapes and attributes the verifiers check.
  if (failed(mlir::verify(func)))
    return failure();
  if (func.getBody().getBlocks().size() != 1)
    return func.emitError(
        "the finite-field evaluator needs a function with one block");
  auto impl = std::make_unique<Impl>();
  impl->func = func;
  impl->constantExtents = getReciprocalExtents(func);
  impl->constantRoundingType =
      getReciprocalRoundingType(func.getFunctionType());
  if (failed(impl->compileFunction()))
    return failure();
  size_t numSlots = impl->shapes.size();
  impl->needsQ.assign(numSlots, false);
  impl->markNeeds(impl->program);
  impl->withQ.resize(numSlots);
  for (size_t s = 0; s < numSlots; ++s)
    impl->withQ[s] = impl->needsQ[s] && impl->hasResidueQ[s];
  impl->storage.resize(numSlots);
  impl->view.resize(numSlots);
  for (size_t s = 0; s < numSlots; ++s)
    impl->view[s] = &impl->storage[s];
  return FieldEvaluator(std::move(impl));
}

func::FuncOp FieldEvaluator::getFunction() const { return impl->func; }

void FieldEvaluator::setThreadPool(llvm::ThreadPoolInterface *pool) {
  impl->pool = pool;
}

ArrayRef<uint64_t> FieldEvaluator::getResultDegrees() const {
  return impl->resultDegrees;
}

bool FieldEvaluator::hasMaxSelection() const { return impl->hasMaxSelection; }

ArrayRef<int64_t> FieldEvaluator::getConstantExtents() const {
  return impl->constantExtents;
}

Type FieldEvaluator::getConstantRoundingType() const {
  return impl->constantRoundingType;
}

bool FieldEvaluator::needsInputExponents(unsigned i) const {
  return impl->withQ[impl->argumentSlots[i]];
}

bool FieldEvaluator::computesExponents(Value value) const {
  auto it = impl->slotOf.find(value);
  return it != impl->slotOf.end() && impl->withQ[it->second];
}

uint64_t FieldEvaluator::getExponentDegree() const {
  return impl->exponentDegree;
}

FailureOr<FieldEvaluation>
FieldEvaluator::evaluate(ArrayRef<FieldTensor> inputs,
                         const FieldOptions &options) {
  Impl &s = *impl;
  if (inputs.size() != s.argumentSlots.size())
    return s.func.emitError("the finite-field evaluator got ")
           << inputs.size() << " inputs for " << s.argumentSlots.size()
           << " arguments";
  for (auto [i, slot] : llvm::enumerate(s.argumentSlots)) {
    const FieldTensor &input = inputs[i];
    if (ArrayRef<int64_t>(input.shape) != ArrayRef<int64_t>(s.shapes[slot]) ||
        input.getNumElements() != numElements(input.shape) ||
        (s.withQ[slot] && input.q.size() != input.p.size()))
      return s.func.emitError("finite-field input ")
             << i << " does not match the argument's shape "
             << formatShape(s.shapes[slot])
             << (s.withQ[slot] ? " or has no q-parts" : "");
    s.view[slot] = &input;
  }
  for (unsigned k = 0; k < kNumUnaryKinds; ++k) {
    s.functionKeys[k] = randomFunctionKey(options.functionSeed, k + 1);
    s.exponentKeys[k] = exponentFunctionKey(options.functionSeed, k + 1);
  }
  s.functionSeed = options.functionSeed;
  s.padding.reset();
  if (options.paddingSeed)
    s.padding.emplace(options.paddingSeed);
  s.divisionByZero = false;

  LogicalResult ran = s.run(s.program, BlockPosition());
  FieldEvaluation evaluation;
  if (succeeded(ran)) {
    for (unsigned slot : s.resultSlots)
      evaluation.results.push_back(*s.view[slot]);
    evaluation.divisionByZero = s.divisionByZero;
  }
  // The inputs belong to the caller: forget them.
  for (unsigned slot : s.argumentSlots)
    s.view[slot] = &s.storage[slot];
  if (failed(ran))
    return failure();
  return evaluation;
}

FailureOr<FieldEvaluation>
mlsopt::verify::evaluate(func::FuncOp func, ArrayRef<FieldTensor> inputs,
                         const FieldOptions &options) {
  FailureOr<FieldEvaluator> evaluator = FieldEvaluator::create(func);
  if (failed(evaluator))
    return failure();
  return evaluator->evaluate(inputs, options);
}

uint64_t mlsopt::verify::getComparisonDegree(const FieldEvaluator &lhs,
                                             const FieldEvaluator &rhs) {
  uint64_t degree = 1;
  for (auto [l, r] :
       llvm::zip_equal(lhs.getResultDegrees(), rhs.getResultDegrees()))
    degree = std::max(degree, satAdd(l, r));
  uint64_t exponents =
      satMul(2, std::max(lhs.getExponentDegree(), rhs.getExponentDegree()));
  return std::max(degree, exponents);
}

FailureOr<FieldComparison> mlsopt::verify::compareInField(FieldEvaluator &lhs,
                                                          FieldEvaluator &rhs,
                                                          unsigned tests,
                                                          uint64_t seed) {
  // q-parts only for the inputs some exp reads in either function.
  SmallVector<bool> withExponents;
  for (unsigned i = 0; i < lhs.getFunction().getNumArguments(); ++i)
    withExponents.push_back(lhs.needsInputExponents(i) ||
                            rhs.needsInputExponents(i));
  auto evaluateWith = [](FieldEvaluator &evaluator) {
    return [&evaluator](ArrayRef<FieldTensor> inputs,
                        const FieldOptions &options) {
      return evaluator.evaluate(inputs, options);
    };
  };
  auto evaluateLhs = evaluateWith(lhs), evaluateRhs = evaluateWith(rhs);
  return compareInField(lhs.getFunction(), rhs.getFunction(), withExponents,
                        evaluateLhs, evaluateRhs, tests, seed);
}

/// Runs both programs of one test into `a` and `b`: one after the other, or
/// with a pool, the lhs as its task while this thread runs the rhs. Fails
/// when either fails; their errors come in lhs, rhs order either way.
static LogicalResult
evaluateBoth(func::FuncOp l, FieldEvaluateFn evaluateLhs,
             FieldEvaluateFn evaluateRhs, ArrayRef<FieldTensor> inputs,
             const FieldOptions &options, llvm::ThreadPoolInterface *pool,
             FailureOr<FieldEvaluation> &a, FailureOr<FieldEvaluation> &b) {
  if (!pool) {
    a = evaluateLhs(inputs, options);
    if (failed(a))
      return failure();
    b = evaluateRhs(inputs, options);
    return failure(failed(b));
  }
  ParallelDiagnosticHandler diagnostics(l.getContext());
  llvm::ThreadPoolTaskGroup group(*pool);
  group.async([&] {
    diagnostics.setOrderIDForThread(0);
    a = evaluateLhs(inputs, options);
    diagnostics.eraseOrderIDForThread();
  });
  diagnostics.setOrderIDForThread(1);
  b = evaluateRhs(inputs, options);
  diagnostics.eraseOrderIDForThread();
  // A pool thread waiting here runs the lhs itself if no other has taken it.
  group.wait();
  return failure(failed(a) || failed(b));
}

FailureOr<FieldComparison> mlsopt::verify::compareInField(
    func::FuncOp l, func::FuncOp r, ArrayRef<bool> withExponents,
    FieldEvaluateFn evaluateLhs, FieldEvaluateFn evaluateRhs, unsigned tests,
    uint64_t seed, llvm::ThreadPoolInterface *pool) {
  // Element types do not matter in the field; shapes do.
  auto sameShapes = [](TypeRange a, TypeRange b) {
    return a.size() == b.size() && llvm::all_of_zip(a, b, [](Type x, Type y) {
             auto sx = dyn_cast<ShapedType>(x), sy = dyn_cast<ShapedType>(y);
             return sx && sy && sx.getShape() == sy.getShape();
           });
  };
  if (!sameShapes(l.getArgumentTypes(), r.getArgumentTypes()) ||
      !sameShapes(l.getResultTypes(), r.getResultTypes()))
    return l.emitError("cannot compare @")
           << l.getSymName() << " with @" << r.getSymName()
           << ": their signatures differ";
  FieldComparison comparison;
  bool sawDivisionByZero = false;
  SmallVector<FieldTensor> inputs;
  for (unsigned t = 0; t < tests; ++t) {
    // Every test draws fresh inputs (into the same buffers) and fresh random
    // functions.
    uint64_t testSeed = mix64(seed + mix64(t + 1));
    FieldRandom random(testSeed);
    fillRandomInputs(inputs, l, random, withExponents);
    FieldOptions options;
    options.functionSeed = mix64(testSeed ^ 0x5851f42d4c957f2dULL);
    FailureOr<FieldEvaluation> a = failure(), b = failure();
    if (failed(evaluateBoth(l, evaluateLhs, evaluateRhs, inputs, options, pool,
                            a, b)))
      return failure();
    ++comparison.tests;
    if (a->divisionByZero || b->divisionByZero) {
      // The zero may be padding past a ragged tile's end, which no result
      // reads: with random padding the test proves as much as any other.
      // One program after the other: an engine may hand such runs to the
      // evaluator, whose grids silence diagnostics while their threads run,
      // the other program's included.
      options.paddingSeed = getPaddingSeed(testSeed);
      if (failed(evaluateBoth(l, evaluateLhs, evaluateRhs, inputs, options,
                              /*pool=*/nullptr, a, b)))
        return failure();
    }
    if (a->divisionByZero || b->divisionByZero) {
      sawDivisionByZero = true;
      continue;
    }
    for (auto [i, pair] : llvm::enumerate(llvm::zip(a->results, b->results))) {
      const FieldTensor &x = std::get<0>(pair), &y = std::get<1>(pair);
      if (x.p == y.p)
        continue;
      int64_t index = 0;
      while (x.p[index] == y.p[index])
        ++index;
      comparison.verdict = FieldVerdict::Different;
      comparison.test = t;
      comparison.result = i;
      comparison.index = index;
      comparison.lhsValue = x.p[index];
      comparison.rhsValue = y.p[index];
      return comparison;
    }
  }
  comparison.verdict =
      sawDivisionByZero ? FieldVerdict::Inconclusive : FieldVerdict::Equal;
  return comparison;
}
