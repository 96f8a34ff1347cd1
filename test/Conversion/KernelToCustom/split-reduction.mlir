// A matmul or a reduction whose output tiles are too few to keep a GPU busy
// and whose reduced dim is long gets a split default block graph: a first
// kernel whose grid z takes chunks of the reduced dim (k of a matmul; one
// chunk per block, no for-loop) and stores the partial results side by
// side along an output dim the grid does not split, and a second kernel
// that walks the chunks and combines them (sum, or max for reduce_max) on
// a grid of its own, split as finely as the dims other than the chunks'
// allow (up to 64 blocks, last-dim tiles of 8 or more): with the first
// kernel's grid, one block would read all 128 partial tiles of the Gram
// matrix.
// Before, the Gram matrix X^T X of a 4096x64 X, and the column sums of X,
// were one block walking all 4096 rows.
// The CPU run computes both programs to the numbers of plain linalg (the
// custom kernels as loops that follow their schedule, the block graphs the
// GPU lowering compiles), and ptxas takes their PTX.
// RUN: mlsopt-opt %s --convert-kernel-to-custom | FileCheck %s --check-prefix=SPLIT
// RUN: mlsopt-opt %s --convert-kernel-to-custom | sed -e '/^module {$/d' -e '/^}$/d' > %t.kernel.mlir
// RUN: %if mlir-runner %{ cat %t.kernel.mlir %S/Inputs/split-reduction-main.mlir %S/../../Examples/Inputs/compare.mlir %S/../../Bench/Inputs/helpers.mlir \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s %}
// RUN: sed -e 's/f32/bf16/g' %s | mlsopt-opt --convert-kernel-to-custom | FileCheck %s --check-prefix=SPLIT16
// RUN: sed -e 's/f32/f16/g' %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: sed -e 's/f32/bf16/g' %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f32.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f32.ptx -o %t.f32.cubin %}

// Thirteen kernels (a transpose, five split pairs, two single kernels); the
// f16 chunk products run on tensor cores.
// PTX-COUNT-13: .entry
// PTX-NOT: .entry
// PTX: mma.sync.aligned

// X^T X: one output tile, so the partials go along n (the last dim). 64
// chunks of 64 rows would not fit 48 KiB in f32, so 128 chunks of 32.
// SPLIT-LABEL: func.func @gram(
// SPLIT: %[[T:.*]] = kernel.transpose
// SPLIT: %[[P:.*]] = kernel.custom(%[[T]], %arg0) grid <1, 1, 128> {{.*}} -> tensor<64x8192xf32>
// SPLIT: block.for_loop 1 iterations accumulate (sum) : tensor<64x64xf32>
// SPLIT: block.load %in0 imap <z = 1> : tensor<64x4096xf32> -> tensor<64x32xf32>
// SPLIT: block.load %in1 imap <z = 0> : tensor<4096x64xf32> -> tensor<32x64xf32>
// SPLIT: block.matmul
// SPLIT: block.store %{{.*}}, %out0 omap <z = 1> : tensor<64x64xf32> into tensor<64x8192xf32>
// SPLIT: %[[R:.*]] = kernel.custom(%[[P]]) grid <64, 1, 1>
// SPLIT: block.for_loop 128 iterations accumulate (sum) : tensor<1x64xf32>
// SPLIT: block.load %in0 imap <x = 0> fmap 1 : tensor<64x8192xf32> -> tensor<1x64xf32>
// SPLIT: block.store %{{.*}}, %out0 omap <x = 0> : tensor<1x64xf32> into tensor<64x64xf32>
// SPLIT: return %[[R]]
// In bf16 (and f16) the partials stay f32 from the first kernel's
// accumulators to the second kernel, which rounds once as an unsplit matmul
// does: the first kernel multiplies its bf16 tiles as loaded, summing into
// f32 (a widening matmul, on the tensor cores at the bf16 rate; its tiles
// were f32 and multiplied as tf32), and the second stores converting.
// Rounded to bf16, the partials of a [1, 4096] x [4096, 256] split 16 ways
// had five times the error.
// SPLIT16-LABEL: func.func @gram(
// SPLIT16: %[[P:.*]] = kernel.custom({{.*}}) grid <1, 1, 128> {{.*}} -> tensor<64x8192xf32>
// SPLIT16: block.load %in0 imap <z = 1> : tensor<64x4096xbf16> -> tensor<64x32xbf16>
// SPLIT16: block.load %in1 imap <z = 0> : tensor<4096x64xbf16> -> tensor<32x64xbf16>
// SPLIT16: block.matmul %{{.*}}, %{{.*}} : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
// SPLIT16: block.store %{{.*}}, %out0 omap <z = 1> : tensor<64x64xf32> into tensor<64x8192xf32>
// SPLIT16: kernel.custom(%[[P]]) grid <64, 1, 1>
// SPLIT16: block.for_loop 128 iterations accumulate (sum) : tensor<1x64xf32>
// SPLIT16: block.load %in0 imap <x = 0> fmap 1 : tensor<64x8192xf32> -> tensor<1x64xf32>
// SPLIT16: block.store %{{.*}}, %out0 omap <x = 0> : tensor<1x64xf32> into tensor<64x64xbf16>
func.func @gram(%x: tensor<4096x64xf32>) -> tensor<64x64xf32> {
  %t = kernel.transpose %x [1, 0] : tensor<4096x64xf32>
  %g = kernel.matmul %t, %x : tensor<64x4096xf32>, tensor<4096x64xf32>
  return %g : tensor<64x64xf32>
}

// Few columns: the grid splits m into 4 tiles, so the partials go along n,
// and 16 chunks bring the blocks to 64.
// SPLIT-LABEL: func.func @skinny(
// SPLIT: kernel.custom(%arg0, %arg1) grid <1, 4, 16> {{.*}} -> tensor<256x256xf32>
// SPLIT: block.load %in0 imap <y = 0, z = 1> : tensor<256x2048xf32> -> tensor<64x128xf32>
// SPLIT: block.load %in1 imap <z = 0> : tensor<2048x16xf32> -> tensor<128x16xf32>
// SPLIT: block.store %{{.*}}, %out0 omap <y = 0, z = 1> : tensor<64x16xf32> into tensor<256x256xf32>
// SPLIT: kernel.custom(%{{.*}}) grid <64, 1, 1>
// SPLIT: block.for_loop 16 iterations accumulate (sum) : tensor<4x16xf32>
// SPLIT: block.load %in0 imap <x = 0> fmap 1 : tensor<256x256xf32> -> tensor<4x16xf32>
func.func @skinny(%a: tensor<256x2048xf32>, %b: tensor<2048x16xf32>) -> tensor<256x16xf32> {
  %g = kernel.matmul %a, %b : tensor<256x2048xf32>, tensor<2048x16xf32>
  return %g : tensor<256x16xf32>
}

// Few rows and four column tiles: the partials go along m.
// SPLIT-LABEL: func.func @wide(
// SPLIT: kernel.custom(%arg0, %arg1) grid <4, 1, 16> {{.*}} -> tensor<256x256xf32>
// SPLIT: block.store %{{.*}}, %out0 omap <x = 1, z = 0> : tensor<16x64xf32> into tensor<256x256xf32>
// SPLIT: kernel.custom(%{{.*}}) grid <32, 1, 1>
// SPLIT: block.load %in0 imap <x = 1> fmap 0 : tensor<256x256xf32> -> tensor<16x8xf32>
func.func @wide(%a: tensor<16x2048xf32>, %b: tensor<2048x256xf32>) -> tensor<16x256xf32> {
  %g = kernel.matmul %a, %b : tensor<16x2048xf32>, tensor<2048x256xf32>
  return %g : tensor<16x256xf32>
}

// Column sums: the partials go along the reduced dim, which the result
// keeps with size 1; 64 chunks of 64 rows.
// SPLIT-LABEL: func.func @colsum(
// SPLIT: kernel.custom(%arg0) grid <1, 1, 64> {{.*}} -> tensor<64x64xf32>
// SPLIT: block.for_loop 1 iterations accumulate (sum) : tensor<1x64xf32>
// SPLIT: block.load %in0 imap <z = 0> : tensor<4096x64xf32> -> tensor<64x64xf32>
// SPLIT: block.reduce_sum
// SPLIT: block.store %{{.*}}, %out0 omap <z = 0> : tensor<1x64xf32> into tensor<64x64xf32>
// SPLIT: kernel.custom(%{{.*}}) grid <8, 1, 1>
// SPLIT: block.for_loop 64 iterations accumulate (sum) : tensor<1x8xf32>
// SPLIT: block.load %in0 imap <x = 1> fmap 0 : tensor<64x64xf32> -> tensor<1x8xf32>
func.func @colsum(%x: tensor<4096x64xf32>) -> tensor<1x64xf32> {
  %s = kernel.reduce_sum %x dim 0 : tensor<4096x64xf32>
  return %s : tensor<1x64xf32>
}

// The maxima of four long rows: one row per block along x, 16 chunks of
// each, combined by a max accumulator.
// SPLIT-LABEL: func.func @rowmax(
// SPLIT: kernel.custom(%arg0) grid <4, 1, 16> {{.*}} -> tensor<4x16xf32>
// SPLIT: block.for_loop 1 iterations accumulate (max)
// SPLIT: block.load %in0 imap <x = 0, z = 1> : tensor<4x32768xf32> -> tensor<1x2048xf32>
// SPLIT: block.reduce_max
// SPLIT: kernel.custom(%{{.*}}) grid <4, 1, 1>
// SPLIT: block.for_loop 16 iterations accumulate (max) : tensor<1x1xf32>
func.func @rowmax(%x: tensor<4x32768xf32>) -> tensor<4x1xf32> {
  %m = kernel.reduce_max %x dim 1 : tensor<4x32768xf32>
  return %m : tensor<4x1xf32>
}

// Enough output tiles (32), or a k too short to give the 64 blocks aimed
// at chunks of 16: one kernel, as before.
// SPLIT-LABEL: func.func @enough_tiles(
// SPLIT: kernel.custom(%arg0, %arg1) grid <4, 8, 1>
// SPLIT-NOT: kernel.custom
// SPLIT-LABEL: func.func @short_k(
// SPLIT: kernel.custom(%arg0, %arg1) grid <1, 1, 1>
// SPLIT: block.for_loop 8 iterations
// SPLIT-NOT: kernel.custom
// SPLIT-LABEL: func.func @gram_ref(
func.func @enough_tiles(%a: tensor<512x2048xf32>, %b: tensor<2048x256xf32>) -> tensor<512x256xf32> {
  %g = kernel.matmul %a, %b : tensor<512x2048xf32>, tensor<2048x256xf32>
  return %g : tensor<512x256xf32>
}
func.func @short_k(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> tensor<64x64xf32> {
  %g = kernel.matmul %a, %b : tensor<64x128xf32>, tensor<128x64xf32>
  return %g : tensor<64x64xf32>
}

// The references, in linalg, and what the CPU run prints: sum |O|, max
// |O|, the relative error to the reference and the verdict.
// CHECK: gram
// CHECK-NEXT: {{^5\.37[0-9]*e\+06$}}
// CHECK-NEXT: {{^2049\.[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
// CHECK: skinny
// CHECK-NEXT: {{^1\.334[0-9]*e\+06$}}
// CHECK-NEXT: {{^513\.[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
// CHECK: wide
// CHECK-NEXT: {{^1\.333[0-9]*e\+06$}}
// CHECK-NEXT: {{^513\.[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
// CHECK: colsum
// CHECK-NEXT: {{^136\.5[0-9]*$}}
// CHECK-NEXT: {{^3\.23[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
// CHECK: rowmax
// CHECK-NEXT: {{^36\.7[0-9]*$}}
// CHECK-NEXT: {{^14\.0[0-9]*$}}
// CHECK-NEXT: {{^[0-9.e+-]+$}}
// CHECK-NEXT: ok
func.func @gram_ref(%x: tensor<4096x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>,
                                        affine_map<(i, j, k) -> (k, j)>,
                                        affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %x : tensor<4096x64xf32>, tensor<4096x64xf32>) outs(%z : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
func.func @skinny_ref(%a: tensor<256x2048xf32>, %b: tensor<2048x16xf32>) -> tensor<256x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x16xf32>) -> tensor<256x16xf32>
  %g = linalg.matmul ins(%a, %b : tensor<256x2048xf32>, tensor<2048x16xf32>) outs(%z : tensor<256x16xf32>) -> tensor<256x16xf32>
  return %g : tensor<256x16xf32>
}
func.func @wide_ref(%a: tensor<16x2048xf32>, %b: tensor<2048x256xf32>) -> tensor<16x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x256xf32>) -> tensor<16x256xf32>
  %g = linalg.matmul ins(%a, %b : tensor<16x2048xf32>, tensor<2048x256xf32>) outs(%z : tensor<16x256xf32>) -> tensor<16x256xf32>
  return %g : tensor<16x256xf32>
}
func.func @colsum_ref(%x: tensor<4096x64xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (0, j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4096x64xf32>) outs(%z : tensor<1x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x64xf32>
  return %s : tensor<1x64xf32>
}
func.func @rowmax_ref(%x: tensor<4x32768xf32>) -> tensor<4x1xf32> {
  // Below every input (they are at least -1), and exact in f16 and bf16,
  // which the GPU runs substitute.
  %lowest = arith.constant -1.0e+04 : f32
  %e = tensor.empty() : tensor<4x1xf32>
  %z = linalg.fill ins(%lowest : f32) outs(%e : tensor<4x1xf32>) -> tensor<4x1xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x32768xf32>) outs(%z : tensor<4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  return %m : tensor<4x1xf32>
}
