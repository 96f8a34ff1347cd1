// Rows of 32768 f32 values centred on their mean: the row is summed in 32
// chunks of 1024 across the grid, and a second kernel sums a row's 32
// partial sums with a for-loop over them and subtracts the mean from the
// tile of x it loads after the loop. Before, a kernel summing a row could
// not split or walk it, as the program outputs that dim (only a softmax's
// maximum could), and the row sum stayed a library split pair beside an
// elementwise kernel: 3 launches (6.34 us) where these are 2.
// RUN: mlsopt-opt %s --superoptimize="timeout=10 keep-reference=true" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: remark: superoptimize: replaced 3 kernel ops ({{.*}}) by 2 kernels
// CHECK-LABEL: func.func @centre(
// CHECK: %[[P:.*]] = kernel.custom(%arg0) grid <{{[0-9]+}}, 32, 1> {{.*}} -> tensor<4x32xf32>
// CHECK: block.load %in0 {{.*}} : tensor<4x32768xf32> -> tensor<{{[0-9]+}}x1024xf32>
// CHECK: block.reduce_sum
// CHECK: kernel.custom(%arg0, %[[P]])
// CHECK: block.for_loop 32 iterations accumulate (sum)
// CHECK: block.load %in1 {{.*}} fmap 1 : tensor<4x32xf32>
// CHECK: thread.binary sub
// CHECK: block.store {{.*}} into tensor<4x32768xf32>
// CHECK-NOT: kernel.
// CHECK: return
// VERIFY: remark: @centre is equivalent to @centre_reference

func.func @centre(%x: tensor<4x32768xf32>) -> tensor<4x32768xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<4x32768xf32>
  %m = kernel.mul_scalar %s, 3.0517578125e-05 : tensor<4x1xf32>
  %o = kernel.sub %x, %m : tensor<4x32768xf32>, tensor<4x1xf32>
  return %o : tensor<4x32768xf32>
}
