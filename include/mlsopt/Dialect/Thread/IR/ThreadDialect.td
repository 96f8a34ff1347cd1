//===- ThreadDialect.td - The thread-level dialect ------------------------===//

#ifndef MLSOPT_DIALECT_THREAD_IR_THREADDIALECT_TD
#define MLSOPT_DIALECT_THREAD_IR_THREADDIALECT_TD

include "mlir/IR/OpBase.td"

def Thread_Dialect : Dialect {
  let name = "thread";
  let cppNamespace = "::mlsopt::thread";
  let summary = "Thread level of a μGraph: elementwise chains fused in registers";
  let description = [{
    A `thread.graph` sits in a block graph in place of a chain of elementwise
    block ops. Each thread applies the chain to the elements it owns, in
    registers, so the intermediate tiles never reach shared memory: an
    epilogue of the op that produces the operands, or a prologue of the op
    that consumes the result. Thread ops compute on scalars; which element
    a thread holds is decided by the lowering.
  }];
  let dependentDialects = ["::mlsopt::block::BlockDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Thread_Op<string mnemonic, list<Trait> traits = []>
    : Op<Thread_Dialect, mnemonic, traits>;

#endif // MLSOPT_DIALECT_THREAD_IR_THREADDIALECT_TD
