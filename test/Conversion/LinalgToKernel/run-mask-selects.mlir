// REQUIRES: mlir-runner
// Selects on boolean masks (torch.where, masked_fill, a mask as a number)
// and integer inputs made floats (an int64 attention_mask, uint8), as
// torch-mlir writes them in linalg, compute the same numbers before and
// after --convert-linalg-to-kernel, which reads each mask through
// kernel.where and integers through kernel.int_to_float: both runs must
// print what the CHECK lines say.
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

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// torch.where(m, x, -inf): the additive bias of attention, x + where(m, 0, -inf).
// KERNEL-LABEL: func.func @fill_neg_inf
// KERNEL-NOT: linalg.
// KERNEL: %[[B:.*]] = kernel.where %arg1, 0.000000e+00, 0xFFF0000000000000 : tensor<4xi1> to tensor<4xf32>
// KERNEL-NEXT: kernel.add %arg0, %[[B]] : tensor<2x4xf32>, tensor<4xf32>
// KERNEL-NEXT: return
func.func @fill_neg_inf(%x: tensor<2x4xf32>, %m: tensor<4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i1, %o: f32):
    %c = arith.constant 0xFF800000 : f32
    %y = arith.select %b, %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// x.masked_fill(m, -1e4): a finite fill, max(x + where(m, -inf, 0),
// where(m, -1e4, -inf)), exact for a dropped -inf too (the second call).
// KERNEL-LABEL: func.func @masked_fill
// KERNEL-NOT: linalg.
// KERNEL: %[[B:.*]] = kernel.where %arg1, 0xFFF0000000000000, 0.000000e+00
// KERNEL-NEXT: %[[K:.*]] = kernel.add %arg0, %[[B]]
// KERNEL-NEXT: %[[F:.*]] = kernel.where %arg1, -1.000000e+04, 0xFFF0000000000000
// KERNEL-NEXT: kernel.max %[[K]], %[[F]]
// KERNEL-NEXT: return
func.func @masked_fill(%x: tensor<2x4xf32>, %m: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<2x4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i1, %o: f32):
    %c = arith.constant -1.0e+04 : f32
    %y = arith.select %b, %c, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// torch.where(~m, x, 0): the negation swaps the sides.
// KERNEL-LABEL: func.func @not_mask
// KERNEL-NOT: linalg.
// KERNEL: kernel.where %arg1, 0xFFF0000000000000, 0.000000e+00
// KERNEL: kernel.where %arg1, 0.000000e+00, 0xFFF0000000000000
// KERNEL: kernel.max
// KERNEL-NEXT: return
func.func @not_mask(%x: tensor<2x4xf32>, %m: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<2x4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i1, %o: f32):
    %true = arith.constant true
    %n = arith.xori %b, %true : i1
    %c = arith.constant 0.0 : f32
    %y = arith.select %n, %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// torch.where(m, x, y) of two tensors.
// KERNEL-LABEL: func.func @two_tensors
// KERNEL-NOT: linalg.
// KERNEL-COUNT-2: kernel.where
// KERNEL: kernel.max
// KERNEL-NEXT: return
func.func @two_tensors(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %m: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %m : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %a2: f32, %b: i1, %o: f32):
    %s = arith.select %b, %a, %a2 : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// x * m.float() + m.to(int1 as signed): 1 and -1 where true, 0 where false.
// KERNEL-LABEL: func.func @as_numbers
// KERNEL-NOT: linalg.
// KERNEL-DAG: kernel.where %arg1, 1.000000e+00, 0.000000e+00
// KERNEL-DAG: kernel.where %arg1, -1.000000e+00, 0.000000e+00
// KERNEL: return
func.func @as_numbers(%x: tensor<2x4xf32>, %m: tensor<4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i1, %o: f32):
    %u = arith.uitofp %b : i1 to f32
    %s = arith.sitofp %b : i1 to f32
    %p = arith.mulf %a, %u : f32
    %y = arith.addf %p, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// A select of two constants is where itself.
// KERNEL-LABEL: func.func @constants
// KERNEL-NOT: linalg.
// KERNEL: kernel.where %arg0, 1.500000e+00, -2.000000e+00 : tensor<2x4xi1> to tensor<2x4xf32>
// KERNEL-NEXT: return
func.func @constants(%m: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<2x4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%b: i1, %o: f32):
    %t = arith.constant 1.5 : f32
    %f = arith.constant -2.0 : f32
    %y = arith.select %b, %t, %f : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// Two masks combined (m1 & m2) are not read: the op stays linalg.
// KERNEL-LABEL: func.func @two_masks
// KERNEL: linalg.generic
func.func @two_masks(%x: tensor<2x4xf32>, %m: tensor<2x4xi1>, %n: tensor<2x4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %n : tensor<2x4xf32>, tensor<2x4xi1>, tensor<2x4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i1, %b2: i1, %o: f32):
    %both = arith.andi %b, %b2 : i1
    %c = arith.constant 0.0 : f32
    %y = arith.select %both, %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// Hugging Face's extended mask of an int64 attention_mask:
// x + (1 - mask.to(f32)) * -1e4.
// KERNEL-LABEL: func.func @int64_mask
// KERNEL-NOT: linalg.
// KERNEL: kernel.int_to_float %arg1 : tensor<4xi64> to tensor<4xf32>
// KERNEL: return
func.func @int64_mask(%x: tensor<2x4xf32>, %m: tensor<4xi64>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<4xi64>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i64, %o: f32):
    %one = arith.constant 1.0 : f32
    %min = arith.constant -1.0e+04 : f32
    %f = arith.sitofp %b : i64 to f32
    %inv = arith.subf %one, %f : f32
    %bias = arith.mulf %inv, %min : f32
    %y = arith.addf %a, %bias : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// The bits of a uint8 tensor, read unsigned and signed: x + 1000 u + s.
// KERNEL-LABEL: func.func @uint8_bits
// KERNEL-NOT: linalg.
// KERNEL-DAG: kernel.int_to_float %arg1 unsigned : tensor<4xi8> to tensor<4xf32>
// KERNEL-DAG: kernel.int_to_float %arg1 : tensor<4xi8> to tensor<4xf32>
// KERNEL: return
func.func @uint8_bits(%x: tensor<2x4xf32>, %m: tensor<4xi8>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<4xi8>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i8, %o: f32):
    %k = arith.constant 1.0e+03 : f32
    %u = arith.uitofp %b : i8 to f32
    %s = arith.sitofp %b : i8 to f32
    %t = arith.mulf %u, %k : f32
    %p = arith.addf %a, %t : f32
    %y = arith.addf %p, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// A mask through an integer extension: mask.int().float() is 1, and a
// sign-extended mask read unsigned as an i8 is 255.
// KERNEL-LABEL: func.func @extended
// KERNEL-NOT: linalg.
// KERNEL-DAG: kernel.where %arg1, 1.000000e+00, 0.000000e+00
// KERNEL-DAG: kernel.where %arg1, 2.550000e+02, 0.000000e+00
// KERNEL: return
func.func @extended(%x: tensor<2x4xf32>, %m: tensor<4xi1>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x4xf32>, tensor<4xi1>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: i1, %o: f32):
    %zi = arith.extui %b : i1 to i32
    %si = arith.extsi %b : i1 to i8
    %z = arith.sitofp %zi : i32 to f32
    %s = arith.uitofp %si : i8 to f32
    %p = arith.addf %a, %z : f32
    %y = arith.addf %p, %s : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// Sentence-transformers' mean pooling: the int64 attention_mask unsqueezed,
// expanded to the hidden states and made float, then sum(x * m, 1) /
// clamp(sum(m, 1), 1e-9). The mask is converted before the broadcast and
// its count summed over the tokens only, then read through broadcasting.
// KERNEL-LABEL: func.func @masked_mean
// KERNEL-NOT: linalg.
// KERNEL: %[[M:.*]] = kernel.int_to_float %arg1 : tensor<2x3xi64> to tensor<2x3xf32>
// KERNEL: kernel.reduce_sum %[[M]] dim 1 : tensor<2x3xf32>
// KERNEL: return
#m3 = affine_map<(b, s, d) -> (b, s, d)>
#bs0 = affine_map<(b, s, d) -> (b, s, 0)>
#bd = affine_map<(b, s, d) -> (b, d)>
func.func @masked_mean(%h: tensor<2x3x4xf32>, %mask: tensor<2x3xi64>) -> tensor<2x4xf32> {
  %e = tensor.expand_shape %mask [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xi64> into tensor<2x3x1xi64>
  %i0 = tensor.empty() : tensor<2x3x4xi64>
  %b = linalg.generic {indexing_maps = [#bs0, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<2x3x1xi64>) outs(%i0 : tensor<2x3x4xi64>) {
  ^bb0(%a: i64, %o: i64):
    linalg.yield %a : i64
  } -> tensor<2x3x4xi64>
  %f0 = tensor.empty() : tensor<2x3x4xf32>
  %mf = linalg.generic {indexing_maps = [#m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<2x3x4xi64>) outs(%f0 : tensor<2x3x4xf32>) {
  ^bb0(%a: i64, %o: f32):
    %c = arith.sitofp %a : i64 to f32
    linalg.yield %c : f32
  } -> tensor<2x3x4xf32>
  %p = linalg.generic {indexing_maps = [#m3, #m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h, %mf : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%f0 : tensor<2x3x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %c = arith.mulf %a, %m : f32
    linalg.yield %c : f32
  } -> tensor<2x3x4xf32>
  %z = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<2x4xf32>
  %rz = linalg.fill ins(%z : f32) outs(%r0 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = linalg.generic {indexing_maps = [#m3, #bd], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p : tensor<2x3x4xf32>) outs(%rz : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.addf %a, %o : f32
    linalg.yield %c : f32
  } -> tensor<2x4xf32>
  %n = linalg.generic {indexing_maps = [#m3, #bd], iterator_types = ["parallel", "reduction", "parallel"]} ins(%mf : tensor<2x3x4xf32>) outs(%rz : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.addf %a, %o : f32
    linalg.yield %c : f32
  } -> tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %n : tensor<2x4xf32>, tensor<2x4xf32>) outs(%r0 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %eps = arith.constant 1.0e-9 : f32
    %d = arith.maximumf %c, %eps : f32
    %y = arith.divf %a, %d : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<2x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x4xf32> to memref<2x4xf32>
  %u = memref.cast %m : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, -2.0, 3.0, -4.0], [5.0, -6.0, 7.0, -8.0]]> : tensor<2x4xf32>
  %y = arith.constant dense<[[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]]> : tensor<2x4xf32>
  %m4 = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %m24 = arith.constant dense<[[true, false, false, true], [false, true, true, false]]> : tensor<2x4xi1>
  %n24 = arith.constant dense<[[true, true, false, false], [true, true, false, false]]> : tensor<2x4xi1>

  // CHECK: [1, -inf, 3, -inf]
  // CHECK-NEXT: [5, -inf, 7, -inf]
  %r0 = call @fill_neg_inf(%x, %m4) : (tensor<2x4xf32>, tensor<4xi1>) -> tensor<2x4xf32>
  call @print(%r0) : (tensor<2x4xf32>) -> ()
  // CHECK: [-10000, -2, 3, -10000]
  // CHECK-NEXT: [5, -10000, -10000, -8]
  %r1 = call @masked_fill(%x, %m24) : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  call @print(%r1) : (tensor<2x4xf32>) -> ()
  // Scores a causal mask filled with -inf, filled again: -1e4 where
  // dropped, -inf kept.
  %xinf = arith.constant dense<[[0xFF800000, -2.0, 3.0, 0xFF800000], [0xFF800000, -6.0, 7.0, -8.0]]> : tensor<2x4xf32>
  // CHECK: [-10000, -2, 3, -10000]
  // CHECK-NEXT: [-inf, -10000, -10000, -8]
  %r1i = call @masked_fill(%xinf, %m24) : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  call @print(%r1i) : (tensor<2x4xf32>) -> ()
  // CHECK: [0, -2, 3, {{-?}}0]
  // CHECK-NEXT: [5, {{-?}}0, {{-?}}0, -8]
  %r2 = call @not_mask(%x, %m24) : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  call @print(%r2) : (tensor<2x4xf32>) -> ()
  // CHECK: [1, 20, 30, -4]
  // CHECK-NEXT: [50, -6, 7, 80]
  %r3 = call @two_tensors(%x, %y, %m24) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  call @print(%r3) : (tensor<2x4xf32>) -> ()
  // CHECK: [0, {{-?}}0, 2, {{-?}}0]
  // CHECK-NEXT: [4, {{-?}}0, 6, {{-?}}0]
  %r4 = call @as_numbers(%x, %m4) : (tensor<2x4xf32>, tensor<4xi1>) -> tensor<2x4xf32>
  call @print(%r4) : (tensor<2x4xf32>) -> ()
  // CHECK: [1.5, -2, -2, 1.5]
  // CHECK-NEXT: [-2, 1.5, 1.5, -2]
  %r5 = call @constants(%m24) : (tensor<2x4xi1>) -> tensor<2x4xf32>
  call @print(%r5) : (tensor<2x4xf32>) -> ()
  // CHECK: [1, 0, 0, 0]
  // CHECK-NEXT: [0, -6, 0, 0]
  %r6 = call @two_masks(%x, %m24, %n24) : (tensor<2x4xf32>, tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xf32>
  call @print(%r6) : (tensor<2x4xf32>) -> ()
  %i64 = arith.constant dense<[1, 0, 1, 0]> : tensor<4xi64>
  // CHECK: [1, -10002, 3, -10004]
  // CHECK-NEXT: [5, -10006, 7, -10008]
  %r7 = call @int64_mask(%x, %i64) : (tensor<2x4xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  call @print(%r7) : (tensor<2x4xf32>) -> ()
  %u8 = arith.constant dense<[-56, 1, 0, -1]> : tensor<4xi8>
  // CHECK: [199945, 999, 3, 254995]
  // CHECK-NEXT: [199949, 995, 7, 254991]
  %r8 = call @uint8_bits(%x, %u8) : (tensor<2x4xf32>, tensor<4xi8>) -> tensor<2x4xf32>
  call @print(%r8) : (tensor<2x4xf32>) -> ()
  // CHECK: [257, -2, 259, -4]
  // CHECK-NEXT: [261, -6, 263, -8]
  %r9 = call @extended(%x, %m4) : (tensor<2x4xf32>, tensor<4xi1>) -> tensor<2x4xf32>
  call @print(%r9) : (tensor<2x4xf32>) -> ()
  %h = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]], [[-1.0, -2.0, -3.0, -4.0], [2.0, 4.0, 6.0, 8.0], [10.0, 20.0, 30.0, 40.0]]]> : tensor<2x3x4xf32>
  %tokens = arith.constant dense<[[1, 0, 1], [0, 1, 1]]> : tensor<2x3xi64>
  // CHECK: [5, 6, 7, 8]
  // CHECK-NEXT: [6, 12, 18, 24]
  %r10 = call @masked_mean(%h, %tokens) : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<2x4xf32>
  call @print(%r10) : (tensor<2x4xf32>) -> ()
  %none = arith.constant dense<[[0, 0, 0], [1, 1, 1]]> : tensor<2x3xi64>
  // CHECK: [0, 0, 0, 0]
  // CHECK-NEXT: [3.66667, 7.33333, 11, 14.6667]
  %r11 = call @masked_mean(%h, %none) : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<2x4xf32>
  call @print(%r11) : (tensor<2x4xf32>) -> ()
  return
}
