// The GPU pipeline gives the same module for the same input: upstream's
// gpu-module-to-binary records its compile time in each object's
// properties (LLVMIRToISATimeInMs), which --mlsopt-drop-binary-timings
// removes, keeping the optimization level.
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.1
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 -o %t.2
// RUN: diff %t.1 %t.2
// RUN: FileCheck %s < %t.1

// CHECK: gpu.binary @mlsopt_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78"{{.*}}>, properties = {O = 3 : i32}, assembly =
// CHECK-NOT: TimeInMs

func.func @softmax(%x: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %m = kernel.reduce_max %x dim 1 : tensor<64x256xf16>
  %d = kernel.sub %x, %m : tensor<64x256xf16>, tensor<64x1xf16>
  %e = kernel.exp %d : tensor<64x256xf16>
  %s = kernel.reduce_sum %e dim 1 : tensor<64x256xf16>
  %r = kernel.div %e, %s : tensor<64x256xf16>, tensor<64x1xf16>
  return %r : tensor<64x256xf16>
}
