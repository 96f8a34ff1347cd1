// The latency veto (latency-veto, on by default; the VETO runs name it
// anyway): the roofline still ranks, but the latency term
// (docs/cost-model.md, "Latency") refuses what it says is slower than the
// input, sizes each kernel and breaks the roofline's ties. QKNorm's key
// side, K normalized over d and multiplied by Q: by the roofline alone the
// best is one kernel of 128 blocks that each normalize a 2x64x32 tile of K
// and multiply all 512 rows of Q by it (3.11 us; with latency 28.5 us, as
// each block walks every row of Q, against 8.5 us for the two launches).
// With the veto, such candidates are refused and the search keeps one
// kernel of 2x128x2 blocks, each one head's 32 columns for 128 rows of Q
// (3.14 us by the roofline, 7.26 us with latency: under the input's 8.5).
// The option is part of the result cache's key: the roofline's answer,
// cached, is not the veto's.
// The veto's searches run to their timeout (the best is found at once):
// 10 s leave the full-shape check its share on a busy machine, where 3 s
// left the search none.
// RUN: rm -rf %t.cache && mkdir -p %t.cache
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=3 threads=1 cache-dir=%t.cache" 2>&1 | FileCheck %s --check-prefix=ROOFLINE
// RUN: mlsopt-opt %s --superoptimize="timeout=10 threads=1 cache-dir=%t.cache latency-veto=true" -o %t 2>&1 | FileCheck %s --check-prefix=VETO
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %s --superoptimize="timeout=10 threads=1 latency-veto=true keep-reference=true" 2>/dev/null | mlsopt-opt --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// ROOFLINE: remark: superoptimize: replaced 2 kernel ops (5.58 us) by 1 kernels (3.11 us)
// ROOFLINE-NOT: refused
// ROOFLINE: kernel.custom({{.*}}) grid <128, 1, 1>

// VETO: remark: superoptimize: replaced 2 kernel ops (5.58 us) by 1 kernels (3.14 us)
// VETO-SAME: ; {{[1-9][0-9]*}} refused as slower than the input with the latency term;

// CHECK-LABEL: func.func @key_norm_matmul(
// CHECK: kernel.custom(%arg1, %arg0) grid <2, 128, 2>
// CHECK: block.load %in0 imap <x = 0, y = 2> : tensor<2x64x4096xf16> -> tensor<1x64x32xf32>
// CHECK: block.rms_norm %{{.*}} dim 1
// CHECK: block.matmul %{{.*}} : tensor<1x128x64xf16>, tensor<1x64x32xf16> -> tensor<1x128x32xf32>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return

// VERIFY: remark: @key_norm_matmul is equivalent to @key_norm_matmul_reference
func.func @key_norm_matmul(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16> {
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x4096xf16>
  %s = kernel.matmul %q, %kn : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  return %s : tensor<2x256x4096xf16>
}
