//===- BlockGraphInterface.h - Verifying custom-kernel bodies ---*- C++ -*-===//
//
// A `kernel.custom` body is a block graph, but the block dialect builds on the
// kernel dialect, not the other way round. The dialect that defines block
// graphs implements this interface; `kernel.custom` asks the dialect of its
// body's terminator to check the graph as a whole.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_DIALECT_KERNEL_IR_BLOCKGRAPHINTERFACE_H
#define MLSOPT_DIALECT_KERNEL_IR_BLOCKGRAPHINTERFACE_H

#include "mlir/IR/DialectInterface.h"
#include "mlir/Support/LLVM.h"

namespace mlsopt::kernel {

class CustomOp;

class BlockGraphInterface
    : public mlir::DialectInterface::Base<BlockGraphInterface> {
public:
  explicit BlockGraphInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// Checks the rules that involve the whole graph of `op`'s body (every path
  /// from an input to an output, shared-memory use, output coverage). Ops in
  /// the body have already passed their own verifiers.
  virtual llvm::LogicalResult verifyBlockGraph(CustomOp op) const = 0;
};

} // namespace mlsopt::kernel

#endif // MLSOPT_DIALECT_KERNEL_IR_BLOCKGRAPHINTERFACE_H
