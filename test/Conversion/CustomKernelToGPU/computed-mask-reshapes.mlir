// A mask computed in two dims and collapsed before the kernel ops read it:
// the searched kernel (one) that computes it where it loads its tile maps each
// element's index back through the collapse (j = 128 a + b) to the loop
// kernel's two loops. One launch, taking the position; ptxas accepts it,
// and python/tests/test_ptx_emulator.py (collapsed_mask_f32) runs it to
// the CPU pipeline's numbers.
// RUN: mlsopt-opt %s --superoptimize=timeout=5 -o %t.opt.mlir 2>/dev/null
// RUN: mlsopt-opt %t.opt.mlir --convert-custom-kernel-to-gpu=chip=sm_90 2>/dev/null | FileCheck %s
// RUN: mlsopt-opt %t.opt.mlir --mlsopt-gpu-pipeline=chip=sm_90 2>/dev/null | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK-LABEL: func.func @collapsed_mask(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<8x256xf32>, %[[P:[a-z0-9]+]]: memref<i64>
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch_func {{.*}}args(%[[X]] : memref<8x256xf32>, %[[P]] : memref<i64>, %{{.*}} : memref<8x256xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func
// The collapsed index, split back into the mask's two loops.
// CHECK: arith.divui %{{.*}}, %c128{{.*}} : index
// CHECK: memref.load %{{.*}}[] : memref<i64>
// CHECK: arith.cmpi sgt
func.func @collapsed_mask(%x: tensor<8x256xf32>, %pos: i64) -> tensor<8x256xf32> {
  %pos_t = tensor.from_elements %pos : tensor<i64>
  %e = tensor.empty() : tensor<2x128xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(a, b) -> ()>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      ins(%pos_t : tensor<i64>) outs(%e : tensor<2x128xi1>) {
  ^bb0(%p: i64, %o: i1):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %c128 = arith.constant 128 : index
    %s = arith.muli %a, %c128 : index
    %j = arith.addi %s, %b : index
    %jj = arith.index_cast %j : index to i64
    %f = arith.cmpi sgt, %jj, %p : i64
    linalg.yield %f : i1
  } -> tensor<2x128xi1>
  %flat = tensor.collapse_shape %m [[0, 1]] : tensor<2x128xi1> into tensor<256xi1>
  %w = kernel.where %flat, 0xFFF0000000000000, 0.000000e+00 : tensor<256xi1> to tensor<256xf32>
  %y = kernel.add %x, %w : tensor<8x256xf32>, tensor<256xf32>
  %r = kernel.exp %y : tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}
