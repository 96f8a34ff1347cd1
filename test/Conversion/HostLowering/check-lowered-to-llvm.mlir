// RUN: mlsopt-opt %s --mlsopt-check-lowered-to-llvm --split-input-file -verify-diagnostics

// The last pass of --mlsopt-cpu-pipeline reports the first op that is not
// in the LLVM dialect, rather than leaving it for mlir-runner or the JIT.

llvm.func @lowered() {
  llvm.return
}
// expected-error @+1 {{'func.func' op was not lowered to the LLVM dialect by --mlsopt-cpu-pipeline; no pass of it lowers this op}}
func.func @left() {
  return
}

// -----

// A cast the partial conversions leave counts too.
llvm.func @cast(%a: i64) -> i64 {
  // expected-error @+1 {{'builtin.unrealized_conversion_cast' op was not lowered to the LLVM dialect}}
  %b = builtin.unrealized_conversion_cast %a : i64 to index
  %c = builtin.unrealized_conversion_cast %b : index to i64
  llvm.return %c : i64
}

// -----

// A nested module (one for another chip) is a unit of its own: the
// pipeline's module passes leave it, and so does the check.
llvm.func @outer() {
  llvm.return
}
module attributes {mlsopt.target = "sm_86"} {
  func.func @inner() {
    return
  }
}
