// REQUIRES: mlir-runner
// A contraction whose payload multiplies more than its two operands (alpha *
// A B written in one generic, an einsum with a scale or a third operand, an
// activation fused into the matmul) computes the same numbers before and
// after --convert-linalg-to-kernel, which multiplies each side's factors
// elementwise (a constant onto the smaller side) and then the two sides (a
// matmul, plus the init). Small integers and power-of-two scales keep every
// sum exact on both sides.
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

// x = [[1, 2, 3]], [4, 5, 6]], w = [[1, 0], [0, 1], [1, 1]]: x w = [[4, 5], [10, 11]].
// 2 x w, on zeros:
// CHECK: {{\[\[}}8,   10],
// CHECK-NEXT: [20,   22]]
// bias + x (0.5 w), bias = [[100, 200], [300, 400]]:
// CHECK: {{\[\[}}102,   202.5],
// CHECK-NEXT: [305,   405.5]]
// x (w w) (each product times w again; w * w = w here):
// CHECK: {{\[\[}}4,   5],
// CHECK-NEXT: [10,   11]]
// x diag(s) w, s = [1, 2, 0.5]: [[1, 4, 1.5], [4, 10, 3]] w.
// CHECK: {{\[\[}}2.5,   5.5],
// CHECK-NEXT: [7,   13]]
// x^2 (w diag(g)), g = [2, 3]: [[1, 4, 9], [16, 25, 36]] [[2, 0], [0, 3], [2, 3]].
// CHECK: {{\[\[}}20,   39],
// CHECK-NEXT: [104,   183]]
// f16 scores of 512 products 16 * 16 scaled by 1/64: 2048. Their sum before
// the scale, 131072, is past f16's 65504: scaling the sum gave inf.
// CHECK: {{\[\[}}2048,   2048],
// CHECK-NEXT: [2048,   2048],
// CHECK-NEXT: [2048,   2048],
// CHECK-NEXT: [2048,   2048]]

// KERNEL-LABEL: func.func @scaled(
// KERNEL-NOT: linalg.
// KERNEL: %[[S:.*]] = kernel.mul_scalar %{{.*}}, 2.000000e+00 : tensor<2x3xf32>
// KERNEL: %[[M:.*]] = kernel.matmul %[[S]]
// KERNEL: return %[[M]]
// KERNEL-LABEL: func.func @scaled_onto_bias(
// KERNEL-SAME: %[[BIAS:[a-zA-Z0-9_]+]]: tensor<2x2xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[S:.*]] = kernel.mul_scalar %{{.*}}, 5.000000e-01
// KERNEL: %[[M:.*]] = kernel.matmul %[[S]]
// KERNEL: %[[A:.*]] = kernel.add %[[BIAS]], %[[M]]
// KERNEL: return %[[A]]
// The weight's factors are one side, squared; the x side is x as it is.
// KERNEL-LABEL: func.func @squared_weight(
// KERNEL-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x2xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[S:.*]] = kernel.square %[[W]] : tensor<3x2xf32>
// KERNEL: %[[M:.*]] = kernel.matmul %[[X]], %[[S]]
// KERNEL: return %[[M]]
// An einsum `ik,kj,k->ij`: s over k scales one side (of equal sizes here,
// w's: the first split found of the cheapest).
// KERNEL-LABEL: func.func @diagonal_scale(
// KERNEL-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x2xf32>, %[[D:[a-zA-Z0-9_]+]]: tensor<3xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[DC:.*]] = tensor.expand_shape %[[D]] {{\[\[}}0, 1]] output_shape [3, 1]
// KERNEL: %[[S:.*]] = kernel.mul %[[W]], %[[DC]] : tensor<3x2xf32>, tensor<3x1xf32>
// KERNEL: %[[M:.*]] = kernel.matmul %[[X]], %[[S]]
// KERNEL: return %[[M]]
// Each side is computed in its operand's layout: w times g over its columns
// needs no transpose.
// KERNEL-LABEL: func.func @both_sides(
// KERNEL-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x2xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<2xf32>)
// KERNEL-NOT: linalg.
// KERNEL-NOT: kernel.transpose
// KERNEL-DAG: %[[SX:.*]] = kernel.square %[[X]] : tensor<2x3xf32>
// KERNEL-DAG: %[[SW:.*]] = kernel.mul %[[W]], %[[G]] : tensor<3x2xf32>, tensor<2xf32>
// KERNEL: %[[M:.*]] = kernel.matmul %[[SX]], %[[SW]]
// KERNEL: return %[[M]]
// A product of factors that each read both sides is no matmul: it stays.
// KERNEL-LABEL: func.func @mixed_factor(
// KERNEL-NOT: kernel.
// KERNEL: linalg.generic
// The scale goes to the smaller operand, the keys here.
// KERNEL-LABEL: func.func @f16_scores(
// KERNEL: %[[S:.*]] = kernel.mul_scalar %{{.*}}, 1.562500e-02 : tensor<512x2xf16>
// KERNEL: kernel.matmul %{{.*}}, %[[S]]
// An infinite scale stays: a * inf is no longer the NaN of (a * 0) * inf.
// KERNEL-LABEL: func.func @infinite_scale(
// KERNEL-NOT: kernel.
// KERNEL: linalg.generic

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#k = affine_map<(i, j, k) -> (k)>
#j = affine_map<(i, j, k) -> (j)>

func.func @scaled(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %m2 = arith.mulf %m, %two : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @scaled_onto_bias(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %bias: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%bias : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %hq = arith.mulf %half, %q : f32
    %m = arith.mulf %p, %hq : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @squared_weight(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %m2 = arith.mulf %m, %q : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @diagonal_scale(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %d: tensor<3xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #k, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w, %d : tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %s: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %m2 = arith.mulf %m, %s : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @both_sides(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %g: tensor<2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #j, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w, %g : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %s: f32, %o: f32):
    %pp = arith.mulf %p, %p : f32
    %qs = arith.mulf %q, %s : f32
    %m = arith.mulf %pp, %qs : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @mixed_factor(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %d: tensor<3xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #k, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w, %d : tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %s: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %t = math.exp %m : f32
    %m2 = arith.mulf %t, %s : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func @f16_scores(%q: tensor<4x512xf16>, %k: tensor<512x2xf16>) -> tensor<4x2xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x2xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x2xf16>) -> tensor<4x2xf16>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x512xf16>, tensor<512x2xf16>) outs(%f : tensor<4x2xf16>) {
  ^bb0(%p: f16, %r: f16, %o: f16):
    %scale = arith.constant 1.562500e-02 : f16
    %m = arith.mulf %p, %r : f16
    %m2 = arith.mulf %scale, %m : f16
    %s = arith.addf %o, %m2 : f16
    linalg.yield %s : f16
  } -> tensor<4x2xf16>
  return %y : tensor<4x2xf16>
}

func.func @infinite_scale(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %m2 = arith.mulf %m, %inf : f32
    %r = arith.addf %o, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<2x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x2xf32> to memref<2x2xf32>
  %u = memref.cast %m : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %bias = arith.constant dense<[[100.0, 200.0], [300.0, 400.0]]> : tensor<2x2xf32>
  %s = call @scaled(%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  call @print(%s) : (tensor<2x2xf32>) -> ()
  %b = call @scaled_onto_bias(%x, %w, %bias) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  call @print(%b) : (tensor<2x2xf32>) -> ()
  %n = call @squared_weight(%x, %w) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  call @print(%n) : (tensor<2x2xf32>) -> ()
  %s3 = arith.constant dense<[1.0, 2.0, 0.5]> : tensor<3xf32>
  %dg = call @diagonal_scale(%x, %w, %s3) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<2x2xf32>
  call @print(%dg) : (tensor<2x2xf32>) -> ()
  %g2 = arith.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %bs = call @both_sides(%x, %w, %g2) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  call @print(%bs) : (tensor<2x2xf32>) -> ()
  %q = arith.constant dense<16.0> : tensor<4x512xf16>
  %k = arith.constant dense<16.0> : tensor<512x2xf16>
  %h = call @f16_scores(%q, %k) : (tensor<4x512xf16>, tensor<512x2xf16>) -> tensor<4x2xf16>
  %e = tensor.empty() : tensor<4x2xf32>
  %hf = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x2xf16>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%v: f16, %o: f32):
    %w32 = arith.extf %v : f16 to f32
    linalg.yield %w32 : f32
  } -> tensor<4x2xf32>
  %hu = tensor.cast %hf : tensor<4x2xf32> to tensor<*xf32>
  %hm = bufferization.to_buffer %hu : tensor<*xf32> to memref<*xf32>
  call @printMemrefF32(%hm) : (memref<*xf32>) -> ()
  return
}
