//===- MLSOptDialect.td - The mlsopt attribute namespace ------------------===//

#ifndef MLSOPT_DIALECT_MLSOPT_IR_MLSOPTDIALECT_TD
#define MLSOPT_DIALECT_MLSOPT_IR_MLSOPTDIALECT_TD

include "mlir/IR/OpBase.td"

def MLSOpt_Dialect : Dialect {
  let name = "mlsopt";
  let cppNamespace = "::mlsopt";
  let summary = "The discardable attributes that tie IR to mlsopt";
  let description = [{
    This dialect has no ops. It owns the `mlsopt.` attribute namespace and
    verifies the attributes users and passes put on modules and functions:

    - `mlsopt.target = "sm_90"` on any op (usually the module): the GPU the
      code inside is built for. One of `sm_80`, `sm_86`, `sm_89`, `sm_90`.
      Shared-memory and thread limits of block graphs inside are checked
      against it.
    - `mlsopt.equivalent_to = @ref` on a function: the function computes the
      same as `@ref`, a function of the same type in the same symbol table.
      `--verify-equivalence` checks the claim.
  }];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kEquivalentToAttrName =
        "mlsopt.equivalent_to";
  }];
}

#endif // MLSOPT_DIALECT_MLSOPT_IR_MLSOPTDIALECT_TD
