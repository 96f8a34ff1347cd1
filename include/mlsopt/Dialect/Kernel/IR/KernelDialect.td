//===- KernelDialect.td - The kernel-level dialect ------------------------===//

#ifndef MLSOPT_DIALECT_KERNEL_IR_KERNELDIALECT_TD
#define MLSOPT_DIALECT_KERNEL_IR_KERNELDIALECT_TD

include "mlir/IR/OpBase.td"

def Kernel_Dialect : Dialect {
  let name = "kernel";
  let cppNamespace = "::mlsopt::kernel";
  let summary = "Kernel level of a μGraph: tensor ops in GPU device memory";
  let description = [{
    The kernel level is the outermost of mlsopt's three levels. Its ops work
    on statically shaped tensors that live in device memory and appear inside
    ordinary `func.func` bodies. Each pre-defined op stands for one library
    kernel launch (a matmul, an elementwise op, a reduction, ...). The
    `kernel.custom` op stands for a kernel that mlsopt generates: its region
    is a block graph (the `block` dialect) that says what one thread block
    computes.

    Shapes follow numpy: elementwise ops broadcast by size-1 dims, matmul is
    batched over equal leading dims, and reductions keep the reduced dim with
    size 1. Element types are f16, bf16 and f32; all operands of an op share
    one element type. Every op infers its result type.
  }];
  let useDefaultAttributePrinterParser = 1;
  // The mlsopt.* attributes (target, equivalent_to) are verified whenever
  // kernel IR is around.
  let dependentDialects = ["::mlsopt::MLSOptDialect"];
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

#endif // MLSOPT_DIALECT_KERNEL_IR_KERNELDIALECT_TD
