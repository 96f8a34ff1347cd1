//===- ResourceBlobs.h - dense_resource constants and their bytes -*- C++
//-*-===//
//
// torch-mlir's fx importer puts weights in `dense_resource` blobs at the end
// of the module. Nothing upstream checks a blob against the constant's type:
// one that is too short or too long is read as far as the type goes on the
// CPU, which gives numbers from bytes that are not the weight. The import
// and the GPU lowering refuse such a constant instead.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_RESOURCEBLOBS_H
#define MLSOPT_SUPPORT_RESOURCEBLOBS_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace mlsopt {

/// Emits an error at each `arith.constant` in `root` whose dense_resource
/// has no blob in the module, or a blob whose size is not that of the
/// constant's static type (nor of one element, a splat), and fails if there
/// is one. `what` begins the error ("cannot run on the GPU").
mlir::LogicalResult checkResourceBlobs(mlir::Operation *root,
                                       llvm::StringRef what);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_RESOURCEBLOBS_H
