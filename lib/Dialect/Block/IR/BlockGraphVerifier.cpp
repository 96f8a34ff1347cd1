//===- BlockGraphVerifier.cpp - Whole-graph rules of block graphs ---------===//

#include "mlsopt/Dialect/Block/IR/BlockGraphVerifier.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Block/IR/SharedMemoryPlan.h"
#include "mlsopt/Support/Target.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::block;

int64_t mlsopt::block::estimateSharedMemoryBytes(kernel::CustomOp op,
                                                 int64_t maxBytes) {
  return SharedMemoryPlan(op, maxBytes).getTotalBytes();
}

LogicalResult BlockGraphVerifier::verifyBlockGraph(kernel::CustomOp op) const {
  Block &body = op.getBody().front();

  // Only block ops and thread graphs describe what a thread block does, in
  // the for-loop as after it. The thread dialect builds on this one, so its
  // graphs are recognised by name; they check their own bodies.
  Operation *foreign = nullptr;
  body.walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (nested->getName().getStringRef() == "thread.graph")
      return WalkResult::skip();
    if (!isa_and_nonnull<BlockDialect>(nested->getDialect())) {
      foreign = nested;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (foreign)
    return foreign->emitOpError("cannot appear in a block graph; a custom "
                                "kernel's body holds only block ops and "
                                "thread graphs");

  auto loops = body.getOps<ForLoopOp>();
  if (loops.empty())
    return op.emitOpError("block graph needs a block.for_loop: its "
                          "accumulators carry what the loop computes to "
                          "the outputs (use 1 iteration for no loop)");
  if (std::next(loops.begin()) != loops.end())
    return (*std::next(loops.begin()))
        .emitOpError("is the second for-loop of this block graph; a path "
                     "from an input to an output must pass exactly one "
                     "accumulator, so a block graph has one for-loop");

  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i)
    for (Operation *user : op.getInputArgument(i).getUsers())
      if (!isa<LoadOp>(user))
        return user->emitOpError("uses kernel input #")
               << i << " directly; block graphs read inputs only through "
                       "block.load";

  for (unsigned i = 0, e = op.getOutputs().size(); i < e; ++i) {
    BlockArgument out = op.getOutputArgument(i);
    unsigned stores = 0;
    for (OpOperand &use : out.getUses()) {
      auto store = dyn_cast<StoreOp>(use.getOwner());
      if (!store || use.getOperandNumber() != 1)
        return use.getOwner()->emitOpError("uses kernel output #")
               << i << " as a value; outputs are only written, by block.store";
      ++stores;
    }
    if (stores != 1)
      return op.emitOpError("output #")
             << i << " is stored " << stores
             << " times; each output must be stored exactly once";
  }

  FailureOr<TargetInfo> target = getEnclosingTarget(op);
  if (failed(target))
    return failure();
  int64_t bytes = estimateSharedMemoryBytes(op, target->maxSharedMemPerBlock);
  if (bytes > static_cast<int64_t>(target->maxSharedMemPerBlock))
    return op.emitOpError("block graph needs ")
           << bytes << " bytes of shared memory, more than the "
           << target->maxSharedMemPerBlock << " bytes a block has on "
           << target->chip << "; use smaller tiles (more blocks or more "
           << "for-loop iterations)";
  return success();
}
