// A gated MLP followed by its down projection, all in one subprogram. The
// best program is two launches: a custom kernel for the gated hidden
// state, its grid split along the hidden dim, then the down projection
// (a kernel of its own: the library matmul's default block graph, four
// output tiles, would be a split-k pair).
// The hidden dim is no dim of the program's result, and custom kernels
// were gridded only along the result's dims: the search found three
// launches (both up projections as library matmuls, then one kernel for
// the gate and the down projection), 6.40 us est. against 4.33 us. A kernel
// whose outputs another kernel reads may now also grid the dims of the
// values between kernels.
// RUN: mlsopt-opt %s --superoptimize="timeout=30 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// REMARK: replaced 5 kernel ops ({{.*}} us) by 2 kernels

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x256xf16>, %[[W1:[a-z0-9]+]]: tensor<256x1024xf16>, %[[W2:[a-z0-9]+]]: tensor<256x1024xf16>, %[[W3:[a-z0-9]+]]: tensor<1024x256xf16>
// CHECK: %[[H:.*]] = kernel.custom(%[[X]], %[[W1]], %[[W2]]) grid <{{[0-9]+}}, {{[0-9]+}}, 1>
// CHECK: block.load %in1 imap <[[G:[xy]]] = 1>
// CHECK: block.store %{{.*}}, %out0 omap <{{.*}}[[G]] = 1> : tensor<{{[0-9]+}}x{{[0-9]+}}xf32> into tensor<4x1024xf32>
// CHECK: kernel.custom(%[[W3]], %[[H]])
// CHECK: block.matmul
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
func.func @mlp(%x: tensor<4x256xf16>, %w1: tensor<256x1024xf16>, %w2: tensor<256x1024xf16>, %w3: tensor<1024x256xf16>) -> tensor<4x256xf16> {
  %a = kernel.matmul %x, %w1 : tensor<4x256xf16>, tensor<256x1024xf16>
  %b = kernel.matmul %x, %w2 : tensor<4x256xf16>, tensor<256x1024xf16>
  %s = kernel.silu %a : tensor<4x1024xf16>
  %g = kernel.mul %s, %b : tensor<4x1024xf16>, tensor<4x1024xf16>
  %o = kernel.matmul %g, %w3 : tensor<4x1024xf16>, tensor<1024x256xf16>
  return %o : tensor<4x256xf16>
}
// VERIFY: remark: @mlp is equivalent to @mlp_reference
