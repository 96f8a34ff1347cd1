//===- EvaluatorImpl.h - The finite-field evaluator's compiled form -*- C++
//-*-===//
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
// The compilation and both analyses are in EvaluatorCompile.cpp, the
// evaluation in EvaluatorRun.cpp, the public API in Evaluator.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_VERIFY_EVALUATORIMPL_H
#define MLSOPT_LIB_VERIFY_EVALUATORIMPL_H

#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Verify/Evaluator.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace mlsopt::verify {
namespace detail {

/// The number of elements of a tensor of `shape`.
inline int64_t numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

//===----------------------------------------------------------------------===//
// Degree bounds
//===----------------------------------------------------------------------===//

/// The degrees of the numerator and denominator of a rational function of
/// the inputs, saturated at 2^62.
struct Degree {
  uint64_t num = 0;
  uint64_t den = 0;
  uint64_t total() const;
};

constexpr uint64_t kDegreeCap = uint64_t(1) << 62;

inline uint64_t satAdd(uint64_t a, uint64_t b) {
  return std::min(a + b, kDegreeCap);
}
inline uint64_t satMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > kDegreeCap / b ? kDegreeCap : std::min(a * b, kDegreeCap);
}
inline uint64_t Degree::total() const { return satAdd(num, den); }

//===----------------------------------------------------------------------===//
// Compiled programs
//===----------------------------------------------------------------------===//

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
inline bool isLaxUnary(thread::UnaryKind kind) {
  return kind == thread::UnaryKind::neg || kind == thread::UnaryKind::square;
}

/// Unary ops modelled as random functions over the field.
inline bool isRandomFunction(thread::UnaryKind kind) {
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
inline bool hasExponentFunction(thread::UnaryKind kind) {
  return kind == thread::UnaryKind::sqrt || kind == thread::UnaryKind::rsqrt ||
         isRandomFunction(kind);
}

/// One op, with everything its evaluation needs decoded once.
struct Instr {
  OpClass cls = OpClass::Return;
  mlir::Operation *op = nullptr;
  thread::UnaryKind unary = thread::UnaryKind::neg;
  thread::BinaryKind binary = thread::BinaryKind::add;
  llvm::SmallVector<unsigned, 3> operands;
  llvm::SmallVector<unsigned, 2> results;
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
  llvm::SmallVector<int64_t, 4> permutation;
  /// triangle_fill: [rows, cols] and the diagonal.
  std::array<int64_t, 2> triangleDims = {0, 0};
  int64_t diagonal = 0;
  /// Gather: the operand's row-major offset of each result dim's step, and
  /// of the result's first element.
  llvm::SmallVector<int64_t, 4> gatherStrides;
  int64_t gatherBase = 0;
  /// imap/omap of a load/store, fmap of a load.
  std::array<std::optional<int64_t>, 3> gridMap;
  std::optional<int64_t> loopDim;
  /// Where the window of a load starts in its input (empty: no window).
  llvm::SmallVector<int64_t, 4> windowOffsets;
  /// Where a load's or store's tiles must end in the tensor (the window's
  /// ends, the output's shape); empty when the grid splits no dim raggedly,
  /// so that every tile lies inside.
  llvm::SmallVector<int64_t, 4> limits;
  /// Custom kernel grid; for-loop iterations (of a load: those of the loop
  /// around it).
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t iterations = 1;
  llvm::SmallVector<block::AccumulatorAttr> accumulators;
  /// For-loop: the yielded slots. Thread graph: (operand, argument) slot
  /// pairs whose argument holds the operand broadcast to the result shape.
  llvm::SmallVector<unsigned, 3> yields;
  llvm::SmallVector<std::pair<unsigned, unsigned>, 2> broadcasts;
  /// The ops of a custom kernel, for-loop or thread graph body.
  std::vector<Instr> body;
};

/// Which block of the grid and which for-loop iteration is running.
struct BlockPosition {
  std::array<int64_t, 3> block = {0, 0, 0};
  int64_t iteration = 0;
};

} // namespace detail

struct FieldEvaluator::Impl {
  using BlockPosition = detail::BlockPosition;
  using Degree = detail::Degree;
  using Instr = detail::Instr;

  mlir::func::FuncOp func;
  /// getReciprocalExtents(func): a rounded 1/n reads as one of these.
  llvm::SmallVector<int64_t> constantExtents;
  mlir::Type constantRoundingType;
  std::vector<Instr> program;
  llvm::SmallVector<unsigned> argumentSlots;
  llvm::SmallVector<unsigned> resultSlots;

  // Per slot.
  std::vector<llvm::SmallVector<int64_t, 4>> shapes;
  std::vector<char> hasResidueQ; // the value has a residue mod q
  std::vector<char> needsQ;      // some exp (transitively) reads it mod q
  std::vector<char> withQ;       // both: its q plane is computed
  std::vector<Degree> degrees;
  llvm::DenseMap<mlir::Value, unsigned> slotOf;

  llvm::SmallVector<uint64_t> resultDegrees;
  uint64_t exponentDegree = 0;
  bool hasMaxSelection = false;

  // Evaluation state.
  std::vector<FieldTensor> storage;
  std::vector<const FieldTensor *> view;
  std::array<uint64_t, detail::kNumUnaryKinds> functionKeys = {};
  std::array<uint64_t, detail::kNumUnaryKinds> exponentKeys = {};
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

  unsigned newSlot(llvm::ArrayRef<int64_t> shape);
  unsigned newSlot(mlir::Value value, llvm::ArrayRef<int64_t> shape);
  void alias(mlir::Value value, unsigned slot) { slotOf[value] = slot; }

  /// The static shape of a tensor value; fails on anything else.
  mlir::FailureOr<llvm::ArrayRef<int64_t>> tensorShape(mlir::Operation *op,
                                                       mlir::Value value);

  mlir::LogicalResult compileFunction();

  /// Compiles the ops of `block`; inside a thread graph, `elementShape` is
  /// the graph's result shape, which every scalar of its body stands for.
  mlir::LogicalResult
  compileBlock(mlir::Block &block, std::vector<Instr> &out,
               std::optional<llvm::ArrayRef<int64_t>> elementShape);

  /// Slots for the results of a plain compute op.
  mlir::LogicalResult
  addResults(mlir::Operation &op, Instr &instr,
             std::optional<llvm::ArrayRef<int64_t>> elementShape);

  /// Returns whether `op` became an instruction (terminators handled by
  /// their parent do not).
  mlir::FailureOr<bool>
  compileOp(mlir::Operation &op, Instr &instr,
            std::optional<llvm::ArrayRef<int64_t>> elementShape);

  /// An elementwise op of two tensors: arithmetic, or max and min, which are
  /// random functions.
  static mlir::LogicalResult setBinary(Instr &instr, thread::BinaryKind kind);

  /// Decodes a compute op of the kernel, block or thread level.
  mlir::LogicalResult classifyCompute(mlir::Operation &op, Instr &instr);

  /// A static slice (any offsets and strides, rank-reducing too) or a
  /// broadcast (linalg.broadcast on tensors) as strides into its operand:
  /// both copy elements, as a transpose does.
  mlir::LogicalResult classifyGather(mlir::Operation &op, Instr &instr);

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
               ExponentImage image = ExponentImage::FromOperands);

  mlir::LogicalResult analyzeCompute(Instr &instr);

  mlir::FailureOr<bool> compileCustom(kernel::CustomOp custom, Instr &instr);

  mlir::FailureOr<bool> compileForLoop(block::ForLoopOp loop, Instr &instr);

  mlir::LogicalResult checkBroadcastable(mlir::Operation *op,
                                         llvm::ArrayRef<int64_t> from,
                                         llvm::ArrayRef<int64_t> to);

  mlir::FailureOr<bool> compileThreadGraph(thread::GraphOp graph, Instr &instr);

  //===--------------------------------------------------------------------===//
  // Backward analysis: who needs q-parts
  //===--------------------------------------------------------------------===//

  void markNeeds(std::vector<Instr> &instrs);

  //===--------------------------------------------------------------------===//
  // Evaluation
  //===--------------------------------------------------------------------===//

  const FieldTensor &in(unsigned slot) const { return *view[slot]; }
  /// The slot's tensor, shaped for writing.
  FieldTensor &out(unsigned slot);

  mlir::LogicalResult run(std::vector<Instr> &instrs, const BlockPosition &pos);

  mlir::LogicalResult runInstr(Instr &instr, const BlockPosition &pos);

  /// exp of one q-part; fails on a value that is not LAX.
  bool expOf(uint64_t e, uint64_t &result);

  mlir::LogicalResult notLax(mlir::Operation *op);

  mlir::LogicalResult runUnary(Instr &instr);

  /// The residue mod q of sqrt at residue `x` mod p. rsqrt, rms_norm and the
  /// rms accumulator use it too, so that every spelling of a root of the
  /// same value agrees mod q as it does mod p.
  uint64_t sqrtExponent(uint64_t x) const;

  uint64_t inverseP(uint64_t x);

  /// out = a (op) b elementwise under broadcasting, mod p and, when `out`
  /// has a q plane, mod q.
  template <typename POp, typename QOp>
  void binaryKernel(const FieldTensor &a, const FieldTensor &b, FieldTensor &y,
                    POp pop, QOp qop);

  void runBinary(Instr &instr);

  void runScalar(Instr &instr);

  /// max_scalar or min_scalar: its random function of x mod p, and the
  /// independent one mod q, as mlsopt_field_random_scalar computes them.
  void runScalarFunction(Instr &instr);

  /// max or min of two tensors under broadcasting: the symmetric random
  /// function of each pair of residues mod p, and its independent one mod
  /// q, as mlsopt_field_random_pair computes them.
  void runPairFunction(Instr &instr);

  /// The sum of a[i] * b[i * bStride] mod the field's modulus: 128-bit
  /// products summed in 192 bits, reduced once.
  template <typename Field>
  static uint64_t dot(const uint64_t *a, const uint64_t *b, int64_t k);

  static constexpr int64_t kPairBlock = kMatmulPairBlock;

  /// Calls fn(i, j) for every row rowBegin <= i < rowEnd and column j < n,
  /// in blocks of kMatmulPairBlock rows and columns.
  template <typename Fn>
  static void forEachBlockedPair(int64_t rowBegin, int64_t rowEnd, int64_t n,
                                 Fn &&fn);

  /// forEachBlockedPair over m rows, the blocks of rows shared among the
  /// pool's threads when the m x n pairs of k-vectors are enough work.
  /// fn must only write what pair (i, j) owns.
  template <typename Fn>
  void forEachBlockedPairShared(int64_t m, int64_t n, int64_t k, Fn &&fn);

  /// Transposes the k x n matrix at `b` into `transposed` (n x k).
  void transposeInto(const uint64_t *b, int64_t k, int64_t n);

  void runMatmul(Instr &instr);

  /// Splits `shape` around `dim` into (outer, size of dim, inner).
  static std::array<int64_t, 3> splitAt(llvm::ArrayRef<int64_t> shape,
                                        int64_t dim);

  void runReduce(Instr &instr);

  /// Each row along the normalized dim (elements `inner` apart) is scaled
  /// by the inverse square root of its mean square plus epsilon.
  void runRmsNorm(Instr &instr);

  void runConcat(Instr &instr);

  void runTranspose(Instr &instr);

  void runGather(Instr &instr);

  void broadcastInto(const FieldTensor &x, FieldTensor &y);

  /// The offsets of this block's tile: grid index times the block's span
  /// (blockSpan) along the dims the grid splits, plus iteration times tile
  /// size along the loop's dim, as in --convert-custom-kernel-to-loops.
  static llvm::SmallVector<int64_t, 6> tileOffsets(const Instr &instr,
                                                   llvm::ArrayRef<int64_t> tile,
                                                   const BlockPosition &pos);

  void runTriangleFill(Instr &instr, const BlockPosition &pos);

  void runWhere(Instr &instr);

  void runLoad(Instr &instr, const BlockPosition &pos);

  void runStore(Instr &instr, const BlockPosition &pos);

  mlir::LogicalResult runCustom(Instr &instr);

  /// Adds the slots the ops of `body` define, at every depth.
  static void collectDefinedSlots(const std::vector<Instr> &body,
                                  llvm::SmallVectorImpl<unsigned> &slots);

  /// The evaluator of one thread of a custom kernel's grid: it reads the
  /// slots outside the kernel through this one's views, stores into this
  /// one's outputs, and has its own storage and scratch for the slots
  /// `bodySlots` the kernel defines.
  std::unique_ptr<Impl> makeGridWorker(llvm::ArrayRef<unsigned> bodySlots);

  /// Runs the grid's blocks as contiguous ranges of the order runCustom
  /// follows, one range per thread of the pool.
  mlir::LogicalResult runGridInParallel(Instr &instr);

  mlir::LogicalResult runSerialGrid(Instr &instr);

  /// exp(a - b) for every element of the max accumulator's shape, from the
  /// q-parts of `a` and `b`, into `factor`.
  bool expDifference(const FieldTensor &a, const FieldTensor &b,
                     FieldTensor &factor);

  mlir::LogicalResult runForLoop(Instr &instr, const BlockPosition &outer);

  /// running_j = running_j * exp(M_old - M_new) + v_j * exp(m - M_new), with
  /// the factors computed at the maximum's shape and broadcast.
  mlir::LogicalResult updateRescale(Instr &instr, unsigned j, unsigned k,
                                    bool first);
};

} // namespace mlsopt::verify

#endif // MLSOPT_LIB_VERIFY_EVALUATORIMPL_H
