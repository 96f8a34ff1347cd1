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

    This first version evaluates with the in-process evaluator of
    `lib/Verify`; the JIT-compiled path through mlir::ExecutionEngine comes
    next.
  }];
  let options = [
    Option<"tests", "tests", "unsigned", "0",
           "Number of random tests (0: as many as `bound` needs)">,
    Option<"seed", "seed", "uint64_t", "1",
           "Seed of the random inputs and of the random functions that "
           "stand for non-LAX ops">,
    Option<"bound", "bound", "double", "1e-9",
           "Largest accepted probability that different programs pass">,
  ];
}

#endif // MLSOPT_TRANSFORMS_PASSES_TD
