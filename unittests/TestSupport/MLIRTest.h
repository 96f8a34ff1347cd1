//===- MLIRTest.h - The fixture of mlsopt's C++ tests -----------*- C++ -*-===//
//
// Every unit test that works on IR needs the same context, a parser that keeps
// diagnostics for its assertions, and the example files of the source tree.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_UNITTESTS_TESTSUPPORT_MLIRTEST_H
#define MLSOPT_UNITTESTS_TESTSUPPORT_MLIRTEST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "gtest/gtest.h"

#include <chrono>
#include <string>
#include <vector>

namespace mlsopt::test {

/// While it lives, appends every diagnostic of a context to a string, one a
/// line, and marks it handled: what the tests assert on.
class DiagnosticCollector : public mlir::ScopedDiagnosticHandler {
public:
  DiagnosticCollector(mlir::MLIRContext *context, std::string &out)
      : ScopedDiagnosticHandler(context, [&out](mlir::Diagnostic &d) {
          out += d.str() + "\n";
          return mlir::success();
        }) {}
};

/// Seconds since `start` on the steady clock, for the tests that print speed.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

class MLIRTest : public ::testing::Test {
public:
  /// The absolute path of `path` in the source tree.
  static std::string sourcePath(llvm::StringRef path);

  /// The text of a file of the source tree ("" when it cannot be read).
  static std::string readSourceFile(llvm::StringRef path);

  /// The example programs, "examples/<name>.mlir" relative to the source
  /// tree, sorted; a failure to list the folder fails the test.
  static std::vector<std::string> exampleFiles();

protected:
  /// A context with func, arith and mlsopt's dialects loaded.
  MLIRTest();

  /// Collects the context's diagnostics into `diagnostics` while it lives.
  DiagnosticCollector collectDiagnostics() {
    return DiagnosticCollector(&context, diagnostics);
  }

  /// Parses `source`; its diagnostics are appended to `diagnostics`.
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source);

  /// Parses a file of the source tree, e.g. "examples/attention.mlir".
  mlir::OwningOpRef<mlir::ModuleOp> parseSourceFile(llvm::StringRef path);

  /// The function @`name` of `module`, or null.
  static mlir::func::FuncOp lookupFunc(mlir::ModuleOp module,
                                       llvm::StringRef name);

  mlir::MLIRContext context;
  std::string diagnostics;
};

} // namespace mlsopt::test

#endif // MLSOPT_UNITTESTS_TESTSUPPORT_MLIRTEST_H
