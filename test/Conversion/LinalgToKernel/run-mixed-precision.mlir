// REQUIRES: mlir-runner
// Mixed-precision linalg, as front ends write it, computes the same numbers
// before and after --convert-linalg-to-kernel: the casts become
// kernel.convert ops, exactly where the front end rounds, and everything
// else ops of one element type.
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel="narrow-softmax=false" --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel="narrow-softmax=false" --superoptimize=timeout=10 --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// The third run computes the softmax as one searched kernel whose loads and
// stores convert (FuseConversions.cpp), on the CPU as loops.
// The second run tests the conversion only if the programs were converted.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel="narrow-softmax=false" | FileCheck %s --check-prefix=KERNEL
// By default the import computes the softmax on the f16 values
// (NarrowSoftmax.cpp): two probabilities move by one unit in the last place
// of f16 (0.645996 -> 0.645508, 0.0430603 -> 0.0430908), the rest is equal.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s --check-prefix=NARROW
// NARROW: [0.144043,   0.0250397,   0.645508,   0.185059],
// NARROW-NEXT: [0.763672,   0.17041,   0.023056,   0.0430908]]
// NARROW: [0.59375,   -0.742188,   -3.17188,   0.667969],

// Softmax of each row (f16), the bf16 RMSNorm times its gain, the f16
// matmul plus bias, and the same batched by a broadcast weight, all printed
// in f32.
// CHECK: [0.144043,   0.0250397,   0.645996,   0.185059],
// CHECK-NEXT: [0.763672,   0.17041,   0.023056,   0.0430603]]
// CHECK: [0.59375,   -0.742188,   -3.17188,   0.667969],
// CHECK-NEXT: [2.65625,   0.664062,   0.589844,   0.0830078]]
// CHECK: [-0.399902,   3.48828,   0.706055],
// CHECK-NEXT: [3.84961,   2.48828,   -3.55859]]
// The batched matmul: its first batch is the 2-D matmul's input again.
// CHECK: [-0.399902,   3.48828,   0.706055],
// CHECK-NEXT: [3.84961,   2.48828,   -3.55859]]
// CHECK: [3.47461,   -5.51172,   2.36328],
// CHECK-NEXT: [-1.30664,   5.11328,   -1.3877]]

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>

// torch-mlir's f16 softmax: extended to f32, computed there, truncated.
// KERNEL-LABEL: func.func @softmax_f16
// KERNEL-NOT: linalg.
// KERNEL: kernel.convert %{{.*}} : tensor<2x4xf16> to tensor<2x4xf32>
// KERNEL: kernel.reduce_max
// KERNEL: kernel.div
// KERNEL-NEXT: kernel.convert %{{.*}} : tensor<2x4xf32> to tensor<2x4xf16>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @softmax_f16(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4xf32>
  %xf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x4xf16>) outs(%e0 : tensor<2x4xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    linalg.yield %w : f32
  } -> tensor<2x4xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.reduce ins(%xf : tensor<2x4xf32>) outs(%m0 : tensor<2xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xf, %m : tensor<2x4xf32>, tensor<2xf32>) outs(%e0 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.reduce ins(%ex : tensor<2x4xf32>) outs(%s0 : tensor<2xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %e2 = tensor.empty() : tensor<2x4xf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<2x4xf32>, tensor<2xf32>) outs(%e2 : tensor<2x4xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %q = arith.divf %a, %b : f32
    %t = arith.truncf %q : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// LLaMA's bf16 RMSNorm: the norm in f32, rounded to bf16 in the middle of
// the payload, then the bf16 gain.
// KERNEL-LABEL: func.func @rmsnorm_bf16
// KERNEL-NOT: linalg.
// KERNEL: kernel.rsqrt
// KERNEL: %[[N:.*]] = kernel.mul {{.*}} : tensor<2x4xf32>, tensor<2x1xf32>
// KERNEL-NEXT: %[[R:.*]] = kernel.convert %[[N]] : tensor<2x4xf32> to tensor<2x4xbf16>
// KERNEL-NEXT: kernel.mul %[[R]], %{{.*}} : tensor<2x4xbf16>, tensor<4xbf16>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @rmsnorm_bf16(%x: tensor<2x4xbf16>, %g: tensor<4xbf16>) -> tensor<2x4xbf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4xf32>
  %xf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x4xbf16>) outs(%e0 : tensor<2x4xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<2x4xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xf : tensor<2x4xf32>) outs(%z : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %acc, %sq : f32
    linalg.yield %t : f32
  } -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2x4xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xf, %ss, %g : tensor<2x4xf32>, tensor<2xf32>, tensor<4xbf16>) outs(%e2 : tensor<2x4xbf16>) {
  ^bb0(%a: f32, %s: f32, %w: bf16, %o: bf16):
    %inv = arith.constant 2.500000e-01 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.mulf %s, %inv : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %n = arith.mulf %a, %r : f32
    %nb = arith.truncf %n : f32 to bf16
    %out = arith.mulf %nb, %w : bf16
    linalg.yield %out : bf16
  } -> tensor<2x4xbf16>
  return %y : tensor<2x4xbf16>
}

// IREE's mixed-precision matmul: f16 operands accumulated into an f32
// result, a bias added in f32, the sum truncated to f16.
// KERNEL-LABEL: func.func @matmul_f16_f32
// KERNEL-NOT: linalg.
// KERNEL-DAG: %[[A:.*]] = kernel.convert %{{.*}} : tensor<2x4xf16> to tensor<2x4xf32>
// KERNEL-DAG: %[[B:.*]] = kernel.convert %{{.*}} : tensor<4x3xf16> to tensor<4x3xf32>
// KERNEL: kernel.matmul %[[A]], %[[B]] : tensor<2x4xf32>, tensor<4x3xf32>
// KERNEL: kernel.add
// KERNEL-NEXT: kernel.convert %{{.*}} : tensor<2x3xf32> to tensor<2x3xf16>
// KERNEL-NOT: linalg.
// KERNEL: return
func.func @matmul_f16_f32(%a: tensor<2x4xf16>, %b: tensor<4x3xf16>, %bias: tensor<3xf32>) -> tensor<2x3xf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x4xf16>, tensor<4x3xf16>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e1 = tensor.empty() : tensor<2x3xf16>
  %o = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<2x3xf32>, tensor<3xf32>) outs(%e1 : tensor<2x3xf16>) {
  ^bb0(%x: f32, %y: f32, %o: f16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x3xf16>
  return %o : tensor<2x3xf16>
}

// torch.matmul of an f16 batch by an f16 weight into f32 (the weight
// broadcast over the batch), an f32 bias, then truncated: one matmul of the
// flattened rows, with the bias added and the result converted before the
// rows are split again, and the batch's conversion after its flattening, so
// that the search gets the matmul, the bias and both conversions together.
// KERNEL-LABEL: func.func @batch_matmul_bias
// KERNEL-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x2x4xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x3xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf32>)
// KERNEL-NOT: linalg.
// KERNEL-DAG: %[[WW:.*]] = kernel.convert %[[W]] : tensor<4x3xf16> to tensor<4x3xf32>
// KERNEL-DAG: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x2x4xf16> into tensor<4x4xf16>
// KERNEL-DAG: %[[RW:.*]] = kernel.convert %[[R]] : tensor<4x4xf16> to tensor<4x4xf32>
// KERNEL: %[[M:.*]] = kernel.matmul %[[RW]], %[[WW]] : tensor<4x4xf32>, tensor<4x3xf32>
// KERNEL-NEXT: %[[S:.*]] = kernel.add %[[M]], %[[B]] : tensor<4x3xf32>, tensor<3xf32>
// KERNEL-NEXT: %[[N:.*]] = kernel.convert %[[S]] : tensor<4x3xf32> to tensor<4x3xf16>
// KERNEL-NEXT: %[[O:.*]] = tensor.expand_shape %[[N]] {{\[}}[0, 1], [2]]
// KERNEL-NEXT: return %[[O]]
func.func @batch_matmul_bias(%x: tensor<2x2x4xf16>, %w: tensor<4x3xf16>, %bias: tensor<3xf32>) -> tensor<2x2x3xf16> {
  %zero = arith.constant 0.0 : f32
  %ew = tensor.empty() : tensor<2x4x3xf16>
  %wb = linalg.broadcast ins(%w : tensor<4x3xf16>) outs(%ew : tensor<2x4x3xf16>) dimensions = [0]
  %e = tensor.empty() : tensor<2x2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %m = linalg.batch_matmul ins(%x, %wb : tensor<2x2x4xf16>, tensor<2x4x3xf16>) outs(%z : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %bb = linalg.broadcast ins(%bias : tensor<3xf32>) outs(%e : tensor<2x2x3xf32>) dimensions = [0, 1]
  %s = linalg.add ins(%m, %bb : tensor<2x2x3xf32>, tensor<2x2x3xf32>) outs(%e : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %eh = tensor.empty() : tensor<2x2x3xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x2x3xf32>) outs(%eh : tensor<2x2x3xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<2x2x3xf16>
  return %t : tensor<2x2x3xf16>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

// Prints a 16-bit result in f32 (exactly).
func.func @print_f16(%t: tensor<2x4xf16>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<2x4xf16>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    linalg.yield %w : f32
  } -> tensor<2x4xf32>
  %m = bufferization.to_buffer %f : tensor<2x4xf32> to memref<2x4xf32>
  %u = memref.cast %m : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print_bf16(%t: tensor<2x4xbf16>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<2x4xbf16>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<2x4xf32>
  %m = bufferization.to_buffer %f : tensor<2x4xf32> to memref<2x4xf32>
  %u = memref.cast %m : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print_2x3_f16(%t: tensor<2x3xf16>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<2x3xf16>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    linalg.yield %w : f32
  } -> tensor<2x3xf32>
  %m = bufferization.to_buffer %f : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[0.5, -1.25, 2.0, 0.75], [3.0, 1.5, -0.5, 0.125]]> : tensor<2x4xf16>
  %sm = call @softmax_f16(%x) : (tensor<2x4xf16>) -> tensor<2x4xf16>
  call @print_f16(%sm) : (tensor<2x4xf16>) -> ()

  %xb = arith.constant dense<[[0.5, -1.25, 2.0, 0.75], [3.0, 1.5, -0.5, 0.125]]> : tensor<2x4xbf16>
  %g = arith.constant dense<[1.5, 0.75, -2.0, 1.125]> : tensor<4xbf16>
  %rn = call @rmsnorm_bf16(%xb, %g) : (tensor<2x4xbf16>, tensor<4xbf16>) -> tensor<2x4xbf16>
  call @print_bf16(%rn) : (tensor<2x4xbf16>) -> ()

  %b = arith.constant dense<[[0.5, 1.0, -1.5], [2.0, -0.25, 0.75], [1.25, 0.5, 1.0], [-1.0, 2.5, 0.125]]> : tensor<4x3xf16>
  %bias = arith.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %mm = call @matmul_f16_f32(%x, %b, %bias) : (tensor<2x4xf16>, tensor<4x3xf16>, tensor<3xf32>) -> tensor<2x3xf16>
  call @print_2x3_f16(%mm) : (tensor<2x3xf16>) -> ()

  %bx = arith.constant dense<[[[0.5, -1.25, 2.0, 0.75], [3.0, 1.5, -0.5, 0.125]], [[-0.75, 0.25, 1.0, -2.0], [1.25, -0.5, 0.375, 1.5]]]> : tensor<2x2x4xf16>
  %bw = arith.constant dense<[[0.5, 1.0, -1.5], [2.0, -0.25, 0.75], [1.25, 0.5, 1.0], [-1.0, 2.5, 0.125]]> : tensor<4x3xf16>
  %bm = call @batch_matmul_bias(%bx, %bw, %bias) : (tensor<2x2x4xf16>, tensor<4x3xf16>, tensor<3xf32>) -> tensor<2x2x3xf16>
  %bm2 = tensor.collapse_shape %bm [[0, 1], [2]] : tensor<2x2x3xf16> into tensor<4x3xf16>
  %bm3 = tensor.extract_slice %bm2[0, 0] [2, 3] [1, 1] : tensor<4x3xf16> to tensor<2x3xf16>
  %bm4 = tensor.extract_slice %bm2[2, 0] [2, 3] [1, 1] : tensor<4x3xf16> to tensor<2x3xf16>
  call @print_2x3_f16(%bm3) : (tensor<2x3xf16>) -> ()
  call @print_2x3_f16(%bm4) : (tensor<2x3xf16>) -> ()
  return
}
