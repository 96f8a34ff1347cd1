//===- ThreadDialect.cpp - The thread-level dialect -----------------------===//

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlsopt::thread;

#include "mlsopt/Dialect/Thread/IR/ThreadDialect.cpp.inc"
#include "mlsopt/Dialect/Thread/IR/ThreadEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mlsopt/Dialect/Thread/IR/ThreadAttributes.cpp.inc"

namespace {
/// Thread ops live in the regions of block.thread_graph, inside kernel.custom:
/// a function of them inlines anywhere. The superoptimizer inlines calls so
/// that a helper's ops join the subprograms around the call.
struct ThreadInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void ThreadDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlsopt/Dialect/Thread/IR/ThreadOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlsopt/Dialect/Thread/IR/ThreadAttributes.cpp.inc"
      >();
  addInterfaces<ThreadInlinerInterface>();
}
