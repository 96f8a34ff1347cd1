// A program as upstream's elementwise fusion leaves it: named ops
// generalized (a fill becomes a generic yielding the constant) and an
// elementwise producer folded into the matmul that reads it. The import
// still finds every kernel op: the norm's gain as a mul of x, the matmul on
// the zero init alone (no add of a zero tensor), the activation.
// RUN: %mlir_opt %s --linalg-generalize-named-ops --linalg-fuse-elementwise-ops \
// RUN: | mlsopt-opt --convert-linalg-to-kernel | FileCheck %s
// The fusion this test stands on: the gain's mul is inside the contraction.
// RUN: %mlir_opt %s --linalg-generalize-named-ops --linalg-fuse-elementwise-ops \
// RUN: | FileCheck %s --check-prefix=FUSED

// FUSED: iterator_types = ["parallel", "parallel", "reduction"]
// FUSED-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x256xf16>, tensor<256xf16>, tensor<256x512xf16>)

// CHECK-LABEL: func.func @gain_matmul_silu(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x256xf16>, %[[G:[a-zA-Z0-9_]+]]: tensor<256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x512xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[S:.*]] = kernel.mul %[[X]], %[[G]] : tensor<8x256xf16>, tensor<256xf16>
// CHECK-NEXT: %[[M:.*]] = kernel.matmul %[[S]], %[[W]]
// CHECK-NEXT: %[[A:.*]] = kernel.silu %[[M]]
// CHECK-NEXT: return %[[A]]
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @gain_matmul_silu(%x: tensor<8x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %zero = arith.constant 0.0 : f16
  %one = arith.constant 1.0 : f16
  %e = tensor.empty() : tensor<8x256xf16>
  %xs = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %g : tensor<8x256xf16>, tensor<256xf16>) outs(%e : tensor<8x256xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %m = arith.mulf %a, %b : f16
    linalg.yield %m : f16
  } -> tensor<8x256xf16>
  %e2 = tensor.empty() : tensor<8x512xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<8x512xf16>) -> tensor<8x512xf16>
  %h = linalg.matmul ins(%xs, %w : tensor<8x256xf16>, tensor<256x512xf16>) outs(%f : tensor<8x512xf16>) -> tensor<8x512xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x512xf16>) outs(%e2 : tensor<8x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %n = arith.negf %a : f16
    %ex = math.exp %n : f16
    %d = arith.addf %ex, %one : f16
    %s = arith.divf %a, %d : f16
    linalg.yield %s : f16
  } -> tensor<8x512xf16>
  return %r : tensor<8x512xf16>
}
