//===- ElementwiseByIndex.h - Ops that map elements by index ----*- C++ -*-===//
//
// A marker trait for ops that compute each result element from the operand
// elements at the same index (a broadcast operand's at its broadcast index)
// and from nothing else. The shared-memory plan relies on it to let a result
// take the bytes of an operand that dies at the op: each thread reads an
// element and then writes that same element.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_DIALECT_COMMON_ELEMENTWISEBYINDEX_H
#define MLSOPT_DIALECT_COMMON_ELEMENTWISEBYINDEX_H

#include "mlir/IR/OpDefinition.h"

// In mlir::OpTrait, as Triton's traits are: a namespace mlsopt::OpTrait
// would hide mlir::OpTrait inside namespace mlsopt.
namespace mlir::OpTrait {

template <typename ConcreteType>
class ElementwiseByIndex : public TraitBase<ConcreteType, ElementwiseByIndex> {
};

} // namespace mlir::OpTrait

#endif // MLSOPT_DIALECT_COMMON_ELEMENTWISEBYINDEX_H
