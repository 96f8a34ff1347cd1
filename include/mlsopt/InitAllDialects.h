//===- InitAllDialects.h - Register mlsopt's dialects -----------*- C++ -*-===//

#ifndef MLSOPT_INITALLDIALECTS_H
#define MLSOPT_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlsopt {

/// Adds the kernel, block and thread dialects to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers mlsopt's passes and pass pipelines with the global registry.
void registerAllPasses();

} // namespace mlsopt

#endif // MLSOPT_INITALLDIALECTS_H
