//===- BlockDialect.td - The block-level dialect --------------------------===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKDIALECT_TD
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKDIALECT_TD

include "mlir/IR/OpBase.td"

def Block_Dialect : Dialect {
  let name = "block";
  let cppNamespace = "::mlsopt::block";
  let summary = "Block level of a μGraph: what one thread block computes";
  let description = [{
    A block graph is the body of a `kernel.custom` op. It describes the work
    of one thread block; all blocks of the grid run the same graph on
    different tiles. Values are tiles in shared memory, typed as statically
    shaped tensors.

    The structure is fixed and explicit:

    1. One `block.for_loop`. Inside it, `block.load` ops (input iterators)
       load this iteration's tile of a kernel input. The imap says which grid
       dim splits which tensor dim; the fmap says which tensor dim the loop's
       iterations split. Compute ops work on the tiles, and the loop's
       terminator hands values to its accumulators.
    2. After the loop, compute ops work on the accumulated tiles, and
       `block.store` ops (output savers) write each kernel output through its
       omap, exactly once.
    3. `block.return` ends the graph.

    So every path from an input to an output passes exactly one input
    iterator, one accumulator and one output saver.
  }];
  let dependentDialects = ["::mlsopt::kernel::KernelDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Block_Op<string mnemonic, list<Trait> traits = []>
    : Op<Block_Dialect, mnemonic, traits>;

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKDIALECT_TD
