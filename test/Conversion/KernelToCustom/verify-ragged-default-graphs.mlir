// The default block graphs of dims no power of two divides take ragged
// tiles; their numbers agree with the kernel ops' (on both engines and in
// f32 on the CPU), and their PTX assembles. Each converted function is
// checked against the function as written, renamed *_ref.
// RUN: mlsopt-opt %s --convert-kernel-to-custom \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' \
// RUN:         -e 's/^\(  func.func @\)\([a-z_]*\)\((.*\) {$/\1\2\3 attributes {mlsopt.equivalent_to = @\2_ref} {/' > %t.custom.mlir
// RUN: FileCheck %s --check-prefix=GRAPH < %t.custom.mlir
// RUN: sed -e 's/func.func @\([a-z_]*\)(/func.func @\1_ref(/' %s > %t.ref.mlir
// RUN: cat %t.custom.mlir %t.ref.mlir > %t.both.mlir
// RUN: mlsopt-opt %t.both.mlir --verify-equivalence --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %t.both.mlir --verify-equivalence=engine=evaluator --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// 77 rows and 200 columns in ragged 64x64 tiles: 2 x 4 blocks, the last
// row of blocks with 13 rows, the last column with 8.
// GRAPH-LABEL: func.func @ragged_matmul
// GRAPH: kernel.custom(%{{.*}}, %{{.*}}) grid <4, 2, 1>
// GRAPH: block.store %{{.*}} omap <x = 1, y = 0> : tensor<64x64xf32> into tensor<77x200xf16>
// VERIFY-DAG: remark: @ragged_matmul is equivalent to @ragged_matmul_ref
func.func @ragged_matmul(%x: tensor<77x32xf16>, %w: tensor<32x200xf16>) -> tensor<77x200xf16> {
  %o = kernel.matmul %x, %w : tensor<77x32xf16>, tensor<32x200xf16>
  return %o : tensor<77x200xf16>
}

// Rows of 1000 = 8 * 125 in 2 ragged tiles of 512, not 125 of 8; a bias
// broadcast along the rows is cut the same way.
// GRAPH-LABEL: func.func @ragged_rows
// GRAPH: kernel.custom(%{{.*}}, %{{.*}}) grid <2, 3, 1>
// GRAPH: block.load %{{.*}} imap <x = 0> : tensor<1000xf32> -> tensor<512xf32>
// GRAPH: block.store %{{.*}} omap <x = 1, y = 0> : tensor<1x512xf32> into tensor<3x1000xf32>
// VERIFY-DAG: remark: @ragged_rows is equivalent to @ragged_rows_ref
func.func @ragged_rows(%x: tensor<3x1000xf32>, %b: tensor<1000xf32>) -> tensor<3x1000xf32> {
  %e = kernel.add %x, %b : tensor<3x1000xf32>, tensor<1000xf32>
  return %e : tensor<3x1000xf32>
}

// k = 197 (P @ V over a ViT's 197 tokens) walked in 4 ragged iterations of
// 64, not 197 of one: the last reads 5 keys and zeros, which add nothing.
// GRAPH-LABEL: func.func @ragged_k
// GRAPH: block.for_loop 4 iterations
// GRAPH: block.load %{{.*}} imap <> fmap 1 : tensor<32x197xf16> -> tensor<32x64xf16>
// GRAPH: block.load %{{.*}} imap <x = 1> fmap 0 : tensor<197x128xf16> -> tensor<64x64xf16>
// VERIFY-DAG: remark: @ragged_k is equivalent to @ragged_k_ref
func.func @ragged_k(%p: tensor<32x197xf16>, %v: tensor<197x128xf16>) -> tensor<32x128xf16> {
  %o = kernel.matmul %p, %v : tensor<32x197xf16>, tensor<197x128xf16>
  return %o : tensor<32x128xf16>
}

// A row sum over 1025 columns in 2 ragged iterations of 1024, not 1025 of
// one; a row maximum stays exact (a zero past the end would join it).
// GRAPH-LABEL: func.func @ragged_row_sum
// GRAPH: block.for_loop 2 iterations
// GRAPH: block.load %{{.*}} fmap 1 : tensor<64x1025xf32> -> tensor<1x1024xf32>
// GRAPH-LABEL: func.func @exact_row_max
// GRAPH: block.for_loop 1025 iterations
// GRAPH: block.load %{{.*}} fmap 1 : tensor<64x1025xf32> -> tensor<1x1xf32>
// VERIFY-DAG: remark: @ragged_row_sum is equivalent to @ragged_row_sum_ref
// VERIFY-DAG: remark: @exact_row_max is equivalent to @exact_row_max_ref
func.func @ragged_row_sum(%x: tensor<64x1025xf32>) -> tensor<64x1xf32> {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x1025xf32>
  return %s : tensor<64x1xf32>
}
func.func @exact_row_max(%x: tensor<64x1025xf32>) -> tensor<64x1xf32> {
  %s = kernel.reduce_max %x dim 1 : tensor<64x1025xf32>
  return %s : tensor<64x1xf32>
}
// VERIFY-NOT: warning
// VERIFY-NOT: error
