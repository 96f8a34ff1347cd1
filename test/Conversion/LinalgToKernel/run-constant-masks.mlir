// REQUIRES: mlir-runner
// Masks that torch-mlir folds into constants (GPT-2's `bias` buffer, a
// static padding mask, an int64 attention_mask known at trace time) or
// builds from loop indices alone (Hugging Face's causal mask tensor) compute
// the same numbers before and after --convert-linalg-to-kernel. A constant
// triangle becomes kernel.triangle_fill, which reads no mask; any other
// constant mask becomes a float constant, which the GPU pipeline copies to
// the device (an i1 or integer constant could not run there).
// RUN: mlsopt-opt %s %lower_to_llvm \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// RUN: mlsopt-opt %s --convert-linalg-to-kernel --mlsopt-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN: | FileCheck %s
// The second run tests the conversion only if the programs were converted.
// RUN: mlsopt-opt %s --convert-linalg-to-kernel | FileCheck %s --check-prefix=KERNEL

#m3 = affine_map<(h, i, j) -> (h, i, j)>
#c3 = affine_map<(h, i, j) -> (i, j)>
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>


// GPT-2: where(bias[:T, :T], w, finfo.min), the buffer true on and below
// the diagonal: the fill goes above it.
// KERNEL-LABEL: func.func @causal_buffer
// KERNEL-NEXT: %[[F:.*]] = kernel.triangle_fill %arg0 dims [1, 2] diagonal 1 value -3.4028234663852886E+38 : tensor<1x4x4xf32>
// KERNEL-NEXT: return %[[F]]
func.func @causal_buffer(%w: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %fmin = arith.constant -3.40282347E+38 : f32
  %bias = arith.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %e = tensor.empty() : tensor<1x4x4xf32>
  %r = linalg.generic {indexing_maps = [#m3, #c3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %bias : tensor<1x4x4xf32>, tensor<4x4xi1>) outs(%e : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %k: i1, %o: f32):
    %y = arith.select %k, %a, %fmin : f32
    linalg.yield %y : f32
  } -> tensor<1x4x4xf32>
  return %r : tensor<1x4x4xf32>
}

// masked_fill(triu(ones, diagonal=2).bool(), -inf): true from two columns
// right of the diagonal on, filled where true.
// KERNEL-LABEL: func.func @upper_buffer
// KERNEL-NEXT: %[[F:.*]] = kernel.triangle_fill %arg0 dims [0, 1] diagonal 2 value 0xFFF0000000000000 : tensor<4x4xf32>
// KERNEL-NEXT: return %[[F]]
func.func @upper_buffer(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %mask = arith.constant dense<[[false, false, true, true], [false, false, false, true], [false, false, false, false], [false, false, false, false]]> : tensor<4x4xi1>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %mask : tensor<4x4xf32>, tensor<4x4xi1>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %k: i1, %o: f32):
    %y = arith.select %k, %ninf, %a : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// A causal mask with one element flipped is no triangle: a float constant.
// KERNEL-LABEL: func.func @not_a_triangle
// KERNEL-NOT: kernel.triangle_fill
// KERNEL-NOT: kernel.where
// KERNEL: arith.constant dense<{{.*}}> : tensor<4x4xf32>
// KERNEL-NOT: kernel.where
// KERNEL: return
func.func @not_a_triangle(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %mask = arith.constant dense<[[false, false, true, true], [false, false, false, true], [false, false, false, false], [true, false, false, false]]> : tensor<4x4xi1>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %mask : tensor<4x4xf32>, tensor<4x4xi1>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %k: i1, %o: f32):
    %y = arith.select %k, %ninf, %a : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// A static padding mask over the columns, torch.where(keep, x, 0).
// KERNEL-LABEL: func.func @padding
// KERNEL-NOT: kernel.where
// KERNEL: arith.constant dense<{{.*}}> : tensor<4xf32>
// KERNEL-NOT: kernel.where
// KERNEL: return
func.func @padding(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %keep = arith.constant dense<[true, true, false, true]> : tensor<4xi1>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %keep : tensor<4x4xf32>, tensor<4xi1>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %k: i1, %o: f32):
    %y = arith.select %k, %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Hugging Face's extended mask of an int64 attention_mask known at trace
// time: x + (1 - mask) * -10000.
// KERNEL-LABEL: func.func @int64_mask
// KERNEL-NOT: kernel.int_to_float
// KERNEL: arith.constant dense<[1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]> : tensor<4xf32>
// KERNEL-NOT: kernel.int_to_float
// KERNEL: return
func.func @int64_mask(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %one = arith.constant 1.0 : f32
  %big = arith.constant -10000.0 : f32
  %m = arith.constant dense<[1, 0, 1, 1]> : tensor<4xi64>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %m : tensor<4x4xf32>, tensor<4xi64>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %k: i64, %o: f32):
    %f = arith.sitofp %k : i64 to f32
    %n = arith.subf %one, %f : f32
    %s = arith.mulf %n, %big : f32
    %y = arith.addf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Hugging Face's causal mask, built as a tensor of its own and added to the
// scores later: triu(full(-inf), diagonal=1) as a select on loop indices
// between two constants. The triangle fills a zero constant.
// KERNEL-LABEL: func.func @mask_tensor
// KERNEL-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x4xf32>
// KERNEL-NEXT: %[[M:.*]] = kernel.triangle_fill %[[Z]] dims [0, 1] diagonal 1 value 0xFFF0000000000000 : tensor<4x4xf32>
// KERNEL-NEXT: kernel.add %arg0, %[[M]]
func.func @mask_tensor(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi sgt, %j, %i : index
    %y = arith.select %future, %ninf, %zero : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %mask : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %y = arith.addf %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<4x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<4x4xf32> to memref<4x4xf32>
  %u = memref.cast %m : memref<4x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 4, 4] : tensor<4x4xf32> into tensor<1x4x4xf32>
  // CHECK: [1, -3.40282e+38, -3.40282e+38, -3.40282e+38]
  // CHECK-NEXT: [5, 6, -3.40282e+38, -3.40282e+38]
  // CHECK-NEXT: [9, 10, 11, -3.40282e+38]
  // CHECK-NEXT: [13, 14, 15, 16]
  %r0 = call @causal_buffer(%x3) : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %r0c = tensor.collapse_shape %r0 [[0, 1], [2]] : tensor<1x4x4xf32> into tensor<4x4xf32>
  call @print(%r0c) : (tensor<4x4xf32>) -> ()
  // CHECK: [1, 2, -inf, -inf]
  // CHECK-NEXT: [5, 6, 7, -inf]
  // CHECK-NEXT: [9, 10, 11, 12]
  // CHECK-NEXT: [13, 14, 15, 16]
  %r1 = call @upper_buffer(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  call @print(%r1) : (tensor<4x4xf32>) -> ()
  // CHECK: [1, 2, -inf, -inf]
  // CHECK-NEXT: [5, 6, 7, -inf]
  // CHECK-NEXT: [9, 10, 11, 12]
  // CHECK-NEXT: [-inf, 14, 15, 16]
  %r2 = call @not_a_triangle(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  call @print(%r2) : (tensor<4x4xf32>) -> ()
  // CHECK: [1, 2, 0, 4]
  // CHECK-NEXT: [5, 6, 0, 8]
  // CHECK-NEXT: [9, 10, 0, 12]
  // CHECK-NEXT: [13, 14, 0, 16]
  %r3 = call @padding(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  call @print(%r3) : (tensor<4x4xf32>) -> ()
  // CHECK: [1, -9998, 3, 4]
  // CHECK-NEXT: [5, -9994, 7, 8]
  // CHECK-NEXT: [9, -9990, 11, 12]
  // CHECK-NEXT: [13, -9986, 15, 16]
  %r4 = call @int64_mask(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  call @print(%r4) : (tensor<4x4xf32>) -> ()
  // CHECK: [1, -inf, -inf, -inf]
  // CHECK-NEXT: [5, 6, -inf, -inf]
  // CHECK-NEXT: [9, 10, 11, -inf]
  // CHECK-NEXT: [13, 14, 15, 16]
  %r5 = call @mask_tensor(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  call @print(%r5) : (tensor<4x4xf32>) -> ()
  return
}
