//===- Passes.td - Thread dialect passes ----------------------------------===//

#ifndef MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_TD
#define MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ThreadFuseElementwise : Pass<"thread-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise block ops into thread graphs";
  let description = [{
    Builds the thread level of a μGraph by rules. Every elementwise block op
    (unary, binary, with a constant, or a `block.convert`) becomes a
    `thread.graph`, and a thread graph whose results feed only one other
    thread graph is merged into it. The chain then runs in registers, as the
    epilogue of the op that produces its operands or the prologue of the op
    that consumes its result, and its intermediate tiles no longer take
    shared memory. A thread graph that reads only results of one other graph
    which more ops read becomes more results of that graph: attention's
    `exp(S - m)`, summed in f32 and rounded to f16 for `P V`, is computed
    once and written in both types. Two thread graphs that read a tile in
    common are one graph with the results of both, where the later one's
    operands are available at the earlier one (x's squares for its norm and
    x rounded to f16 for its product read x from shared memory once).
    Merged graphs keep values live longer, so a kernel whose fused block
    graph would need more shared memory than the module's target
    (`mlsopt.target`, else sm_90) has keeps its block graph as it is.

    ```mlir
    %s = block.silu %a : tensor<8x64xf16>
    %m = block.mul %s, %b : tensor<8x64xf16>, tensor<8x64xf16>
    ```
    becomes
    ```mlir
    %m = thread.graph(%a, %b) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16> {
    ^bb0(%x: f16, %y: f16):
      %0 = thread.unary silu %x : f16
      %1 = thread.binary mul %0, %y : f16
      thread.yield %1 : f16
    }
    ```
  }];
  let dependentDialects = ["::mlsopt::thread::ThreadDialect"];
  let statistics = [
    Statistic<"numWrapped", "ops-wrapped",
              "Elementwise block ops turned into thread graphs">,
    Statistic<"numMerged", "graphs-merged",
              "Thread graphs merged into their only consumer, into the "
              "one producer they read, or into an earlier graph reading an "
              "operand of theirs">,
  ];
}

#endif // MLSOPT_DIALECT_THREAD_TRANSFORMS_PASSES_TD
