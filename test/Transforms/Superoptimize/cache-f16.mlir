// The search computes a subprogram of f16 ops in f32 and compares its
// μGraphs with the subprogram as given, in f16. An answer from the cache
// is reported against the same cost: before, its remark costed the f32
// reference, twice the bytes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlsopt-opt %s --superoptimize="cache-dir=%t timeout=20" -o /dev/null 2> %t/first.log
// RUN: mlsopt-opt %s --superoptimize="cache-dir=%t timeout=20" -o /dev/null 2> %t/second.log
// RUN: cat %t/first.log %t/second.log | FileCheck %s
// CHECK: remark: superoptimize: replaced 2 kernel ops ([[BEFORE:[0-9.]+]] us) by 1 kernels ([[AFTER:[0-9.]+]] us); searched
// CHECK: remark: superoptimize: replaced 2 kernel ops ([[BEFORE]] us) by 1 kernels ([[AFTER]] us) with the result from the cache

func.func @f(%x: tensor<1024x4096xf16>, %y: tensor<1024x4096xf16>) -> tensor<1024x4096xf16> {
  %e = kernel.exp %x : tensor<1024x4096xf16>
  %m = kernel.mul %e, %y : tensor<1024x4096xf16>, tensor<1024x4096xf16>
  return %m : tensor<1024x4096xf16>
}
