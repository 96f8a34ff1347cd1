//===- Passes.td - mlsopt's whole-program passes --------------------------===//

#ifndef MLSOPT_TRANSFORMS_PASSES_TD
#define MLSOPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyEquivalence : Pass<"verify-equivalence", "::mlir::ModuleOp"> {
  let summary = "Check functions against their mlsopt.equivalent_to reference";
  let description = [{
    For every function carrying `mlsopt.equivalent_to = @ref`, runs both
    functions on the same random inputs over a finite field and compares
    every output element (docs/verification.md gives the semantics). Random
    tests over a field bound the chance that two different programs agree:
    the number of tests follows from `bound` and the degree of the programs,
    unless `tests` sets it. A difference is an error naming both functions
    and the first differing element; agreement is a remark with the number
    of tests and the bound reached. A test that divides by a zero residue
    proves nothing and is an error too, never a silent "equal".

    The field cannot see what depends on magnitudes (an epsilon that is
    too large, an overflow), so both functions also run in f32 on the CPU
    (through the CPU pipeline and mlir::ExecutionEngine) on the same random
    normal inputs, and a relative difference above `f32-tolerance` is a
    warning.

    The field comparison uses the in-process evaluator of `lib/Verify`; the
    JIT-compiled field program comes next.
  }];
  let options = [
    Option<"tests", "tests", "unsigned", "0",
           "Number of random tests (0: as many as `bound` needs)">,
    Option<"seed", "seed", "uint64_t", "1",
           "Seed of the random inputs and of the random functions that "
           "stand for non-LAX ops">,
    Option<"bound", "bound", "double", "1e-9",
           "Largest accepted probability that different programs pass">,
    Option<"f32Check", "f32-check", "bool", "true",
           "Also run both functions in f32 on random normal inputs">,
    Option<"f32Tolerance", "f32-tolerance", "double", "1e-3",
           "Relative difference of the f32 runs above which to warn">,
  ];
}

#endif // MLSOPT_TRANSFORMS_PASSES_TD
