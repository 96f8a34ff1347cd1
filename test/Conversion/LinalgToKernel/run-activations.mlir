// REQUIRES: mlir-runner
// torch's softplus, Mish, ELU (with exp - 1 or expm1), SELU and log1p, as
// torch-mlir writes them in linalg (a select on the threshold or on the
// sign), compute the same numbers before and after
// --convert-linalg-to-kernel: on both sides of softplus's threshold (20, and
// 10 for beta = 2), past exp's f32 overflow (100), and on both sides of
// ELU's 0. Far below zero softplus is
// log1p(exp(x)), as tiny as exp(x) (libm's log1pf: upstream's LLVM lowering
// computed log(1 + x) and printed 0, and 2.27089e-05 at beta = 2 and -5).
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

// Inputs: -30 -5 -1 -0.5 0 0.5 1 5 9.5 10.5 19.5 20.5 30 100.
// softplus:
// CHECK: {{\[\[}}9.35762e-14,   0.00671535,   0.313262,   0.474077,   0.693147,   0.974077,   1.31326,   5.00672,   9.50007,   10.5,   19.5,   20.5,   30,   100{{\]\]}}
// softplus, beta = 2:
// CHECK: {{\[\[}}4.37826e-27,   2.26995e-05,   0.063464,   0.156631,   0.346574,   0.656631,   1.06346,   5.00002,   9.5,   10.5,   19.5,   20.5,   30,   100{{\]\]}}
// Mish:
// CHECK: {{\[\[}}-2.80729e-12,   -0.0335762,   -0.303401,   -0.220744,   0,   0.375245,   0.865098,   4.99955,   9.5,   10.5,   19.5,   20.5,   30,   100{{\]\]}}
// ELU:
// CHECK: {{\[\[}}-1,   -0.993262,   -0.632121,   -0.393469,   0,   0.5,   1,   5,   9.5,   10.5,   19.5,   20.5,   30,   100{{\]\]}}
// ELU, alpha = 1.5:
// CHECK: {{\[\[}}-1.5,   -1.48989,   -0.948181,   -0.590204,   0,   0.5,   1,   5,   9.5,   10.5,   19.5,   20.5,   30,   100{{\]\]}}
// log1p(|x| / 10):
// CHECK: {{\[\[}}1.38629,   0.405465,   0.0953102,   0.0487902,   0,   0.0487902,   0.0953102,   0.405465,   0.667829,   0.71784,   1.08181,   1.11514,   1.38629,   2.3979{{\]\]}}
// SELU:
// CHECK: {{\[\[}}-1.7581,   -1.74625,   -1.11133,   -0.691758,   0,   0.525351,   1.0507,   5.25351,   9.98166,   11.0324,   20.4887,   21.5394,   31.521,   105.07{{\]\]}}
// ELU, input scale 0.5, alpha = 2:
// CHECK: {{\[\[}}-2,   -1.83583,   -0.786939,   -0.442398,   0,   0.5,   1,   5,   9.5,   10.5,   19.5,   20.5,   30,   100{{\]\]}}
// 2^(x / 4), libm's exp2f against expf of the rounded x / 4 ln 2 (an ulp
// apart at 20.5):
// CHECK: {{\[\[}}0.00552427,   0.420448,   0.840896,   0.917004,   1,   1.09051,   1.18921,   2.37841,   5.18736,   6.16884,   29.3441,   34.896{{[23]}},   181.019,   3.35544e+07{{\]\]}}
// ELU through math.expm1:
// CHECK: {{\[\[}}-1,   -0.993262,   -0.632121,   -0.393469,   0,   0.5,   1,   5,   9.5,   10.5,   19.5,   20.5,   30,   100{{\]\]}}

#id = affine_map<(i, j) -> (i, j)>

// KERNEL-LABEL: func.func @activations
// KERNEL-SAME: (%[[X:.*]]: tensor<1x14xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[SP:.*]] = kernel.softplus %[[X]]
// KERNEL: %[[BX:.*]] = kernel.mul_scalar %[[X]], 2.000000e+00
// KERNEL: %[[BSP:.*]] = kernel.softplus %[[BX]]
// KERNEL: %[[BETA:.*]] = kernel.mul_scalar %[[BSP]], 5.000000e-01
// KERNEL: %[[MSP:.*]] = kernel.softplus %[[X]]
// KERNEL: %[[T:.*]] = kernel.tanh %[[MSP]]
// KERNEL: %[[MISH:.*]] = kernel.mul %[[X]], %[[T]]
// KERNEL: %[[POS:.*]] = kernel.relu %[[X]]
// KERNEL: %[[EX:.*]] = kernel.exp %[[X]]
// KERNEL: %[[EM1:.*]] = kernel.add_scalar %[[EX]], -1.000000e+00
// KERNEL: %[[NEG:.*]] = kernel.min_scalar %[[EM1]], 0.000000e+00
// KERNEL: %[[ELU:.*]] = kernel.add %[[POS]], %[[NEG]]
// KERNEL: kernel.mul_scalar %{{.*}}, 1.500000e+00
// KERNEL: %[[L:.*]] = kernel.log1p
// KERNEL: return %[[SP]], %[[BETA]], %[[MISH]], %[[ELU]], %{{.*}}, %[[L]]
func.func @activations(%x: tensor<1x14xf32>) -> (tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>) {
  %e = tensor.empty() : tensor<1x14xf32>
  // F.softplus(x): where(x > 20, x, log1p(exp(x))).
  %softplus = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.constant 20.0 : f32
    %ex = math.exp %a : f32
    %l = math.log1p %ex : f32
    %c = arith.cmpf ogt, %a, %t : f32
    %r = arith.select %c, %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  // F.softplus(x, beta=2): where(2 x > 20, x, log1p(exp(2 x)) / 2).
  %beta = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %b = arith.constant 2.0 : f32
    %t = arith.constant 20.0 : f32
    %y = arith.mulf %a, %b : f32
    %ex = math.exp %y : f32
    %l = math.log1p %ex : f32
    %d = arith.divf %l, %b : f32
    %c = arith.cmpf ogt, %y, %t : f32
    %r = arith.select %c, %a, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  // Mish: x * tanh(softplus(x)), the threshold written as 20 >= x.
  %mish = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.constant 20.0 : f32
    %ex = math.exp %a : f32
    %l = math.log1p %ex : f32
    %c = arith.cmpf oge, %t, %a : f32
    %s = arith.select %c, %l, %a : f32
    %h = math.tanh %s : f32
    %r = arith.mulf %a, %h : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  // F.elu(x): where(x > 0, x, exp(x) - 1).
  %elu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %ex = math.exp %a : f32
    %m = arith.subf %ex, %one : f32
    %r = arith.select %c, %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  // F.elu(x, alpha=1.5) as torch-mlir writes it: the negative side first,
  // on x <= 0, scaled on the left.
  %elu15 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %alpha = arith.constant 1.5 : f32
    %c = arith.cmpf ule, %a, %z : f32
    %ex = math.exp %a : f32
    %m = arith.subf %ex, %one : f32
    %n = arith.mulf %alpha, %m : f32
    %r = arith.select %c, %n, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  // log1p on its own (of |x| / 10, where it is defined).
  %log1p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.constant 0.1 : f32
    %abs = math.absf %a : f32
    %y = arith.mulf %abs, %s : f32
    %r = math.log1p %y : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  return %softplus, %beta, %mish, %elu, %elu15, %log1p : tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>
}

// KERNEL-LABEL: func.func @selu
// KERNEL-SAME: (%[[X:.*]]: tensor<1x14xf32>)
// KERNEL-NOT: linalg.
// KERNEL: %[[P:.*]] = kernel.relu %[[X]]
// KERNEL: %[[PS:.*]] = kernel.mul_scalar %[[P]], 1.0507010221481323
// KERNEL: %[[E:.*]] = kernel.exp %[[X]]
// KERNEL: %[[EM1:.*]] = kernel.add_scalar %[[E]], -1.000000e+00
// KERNEL: %[[N:.*]] = kernel.mul_scalar %[[EM1]], 1.7580993175506592
// KERNEL: %[[NM:.*]] = kernel.min_scalar %[[N]], 0.000000e+00
// KERNEL: %[[SELU:.*]] = kernel.add %[[PS]], %[[NM]]
// KERNEL: %[[SX:.*]] = kernel.mul_scalar %[[X]], 5.000000e-01
// KERNEL: kernel.exp %[[SX]]
// KERNEL: return %[[SELU]],
func.func @selu(%x: tensor<1x14xf32>) -> (tensor<1x14xf32>, tensor<1x14xf32>) {
  %e = tensor.empty() : tensor<1x14xf32>
  // F.selu(x) as torch-mlir writes it: the negative side on x <= 0, both
  // sides scaled.
  %selu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %scale = arith.constant 1.05070102 : f32
    %alpha = arith.constant 1.75809932 : f32
    %c = arith.cmpf ule, %a, %z : f32
    %p = arith.mulf %scale, %a : f32
    %ex = math.exp %a : f32
    %m = arith.subf %ex, %one : f32
    %n = arith.mulf %m, %alpha : f32
    %r = arith.select %c, %n, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  // torch-mlir's elu with an input scale of 0.5: a (exp(x / 2) - 1) below 0.
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.constant 0.5 : f32
    %alpha = arith.constant 2.0 : f32
    %c = arith.cmpf ugt, %a, %z : f32
    %y = arith.mulf %a, %s : f32
    %ex = math.exp %y : f32
    %m = arith.subf %ex, %one : f32
    %n = arith.mulf %m, %alpha : f32
    %r = arith.select %c, %a, %n : f32
    linalg.yield %r : f32
  } -> tensor<1x14xf32>
  return %selu, %scaled : tensor<1x14xf32>, tensor<1x14xf32>
}

// F.elu(x) with math.expm1 for exp(x) - 1 (torch.expm1, StableHLO's
// exponential_minus_one): the same ELU, the same numbers to the digits
// printed.
// KERNEL-LABEL: func.func @elu_expm1
// KERNEL-NOT: linalg.
// KERNEL: %[[POS:.*]] = kernel.relu %[[X:.*]] :
// KERNEL: %[[EX:.*]] = kernel.exp %[[X]]
// KERNEL: %[[EM1:.*]] = kernel.add_scalar %[[EX]], -1.000000e+00
// KERNEL: %[[NEG:.*]] = kernel.min_scalar %[[EM1]], 0.000000e+00
// KERNEL: kernel.add %[[POS]], %[[NEG]]
func.func @elu_expm1(%x: tensor<1x14xf32>) -> tensor<1x14xf32> {
  %e = tensor.empty() : tensor<1x14xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %m = math.expm1 %a : f32
    %y = arith.select %c, %a, %m : f32
    linalg.yield %y : f32
  } -> tensor<1x14xf32>
  return %r : tensor<1x14xf32>
}

// A base-2 exponential (Triton's and FlashAttention's softmax), 2^(x / 4):
// e^(x / 4 ln 2), the same numbers to the digits printed.
// KERNEL-LABEL: func.func @base2
// KERNEL-NOT: linalg.
// KERNEL: %[[Q:.*]] = kernel.mul_scalar %{{.*}}, 2.500000e-01
// KERNEL: %[[S:.*]] = kernel.mul_scalar %[[Q]], 0.69314718055994529
// KERNEL: kernel.exp %[[S]]
func.func @base2(%x: tensor<1x14xf32>) -> tensor<1x14xf32> {
  %e = tensor.empty() : tensor<1x14xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x14xf32>) outs(%e : tensor<1x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.constant 0.25 : f32
    %y = arith.mulf %a, %q : f32
    %p = math.exp2 %y : f32
    linalg.yield %p : f32
  } -> tensor<1x14xf32>
  return %r : tensor<1x14xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<1x14xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x14xf32> to memref<1x14xf32>
  %u = memref.cast %m : memref<1x14xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[-30.0, -5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 5.0, 9.5, 10.5, 19.5, 20.5, 30.0, 100.0]]> : tensor<1x14xf32>
  %r:6 = call @activations(%x) : (tensor<1x14xf32>) -> (tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>, tensor<1x14xf32>)
  call @print(%r#0) : (tensor<1x14xf32>) -> ()
  call @print(%r#1) : (tensor<1x14xf32>) -> ()
  call @print(%r#2) : (tensor<1x14xf32>) -> ()
  call @print(%r#3) : (tensor<1x14xf32>) -> ()
  call @print(%r#4) : (tensor<1x14xf32>) -> ()
  call @print(%r#5) : (tensor<1x14xf32>) -> ()
  %s:2 = call @selu(%x) : (tensor<1x14xf32>) -> (tensor<1x14xf32>, tensor<1x14xf32>)
  call @print(%s#0) : (tensor<1x14xf32>) -> ()
  call @print(%s#1) : (tensor<1x14xf32>) -> ()
  %b = call @base2(%x) : (tensor<1x14xf32>) -> tensor<1x14xf32>
  call @print(%b) : (tensor<1x14xf32>) -> ()
  %m1 = call @elu_expm1(%x) : (tensor<1x14xf32>) -> tensor<1x14xf32>
  call @print(%m1) : (tensor<1x14xf32>) -> ()
  return
}
