//===- BlockGraphVerifier.h - Whole-graph rules of block graphs -*- C++ -*-===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKGRAPHVERIFIER_H
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKGRAPHVERIFIER_H

#include "mlsopt/Dialect/Kernel/IR/BlockGraphInterface.h"

#include <cstdint>

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
/// SharedMemoryPlan, which the GPU lowering allocates exactly, so the
/// verifier, the cost model and the launch agree.
int64_t estimateSharedMemoryBytes(kernel::CustomOp op);

} // namespace mlsopt::block

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKGRAPHVERIFIER_H
