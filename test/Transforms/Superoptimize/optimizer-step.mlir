// An Adam step (without bias correction) over a [1024, 4096] parameter:
// 11 elementwise ops and three outputs. The partition cuts it into
// subprograms of at most five ops, each a kernel that loads the gradient or
// the new moments again; the kernels have one launch, so they merge into
// one that reads p, g, m and v once and writes p, m and v once: 8 tensors
// of 16 MiB, the least any program moves. --verify-equivalence checks the
// merged kernel, and ptxas its code.
// RUN: mlsopt-opt %s --superoptimize="timeout=30 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin %}
// REMARK: @adam_step launches 1 kernels ({{.*}}), {{[0-9]+}} before
// CHECK-LABEL: func.func @adam_step(
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: kernel.custom({{[^)]*}}) grid
// CHECK-SAME: -> (tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>)
// CHECK: block.for_loop 1 iterations
// CHECK-COUNT-4: block.load
// CHECK-NOT: block.load
// CHECK-COUNT-3: block.store
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// VERIFY: remark: @adam_step is equivalent to @adam_step_reference

func.func @adam_step(%p: tensor<1024x4096xf32>, %g: tensor<1024x4096xf32>, %m: tensor<1024x4096xf32>, %v: tensor<1024x4096xf32>) -> (tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>) {
  %m0 = kernel.mul_scalar %m, 9.000000e-01 : tensor<1024x4096xf32>
  %g0 = kernel.mul_scalar %g, 1.000000e-01 : tensor<1024x4096xf32>
  %m1 = kernel.add %m0, %g0 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %v0 = kernel.mul_scalar %v, 9.990000e-01 : tensor<1024x4096xf32>
  %gg = kernel.square %g : tensor<1024x4096xf32>
  %g1 = kernel.mul_scalar %gg, 1.000000e-03 : tensor<1024x4096xf32>
  %v1 = kernel.add %v0, %g1 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r = kernel.sqrt %v1 : tensor<1024x4096xf32>
  %d = kernel.add_scalar %r, 1.000000e-08 : tensor<1024x4096xf32>
  %u = kernel.div %m1, %d : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %s = kernel.mul_scalar %u, 1.000000e-03 : tensor<1024x4096xf32>
  %p1 = kernel.sub %p, %s : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  return %p1, %m1, %v1 : tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>
}
