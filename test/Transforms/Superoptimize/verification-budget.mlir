// Without keep-reference, a winner is committed only after a check at full
// shapes. Where that check would exceed the memory or the time the pass
// has, it is not run, the subprogram is left as it was, and the diagnostic
// names the option that lets the winner through. The address space is
// capped at 2 GiB to show that neither check allocated its tensors, and
// the time is bounded generously (two functions at timeout=5; the 2^26
// case took 31 s when its reference was evaluated anyway).
//
// RUN: %python %S/Inputs/limited.py --seconds 30 --memory-mb 2048 -- mlsopt-opt %s --split-input-file --superoptimize=timeout=5 -o /dev/null 2>&1 | FileCheck %s

// Memory: 2^30 elements per tensor, 16 bytes each over the field.
// CHECK: warning: superoptimize: the subprogram is too large to verify at full shapes in memory; it is left unchanged (run with keep-reference=true and check the result with --verify-equivalence)
func.func @memory(%x: tensor<65536x16384xf32>, %y: tensor<65536x16384xf32>) -> tensor<65536x16384xf32> {
  %e = kernel.exp %x : tensor<65536x16384xf32>
  %m = kernel.mul %e, %y : tensor<65536x16384xf32>, tensor<65536x16384xf32>
  return %m : tensor<65536x16384xf32>
}

// -----

// Time: 2^26 elements per tensor fit in memory, but evaluating the exp
// over the field at full shapes takes far longer than the timeout.
// CHECK: remark: superoptimize: kept the subprogram of 2 kernel ops: checking the best {{.*}} at full shapes would take about {{[0-9]+}} s, past the timeout (a larger timeout, or keep-reference=true and --verify-equivalence, would take it)
func.func @time(%x: tensor<8192x8192xf32>, %y: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %e = kernel.exp %x : tensor<8192x8192xf32>
  %m = kernel.mul %e, %y : tensor<8192x8192xf32>, tensor<8192x8192xf32>
  return %m : tensor<8192x8192xf32>
}
