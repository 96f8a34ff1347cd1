// A transposed result (attention's [b, h, s, d] output read as
// [b, s, h, d], a linear layer's output handed on transposed): the
// transpose of a custom kernel's output becomes its epilogue. Each block
// permutes its tile with block.transpose and stores it at the place the
// permuted dims give it (omap <x = 1, y = 0> for the tile the matmul's
// kernel stored at <x = 0, y = 1>), so the program is one launch instead of
// a kernel and a copy kernel.
// RUN: mlsopt-opt %s --superoptimize="timeout=5 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="timeout=5" | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: mlsopt-translate --emit-ptx %t.gpu.mlir -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// REMARK: @matmul_silu_t launches 1 kernels

// CHECK-LABEL: func.func @matmul_silu_t(
// CHECK: kernel.custom
// CHECK: block.load %in0 imap <x = 0>
// CHECK: block.load %in1 imap <y = 1>
// CHECK: %[[T:.*]] = block.transpose %{{.*}} [1, 0] : tensor<[[M:[0-9]+]]x[[N:[0-9]+]]xf32>
// CHECK-NEXT: block.store %[[T]], %out0 omap <x = 1, y = 0> : tensor<[[N]]x[[M]]xf32> into tensor<512x64xf16>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @matmul_silu_t is equivalent to @matmul_silu_t_reference
// HOST-LABEL: func.func @matmul_silu_t(
// HOST: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: return
func.func @matmul_silu_t(%x: tensor<64x256xf16>, %w: tensor<256x512xf16>) -> tensor<512x64xf16> {
  %m = kernel.matmul %x, %w : tensor<64x256xf16>, tensor<256x512xf16>
  %s = kernel.silu %m : tensor<64x512xf16>
  %t = kernel.transpose %s [1, 0] : tensor<64x512xf16>
  return %t : tensor<512x64xf16>
}
