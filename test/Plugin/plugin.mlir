// REQUIRES: mlsopt-plugin
// Upstream mlir-opt with mlsopt loaded as a plugin. Plugin passes are reachable
// through --pass-pipeline only: mlir-opt parses its flags before it loads
// plugins.
//
// RUN: %mlir_opt %s --load-dialect-plugin=%mlsopt_plugin \
// RUN:   | %mlir_opt --load-dialect-plugin=%mlsopt_plugin | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%mlsopt_plugin --load-pass-plugin=%mlsopt_plugin \
// RUN:   --pass-pipeline='builtin.module(thread-fuse-elementwise)' \
// RUN:   | FileCheck %s --check-prefix=FUSE
// RUN: %mlir_opt %s --load-dialect-plugin=%mlsopt_plugin --load-pass-plugin=%mlsopt_plugin \
// RUN:   --pass-pipeline='builtin.module(thread-fuse-elementwise, convert-custom-kernel-to-loops)' \
// RUN:   | FileCheck %s --check-prefix=LOOPS
// RUN: %mlir_opt %s --load-dialect-plugin=%mlsopt_plugin --load-pass-plugin=%mlsopt_plugin \
// RUN:   --pass-pipeline='builtin.module(convert-linalg-to-kernel, thread-fuse-elementwise)' \
// RUN:   | FileCheck %s --check-prefix=IMPORT
// RUN: not %mlir_opt %s --load-pass-plugin=%mlsopt_plugin --thread-fuse-elementwise 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLAG

// FLAG: Unknown command line argument '--thread-fuse-elementwise'

// The kernel and block dialects parse and print through the plugin.
// CHECK-LABEL: func.func @kernel_level
// CHECK:         %[[M:.*]] = kernel.matmul %{{.*}}, %{{.*}} : tensor<8x64xf16>, tensor<64x32xf16>
// CHECK:         %[[E:.*]] = kernel.exp %[[M]] : tensor<8x32xf16>
// CHECK:         return %[[E]] : tensor<8x32xf16>
func.func @kernel_level(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> tensor<8x32xf16> {
  %m = kernel.matmul %x, %w : tensor<8x64xf16>, tensor<64x32xf16>
  %e = kernel.exp %m : tensor<8x32xf16>
  return %e : tensor<8x32xf16>
}

// CHECK-LABEL: func.func @custom
// CHECK:         kernel.custom(%{{.*}}, %{{.*}}) grid <1, 1, 1> block <128, 1, 1>
// CHECK:           %[[ACC:.*]] = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf16> {
// CHECK:             block.load %{{.*}} imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
// CHECK:             block.matmul
// CHECK:             block.yield
// CHECK:           %[[S:.*]] = block.silu %[[ACC]] : tensor<8x32xf16>
// CHECK:           %[[H:.*]] = block.mul_scalar %[[S]], 5.000000e-01 : tensor<8x32xf16>
// CHECK:           block.store %[[H]], %{{.*}} omap <> : tensor<8x32xf16> into tensor<8x32xf16>
// CHECK:           block.return

// The plugin's pass builds a thread graph from the elementwise block ops.
// FUSE-LABEL: func.func @custom
// FUSE:         %[[ACC:.*]] = block.for_loop
// FUSE:         %[[G:.*]] = thread.graph(%[[ACC]]) : (tensor<8x32xf16>) -> tensor<8x32xf16> {
// FUSE-NEXT:    ^bb0(%[[A:.*]]: f16):
// FUSE-NEXT:      %[[S:.*]] = thread.unary silu %[[A]] : f16
// FUSE-NEXT:      %[[H:.*]] = thread.mul_scalar %[[S]], 5.000000e-01 : f16
// FUSE-NEXT:      thread.yield %[[H]] : f16
// FUSE:         block.store %[[G]]

// And a pipeline of two plugin passes lowers the custom kernel to loops.
// LOOPS-LABEL: func.func @custom
// LOOPS-NOT:     kernel.custom
// LOOPS:         scf.for
// LOOPS-NOT:     kernel.custom
func.func @custom(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> tensor<8x32xf16> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<64x32xf16>, %out0: tensor<8x32xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<8x32xf16> {
      %xt = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %wt = block.load %in1 imap <> : tensor<64x32xf16> -> tensor<64x32xf16>
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x32xf16>
      block.yield %m : tensor<8x32xf16>
    }
    %s = block.silu %acc : tensor<8x32xf16>
    %h = block.mul_scalar %s, 0.5 : tensor<8x32xf16>
    block.store %h, %out0 omap <> : tensor<8x32xf16> into tensor<8x32xf16>
    block.return
  }
  return %o : tensor<8x32xf16>
}

// The importer turns linalg on tensors into kernel ops.
// IMPORT-LABEL: func.func @linalg
// IMPORT-SAME:    (%[[A:.*]]: tensor<8x64xf32>, %[[B:.*]]: tensor<64x32xf32>)
// IMPORT-NOT:     linalg.
// IMPORT:         %[[M:.*]] = kernel.matmul %[[A]], %[[B]] : tensor<8x64xf32>, tensor<64x32xf32>
// IMPORT-NOT:     linalg.
// IMPORT:         %[[E:.*]] = kernel.exp %[[M]] : tensor<8x32xf32>
// IMPORT-NOT:     linalg.
// IMPORT:         return %[[E]] : tensor<8x32xf32>
func.func @linalg(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x32xf32>)
                     outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %empty2 = tensor.empty() : tensor<8x32xf32>
  %e = linalg.exp ins(%m : tensor<8x32xf32>) outs(%empty2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %e : tensor<8x32xf32>
}
