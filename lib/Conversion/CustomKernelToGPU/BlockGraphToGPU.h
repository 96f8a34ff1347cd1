//===- BlockGraphToGPU.h - Block graph to gpu.func body ---------*- C++ -*-===//
//
// Private to CustomKernelToGPU: the emitter of one kernel's body, whose
// member functions are split over files by what they lower (tile copies and
// the for-loop pipeline, matmuls, reductions, elementwise ops), and the small
// IR helpers they share.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_BLOCKGRAPHTOGPU_H
#define MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_BLOCKGRAPHTOGPU_H

#include "mlsopt/Conversion/CustomKernelToGPU/SharedMemorySwizzle.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <array>

namespace mlsopt::gpu_codegen {

constexpr int64_t kWarpSize = 32;
/// cp.async and vector accesses move 16 bytes per instruction (the width
/// the cost model's elementwise steps count too).
constexpr int64_t kVectorBytes = block::kElementwiseVectorBytes;
static_assert(block::kSharedBufferAlignment % kVectorBytes == 0,
              "16-byte copies into a tile need its buffer 16-byte aligned");

inline mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc,
                                 int64_t v) {
  return mlir::arith::ConstantIndexOp::create(b, loc, v);
}

inline mlir::Value floatConstant(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Type type, double v) {
  return mlir::arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
}

/// Ends the body of `loop`, a sum carried in its first iteration argument,
/// by yielding that sum plus x * y. A mul and an add rather than math.fma:
/// NVPTX contracts them into fma.rn itself, while math.fma would become a
/// libdevice call.
inline void yieldSumPlusProduct(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::scf::ForOp loop, mlir::Value x,
                                mlir::Value y) {
  mlir::scf::YieldOp::create(
      b, loc,
      mlir::arith::AddFOp::create(b, loc, loop.getRegionIterArg(0),
                                  mlir::arith::MulFOp::create(b, loc, x, y))
          .getResult());
}

inline int64_t numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return llvm::cast<mlir::ShapedType>(v.getType()).getShape();
}

inline mlir::Type elementTypeOf(mlir::Value v) {
  return llvm::cast<mlir::ShapedType>(v.getType()).getElementType();
}

/// Splits the linear index `linear` into indices of `shape` (row-major).
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           llvm::ArrayRef<int64_t> shape);

/// Threads per block of a kernel that gives each element of its result a
/// thread of its own (a copy kernel, a loop kernel).
constexpr int64_t kElementKernelThreads = 256;

/// The index of this thread in a grid of `threadsPerBlock`-thread blocks
/// along x, with `b` inside an scf.if that keeps the threads below `count`
/// (one per element: the last block's others do nothing).
mlir::Value buildGuardedThreadIndex(mlir::OpBuilder &b, mlir::Location loc,
                                    int64_t threadsPerBlock, int64_t count);

/// The row-major linear index of `indices` into `shape`.
mlir::Value linearize(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ValueRange indices, llvm::ArrayRef<int64_t> shape);

/// The indices into an operand of shape `operand` that broadcasts (numpy
/// rules) to the element at `indices` of the result.
llvm::SmallVector<mlir::Value> broadcastIndices(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::ValueRange indices,
                                                llvm::ArrayRef<int64_t> operand,
                                                llvm::ArrayRef<int64_t> result);

/// A memref in the workgroup (shared) address space.
mlir::MemRefType sharedMemRefType(llvm::ArrayRef<int64_t> shape,
                                  mlir::Type elementType);

/// An operand of a kernel.custom that no launch writes: the result of a
/// loop kernel that the custom kernel computes where it loads its tiles
/// (isComputedWhereRead, LoopKernels.h), seen through reshapes.
struct ComputedOperand {
  mlir::linalg::LinalgOp producer;
  /// The reshapes from the producer's result to the operand, in order.
  llvm::SmallVector<mlir::Operation *> reshapes;
  /// The kernel arguments that hold getLoopKernelInputs(producer).
  llvm::SmallVector<unsigned> inputArgs;
};

/// Emits the body of one gpu.func from the block graph of one kernel.custom.
class BlockGraphToGPU {
public:
  /// `allowTF32`: f32 matmuls may round their operands to tf32 and run on
  /// tensor cores. `computed`: the operands (by number) the kernel computes
  /// (ComputedOperand). The kernel's arguments are the other operands, the
  /// producers' inputs, then the results.
  BlockGraphToGPU(kernel::CustomOp custom, mlir::gpu::GPUFuncOp func,
                  const TargetInfo &target, bool allowTF32,
                  llvm::DenseMap<unsigned, ComputedOperand> computed)
      : custom(custom), func(func), target(target), allowTF32(allowTF32),
        computedOperands(std::move(computed)),
        b(&func.getBody().front(), func.getBody().front().begin()),
        loc(custom.getLoc()), plan(custom, target.maxSharedMemPerBlock) {}

  /// Emits the kernel; returns the dynamic shared memory it needs, in bytes.
  mlir::FailureOr<int64_t> emit();
  /// Thread graphs applied to mma fragments in registers (fusibleEpilogue).
  unsigned getNumFusedEpilogues() const { return fusedEpilogues.size(); }

private:
  // Shared memory (BlockGraphToGPU.cpp) --------------------------------------
  mlir::Value view(int64_t offset, llvm::ArrayRef<int64_t> shape,
                   mlir::Type elementType);
  /// The buffer `plan` gives block-graph tile `tile` in `role`: of the
  /// tile's shape (f32 elements for an accumulator), or flat for a tile in
  /// `swizzles`.
  mlir::Value
  tileBuffer(mlir::Value tile,
             block::SharedBufferRole role = block::SharedBufferRole::Tile);

  // Cooperative loops (BlockGraphToGPU.cpp) ----------------------------------
  /// Runs `body` for every element of `shape`, the block's threads taking
  /// consecutive elements (so neighbouring threads touch neighbouring
  /// addresses).
  void forEachElement(llvm::ArrayRef<int64_t> shape,
                      llvm::function_ref<void(mlir::ValueRange)> body);
  /// Runs `body` for the first element of every piece of `width`
  /// consecutive elements of a row of `shape` (`width` divides the rows),
  /// the block's threads taking consecutive pieces.
  void forEachRowPiece(llvm::ArrayRef<int64_t> shape, int64_t width,
                       llvm::function_ref<void(mlir::ValueRange)> body);
  /// Runs `body` for every index in [0, count) handed out to warps.
  void forEachWarpItem(int64_t count,
                       llvm::function_ref<void(mlir::Value)> body);
  void barrier() { mlir::gpu::BarrierOp::create(b, loc); }

  // Tiles of device tensors (TileTransfers.cpp) ------------------------------
  /// Where this block's tile starts: block id times the block's span
  /// (blockSpan, with `iterations` of the loop) along the dims `map` names,
  /// plus `iteration` times the tile along `loopDim`.
  llvm::SmallVector<mlir::Value> tileOffsets(llvm::ArrayRef<int64_t> tile,
                                             block::DimMapAttr map,
                                             std::optional<int64_t> loopDim,
                                             mlir::Value iteration,
                                             int64_t iterations = 1);
  llvm::SmallVector<mlir::Value> addOffsets(mlir::ValueRange indices,
                                            mlir::ValueRange offsets);
  /// Elements per 16-byte vector when rows of `tile` can move in 16-byte
  /// pieces (every row starts 16-byte aligned in both memories), else 1.
  int64_t vectorWidth(llvm::ArrayRef<int64_t> tile, mlir::Type elementType);
  /// The vector width of `load`'s copies: a window must also start every
  /// row of its tiles 16-byte aligned in the input.
  int64_t loadVectorWidth(block::LoadOp load);
  /// The offsets of `load`'s tile in its input: the tile's in the window
  /// plus the window's.
  llvm::SmallVector<mlir::Value> loadOffsets(block::LoadOp load,
                                             mlir::Value iteration);
  /// For each dim: `ends` where the grid splits it raggedly (`ragged`: the
  /// last block's tile runs past it), kNoLimit (buildIsBefore) elsewhere;
  /// empty when no dim is.
  static llvm::SmallVector<int64_t>
  raggedLimits(const llvm::SmallBitVector &ragged,
               llvm::ArrayRef<int64_t> ends);
  /// `indices` clamped so that an access of `width` elements along the last
  /// dim lies before `limits`: where a guarded access outside the tensor
  /// points, so that no address is ever out of bounds.
  llvm::SmallVector<mlir::Value> clampBefore(mlir::ValueRange indices,
                                             llvm::ArrayRef<int64_t> limits,
                                             int64_t width);
  /// Starts the copy of the tile at `offsets` of `global` into `shared`,
  /// `width` elements at a time. `swizzle`: `shared` is the flat, swizzled
  /// buffer of the tile. `limits` (see raggedLimits): past them the tile gets
  /// zeros.
  /// `computeElement` (width 1): the element at the given indices of the
  /// input, computed in place of its load from `global`.
  void copyTileAsync(
      mlir::Value global, mlir::Value shared, llvm::ArrayRef<int64_t> tile,
      mlir::ValueRange offsets, int64_t width, llvm::ArrayRef<int64_t> limits,
      std::optional<SharedMemorySwizzle> swizzle = {},
      llvm::function_ref<mlir::Value(mlir::ValueRange)> computeElement = {});
  /// The element at `indices` of the computed operand `computed`: the
  /// producer's element at the indices the reshapes map them back to.
  mlir::Value computeOperandElement(const ComputedOperand &computed,
                                    mlir::ValueRange indices);
  /// The indices into the buffer of block-graph tile `tile` of its element
  /// at `indices`: the same indices, or the one swizzled offset into the
  /// flat buffer of a swizzled tile.
  llvm::SmallVector<mlir::Value> tileIndices(mlir::Value tile,
                                             mlir::ValueRange indices);
  /// Whether the input iterator's tile gets a swizzled buffer: every reader
  /// is a tensor-core matmul (ldmatrix or tf32 fragment loads, which go
  /// through tileIndices) and the copy moves 16-byte chunks.
  std::optional<SharedMemorySwizzle> swizzleFor(block::LoadOp load);
  /// Writes the tile in `shared` at `offsets` of `global`, but for what lies
  /// past `limits` (the output's shape, for a ragged split; else empty).
  void storeTile(mlir::Value shared, mlir::Value global,
                 llvm::ArrayRef<int64_t> tile, mlir::ValueRange offsets,
                 llvm::ArrayRef<int64_t> limits);

  // Block ops -----------------------------------------------------------------
  /// Dispatches one block op to its emitter (BlockGraphToGPU.cpp), then
  /// ends it with a barrier. `waitForCopies`: cp.async copies were issued
  /// during the op, and the barrier must publish them too.
  mlir::LogicalResult emitCompute(mlir::Operation &op,
                                  bool waitForCopies = false);
  // Elementwise.cpp
  /// Checks, in builds with assertions, what writing `op`'s results in
  /// place of their operands relies on besides the emission order.
  void assertInPlaceOperandsUnswizzled(mlir::Operation &op);
  void emitElementwise(mlir::Operation &op);
  /// Elements of a row each thread takes at once in an elementwise op over
  /// `shape` that reads `operands` and writes `results` (block-graph
  /// tiles): as many as 16 bytes of the widest element type hold, halved
  /// until they divide the rows and every row-wise buffer's row pitch; 1
  /// where none fits.
  int64_t elementwiseVectorWidth(llvm::ArrayRef<int64_t> shape,
                                 mlir::ValueRange operands,
                                 mlir::ValueRange results);
  /// Runs `compute` (operand elements -> result elements) for every element
  /// of `shape`, each thread taking elementwiseVectorWidth consecutive
  /// elements of a row with one vector access per operand and result (an
  /// operand that broadcasts along rows: one element), and reading each
  /// operand of the result's type at exactly the indices it writes.
  void forEachElementVector(llvm::ArrayRef<int64_t> shape,
                            mlir::ValueRange operands,
                            llvm::function_ref<llvm::SmallVector<mlir::Value>(
                                llvm::ArrayRef<mlir::Value>)>
                                compute,
                            mlir::ValueRange results);
  void emitThreadGraph(thread::GraphOp graph);
  /// The values `graph`'s body yields for the scalars `args`, computed in
  /// registers.
  llvm::SmallVector<mlir::Value>
  emitThreadGraphBody(thread::GraphOp graph, llvm::ArrayRef<mlir::Value> args);
  void emitConcat(block::ConcatOp op);
  void emitTriangleFill(block::TriangleFillOp op);
  void emitTranspose(block::TransposeOp op);
  // Matmul.cpp
  /// The tensor-core instruction a matmul runs on.
  enum class MmaKind { f16, bf16, tf32 };
  /// Where one warp's 16x8 result fragment lies, and the lane's place in it.
  struct MmaFragment {
    llvm::SmallVector<mlir::Value> batch;
    mlir::Value row0, col0;
    mlir::Value group, threadInGroup; // lane / 4, lane % 4
    int64_t lastRow;                  // rows past it are clamped to it
    int64_t lastCol;                  // so are columns past it (padded)
    int64_t k;
    bool padded;  // MmaFragmentGrid::padded: element loads, no ldmatrix
    bool kPadded; // the last k step runs past k: it reads zeros there
  };
  /// A loop result that is the sum of a matmul of the loop body, kept in
  /// registers across the iterations (block::getRegisterAccumulatedMatmul).
  /// Its running values are iteration arguments of the loop's scf.for, from
  /// `firstIterArg` on: on tensor cores one vector<2x2xf32> per fragment the
  /// warp owns (the matmul emitter's assignment: fragment j of warp w is
  /// fragment w + j * warps of the result); as FMA loops (an f32 matmul with
  /// allow-tf32=false) one f32 per element the thread owns (element j of
  /// thread t is element t + j * threads).
  struct RegisterSum {
    block::MatmulOp matmul;
    std::optional<MmaKind> kind;
    unsigned firstIterArg = 0;
    int64_t count = 0;
  };
  void emitMatmul(block::MatmulOp op);
  /// The tensor-core instruction `op` runs on, or nullopt for FMA loops.
  std::optional<MmaKind> mmaKindFor(block::MatmulOp op);
  /// A thread graph applied to a matmul's accumulator fragments in
  /// registers; the product is then never stored.
  struct FusedEpilogue {
    thread::GraphOp graph;
    /// The warps pass a barrier between their mma.syncs and the thread
    /// graph.
    bool afterBarrier = false;
  };
  /// With `epilogue` (fusibleEpilogue), applies it to the fragments instead
  /// of storing the product.
  void emitMatmulTensorCore(block::MatmulOp op, MmaKind kind,
                            FusedEpilogue epilogue);
  /// Where fragment `f` (a linear index into `grid`'s shape) of `op`'s
  /// result lies.
  MmaFragment fragmentAt(const block::MmaFragmentGrid &grid, mlir::Value f,
                         block::MatmulOp op);
  /// The fragments of `op` that this warp computes as its items first ..
  /// first+n-1 (item j is fragment warpId + j * warps): the last item,
  /// when some warps have no such fragment, is the last fragment again.
  llvm::SmallVector<MmaFragment>
  warpFragments(const block::MmaFragmentGrid &grid, block::MatmulOp op,
                int64_t first, int64_t n);
  /// accs[i] plus the product of `op`'s operands over frags[i] (the warp's
  /// item first + i), in one k loop: every k step loads each distinct A and
  /// B operand fragment of the items once, then issues their mma.syncs,
  /// which do not wait for one another.
  llvm::SmallVector<mlir::Value>
  mmaFragmentsProduct(block::MatmulOp op, MmaKind kind,
                      const block::MmaFragmentGrid &grid, int64_t first,
                      llvm::ArrayRef<MmaFragment> frags, mlir::ValueRange accs);
  /// Runs `then(item)` for `owner`'s item j of `count` items dealt
  /// round-robin to `owners` (item = owner + j * owners) unless it is past
  /// `count`: without a branch where every owner has its j-th item.
  void ifOwned(int64_t count, int64_t owners, mlir::Value owner, int64_t j,
               llvm::function_ref<void(mlir::Value)> then);
  /// The thread graph that the matmul `op` hands its result to, if it can
  /// run on the fragments: the product's only reader, of its shape, emitted
  /// right after it. Without a barrier when it reads neither matmul
  /// operand nor a tile whose copy is issued at the matmul, no copy is
  /// issued at it, and none of its results is in bytes a tile live during
  /// the matmul holds (other than the product's and its own inputs');
  /// otherwise after one, where each warp's fragments take one walk over
  /// k (they wait in registers).
  FusedEpilogue fusibleEpilogue(block::MatmulOp op);
  /// Runs `body(values, indices)` for the f32 elements of the accumulator
  /// fragment `acc` that lie within the result (rows and columns past it
  /// are skipped): a lane's two adjacent columns of a row together where
  /// the fragment's columns all exist, else one element at a time.
  /// `indices` are the first element's.
  void forEachFragmentPiece(
      mlir::Value acc, const MmaFragment &frag,
      llvm::function_ref<void(mlir::ValueRange, mlir::ValueRange)> body);
  /// Stores `values` (forEachFragmentPiece's) at `indices` of `buffer`: a
  /// pair as one 2-element vector store, so that a warp's store of a
  /// fragment row is one instruction per lane (st.shared.v2), as the
  /// padded rows of getComputedTileRowPitch assume.
  void storeFragmentPiece(mlir::ValueRange values, mlir::Value buffer,
                          mlir::ValueRange indices);
  /// Applies `epilogue` (fusibleEpilogue) to each element of `op`'s
  /// fragment `acc`, rounded to the product's element type, and stores its
  /// results; its other inputs are read from their tiles.
  void storeFragmentThroughEpilogue(mlir::Value acc, block::MatmulOp op,
                                    thread::GraphOp epilogue,
                                    const MmaFragment &frag);
  /// `sum`'s running values before the first iteration: zeros.
  llvm::SmallVector<mlir::Value> registerSumInit(const RegisterSum &sum);
  /// Adds this iteration's product to `running`; returns the new values.
  /// Reads the operand tiles only: nothing is stored.
  llvm::SmallVector<mlir::Value>
  registerSumAccumulate(const RegisterSum &sum, mlir::ValueRange running);
  /// Stores the final running values into `result`, in its element type.
  void registerSumStore(const RegisterSum &sum, mlir::ValueRange running,
                        mlir::Value result);
  /// Runs `body(j, item)` for each item `owner` has of `count` items dealt
  /// round-robin to `owners` (warps or threads): item = owner + j * owners
  /// for j < ceil(count / owners), skipped when past `count` (only the last
  /// j can be). With `running` (one value per j), `body` returns the new
  /// value of running[j] (a skipped item keeps it) and so does this, for
  /// every j; without, `body` returns null and this nothing.
  llvm::SmallVector<mlir::Value>
  forEachOwnedItem(int64_t count, int64_t owners, mlir::Value owner,
                   mlir::ValueRange running,
                   llvm::function_ref<mlir::Value(int64_t, mlir::Value)> body);
  /// The registers of the A (`lhs`) or B operand of `frag` at k step `kk`,
  /// as the mma.sync of `kind` takes them: for f16 and bf16 ldmatrix
  /// (element loads where the fragment is padded), one vector for f16 and
  /// packed i32 pairs for bf16; for tf32 mmaOperandTF32's.
  llvm::SmallVector<mlir::Value, 4> mmaOperand(block::MatmulOp op, MmaKind kind,
                                               const MmaFragment &frag,
                                               mlir::Value kk, bool lhs);
  /// acc + a * b: mma.sync m16n8k16 (f16, bf16) or m16n8k8 (tf32).
  mlir::Value mmaSync(MmaKind kind, mlir::ValueRange a, mlir::ValueRange bRegs,
                      mlir::Value acc);
  /// Element (row, col) of matmul operand `operand` (A is m x k, B k x n),
  /// read from its tile or, through a transposed view, from the view's
  /// source. `kAt` says which of row and col is k: past k's end the address
  /// is clamped and the element is zero, so padded k steps add nothing.
  mlir::Value mmaOperandElement(mlir::Value operand, const MmaFragment &frag,
                                mlir::Value row, mlir::Value col, unsigned kAt);
  /// A k step of 8 of an operand for mma.sync m16n8k8 .tf32: 32-bit
  /// fragment loads rounded with cvt.rna.tf32.f32.
  llvm::SmallVector<mlir::Value, 4> mmaOperandTF32(block::MatmulOp op,
                                                   const MmaFragment &frag,
                                                   mlir::Value kk, bool lhs);
  /// nvvm.mma.sync on packed A and B registers with a vector<2x2xf32>
  /// accumulator.
  mlir::Value mmaSyncNVVM(mlir::ValueRange a, mlir::ValueRange bRegs,
                          mlir::Value acc, llvm::ArrayRef<int64_t> shape,
                          mlir::NVVM::MMATypes type);
  /// Stores the f32 fragment `acc` into `result`, in its element type,
  /// skipping rows and columns past the result's.
  void storeAccumulatorFragment(mlir::Value acc, mlir::Value result,
                                const MmaFragment &frag);
  void emitMatmulScalar(block::MatmulOp op);
  /// `init` plus the f32 dot product of row and column of `op`'s operands
  /// that give the result element at `idx`.
  mlir::Value matmulElement(block::MatmulOp op, mlir::ValueRange idx,
                            mlir::Value init);
  // Reductions.cpp
  void emitReduce(mlir::Operation &op, bool isMax);
  void emitRmsNorm(block::RmsNormOp op);
  /// Sums (or maxes) `partial` over each aligned group of `width` lanes of
  /// the warp (a power of two, the whole warp by default); every lane gets
  /// its group's result.
  mlir::Value warpAllReduce(mlir::Value partial, bool isMax,
                            int64_t width = 32);
  /// Gives rows 0 .. count-1 to groups of `lanesPerRow` lanes (a power of
  /// two), 32 / lanesPerRow rows per warp at once: body(row, lane,
  /// lanesPerRow, exists) with the group's row, the lane's index in its
  /// group, and, when the warps' groups outnumber the rows, whether the
  /// group's row is its own (a group past the last row gets the last row,
  /// so that every lane takes part in the shuffles; null otherwise).
  void forEachRowGroup(
      int64_t count, int64_t lanesPerRow,
      llvm::function_ref<void(mlir::Value, mlir::Value, int64_t, mlir::Value)>
          body);
  /// Folds elements start, start + step, ... below `end` into `identity`
  /// with addElement (in several partials, merged at the end); with a
  /// `rotation`, element j is read at (j + rotation) mod end instead.
  mlir::Value stridedReduce(
      mlir::Value start, int64_t end, int64_t step, mlir::Value identity,
      llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> addElement,
      llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> merge,
      mlir::Value rotation = {});
  /// Where the rows of `buffer` (along its last dim, of `rowLength`
  /// elements) are a whole number of 128-byte lines and a warp walks
  /// 32 / lanesPerRow of them at once, lanesPerRow lanes each: the element
  /// offset by which this lane's row group starts its walk, so that the
  /// groups of a warp read different banks instead of the same ones
  /// (forEachRowGroup's slot times lanesPerRow). Null where not needed.
  mlir::Value rowGroupRotation(mlir::Value buffer, int64_t rowLength,
                               int64_t lanesPerRow);
  /// (j + rotation) mod rowLength, for j and rotation below rowLength.
  mlir::Value rotateInRow(mlir::Value j, mlir::Value rotation,
                          int64_t rowLength);
  // ForLoopPipeline.cpp
  /// Starts the copy of `load`'s tile for `iteration` into `destination`.
  void issueLoad(block::LoadOp load, mlir::Value destination,
                 mlir::Value iteration);
  mlir::LogicalResult emitForLoop(block::ForLoopOp loop);
  void emitAccumulatorUpdate(block::ForLoopOp loop,
                             llvm::ArrayRef<mlir::Value> accs);

  kernel::CustomOp custom;
  mlir::gpu::GPUFuncOp func;
  const TargetInfo &target;
  bool allowTF32;
  /// The operands the kernel computes, by number.
  llvm::DenseMap<unsigned, ComputedOperand> computedOperands;
  mlir::OpBuilder b;
  mlir::Location loc;

  int64_t numThreads = 0, numWarps = 0;
  mlir::Value threadId, warpId, laneId;
  std::array<mlir::Value, 3> blockIds;
  /// The for-loop's induction variable while its body is emitted (a
  /// triangle_fill's fmap places its tile by it).
  mlir::Value loopIteration;
  mlir::Value sharedBase;
  /// Where every tile lives; the verifier checked the same plan's total.
  block::SharedMemoryPlan plan;
  /// Block-graph tile -> its shared-memory buffer; region argument -> the
  /// kernel's memref argument.
  mlir::IRMapping buffers;
  /// Region arguments of computed operands -> how to compute them.
  llvm::DenseMap<mlir::Value, const ComputedOperand *> computedInputs;
  /// Block-graph tiles whose buffers are flat and swizzled.
  llvm::DenseMap<mlir::Value, SharedMemorySwizzle> swizzles;
  /// block.transpose results read in place (block::isTransposedMatmulView) ->
  /// the tile they view, laid out [..., n, k].
  llvm::DenseMap<mlir::Value, mlir::Value> matmulViews;
  /// Thread graphs applied to a matmul's fragments (fusibleEpilogue): they
  /// emit nothing of their own.
  llvm::SmallPtrSet<mlir::Operation *, 4> fusedEpilogues;
  /// Loads of a one-iteration loop whose copies a later body op issues
  /// (block::getCopyIssueOp), by that op, while the loop is emitted.
  llvm::MapVector<mlir::Operation *, llvm::SmallVector<block::LoadOp>>
      deferredCopies;
};

} // namespace mlsopt::gpu_codegen

#endif // MLSOPT_LIB_CONVERSION_CUSTOMKERNELTOGPU_BLOCKGRAPHTOGPU_H
