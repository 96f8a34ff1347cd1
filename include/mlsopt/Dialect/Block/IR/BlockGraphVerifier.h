//===- BlockGraphVerifier.h - Whole-graph rules of block graphs -*- C++ -*-===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKGRAPHVERIFIER_H
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKGRAPHVERIFIER_H

#include "mlsopt/Dialect/Kernel/IR/BlockGraphInterface.h"

#include <cstdint>
#include <limits>

namespace mlsopt::block {

/// Checks the rules of a block graph that no single op can see: one
/// for-loop, inputs read only by input iterators, each output written once,
/// and shared memory within the target's limit.
class BlockGraphVerifier : public kernel::BlockGraphInterface {
public:
  using BlockGraphInterface::BlockGraphInterface;
  llvm::LogicalResult verifyBlockGraph(kernel::CustomOp op) const override;
};

/// Shared memory a block graph needs, in bytes: the total of its
/// SharedMemoryPlan for a block of at most `maxBytes` (the chip's limit,
/// which decides whether rows are padded), which the GPU lowering allocates
/// exactly, so the verifier, the cost model and the launch agree.
int64_t estimateSharedMemoryBytes(
    kernel::CustomOp op,
    int64_t maxBytes = std::numeric_limits<int64_t>::max());

} // namespace mlsopt::block

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKGRAPHVERIFIER_H
