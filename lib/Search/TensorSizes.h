//===- TensorSizes.h - Element and byte counts ------------------*- C++ -*-===//
//
// Shared by the roofline (CostModel.cpp) and the step counts of one block
// (BlockSteps.cpp), in doubles: the totals of big programs overflow no
// integer type on the way.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_LIB_SEARCH_TENSORSIZES_H
#define MLSOPT_LIB_SEARCH_TENSORSIZES_H

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

namespace mlsopt::search {

/// Elements of a statically shaped type; 0 for anything else.
inline double numElements(mlir::Type type) {
  auto shaped = mlir::dyn_cast<mlir::ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  double n = 1;
  for (int64_t d : shaped.getShape())
    n *= static_cast<double>(d);
  return n;
}

/// Bytes of the elements of `type` stored as elements of `storage` (a tile
/// that a load or store converts from or to its tensor's element type).
inline double numBytesAs(mlir::Type type, mlir::Type storage) {
  auto shaped = mlir::cast<mlir::ShapedType>(storage);
  return numElements(type) * std::ceil(shaped.getElementTypeBitWidth() / 8.0);
}

/// Bytes of a statically shaped type, whole bytes per element.
inline double numBytes(mlir::Type type) { return numBytesAs(type, type); }

} // namespace mlsopt::search

#endif // MLSOPT_LIB_SEARCH_TENSORSIZES_H
