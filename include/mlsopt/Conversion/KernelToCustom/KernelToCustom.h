//===- KernelToCustom.h - Pre-defined kernel ops as block graphs -*- C++ -*-===//
//
// Every pre-defined kernel op (kernel.matmul, kernel.exp, ...) has a default
// block graph: a kernel.custom that computes the same tensor with a simple,
// valid schedule. Wrapping ops this way lets one code generator (the GPU
// lowering) handle every kernel, and gives the search a starting μGraph.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_CONVERSION_KERNELTOCUSTOM_KERNELTOCUSTOM_H
#define MLSOPT_CONVERSION_KERNELTOCUSTOM_KERNELTOCUSTOM_H

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlsopt {

/// Threads per block of every default block graph (4 warps).
inline constexpr int64_t kDefaultThreadsPerBlock = 128;

/// Shared memory a default block graph may use: the default of
/// convert-kernel-to-custom's `max-shared-memory` (48 KiB, what every chip
/// gives a block without opting in).
inline constexpr int64_t kDefaultBlockGraphSharedMemBytes = 49152;

/// True for the pre-defined kernel ops that have a default block graph
/// (every kernel op except kernel.custom and kernel.transpose).
bool hasDefaultBlockGraph(mlir::Operation *op);

/// Whether `op` reads or makes a rank-0 tensor, which block graphs, mapping
/// grid dims and loop iterations to tensor dims, have no tiles of (the
/// default block graph works on size-1 vector views of it).
bool hasRankZeroTensor(mlir::Operation *op);

/// The block op of the same name and attributes as kernel op `op`, on
/// `tiles`, with result type `tileType`, at the rewriter's insertion point.
/// A mask (kernel.triangle_fill) gets the placement of its tile too: `imap`
/// and `fmap`, where a load or a store of that tile would place it.
mlir::Value createTileOp(mlir::RewriterBase &rewriter, mlir::Operation *op,
                         mlir::ValueRange tiles,
                         mlir::RankedTensorType tileType,
                         mlsopt::block::DimMapAttr imap,
                         mlir::IntegerAttr fmap = {});

/// Replaces the pre-defined kernel op `op` by an equivalent kernel.custom with
/// its default block graph and returns it. Fails, with a diagnostic on `op`,
/// when the op has none or when no tiling of its shapes fits in
/// `maxSharedMemBytes` of shared memory. With `allowSplit`, a matmul or a
/// reduction whose output tiles are too few to keep a GPU busy and whose
/// reduced dim is long becomes two kernels instead: the first splits the
/// reduced dim across its grid and stores the partial results, the second,
/// returned, combines them. Without, it is always one kernel that reads
/// `op`'s operands.
mlir::FailureOr<kernel::CustomOp>
wrapInDefaultBlockGraph(mlir::RewriterBase &rewriter, mlir::Operation *op,
                        int64_t maxSharedMemBytes, bool allowSplit = true);

/// Whether `op` is an rms_norm or a concat whose default block graph, which
/// keeps the normalized or joined dim whole in each block, fits in no
/// `maxSharedMemBytes` of shared memory: the GPU pipeline then computes the
/// ops it stands for (decomposeRmsNorm, concatAlongFactoredDim). Emits
/// nothing.
bool hasRowTooLongForABlock(mlir::Operation *op, int64_t maxSharedMemBytes);

/// `concat` computed on views that split its joined dim of each input into
/// [n_i / g, g], g the inputs' greatest common size along it: the concat of
/// the outer dims, whose default block graph keeps only sum(n_i) / g
/// elements of the joined dim in each block, between tensor.expand_shape
/// and tensor.collapse_shape (views). Built before `concat`, which stays for
/// the caller to replace; fails, with a diagnostic, when g is 1.
mlir::FailureOr<mlir::Value>
concatAlongFactoredDim(mlir::RewriterBase &rewriter, kernel::ConcatOp concat);

/// rms_norm(x) as x * rsqrt(sum(x^2) * (1 / n) + epsilon) in kernel ops,
/// built before `norm`, computed in f32 and rounded once at the end, as
/// rms_norm computes: a reduction walks a row of any length in its
/// for-loop, where rms_norm's default block graph keeps the whole row in
/// one block. Returns the result; `norm` stays for the caller to replace.
mlir::Value decomposeRmsNorm(mlir::RewriterBase &rewriter,
                             kernel::RmsNormOp norm);

/// What --convert-kernel-to-custom makes of the pre-defined kernel op `op`:
/// its default block graph (wrapInDefaultBlockGraph), or for an rms_norm
/// or concat whose whole row fits no block of `maxSharedMemBytes`
/// (hasRowTooLongForABlock), the default block graphs of the ops it
/// computes: for an rms_norm the squares, their sum walked by a for-loop
/// and the scale, between conversions to f32 and back, which are copy
/// kernels of their own; for a concat, the concat of factored views. Fails,
/// with a diagnostic on the op, where one of them has no default block graph.
mlir::LogicalResult lowerToDefaultBlockGraphs(mlir::RewriterBase &rewriter,
                                              mlir::Operation *op,
                                              int64_t maxSharedMemBytes);

/// Whether wrapInDefaultBlockGraph would succeed on `op`: it has a default
/// block graph, no rank-0 tensor and a tiling that fits in
/// `maxSharedMemBytes`. Emits no diagnostic.
bool canWrapInDefaultBlockGraph(mlir::Operation *op, int64_t maxSharedMemBytes);

/// Adds the pattern that applies wrapInDefaultBlockGraph to every kernel op
/// outside custom kernels.
void populateKernelToCustomPatterns(mlir::RewritePatternSet &patterns,
                                    int64_t maxSharedMemBytes);

/// True if `slice` is static, unit-stride and keeps the rank: a box of its
/// source, which a block.load window can read in place.
bool isWindowSlice(mlir::tensor::ExtractSliceOp slice);

/// True if the GPU pipeline reads static `slice` in place, with no copy
/// kernel for it: a custom kernel or an op with a default block graph
/// loads windows of a window slice's source, and a copy kernel (of a
/// transpose, a conversion, a broadcast or a slice) reads the source at
/// the slice's indices.
bool isReadInPlace(mlir::tensor::ExtractSliceOp slice);

/// Reads the static, unit-stride slices that custom kernels read in
/// place: each such kernel loads windows of the slice's source instead, and
/// the slice, a copy kernel, goes when nothing else reads it. Part of
/// populateFuseKernelElementwisePatterns; `--fold-slices-into-loads` alone.
void populateFoldSlicesIntoLoadsPatterns(mlir::RewritePatternSet &patterns);

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_KERNELTOCUSTOM_KERNELTOCUSTOM_H
