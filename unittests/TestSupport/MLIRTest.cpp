//===- MLIRTest.cpp - The fixture of mlsopt's C++ tests -------------------===//

#include "MLIRTest.h"

#include "mlsopt/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

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
  DiagnosticCollector collect = collectDiagnostics();
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

std::vector<std::string> MLIRTest::exampleFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(sourcePath("examples"), ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef path = it->path();
    if (llvm::sys::path::extension(path) == ".mlir")
      files.push_back(("examples/" + llvm::sys::path::filename(path)).str());
  }
  EXPECT_FALSE(ec) << ec.message();
  std::sort(files.begin(), files.end());
  return files;
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
