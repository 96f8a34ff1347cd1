//===- ParseFuzzer.cpp - Parse, verify and print mlsopt IR ----------------===//
//
// libFuzzer target: the input is MLIR text over mlsopt's dialects and the
// upstream dialects its programs mix with. Whatever parses must verify,
// print, and parse back to a module that prints the same: a custom printer
// that loses or garbles an attribute shows up as a mismatch, a parser or
// verifier that reads past what it checked as a sanitizer report.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

static std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Verification is done, and an unverified module prints in generic form,
  // which would hide a broken custom printer.
  module->print(os, OpPrintingFlags().assumeVerified());
  return text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    mlsopt::registerAllDialects(*r);
    r->insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
              math::MathDialect, tensor::TensorDialect>();
    return r;
  }();
  // A fresh context per input: attributes and types are uniqued for the
  // life of a context, and a long run would otherwise grow without bound.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  // Rejected input is the common case; its diagnostics are noise.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  // MLIR's lexer, like LLVM's, stops at a NUL past the end of the buffer:
  // the fuzzer's bytes have none, std::string does.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return 0;

  std::string first = print(*module);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(first, config);
  if (!reparsed || failed(verify(*reparsed))) {
    llvm::errs() << "mlsopt-parse-fuzzer: printed module does not parse "
                    "back:\n"
                 << first;
    std::abort();
  }
  std::string second = print(*reparsed);
  if (first != second) {
    llvm::errs() << "mlsopt-parse-fuzzer: printing is not stable:\n"
                 << first << "\n--- printed again ---\n"
                 << second;
    std::abort();
  }
  return 0;
}
