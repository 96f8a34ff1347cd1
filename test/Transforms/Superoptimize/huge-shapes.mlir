// Huge shapes: 2^30 elements (4 GiB) per tensor. The search works on the
// cost model and small stand-ins, never on tensors of these sizes, and
// verification at full shapes, which would need 16 bytes per element, is
// refused with a clean message instead of running out of memory. The
// address space is capped at 2 GiB to prove it. (Without keep-reference,
// verification-budget.mlir runs the same program under the same cap.)
//
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=5 keep-reference=true" -o %t 2>/dev/null
// RUN: not %python %S/Inputs/limited.py --memory-mb 2048 -- mlsopt-opt %t --verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: error: @f vs @f_reference: checking at full shapes needs about {{[0-9]+}} tensor elements in memory, more than max-elements=268435456; raise max-elements if the machine has about {{[0-9]+}} GiB to spare
//
// The limit is the option's: a smaller one refuses a small program too.
// RUN: not mlsopt-opt %S/keep-reference.mlir --superoptimize="latency-veto=false timeout=5 keep-reference=true" --verify-equivalence=max-elements=16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: error: @{{.*}} needs about 115712 tensor elements in memory, more than max-elements=16; raise max-elements if the machine has about 2 MiB to spare

func.func @f(%x: tensor<65536x16384xf32>, %y: tensor<65536x16384xf32>) -> tensor<65536x16384xf32> {
  %e = kernel.exp %x : tensor<65536x16384xf32>
  %m = kernel.mul %e, %y : tensor<65536x16384xf32>, tensor<65536x16384xf32>
  return %m : tensor<65536x16384xf32>
}
