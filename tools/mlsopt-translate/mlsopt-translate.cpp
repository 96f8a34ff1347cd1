//===- mlsopt-translate.cpp - mlir-translate plus mlsopt's translations ---===//

#include "mlsopt/InitAllTranslations.h"

#include "mlir/InitAllTranslations.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "mlsopt version " MLSOPT_VERSION "\n";
  });
  mlir::registerAllTranslations();
  mlsopt::registerAllTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "mlsopt translation driver\n"));
}
