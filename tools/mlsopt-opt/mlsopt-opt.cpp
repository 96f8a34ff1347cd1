//===- mlsopt-opt.cpp - mlir-opt with mlsopt's dialects and passes --------===//

#include "mlsopt/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "mlsopt version " MLSOPT_VERSION "\n";
  });
  mlir::registerAllPasses();
  mlsopt::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlsopt::registerAllDialects(registry);
  // gpu-module-to-binary (in --mlsopt-gpu-pipeline) translates gpu.modules
  // to LLVM IR; as in upstream mlir-opt, the GPU translations are registered
  // up front.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mlsopt optimizer driver\n", registry));
}
