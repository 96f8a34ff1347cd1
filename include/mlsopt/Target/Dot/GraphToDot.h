//===- GraphToDot.h - μGraphs as Graphviz -----------------------*- C++ -*-===//

#ifndef MLSOPT_TARGET_DOT_GRAPHTODOT_H
#define MLSOPT_TARGET_DOT_GRAPHTODOT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlsopt {

/// Writes every function in `op` as a Graphviz digraph: kernel ops as nodes,
/// each custom kernel as a cluster holding its block graph, the for-loop as a
/// nested cluster, thread graphs as one node listing their chain.
llvm::LogicalResult translateToDot(mlir::Operation *op, llvm::raw_ostream &os);

/// Registers `--mlsopt-to-dot` with mlir-translate.
void registerToDotTranslation();

} // namespace mlsopt

#endif // MLSOPT_TARGET_DOT_GRAPHTODOT_H
