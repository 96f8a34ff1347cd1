//===- SearchGraph.h - The search's compact form of a μGraph ----*- C++ -*-===//
//
// The superoptimizer builds and discards millions of partial programs, so it
// does not build MLIR ops while it enumerates: a candidate is a KernelGraph,
// a few vectors of small structs. Shapes are not sizes but dimension classes
// (every dim of the input program belongs to a class of dims that must have
// equal extents: the two sides of a matmul contraction, broadcast partners,
// ...), so one candidate can be materialized as MLIR at the program's real
// extents, to cost and verify it, or at small extents, where the finite-field
// screening of a complete candidate takes microseconds.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_SEARCHGRAPH_H
#define MLSOPT_SEARCH_SEARCHGRAPH_H

#include "mlsopt/Dialect/Block/IR/BlockOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>

namespace mlsopt::search {

/// The ops the search builds, at the kernel level and inside block graphs.
/// Their mnemonics are the kernel and block dialects' op names.
enum class OpKind : uint8_t {
  Matmul,
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Square,
  Silu,
  Sigmoid,
  Gelu,
  Relu,
  Tanh,
  Erf,
  Neg,
  GeluTanh,
  Sin,
  Cos,
  Log1p,
  Softplus,
  Floor,
  Ceil,
  Round,
  MulScalar,
  AddScalar,
  MaxScalar,
  MinScalar,
  ReduceSum,
  ReduceMax,
  RmsNorm,
  /// A causal mask (kernel.triangle_fill): not unary, its result depends on
  /// where each element sits (SOp::triangle).
  TriangleFill,
  Transpose,
};

llvm::StringRef getMnemonic(OpKind kind);
std::optional<OpKind> lookupOpKind(llvm::StringRef mnemonic);
bool isUnaryKind(OpKind kind);
bool isBinaryKind(OpKind kind);
bool isScalarKind(OpKind kind);
bool isCommutativeKind(OpKind kind);

/// A dim of a tensor or tile: a dimension class of the program, or size 1.
struct Dim {
  static constexpr int kOne = -1;
  int cls = kOne;
  /// A tile dim that the for-loop cuts (its load has an fmap on it): the tile
  /// holds extent / iterations of it.
  bool loopSplit = false;
  /// A tensor dim that holds one copy of `cls` (or of size 1) per chunk of
  /// a reduced dim: class `chunks`, whose extent is the number of chunks.
  /// A kernel whose grid splits a reduction stores its blocks' partial
  /// results side by side along such a dim, and a later kernel's for-loop
  /// walks the chunks and sums them (flash-decoding's split and combine).
  int chunks = kOne;

  bool isOne() const { return cls == kOne && chunks == kOne; }
  bool isChunked() const { return chunks != kOne; }
  friend bool operator==(Dim a, Dim b) {
    return a.cls == b.cls && a.loopSplit == b.loopSplit &&
           a.chunks == b.chunks;
  }
  friend bool operator!=(Dim a, Dim b) { return !(a == b); }
};
using Dims = llvm::SmallVector<Dim, 4>;

/// The constant of a scalar op: a literal of the program, or 1/extent of a
/// class (the 1/n of a mean), which stays right at any extents.
struct Scalar {
  double literal = 0;
  int reciprocalOf = Dim::kOne;

  double getValue(llvm::ArrayRef<int64_t> extents) const;
  friend bool operator==(const Scalar &a, const Scalar &b) {
    return a.literal == b.literal && a.reciprocalOf == b.reciprocalOf;
  }
  friend bool operator<(const Scalar &a, const Scalar &b) {
    return std::tie(a.reciprocalOf, a.literal) <
           std::tie(b.reciprocalOf, b.literal);
  }
};

/// One op of a kernel graph or of a block graph's loop body or epilogue.
struct SOp {
  OpKind kind = OpKind::Add;
  llvm::SmallVector<unsigned, 2> operands;
  /// The reduced dim of a reduction.
  int64_t dim = -1;
  /// The constant of a scalar op; the epsilon of rms_norm (a literal).
  Scalar scalar;
  /// The permutation of a transpose.
  llvm::SmallVector<int64_t, 4> permutation;
  /// A triangle_fill's [rows, cols] (operand dims), the classes those dims
  /// have in the program (Dim::kOne for size 1), and its diagonal; its
  /// value is `scalar.literal`.
  std::array<int64_t, 2> triangle = {-1, -1};
  std::array<int, 2> triangleClasses = {Dim::kOne, Dim::kOne};
  int64_t diagonal = 0;
};

/// Whether triangle_fills `a` and `b` fill the same elements with the same
/// value (their operands aside).
bool isSameMask(const SOp &a, const SOp &b);

/// Whether a triangle_fill `op` applies to an operand of `dims`: its rows
/// and cols are dims there, of the classes they have in the program.
bool isTriangleApplicable(const SOp &op, const Dims &dims);

/// The shape of a block graph's schedule: which class each grid dim splits
/// and how many blocks it has, and which class the for-loop walks in how
/// many iterations. Every input is cut the same way wherever it has the
/// class, so the imaps and fmaps follow from the layout.
struct Layout {
  std::array<int, 3> gridClass = {Dim::kOne, Dim::kOne, Dim::kOne};
  std::array<int64_t, 3> gridSize = {1, 1, 1};
  int loopClass = Dim::kOne;
  int64_t iterations = 1;
  /// A class the program reduces over whose chunks grid dim `splitGridDim`
  /// walks (its gridClass is the chunk class, its size the chunk count):
  /// each block reduces over its own chunk and stores a partial result
  /// along a chunked dim (Dim::chunks). kOne: no grid dim splits a
  /// reduction.
  int splitClass = Dim::kOne;
  int splitGridDim = -1;

  /// The grid dim that splits `cls`, if any (for the split class: the grid
  /// dim that walks its chunks).
  std::optional<unsigned> getGridDimOf(int cls) const;
  unsigned getNumGridDims() const;
  bool splitsReduction() const { return splitGridDim >= 0; }
  /// Whether the for-loop walks `d` (its load has an fmap on it): a dim of
  /// the loop class, or a chunked dim whose chunks are the loop class.
  bool walks(Dim d) const;
};

/// A for-loop accumulator: body value `value`, combined by `kind`.
struct Accum {
  unsigned value = 0;
  block::AccumKind kind = block::AccumKind::sum;
  /// For rescale: the accumulator (index into the loop's accumulators) whose
  /// maximum it follows.
  int scaleBy = -1;
  /// An input's tile that the loop does not walk and no body op reads (the
  /// bias, gain or residual of a matmul's epilogue): loaded once after the
  /// loop instead of accumulated, with `kind` unused. Its epilogue value is
  /// the tile.
  bool afterLoop = false;
};

/// A custom kernel. Body values are the loads (one per input, in order)
/// followed by the results of `body`; epilogue values are the accumulators
/// followed by the results of `post`.
struct BlockGraph {
  llvm::SmallVector<unsigned, 4> inputs;
  Layout layout;
  llvm::SmallVector<SOp, 4> body;
  llvm::SmallVector<Accum, 4> accums;
  llvm::SmallVector<SOp, 2> post;
  llvm::SmallVector<unsigned, 2> stores;
  unsigned threadsPerBlock = 128;

  /// What the block graph counts against `max-block-ops`: its loads, body
  /// ops, epilogue ops and stores, with a maximum and the body op that
  /// subtracts it from the values it was taken over counted as one. That
  /// pair is a safe softmax's stabilizer, which the abstract expressions
  /// erase and `max-kernel-ops` does not count; counted as two, it made the
  /// first kernel of a safe softmax's flash-decoding one op too large (12).
  /// A mask applied to another mask's result, with a mask none below it in
  /// that chain applies, is counted with it: a band is one select. A load
  /// whose one reader takes it as part of its own op (readsInputWithOp)
  /// counts with that reader, and an elementwise such reader (a bias, an
  /// additive mask) counts nothing either. The body then holds at most (2 +
  /// masks in the program) times the count, plus two ops per input.
  unsigned getNumBlockOps() const;
};

/// Whether body op `op` (of `body`, or to be appended to it), reading input
/// `input` of a block graph with `numInputs` inputs, takes it as part of
/// its own op: a transpose (the tile loaded transposed, as Mirage's layouts
/// do) or an elementwise op with a matmul's tile or a scale of it (a bias
/// or an additive attention mask, read where the product's tile sits). As
/// its one reader, it counts with the load. Elementwise ops of other values
/// (a norm's gain) count apart.
bool readsInputWithOp(llvm::ArrayRef<SOp> body, const SOp &op, unsigned input,
                      unsigned numInputs);

/// A kernel launch: a pre-defined op, or custom kernel `custom` of the graph.
struct KernelNode {
  SOp op;
  int custom = -1;
  bool isCustom() const { return custom >= 0; }
};

/// A kernel-level program. Values 0..numInputs-1 are its arguments; each
/// node appends its results (one for a pre-defined op, one per store for a
/// custom kernel).
struct KernelGraph {
  unsigned numInputs = 0;
  llvm::SmallVector<KernelNode, 8> nodes;
  llvm::SmallVector<BlockGraph, 2> customs;
  llvm::SmallVector<unsigned, 2> results;

  unsigned getNumResults(const KernelNode &node) const {
    return node.isCustom() ? customs[node.custom].stores.size() : 1;
  }
  unsigned getNumValues() const;
};

/// The result dims of `op` applied to operands of `operandDims`, or nullopt
/// when they do not fit together (a contraction over different classes, a
/// broadcast of unrelated dims, ...).
std::optional<Dims> inferDims(const SOp &op,
                              llvm::ArrayRef<const Dims *> operandDims);

/// The dims of a block graph's values: its loop body's (the loads, then the
/// body ops' results) and its epilogue's (the accumulators, then the
/// epilogue ops' results).
struct BlockGraphDims {
  llvm::SmallVector<Dims> body;
  llvm::SmallVector<Dims> post;
};

/// The dims of a for-loop accumulator of a body value of `dims`: a chunked
/// dim whose chunks the loop walks is summed (or maxed) into one copy.
Dims getAccumulatedDims(const Layout &layout, const Dims &dims);

/// The dims of the kernel output that stores a tile of `dims`. Under a
/// layout that splits a reduction, a tile without the split class is a
/// partial result: the output puts the chunks side by side along its last
/// dim. nullopt if such a tile cannot be stored (its last dim is split by
/// the grid or already chunked, or it has no dims).
std::optional<Dims> getStoredDims(const Layout &layout, const Dims &dims);

/// The dims of `bg`'s values, given its inputs' dims; nullopt if some op
/// does not type-check.
std::optional<BlockGraphDims> inferBlockGraphDims(const BlockGraph &bg,
                                                  llvm::ArrayRef<Dims> inputDims);

/// The dims of every value of `graph`, given its arguments' dims; nullopt if
/// some op does not type-check.
std::optional<llvm::SmallVector<Dims>>
inferKernelGraphDims(const KernelGraph &graph, llvm::ArrayRef<Dims> inputDims);

/// A program's element types and dimension classes, enough to materialize
/// any graph over it.
struct ShapeContext {
  /// The type every op computes in, every tile holds and every tensor
  /// between kernels has.
  mlir::Type elementType;
  /// Where the program mixes element types (kernel.convert ops, which the
  /// search sees through): the element type of each input and of each
  /// result, which the loads and stores of custom kernels convert from and
  /// to (pre-defined ops get kernel.convert ops). Empty: elementType.
  llvm::SmallVector<mlir::Type> inputTypes;
  llvm::SmallVector<mlir::Type> resultTypes;
  /// Where an input is read through a conversion (an f32 activation
  /// rounded to bf16 for a matmul): the element type every op reads each
  /// input in. Empty: the inputs' own types.
  llvm::SmallVector<mlir::Type> readTypes;
  /// Where every matmul of the program multiplies operands of one f16 or
  /// bf16 type (elementType then is f32), and for f16 the program has no
  /// f32 ops (getMatmulOperandType in SearchProblem.cpp): that type. A custom
  /// kernel rounds a matmul operand it computes to it (block.convert), as the
  /// program rounds its own, so that the product runs on the tensor cores at
  /// that type's rate rather than as tf32. Null: operands are multiplied in the
  /// type they have.
  mlir::Type matmulType;
  llvm::SmallVector<Dims> inputDims;
  /// Extent of each class.
  llvm::SmallVector<int64_t> extents;
  /// For each class: the class whose chunks it counts (a chunk class), or
  /// Dim::kOne.
  llvm::SmallVector<int> chunkOf;

  mlir::Type getInputType(unsigned input) const {
    return inputTypes.empty() ? elementType : inputTypes[input];
  }
  mlir::Type getReadType(unsigned input) const {
    return readTypes.empty() ? getInputType(input) : readTypes[input];
  }
  mlir::Type getResultType(unsigned result) const {
    return resultTypes.empty() ? elementType : resultTypes[result];
  }
  /// Bytes of the narrowest element type a tensor of the program can have
  /// in device memory: what lower bounds on its traffic may assume.
  unsigned getMinElementBytes() const;
};

/// The element types custom kernel output `value` of `graph` is stored in:
/// those of the results it is (in order, each once), or
/// shapes.elementType if it is none.
llvm::SmallVector<mlir::Type, 1> getStoredTypes(const KernelGraph &graph,
                                                const ShapeContext &shapes,
                                                unsigned value);

/// The element type `value` of `graph` is read in: an argument's, the first
/// a custom kernel stores it in, or shapes.elementType for a pre-defined
/// op's result (converted where it is returned).
mlir::Type getValueElementType(const KernelGraph &graph,
                               const ShapeContext &shapes, unsigned value);

/// The element type the program's ops read `value` of `graph` in: for an
/// input, shapes.getReadType; null for a value a kernel of `graph`
/// computes (read in the type it is stored in).
mlir::Type getValueReadType(const KernelGraph &graph,
                            const ShapeContext &shapes, unsigned value);

/// The extent of `dim` in a tensor (loopSplit ignored) or, with `layout`,
/// in a tile of a block graph with that layout.
int64_t getExtent(Dim dim, llvm::ArrayRef<int64_t> extents,
                  const Layout *layout = nullptr);

/// Builds `graph` in place at the builder's insertion point, applied to
/// `inputs`; returns the values of graph.results. Fails (without IR left
/// behind) if an op cannot be built at these extents.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
materialize(mlir::OpBuilder &builder, mlir::Location loc,
            const KernelGraph &graph, const ShapeContext &shapes,
            mlir::ValueRange inputs);

/// Builds `graph` as a new function `name` at the builder's insertion point.
mlir::FailureOr<mlir::func::FuncOp>
materializeFunction(mlir::OpBuilder &builder, mlir::Location loc,
                    llvm::StringRef name, const KernelGraph &graph,
                    const ShapeContext &shapes);

/// A canonical, human-readable text of `graph`: equal graphs print equally
/// (the cache keys and the deterministic tie-breaks use it).
void print(const KernelGraph &graph, llvm::raw_ostream &os);
std::string toString(const KernelGraph &graph);

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_SEARCHGRAPH_H
