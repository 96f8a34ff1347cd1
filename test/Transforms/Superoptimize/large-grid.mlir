// An elementwise chain of 2^28 elements per tensor. Any grid of up to 16
// blocks per SM leaves tiles that overflow shared memory, so the search
// takes larger grids (up to CUDA's limits per dim) and still fuses the
// chain into one kernel. keep-reference defers the check at full shapes to
// --verify-equivalence, so nothing of full size is allocated (2 GiB cap).
//
// RUN: %python %S/Inputs/limited.py --seconds 60 --memory-mb 2048 -- mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" 2>/dev/null | FileCheck %s

// CHECK-LABEL: func.func @chain(
// CHECK-SAME: attributes {mlsopt.equivalent_to = @chain_reference}
// CHECK: kernel.custom(%arg0, %arg1, %arg2) grid <{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}>
// CHECK-NOT: kernel.{{exp|mul|add}}
// CHECK: return
// CHECK-LABEL: func.func private @chain_reference(
func.func @chain(%x: tensor<16384x16384xf32>, %y: tensor<16384x16384xf32>, %z: tensor<16384x16384xf32>) -> tensor<16384x16384xf32> {
  %e = kernel.exp %x : tensor<16384x16384xf32>
  %m = kernel.mul %e, %y : tensor<16384x16384xf32>, tensor<16384x16384xf32>
  %a = kernel.add %m, %z : tensor<16384x16384xf32>, tensor<16384x16384xf32>
  return %a : tensor<16384x16384xf32>
}
