//===- MLIRTest.cpp - The fixture of mlsopt's C++ tests -------------------===//

#include "MLIRTest.h"

#include "mlsopt/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlsopt::test;

MLIRTest::MLIRTest() {
  DialectRegistry registry;
  registry.insert<func::FuncDialect, arith::ArithDialect>();
  mlsopt::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> MLIRTest::parse(StringRef source) {
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  return parseSourceString<ModuleOp>(source, &context);
}

std::string MLIRTest::sourcePath(StringRef path) {
  SmallString<128> full(MLSOPT_SOURCE_DIR);
  llvm::sys::path::append(full, path);
  return full.str().str();
}

std::string MLIRTest::readSourceFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(sourcePath(path));
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

OwningOpRef<ModuleOp> MLIRTest::parseSourceFile(StringRef path) {
  std::string text = readSourceFile(path);
  if (text.empty()) {
    diagnostics += "cannot read " + path.str() + "\n";
    return nullptr;
  }
  return parse(text);
}

func::FuncOp MLIRTest::lookupFunc(ModuleOp module, StringRef name) {
  return module.lookupSymbol<func::FuncOp>(name);
}
