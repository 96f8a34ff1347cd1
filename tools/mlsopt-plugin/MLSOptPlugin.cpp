//===- MLSOptPlugin.cpp - mlsopt as a plugin for upstream mlir-opt --------===//
//
// Loaded by `mlir-opt --load-dialect-plugin=... --load-pass-plugin=...`. The
// dialect entry point adds the kernel, block and thread dialects to
// mlir-opt's registry; the pass entry point registers mlsopt's passes and
// pipelines. mlir-opt parses its command line before it loads plugins, so the
// passes are reachable through `--pass-pipeline=...` only.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MLSOptDialects", MLSOPT_VERSION,
          [](mlir::DialectRegistry *registry) {
            mlsopt::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  // Each entry point registers only its own half: registering a pipeline
  // twice is a fatal error, and a user may load the library both ways.
  return {MLIR_PLUGIN_API_VERSION, "MLSOptPasses", MLSOPT_VERSION,
          []() { mlsopt::registerAllPasses(); }};
}
