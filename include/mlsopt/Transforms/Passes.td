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

    A linalg op the import left (a gather, an argmax), which the field
    cannot evaluate, is cut out of both functions where each holds the same
    one: its results become arguments of both and the tensors it reads
    results, so the functions are compared around it.

    The field cannot see what depends on magnitudes (an epsilon that is
    too large, an overflow), so both functions also run in f32 on the CPU
    (through the CPU pipeline and mlir::ExecutionEngine) on the same random
    normal inputs, and a relative difference above `f32-tolerance` is a
    warning.

    `engine` chooses how the finite-field programs run: `jit` (the default)
    builds each function's finite-field program as loops over memrefs of
    field elements that follow every custom kernel's block schedule, lowers
    it to LLVM and compiles it with mlir::ExecutionEngine; `evaluator`
    interprets the functions in process (`lib/Verify`, what the search
    uses). Both implement the semantics of docs/verification.md, draw the
    same inputs for a seed and give the same results.
  }];
  // What the JIT engine's field program is built from, and the reshapes
  // that give a constant argument its constants' shapes.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"tests", "tests", "unsigned", "0",
           "Number of random tests (0: as many as `bound` needs)">,
    Option<"maxElements", "max-elements", "int64_t", "268435456",
           "Most tensor elements the two functions may hold at full shapes; "
           "past it the check is an error instead of running out of memory">,
    Option<"maxWork", "max-work", "int64_t", "100000000000",
           "Most field operations one test may take, about: the elements "
           "each op reads and writes (and a matmul's products), times the "
           "blocks and loop iterations around it; past it the check is an "
           "error instead of running for hours (1e9 takes a few seconds)">,
    Option<"seed", "seed", "uint64_t", "1",
           "Seed of the random inputs and of the random functions that "
           "stand for non-LAX ops">,
    Option<"bound", "bound", "double", "1e-9",
           "Largest accepted probability that different programs pass">,
    Option<"f32Check", "f32-check", "bool", "true",
           "Also run both functions in f32 on random normal inputs">,
    Option<"f32Tolerance", "f32-tolerance", "double", "1e-3",
           "Relative difference of the f32 runs above which to warn">,
    Option<"engine", "engine", "::mlsopt::VerifyEngine",
           "::mlsopt::VerifyEngine::JIT",
           "How the finite-field programs run",
           [{::llvm::cl::values(
             clEnumValN(::mlsopt::VerifyEngine::JIT, "jit",
                        "JIT-compiled through mlir::ExecutionEngine"),
             clEnumValN(::mlsopt::VerifyEngine::Evaluator, "evaluator",
                        "the in-process evaluator"))}]>,
  ];
}

def InlineHelpers : Pass<"mlsopt-inline-helpers", "::mlir::ModuleOp"> {
  let summary = "Inline the calls to private functions";
  let description = [{
    Replaces every call to a private function with a body (a helper, as
    StableHLO's `func.call` and hand-written IR have them) by the body, and
    erases the helpers no call is left to. Nothing else is simplified. A
    call to a public function is an entry point calling another, and stays:
    each is optimized on its own. `--superoptimize` runs it first, since it
    cuts subprograms inside one function and a call parted the ops on its
    two sides; `--mlsopt-gpu-pipeline` too, since a host function of
    launches makes no calls.
  }];
}

def RaiseKernelIdioms : Pass<"raise-kernel-idioms", "::mlir::func::FuncOp"> {
  let summary = "Raise spelled-out kernel idioms (RMSNorm) to single ops "
                "and move scales of matmul products to the smaller operand";
  let description = [{
    Rewrites `x * rsqrt(mean(x^2 over dim d) + eps)` and
    `x / sqrt(mean(x^2 over dim d) + eps)`, as front ends spell RMSNorm, into
    one `kernel.rms_norm` over `d` (any dim; the mean's factor must be 1/n
    for d's extent n); a product of a value with itself is its square first
    (StableHLO's variance, `multiply(d, d)`), and a LayerNorm's centred
    variance makes the norm `rms_norm(x - mean(x))`. A scale of a matmul's
    product,
    `mul_scalar(matmul(a, b), c)`, moves to the smaller operand when it is
    smaller than the product (attention's `(Q K) / sqrt(d)` scales Q), so
    that the cut need not keep it with the product. A matmul over one
    element (`[..., m, 1] x [..., 1, n]`, a LoRA of rank 1) becomes the
    broadcast `kernel.mul` it equals, and a `reduce_sum` / `reduce_max` over
    a dim of size 1 its operand: the search treats size-1 dims as
    broadcasts and cannot contract or reduce over one. An f16 or bf16 value
    widened to f32, normalized and rounded back (Hugging Face's LLaMA norm)
    becomes the rms_norm of the narrow value, which computes in f32 and
    rounds once. A transpose of a value that elementwise ops and reductions
    compute from the function's arguments alone (a softmax over columns
    whose transpose a matmul reads) moves onto those arguments, the
    reductions renamed to the permuted dims, where nothing reads the values
    in their old layout: the search cuts subprograms at transposes, and
    the GPU pipeline loads a transposed argument in the kernel that reads
    it. Every rewrite is exact, also over the verifier's field. `--superoptimize` applies the
    same patterns before it cuts a function into subprograms, so that a
    normalization counts as one op against `max-kernel-ops`.
  }];
  let dependentDialects = ["::mlsopt::kernel::KernelDialect"];
}

def FuseKernelElementwise : Pass<"fuse-kernel-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Compute elementwise kernel ops inside the custom kernels "
                "beside them";
  let description = [{
    Moves elementwise kernel ops (unary, binary with broadcasting, or with a
    scalar; operands of the result's rank) into a `kernel.custom` next to
    them, so they cost no launch and no device-memory round trip. An
    `rms_norm` counts as elementwise where every tile involved holds whole
    rows of its normalized dim (QKNorm's norms of Q and K, whose tiles in
    the attention kernel span the head dim):

    - *Epilogue.* An op whose operands are all outputs of one custom kernel
      is applied after the for-loop to the tiles each block stores of them,
      and the result is stored as a new output. The operands' tiles must
      match: the same grid dim splits the same tensor dim, and the tiles
      agree on every dim an operand does not broadcast. Outputs nothing
      reads afterwards are dropped. An operand the kernel does not make,
      defined before it (a bias, a gain, a residual), is loaded: in a loop
      of one iteration with the kernel's other tiles, after a longer loop
      once, by a `block.load` that follows the loop.
    - *Prologue.* An op whose result only one custom kernel reads is applied
      to tiles of its operands wherever the kernel loaded the result: each
      load becomes loads of the operands, cut the same way along the dims
      they do not broadcast (a broadcast dim is not split by the grid or the
      loop). This one is made only when the cost model of the module's
      target says the fused kernel beats the two launches, by the roofline
      and not slower with the latency term: a kernel whose blocks all read
      the result would read every operand as often. An op whose result
      several custom kernels read, and nothing else, is applied so in each
      of them where the cost model says those kernels together beat the op
      and the kernels as they were (a transpose of the keys that a kernel
      of their norms and the matmul with the queries both read).
    - *Transposes.* A `kernel.transpose` read only by one custom kernel is
      a prologue too: the kernel loads tiles of the transpose's operand, cut
      along the permuted dims, and `block.transpose` puts each tile in the
      order it had; a pre-defined op that reads it (a lone linear layer's
      matmul, kept as a library kernel) is given its default block graph
      for this, when the cost model says the one kernel beats the two. A
      transpose of a custom kernel's output is an epilogue: each block
      stores its tile permuted, placed along the permuted dims. A weight stored `[n, k]` (a linear layer's)
      or a key transposed for `Q K^T` costs no copy kernel.
    - *Concats.* A `kernel.concat` read only by one custom kernel (or by a
      pre-defined op, given its default block graph as for a transpose)
      whose tiles hold the whole joined dim is a prologue too: the kernel
      loads the operands' tiles and joins them with `block.concat`. With
      the slices read in place (`--fold-slices-into-loads`, also part of
      this pass), a rotary embedding's `rotate_half` (the concat of a
      negated half and the other half) feeding `Q K^T` costs no kernel.
    - *Conversions.* A `kernel.convert` (a mixed-precision program's cast)
      that only custom kernels read becomes converting loads of its operand
      in them, and one of a custom kernel's output that nothing else reads
      a converting store: an f16 softmax computed in f32 is one kernel that
      loads f16, computes in f32 and stores f16. A pre-defined op beside a
      conversion (the one it converts, or those that read it) becomes its
      default block graph for this, unless it is an elementwise op that
      can be the epilogue of a custom kernel (it reads the kernel's outputs
      and values made before the kernel only). `--superoptimize` costs the
      pre-defined ops it keeps as these kernels.
    - *Reshapes.* A `tensor.expand_shape` that only adds size-1 dims,
      between an elementwise op (not of a custom kernel's outputs) and the
      custom kernels that read it, moves above the op, whose operands are
      expanded alike (a `triangle_fill`'s dims move with them), so that
      the op can be their prologue: a causal mask built as a tensor of its
      own, read at the scores' rank by the attention kernel. Where other
      custom kernels read the op too, it stays for them and the expand
      reads a copy (a mean pooling's mask, converted for the count and,
      expanded, for the masked sum: each kernel converts it). A reshape of
      a custom kernel's output read by an elementwise op moves below the
      op instead, so that it can be the kernel's epilogue.
    - *Siblings.* An elementwise op beside a custom kernel that loads one
      of its operands (a kernel before it, or after it where every reader
      of the op comes later) is computed by that kernel too, on tiles cut
      as its output of the op's shape, when the cost model says the one
      launch is faster.
    - *Kernels with one launch.* Two custom kernels with the same grid and
      block, where no path through other ops leads from the first to the
      second, become one, when the cost model says it is faster (a second
      kernel that reads an output or an input of the first is tried first;
      two that share nothing save a launch) (a partition cut an optimizer step
      into kernels that each load the gradient again): with the same
      number of for-loop iterations, one loop that loads a tile both read
      once; otherwise the body of a one-iteration loop after the other's
      loop. A consumer's loads of the producer's output become the tiles
      the producer stores (or, in the one loop, yields), where both cut the
      tensor alike, converted as the store and the load would have (f32
      sums rounded to an f16 output, then loaded as f16 for a matmul). Accumulators nothing reads afterwards are dropped, and
      a kernel input passed twice whose loads are the same becomes one.

    A fused kernel must pass the block-graph verifier (shared memory on the
    module's target), or the ops stay apart. The new block ops join the
    thread graphs beside them (`--thread-fuse-elementwise`) in each kernel
    whose merged graphs fit that shared memory too.

    ```mlir
    %r:2 = kernel.custom(...) ... -> (tensor<2x256x64xf16>, tensor<2x256x1xf16>)
    %o = kernel.div %r#0, %r#1 : tensor<2x256x64xf16>, tensor<2x256x1xf16>
    // becomes one kernel.custom whose block graph ends with
    //   thread.graph(...) { thread.binary div ... }
    //   block.store ..., %out0
    ```

    `--superoptimize` runs the same rewrites on each function after it
    replaced the function's subprograms: the partition cuts programs into
    subprograms of at most `max-kernel-ops` ops, and an elementwise op left
    on its own would otherwise be a kernel launch of its own.
  }];
  let options = [
    Option<"latencyVeto", "latency-veto", "bool", "true",
           "Refuse a prologue fusion that the cost model's latency term "
           "says is slower than the two launches (docs/cost-model.md, "
           "\"Using it\"; off: the roofline alone decides)">,
  ];
  // The cost model builds default block graphs, which wrap a rank-0 op
  // between tensor reshapes.
  let dependentDialects = ["::mlsopt::block::BlockDialect",
                           "::mlsopt::thread::ThreadDialect",
                           "::mlir::tensor::TensorDialect"];
}

def Superoptimize : Pass<"superoptimize", "::mlir::ModuleOp"> {
  let summary = "Search kernel, block and thread graphs for a faster program";
  let description = [{
    Inlines the calls to private functions first (`--mlsopt-inline-helpers`),
    then cuts every function into subprograms of at most `max-kernel-ops`
    pre-defined kernel ops (along the data flow, never across an op the
    search cannot take, and so that each subprogram can be replaced in one
    place; a row maximum subtracted from the row it was taken over, and the
    subtraction, count nothing, since the abstract expressions erase that
    stabilizer),
    searches each for the best μGraph (docs/search.md) and replaces it by
    the winner when the cost model says it is faster.

    The search enumerates kernel graphs and, inside custom kernels, block
    graphs op by op; prunes every value that is not a subexpression of the
    reference under the axioms (abstract expressions, decided by Z3) and
    every prefix that cannot beat the best program found (cost lower
    bounds); screens every complete candidate with the finite-field
    evaluator; and picks grid, loop and tile sizes with the cost model of
    `target`. Thread graphs are then built by rule
    (`--thread-fuse-elementwise`).

    Without `keep-reference`, a winner is verified at full shapes over the
    finite field before it replaces the subprogram. With it, the original
    function stays as a private `@<name>_reference` and the rewritten one
    carries `mlsopt.equivalent_to`, for `--verify-equivalence`.

    A function with linalg ops and no kernel op is left as it is, with a
    warning to run `--convert-linalg-to-kernel` first.

    On timeout the best verified program found so far is kept (or the input,
    unchanged); a timeout is never an error. A search of a subprogram of
    several ops that has found nothing faster than it after `give-up-after`
    seconds, or half its share of the time if that is later, ends there,
    and the subprogram is cut in two or more pieces of at most half its
    weight, searched in turn with the time left (a remark says so;
    statistic `subprograms-split`). Results are the same for any
    `threads` when the search finishes in time. A subprogram identical to
    one searched before in the same run (a model's repeated layers: the same
    ops, shapes and types) is not searched again: it gets that search's
    answer, checked at full shapes, and its share of the time goes to the
    rest. With `cache-dir`, results
    are stored by a hash of the subprogram and the options, and entries are
    verified again when they are loaded.
  }];
  let options = [
    Option<"maxKernelOps", "max-kernel-ops", "unsigned", "5",
           "Most kernel ops in one searched subprogram and in its result "
           "(x - max(x), a safe softmax's stabilizer, counts nothing)">,
    Option<"maxBlockOps", "max-block-ops", "unsigned", "11",
           "Most block ops (loads, compute ops, stores) in one custom kernel, "
           "3 to 64 (x - max(x) counts as one)">,
    Option<"timeout", "timeout", "double", "60",
           "Seconds per function; the best program found by then is kept">,
    Option<"giveUpAfter", "give-up-after", "double", "20",
           "Seconds after which the search of a subprogram of several ops "
           "that has found nothing faster than it ends, at half its time at "
           "the earliest, and the subprogram is searched in pieces with the "
           "time left; 0: never">,
    Option<"threads", "threads", "unsigned", "0",
           "Search threads (0: all cores)">,
    Option<"target", "target", "std::string", "\"sm_90\"",
           "GPU the cost model describes: sm_80, sm_86, sm_89 or sm_90">,
    Option<"seed", "seed", "uint64_t", "1",
           "Seed of the random tests that screen and verify candidates">,
    Option<"cacheDir", "cache-dir", "std::string", "\"\"",
           "Directory of the on-disk result cache (empty: no cache)">,
    Option<"keepReference", "keep-reference", "bool", "false",
           "Keep the original function and link the result to it with "
           "mlsopt.equivalent_to instead of verifying internally">,
    Option<"abstractPruning", "abstract-pruning", "bool", "true",
           "Prune by abstract expressions (off: for measuring what it saves)">,
    Option<"costPruning", "cost-pruning", "bool", "true",
           "Prune by cost lower bounds (off: for measuring what it saves)">,
    Option<"latencyModel", "latency-model", "bool", "false",
           "Rank with the cost model's latency term (docs/cost-model.md, "
           "\"Latency\"): each block's dependent steps, and pre-defined "
           "ops costed as their default block graphs">,
    Option<"latencyVeto", "latency-veto", "bool", "true",
           "Ranking by the roofline, let the latency term refuse a "
           "candidate it says is slower than the input, choose each "
           "kernel's grid and loop sizes, and break the roofline's ties "
           "(docs/cost-model.md, \"Latency\"; off: the roofline alone)">,
  ];
  let dependentDialects = [
    "::mlsopt::kernel::KernelDialect", "::mlsopt::block::BlockDialect",
    "::mlsopt::thread::ThreadDialect", "::mlsopt::MLSOptDialect",
    "::mlir::func::FuncDialect", "::mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numEnumerated", "graphs-enumerated",
              "Ops and accumulators the enumeration tried">,
    Statistic<"numPrunedAbstract", "pruned-abstract-expr",
              "Values pruned by abstract expression">,
    Statistic<"numPrunedCost", "pruned-cost", "Prefixes pruned by cost bound">,
    Statistic<"numScreened", "screened",
              "Complete candidates screened by the field evaluator">,
    Statistic<"numVetoedLatency", "vetoed-latency",
              "Candidates refused as slower than the input with the latency "
              "term">,
    Statistic<"numVerified", "verified",
              "Winners verified at full shapes">,
    Statistic<"numCacheHits", "cache-hits", "Subprograms found in the cache">,
    Statistic<"numRepeats", "repeats",
              "Subprograms identical to one searched before in the run, "
              "given its outcome">,
    Statistic<"numRewritten", "subprograms-rewritten",
              "Subprograms replaced by a faster μGraph">,
    Statistic<"numSplit", "subprograms-split",
              "Subprograms whose search found nothing faster in half its "
              "time, searched in pieces">,
  ];
}

#endif // MLSOPT_TRANSFORMS_PASSES_TD
