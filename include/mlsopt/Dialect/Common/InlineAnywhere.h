//===- InlineAnywhere.h - Dialects whose ops inline anywhere -----*- C++
//-*-===//
//
// The kernel, block and thread dialects' ops compute their results from
// their operands alone (block ops inside kernel.custom, which is isolated
// from above, thread ops inside block.thread_graph), so a function of them
// inlines at any call. --mlsopt-inline-helpers relies on it: a helper's ops
// join the subprograms around its calls.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_DIALECT_COMMON_INLINEANYWHERE_H
#define MLSOPT_DIALECT_COMMON_INLINEANYWHERE_H

#include "mlir/Transforms/InliningUtils.h"

namespace mlsopt {

struct InlineAnywhereInterface : public mlir::DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(mlir::Operation *, mlir::Region *, bool,
                       mlir::IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(mlir::Region *, mlir::Region *, bool,
                       mlir::IRMapping &) const final {
    return true;
  }
};

} // namespace mlsopt

#endif // MLSOPT_DIALECT_COMMON_INLINEANYWHERE_H
