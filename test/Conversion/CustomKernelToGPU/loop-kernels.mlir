// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 --split-input-file 2>/dev/null | FileCheck %s
// RUN: mlsopt-opt %s --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 2>/dev/null | mlsopt-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 2>/dev/null | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// A linalg op the import leaves runs as a loop kernel: one thread per
// element of its first result, the reduction loops in order inside it, the
// payload applied as linalg defines it. Before, it kept the whole function
// off the GPU.

// Greedy decoding's argmax after the logits: two results, carried through
// the loop over the vocabulary; the fills of -inf and 0 are the values the
// loop starts from (no buffer, no launch); an index of the loop is the
// candidate. The unread maximum is freed after the launch. (A reduction of
// 512 or more into few elements is split in two loop kernels:
// run-split-reductions-on-host.mlir.)
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: memref<4x500xf32>, %[[R:.*]]: memref<4xi64> {mlsopt.result_index = 0 : i64})
// CHECK: %[[L:.*]] = gpu.alloc () : memref<4x500xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@argmax_kernel0 {{.*}} args(%[[X]] : memref<4x500xf32>, %[[L]] : memref<4x500xf32>)
// CHECK: %[[M:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@argmax_kernel1 blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) {{.*}} args(%[[L]] : memref<4x500xf32>, %[[M]] : memref<4xf32>, %[[R]] : memref<4xi64>)
// CHECK: gpu.dealloc %[[L]]
// CHECK: gpu.dealloc %[[M]]
// CHECK: gpu.func @argmax_kernel1(%[[LA:.*]]: memref<4x500xf32>, %[[MA:.*]]: memref<4xf32>, %[[RA:.*]]: memref<4xi64>) kernel
// CHECK: scf.if
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %c500 step %{{.*}} iter_args(%[[MAX:.*]] = %[[NINF]], %[[ARG:.*]] = %[[ZERO]]) -> (f32, i64)
// CHECK: %[[V:.*]] = memref.load %[[LA]][%{{.*}}, %[[J]]]
// CHECK: %[[I:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK: arith.cmpf ogt, %[[V]], %[[MAX]]
// CHECK: scf.yield
// CHECK: memref.store %[[LOOP]]#0, %[[MA]]
// CHECK: memref.store %[[LOOP]]#1, %[[RA]]
// REMARK: remark: 'linalg.generic' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: has more than one result
// PTX-LABEL: .visible .entry argmax_kernel1(
// PTX: setp.gt.f32
// PTX: selp.b64
func.func @argmax(%x: tensor<4x500xf32>) -> tensor<4xi64> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %logits = kernel.exp %x : tensor<4x500xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<4x500xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_1: i64):
    %idx = linalg.index 1 : index
    %ii = arith.index_cast %idx : index to i64
    %max = arith.maximumf %in, %out : f32
    %cmp = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %cmp, %ii, %out_1 : i64
    linalg.yield %max, %sel : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}

// -----

// An embedding's gather (torch-mlir's aten.embedding): each thread reads
// its token's id and extracts from the table, which the kernel takes as an
// argument after its input; the rows then feed a kernel op.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[IDS:.*]]: memref<2x8xi64>, %[[T:.*]]: memref<100x64xf32>, %[[R:.*]]: memref<2x8x64xf32> {mlsopt.result_index = 0 : i64})
// CHECK: %[[G:.*]] = gpu.alloc () : memref<2x8x64xf32>
// CHECK: gpu.launch_func @mlsopt_kernels::@embedding_kernel0 blocks in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}}) {{.*}} args(%[[IDS]] : memref<2x8xi64>, %[[T]] : memref<100x64xf32>, %[[G]] : memref<2x8x64xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@embedding_kernel1 {{.*}} args(%[[G]] : memref<2x8x64xf32>, %[[R]] : memref<2x8x64xf32>)
// CHECK: gpu.func @embedding_kernel0(%[[IA:.*]]: memref<2x8xi64>, %[[TA:.*]]: memref<100x64xf32>, %[[GA:.*]]: memref<2x8x64xf32>) kernel
// CHECK-NOT: scf.for
// CHECK: %[[ID:.*]] = memref.load %[[IA]][%[[B:.*]], %[[S:.*]]] : memref<2x8xi64>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[V:.*]] = memref.load %[[TA]][%[[ROW]], %[[D:.*]]] : memref<100x64xf32>
// CHECK: memref.store %[[V]], %[[GA]][%[[B]], %[[S]], %[[D]]]
// REMARK: remark: 'linalg.generic' runs as a loop kernel
func.func @embedding(%ids: tensor<2x8xi64>, %table: tensor<100x64xf32>) -> tensor<2x8x64xf32> {
  %e = tensor.empty() : tensor<2x8x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, s, d) -> (b, s)>, affine_map<(b, s, d) -> (b, s, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<2x8xi64>) outs(%e : tensor<2x8x64xf32>) {
  ^bb0(%in: i64, %out: f32):
    %c = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %v = tensor.extract %table[%c, %j] : tensor<100x64xf32>
    linalg.yield %v : f32
  } -> tensor<2x8x64xf32>
  %s = kernel.silu %g : tensor<2x8x64xf32>
  return %s : tensor<2x8x64xf32>
}

// -----

// A result indexed by its loops transposed, and an input read through an
// affine expression (a 1-D convolution, which is no kernel op): the thread
// of result element [o, c] is that of loops (c, o); the input index is
// computed from the loop indices.
// CHECK-LABEL: func.func @conv_transposed
// CHECK: gpu.func @conv_transposed_kernel1(%[[IN:.*]]: memref<4x34xf32>, %[[W:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<32x4xf32>) kernel
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[O:.*]] = arith.remui %{{.*}}, %[[C32]]
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[K]] : index
// CHECK: memref.load %[[IN]][%{{.*}}, %[[AT]]]
// CHECK: memref.load %[[W]][%[[K]]]
// REMARK: remark: 'linalg.generic' runs as a loop kernel
func.func @conv_transposed(%x: tensor<4x34xf32>, %w: tensor<3xf32>) -> tensor<32x4xf32> {
  %zero = arith.constant 0.0 : f32
  %y = kernel.neg %x : tensor<4x34xf32>
  %e = tensor.empty() : tensor<32x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x4xf32>) -> tensor<32x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(c, o, k) -> (c, o + k)>, affine_map<(c, o, k) -> (k)>, affine_map<(c, o, k) -> (o, c)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y, %w : tensor<4x34xf32>, tensor<3xf32>) outs(%z : tensor<32x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x4xf32>
  return %r : tensor<32x4xf32>
}

// -----

// math.atan, which has no kernel op; and an in-place update that reads its
// init, a function argument, as the value it starts from.
// CHECK-LABEL: func.func @atan_and_update
// CHECK: gpu.func @atan_and_update_kernel1(%[[A:.*]]: memref<8x64xf32>, %[[O:.*]]: memref<8x64xf32>) kernel
// CHECK: math.atan
// CHECK: gpu.func @atan_and_update_kernel2(%[[X:.*]]: memref<8x64xf32>, %[[ACC:.*]]: memref<8x64xf32>, %[[R:.*]]: memref<8x64xf32>) kernel
// CHECK: %[[OLD:.*]] = memref.load %[[ACC]]
// CHECK: %[[NEW:.*]] = memref.load %[[X]]
// CHECK: arith.addf %[[NEW]], %[[OLD]]
// REMARK: remark: 'linalg.generic' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: payload op 'math.atan' has no kernel op
// REMARK: remark: 'linalg.generic' runs as a loop kernel
func.func @atan_and_update(%a: tensor<8x64xf32>, %acc: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.atan %v : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%acc : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.addf %v, %o : f32
    %z = math.atan %y : f32
    linalg.yield %z : f32
  } -> tensor<8x64xf32>
  return %s, %u : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A module the import took nothing from: its function of linalg ops runs
// as loop kernels (an f64 exp, which the kernel dialect does not compute).
// CHECK-LABEL: func.func @only_linalg
// CHECK-SAME: (%{{.*}}: memref<8x64xf64>, %{{.*}}: memref<8x64xf64> {mlsopt.result_index = 0 : i64})
// CHECK: gpu.launch_func @mlsopt_kernels::@only_linalg_kernel0
// CHECK: math.exp %{{.*}} : f64
// REMARK: remark: 'linalg.exp' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: element type is not one of f16, bf16, f32
func.func @only_linalg(%x: tensor<8x64xf64>) -> tensor<8x64xf64> {
  %e = tensor.empty() : tensor<8x64xf64>
  %r = linalg.exp ins(%x : tensor<8x64xf64>) outs(%e : tensor<8x64xf64>) -> tensor<8x64xf64>
  return %r : tensor<8x64xf64>
}

// -----

// A payload that extracts at an index defined above it (the first token's
// row), and a loop kernel that writes an i1 mask (a byte per element) for
// a kernel op to read, and that the function returns too.
// CHECK-LABEL: func.func @first_row_mask
// CHECK: gpu.launch_func @mlsopt_kernels::@first_row_mask_kernel0 {{.*}} args(%{{.*}} : memref<16x64xf32>, %[[M:.*]] : memref<64xi1>)
// CHECK: gpu.launch_func @mlsopt_kernels::@first_row_mask_kernel1 {{.*}} args(%[[M]] : memref<64xi1>,
// CHECK: gpu.func @first_row_mask_kernel0(%[[X:.*]]: memref<16x64xf32>, %[[MA:.*]]: memref<64xi1>) kernel
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[C0]], %{{.*}}] : memref<16x64xf32>
// CHECK: %[[B:.*]] = arith.cmpf ogt, %[[V]]
// CHECK: memref.store %[[B]], %[[MA]]
func.func @first_row_mask(%x: tensor<16x64xf32>, %a: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xi1>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
      outs(%e : tensor<64xi1>) {
  ^bb0(%o: i1):
    %j = linalg.index 0 : index
    %v = tensor.extract %x[%c0, %j] : tensor<16x64xf32>
    %b = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %b : i1
  } -> tensor<64xi1>
  %s = kernel.where %m, 1.0, -1.0 : tensor<64xi1> to tensor<64xf32>
  %w = kernel.mul %a, %s : tensor<64xf32>, tensor<64xf32>
  return %w, %m : tensor<64xf32>, tensor<64xi1>
}

// -----

// The same mask read by the kernel op alone: the custom kernel of the
// where computes it where it copies its tile, extracting from the first
// row itself, and the mask's loop kernel is gone (isComputedWhereRead).
// CHECK-LABEL: func.func @first_row_mask_computed
// CHECK-NOT: memref<64xi1>
// CHECK: gpu.launch_func @mlsopt_kernels::@first_row_mask_computed_kernel0 {{.*}} args(%arg0 : memref<16x64xf32>, %[[S:.*]] : memref<64xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@first_row_mask_computed_kernel1 {{.*}} args(%arg1 : memref<64xf32>, %[[S]] : memref<64xf32>, %arg2 : memref<64xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @first_row_mask_computed_kernel0(%[[X:.*]]: memref<16x64xf32>, %{{.*}}: memref<64xf32>) kernel
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}] : memref<16x64xf32>
// CHECK: %[[B:.*]] = arith.cmpf ogt, %[[V]]
// CHECK: memref.store %[[B]], %{{.*}} : memref<{{.*}}xi1, #gpu.address_space<workgroup>>
// REMARK: remark: 'linalg.generic' is computed where the custom kernels that read it load its elements, with no launch of its own
func.func @first_row_mask_computed(%x: tensor<16x64xf32>, %a: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
      outs(%e : tensor<64xi1>) {
  ^bb0(%o: i1):
    %j = linalg.index 0 : index
    %v = tensor.extract %x[%c0, %j] : tensor<16x64xf32>
    %b = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %b : i1
  } -> tensor<64xi1>
  %s = kernel.where %m, 1.0, -1.0 : tensor<64xi1> to tensor<64xf32>
  %w = kernel.mul %a, %s : tensor<64xf32>, tensor<64xf32>
  return %w : tensor<64xf32>
}

// -----

// A fill of a constant read as an input (torch.ones_like under atan2) is
// that constant in the payload, and no launch; a result the payload yields
// from a constant above it is that constant; math.trunc (torch-mlir's
// div(rounding_mode='trunc')) and math.ctpop, which libdevice does not
// provide, lower to the instructions NVPTX has for them.
// CHECK-LABEL: func.func @constants_and_intrinsics
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @constants_and_intrinsics_kernel1(%[[X:.*]]: memref<8x16xf32>, %[[N:.*]]: memref<8x16xi32>, %[[A:.*]]: memref<8x16xf32>, %[[T:.*]]: memref<8x16xf32>, %[[P:.*]]: memref<8x16xi32>, %[[S:.*]]: memref<8x16xi64>) kernel
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: math.atan2 %{{.*}}, %[[ONE]]
// CHECK: %[[SEVEN:.*]] = arith.constant 7 : i64
// CHECK: memref.store %[[SEVEN]], %[[S]]
// PTX-LABEL: .visible .entry constants_and_intrinsics_kernel1(
// PTX: cvt.rzi.f32.f32
// PTX: popc.b32
func.func @constants_and_intrinsics(%x: tensor<8x16xf32>, %n: tensor<8x16xi32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xi32>, tensor<8x16xi64>) {
  %one = arith.constant 1.0 : f32
  %seven = arith.constant 7 : i64
  %e = tensor.empty() : tensor<8x16xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %nx = kernel.neg %x : tensor<8x16xf32>
  %ei = tensor.empty() : tensor<8x16xi32>
  %el = tensor.empty() : tensor<8x16xi64>
  %r:4 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%nx, %ones, %n : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xi32>) outs(%e, %e, %ei, %el : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xi32>, tensor<8x16xi64>) {
  ^bb0(%a: f32, %b: f32, %i: i32, %o0: f32, %o1: f32, %o2: i32, %o3: i64):
    %y = math.atan2 %a, %b : f32
    %t = math.trunc %a : f32
    %p = math.ctpop %i : i32
    linalg.yield %y, %t, %p, %seven : f32, f32, i32, i64
  } -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xi32>, tensor<8x16xi64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xi32>, tensor<8x16xi64>
}

// -----

// A fill of a constant that a copy kernel reads (a broadcast of ones_like)
// has a buffer: it is a loop kernel of its own, not folded.
// CHECK-LABEL: func.func @broadcast_of_fill
// CHECK: gpu.launch_func @mlsopt_kernels::@broadcast_of_fill_kernel0 {{.*}} args(%[[ONES:.*]] : memref<4x8xf32>)
// CHECK: gpu.launch_func @mlsopt_kernels::@broadcast_of_fill_kernel1 {{.*}} args(%[[ONES]] : memref<4x8xf32>, %{{.*}} : memref<2x4x8xf32>)
// CHECK: gpu.func @broadcast_of_fill_kernel0(%[[O:.*]]: memref<4x8xf32>) kernel
// CHECK: %[[C:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: memref.store %[[C]], %[[O]]
// REMARK: remark: 'linalg.fill' runs as a loop kernel
func.func @broadcast_of_fill(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %b = linalg.broadcast ins(%ones : tensor<4x8xf32>) outs(%e2 : tensor<2x4x8xf32>) dimensions = [0]
  %y = kernel.exp %x : tensor<4x8xf32>
  return %y, %b : tensor<4x8xf32>, tensor<2x4x8xf32>
}
