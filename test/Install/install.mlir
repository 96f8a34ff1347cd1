// Installs this build into a temporary prefix, builds the downstream project
// in test/Install/downstream against it (find_package(mlsopt) and
// mlsopt::MLSOptInitAll), and runs the downstream tool, the installed
// mlsopt-opt and the installed mlir-opt plugin on this file.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cmake --install %mlsopt_obj_root --prefix %t/prefix
// RUN: %cmake -S %S/downstream -B %t/build %downstream_cmake_flags -DCMAKE_PREFIX_PATH=%t/prefix
// RUN: %cmake --build %t/build
// RUN: %t/build/mlsopt-downstream %s | FileCheck %s
// RUN: %t/prefix/bin/mlsopt-opt %s --thread-fuse-elementwise --canonicalize | FileCheck %s --check-prefix=FUSED
// RUN: %if mlsopt-plugin %{ %mlir_opt %s --load-dialect-plugin=%t/prefix/lib/MLSOptPlugin.so --load-pass-plugin=%t/prefix/lib/MLSOptPlugin.so --pass-pipeline='builtin.module(thread-fuse-elementwise, canonicalize)' | FileCheck %s --check-prefix=FUSED %}

// CHECK: // pipeline: builtin.module(thread-fuse-elementwise,{{ ?}}canonicalize

// The elementwise chain after the loop becomes one thread graph, and the
// canonicalizer removes the unused kernel.exp.
// FUSED-LABEL: func.func @swiglu
// CHECK-LABEL: func.func @swiglu
// CHECK-NOT:     kernel.exp
// CHECK:         %[[ACC:.*]]:2 = block.for_loop
// CHECK:         %[[G:.*]] = thread.graph(%[[ACC]]#0, %[[ACC]]#1)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16):
// CHECK-NEXT:      %[[S:.*]] = thread.unary silu %[[A]] : f16
// CHECK-NEXT:      %[[M:.*]] = thread.binary mul %[[S]], %[[B]] : f16
// CHECK-NEXT:      thread.yield %[[M]] : f16
// CHECK:         block.store %[[G]], %out0
// CHECK-NOT:     block.silu
// CHECK-NOT:     block.mul
// FUSED-NOT:     kernel.exp
// FUSED:         thread.graph
// FUSED:         thread.unary silu
// FUSED-NEXT:    thread.binary mul
// FUSED-NOT:     block.silu
func.func @swiglu(%x: tensor<8x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %unused = kernel.exp %x : tensor<8x64xf16>
  %o = kernel.custom (%x, %w1, %w2) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<64x64xf16>, %in2: tensor<64x64xf16>, %out0: tensor<8x64xf16>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x64xf16> {
      %xt = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %w1t = block.load %in1 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %w2t = block.load %in2 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %a = block.matmul %xt, %w1t : tensor<8x64xf16>, tensor<64x64xf16>
      %b = block.matmul %xt, %w2t : tensor<8x64xf16>, tensor<64x64xf16>
      block.yield %a, %b : tensor<8x64xf16>, tensor<8x64xf16>
    }
    %s = block.silu %acc#0 : tensor<8x64xf16>
    %m = block.mul %s, %acc#1 : tensor<8x64xf16>, tensor<8x64xf16>
    block.store %m, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.return
  }
  return %o : tensor<8x64xf16>
}
