// The cut joins a LayerNorm's mean, centring and normalization before any
// other edge: they are one kernel only together. Tried by tensor size with
// the ops around them, the rows' other readers took the centring's place,
// and the mean was cut off into a kernel of its own.
// - A linear layer with bias and residual, then a LayerNorm (seven ops, six
//   counted): the linear, bias and residual were cut with the mean and the
//   centring, the norm alone (three launches). Now the linear layer is one
//   subprogram and the LayerNorm another: two launches.
// - A LayerNorm with gain and bias, then a linear layer: the centring, the
//   norm, gain, bias and the linear were one subprogram and the mean a
//   kernel of its own (here two launches; at 64 x 2048 rows and a 2048 x
//   2048 weight, three, the five ops two kernels after a 30 s search).
//   Now the LayerNorm with gain and bias is one, and the linear another:
//   two launches, each found in well under a second (at 64 x 2048, 7.02
//   us against 10.55).
// RUN: mlsopt-opt %s --superoptimize="threads=1 timeout=20" -o %t 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t
// REMARK: partition-layernorm.mlir:[[# @LINE + 16]]:{{.*}} remark: superoptimize: replaced 3 kernel ops {{.*}} by 1 kernels
// REMARK: partition-layernorm.mlir:[[# @LINE + 19]]:{{.*}} remark: superoptimize: replaced 4 kernel ops {{.*}} by 1 kernels
// REMARK: partition-layernorm.mlir:[[# @LINE + 28]]:{{.*}} remark: superoptimize: replaced 6 kernel ops {{.*}} by 1 kernels
// REMARK: partition-layernorm.mlir:[[# @LINE + 29]]:{{.*}} remark: superoptimize: replaced 2 kernel ops {{.*}} by 1 kernels
// CHECK-LABEL: func.func @linear_residual_layernorm(
// CHECK-COUNT-2: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return
// CHECK-LABEL: func.func @layernorm_linear(
// CHECK-COUNT-2: kernel.custom
// CHECK-NOT: kernel.{{[a-z_]+}} %
// CHECK: return

func.func @linear_residual_layernorm(%x: tensor<64x256xf16>, %w: tensor<256x256xf16>, %bias: tensor<1x256xf16>, %res: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %y0 = kernel.matmul %x, %w : tensor<64x256xf16>, tensor<256x256xf16>
  %y1 = kernel.add %y0, %bias : tensor<64x256xf16>, tensor<1x256xf16>
  %h = kernel.add %y1, %res : tensor<64x256xf16>, tensor<64x256xf16>
  %s = kernel.reduce_sum %h dim 1 : tensor<64x256xf16>
  %mu = kernel.mul_scalar %s, 3.906250e-03 : tensor<64x1xf16>
  %c = kernel.sub %h, %mu : tensor<64x256xf16>, tensor<64x1xf16>
  %n = kernel.rms_norm %c {epsilon = 1.0e-05 : f64} : tensor<64x256xf16>
  return %n : tensor<64x256xf16>
}

func.func @layernorm_linear(%x: tensor<64x256xf16>, %g: tensor<1x256xf16>, %b: tensor<1x256xf16>, %w: tensor<256x256xf16>, %bias: tensor<1x256xf16>) -> tensor<64x256xf16> {
  %s = kernel.reduce_sum %x dim 1 : tensor<64x256xf16>
  %mu = kernel.mul_scalar %s, 3.906250e-03 : tensor<64x1xf16>
  %c = kernel.sub %x, %mu : tensor<64x256xf16>, tensor<64x1xf16>
  %n = kernel.rms_norm %c {epsilon = 1.0e-05 : f64} : tensor<64x256xf16>
  %ng = kernel.mul %n, %g : tensor<64x256xf16>, tensor<1x256xf16>
  %nb = kernel.add %ng, %b : tensor<64x256xf16>, tensor<1x256xf16>
  %o = kernel.matmul %nb, %w : tensor<64x256xf16>, tensor<256x256xf16>
  %ob = kernel.add %o, %bias : tensor<64x256xf16>, tensor<1x256xf16>
  return %ob : tensor<64x256xf16>
}
