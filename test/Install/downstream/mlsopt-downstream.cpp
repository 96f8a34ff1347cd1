//===- mlsopt-downstream.cpp - A tool built against installed mlsopt ------===//
//
// Usage: mlsopt-downstream FILE
// Parses FILE, runs its own pipeline with mlsopt's --thread-fuse-elementwise
// next to the upstream canonicalizer, and prints the pipeline and the result.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/Thread/Transforms/Passes.h"
#include "mlsopt/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: " << argv[0] << " FILE\n";
    return 2;
  }

  mlir::DialectRegistry registry;
  mlsopt::registerAllDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  auto pm = mlir::PassManager::on<mlir::ModuleOp>(&context);
  pm.addPass(mlsopt::thread::createThreadFuseElementwise());
  pm.addPass(mlir::createCanonicalizerPass());
  llvm::outs() << "// pipeline: ";
  pm.printAsTextualPipeline(llvm::outs());
  llvm::outs() << "\n";
  if (mlir::failed(pm.run(*module)))
    return 1;

  module->print(llvm::outs());
  return 0;
}
