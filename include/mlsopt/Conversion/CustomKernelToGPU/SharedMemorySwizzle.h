//===- SharedMemorySwizzle.h - Bank-conflict-free tile layout ---*- C++ -*-===//
//
// The shared-memory layout of the tiles that tensor-core matmuls read: an XOR
// swizzle of 16-byte chunks, as CUTLASS and Triton use. Shared memory has 32
// banks of 4 bytes, so 128 bytes (8 chunks) make one row of banks. Unswizzled,
// the 8 rows an ldmatrix phase reads lie at the same chunk of 8 different
// 128-byte lines whenever a tile row is 128 bytes or more: 8 accesses to the
// same banks, served one after another. The swizzle moves chunk c of phase p
// (a tile row, or a 128-byte line when rows are shorter) to c ^ (p mod 8), so
// 8 consecutive rows at one chunk column land on 8 different chunks. It
// permutes chunks inside the tile and allocates no extra bytes: the shared
// memory a kernel needs is the same with and without it.
//
// tf32 B fragments read a k x n tile by columns instead: 4 rows (k) of 8
// consecutive words (two chunks) each. Their swizzle steps two chunks a
// phase, c ^ ((2 p) mod 8), so the 4 rows' chunk pairs land on 8 different
// chunks, where c ^ p would map rows 2i and 2i + 1 onto one pair.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_CONVERSION_CUSTOMKERNELTOGPU_SHAREDMEMORYSWIZZLE_H
#define MLSOPT_CONVERSION_CUSTOMKERNELTOGPU_SHAREDMEMORYSWIZZLE_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace mlsopt {

class SharedMemorySwizzle {
public:
  /// The swizzle of a row-major tile of `shape` with `elementBits`-bit
  /// elements, or nullopt where it does not apply: rows that are not a
  /// power-of-two number (at least 2) of 16-byte chunks, or, for rows shorter
  /// than 128 bytes, a tile that is not whole 128-byte lines (the XOR would
  /// leave the tile). `xorStep` is the chunks the XOR advances per phase: 1
  /// for reads of 8 rows at one chunk (ldmatrix, tf32 A fragments, cp.async
  /// writes), 2 for reads of 4 rows at two chunks (tf32 B fragments).
  static std::optional<SharedMemorySwizzle>
  get(llvm::ArrayRef<int64_t> shape, unsigned elementBits, int64_t xorStep = 1);

  /// Emits the swizzled element offset of row-major element offset `offset`
  /// (index-typed): offset ^ ((offset / (chunk * phase) * step) % 8) * chunk,
  /// in elements. Folds to a constant for a constant offset, which is how the
  /// unit tests evaluate the very arithmetic the lowering emits.
  mlir::Value emitSwizzledOffset(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value offset) const;

  /// Elements per 16-byte chunk.
  int64_t getChunkElements() const { return chunkElements; }
  /// Chunks that share one XOR value: a row, or 8 (128 bytes) when rows are
  /// shorter.
  int64_t getPhaseChunks() const { return phaseChunks; }
  /// Chunks the XOR advances from one phase to the next.
  int64_t getXorStep() const { return xorStep; }

private:
  SharedMemorySwizzle(int64_t chunkElements, int64_t phaseChunks,
                      int64_t xorStep)
      : chunkElements(chunkElements), phaseChunks(phaseChunks),
        xorStep(xorStep) {}

  int64_t chunkElements;
  int64_t phaseChunks;
  int64_t xorStep;
};

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_CUSTOMKERNELTOGPU_SHAREDMEMORYSWIZZLE_H
