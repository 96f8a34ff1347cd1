//===- SharedMemorySwizzle.cpp - Bank-conflict-free tile layout -----------===//

#include "mlsopt/Conversion/CustomKernelToGPU/SharedMemorySwizzle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlsopt;

/// Bytes per chunk (one cp.async, one ldmatrix row) and chunks per 128-byte
/// row of the 32 banks.
static constexpr int64_t kChunkBytes = 16;
static constexpr int64_t kChunksPerBankRow = 8;

std::optional<SharedMemorySwizzle>
SharedMemorySwizzle::get(ArrayRef<int64_t> shape, unsigned elementBits,
                         int64_t xorStep) {
  if (xorStep < 1 || kChunksPerBankRow % xorStep != 0)
    return std::nullopt;
  if (shape.empty() || elementBits == 0 || elementBits % 8 != 0 ||
      kChunkBytes % (elementBits / 8) != 0)
    return std::nullopt;
  int64_t chunkElements = kChunkBytes / (elementBits / 8);
  int64_t rowElements = shape.back();
  if (rowElements % chunkElements != 0)
    return std::nullopt;
  int64_t chunksPerRow = rowElements / chunkElements;
  // One chunk a row: 8 consecutive rows already hit 8 different chunks.
  if (chunksPerRow < 2 || !llvm::isPowerOf2_64(chunksPerRow))
    return std::nullopt;
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  if (chunksPerRow < kChunksPerBankRow &&
      (elements / chunkElements) % kChunksPerBankRow != 0)
    return std::nullopt;
  return SharedMemorySwizzle(
      chunkElements, std::max(chunksPerRow, kChunksPerBankRow), xorStep);
}

Value SharedMemorySwizzle::emitSwizzledOffset(OpBuilder &b, Location loc,
                                              Value offset) const {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Every factor is a power of two: the divisions and the multiplication
  // become shifts and masks in the PTX.
  Value phase = b.createOrFold<arith::DivUIOp>(
      loc, offset, constant(chunkElements * phaseChunks));
  // ((phase * step) % 8) * chunk, as (phase % (8 / step)) * (step * chunk).
  Value mask = b.createOrFold<arith::MulIOp>(
      loc,
      b.createOrFold<arith::RemUIOp>(loc, phase,
                                     constant(kChunksPerBankRow / xorStep)),
      constant(chunkElements * xorStep));
  return b.createOrFold<arith::XOrIOp>(loc, offset, mask);
}
