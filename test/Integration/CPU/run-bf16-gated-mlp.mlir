// REQUIRES: mlir-runner
// The one kernel found for ../bf16-gated-mlp-f32-silu.mlir, which computes
// in f32 what the program computes partly in bf16, run on the CPU through
// its block graph against the imported program (renamed *_ref): they agree
// to bf16's precision (the kernel does not round the products to bf16
// before the SiLU, the program does). @main prints the relative error,
// <= 1e-2.
// RUN: mlsopt-opt %S/../bf16-gated-mlp-f32-silu.mlir --convert-linalg-to-kernel -o %t.kernel.mlir
// RUN: mlsopt-opt %t.kernel.mlir --superoptimize=timeout=10 \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir
// RUN: sed -e 's/@bf16_gated_mlp(/@bf16_gated_mlp_ref(/' -e '/^module {$/d' -e '/^}$/d' %t.kernel.mlir > %t.ref.mlir
// RUN: cat %t.opt.mlir %t.ref.mlir %S/../../Examples/Inputs/compare.mlir %s \
// RUN:   | sed -e '/^\/\/ RUN/d' \
// RUN:   | mlsopt-opt --mlsopt-cpu-pipeline \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// OPT: kernel.custom
// OPT-NOT: kernel.convert
// CHECK: bf16_gated_mlp
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: ok

func.func @to_bf16(%t: tensor<?x?xf32>) -> tensor<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %t, %c0 : tensor<?x?xf32>
  %n = tensor.dim %t, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%e : tensor<?x?xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %b = arith.truncf %a : f32 to bf16
    linalg.yield %b : bf16
  } -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

func.func @to_f32(%t: tensor<?x?xbf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %t, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %t, %c1 : tensor<?x?xbf16>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xbf16>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %b = arith.extf %a : bf16 to f32
    linalg.yield %b : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %s0 = arith.constant 0.3 : f32
  %s1 = arith.constant 1.1 : f32
  %s2 = arith.constant 2.9 : f32
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.0625 : f32
  %ex = tensor.empty() : tensor<8x512xf32>
  %ew = tensor.empty() : tensor<512x256xf32>
  %dx = tensor.cast %ex : tensor<8x512xf32> to tensor<?x?xf32>
  %dw = tensor.cast %ew : tensor<512x256xf32> to tensor<?x?xf32>
  %fx = call @fill2(%dx, %s0, %one) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fw1 = call @fill2(%dw, %s1, %wscale) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %fw2 = call @fill2(%dw, %s2, %wscale) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %bx = call @to_bf16(%fx) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %bw1 = call @to_bf16(%fw1) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %bw2 = call @to_bf16(%fw2) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %x = tensor.cast %bx : tensor<?x?xbf16> to tensor<8x512xbf16>
  %w1 = tensor.cast %bw1 : tensor<?x?xbf16> to tensor<512x256xbf16>
  %w2 = tensor.cast %bw2 : tensor<?x?xbf16> to tensor<512x256xbf16>
  %ref = call @bf16_gated_mlp_ref(%x, %w1, %w2) : (tensor<8x512xbf16>, tensor<512x256xbf16>, tensor<512x256xbf16>) -> tensor<8x256xbf16>
  %got = call @bf16_gated_mlp(%x, %w1, %w2) : (tensor<8x512xbf16>, tensor<512x256xbf16>, tensor<512x256xbf16>) -> tensor<8x256xbf16>
  %dref = tensor.cast %ref : tensor<8x256xbf16> to tensor<?x?xbf16>
  %dgot = tensor.cast %got : tensor<8x256xbf16> to tensor<?x?xbf16>
  %a = call @to_f32(%dref) : (tensor<?x?xbf16>) -> tensor<?x?xf32>
  %b = call @to_f32(%dgot) : (tensor<?x?xbf16>) -> tensor<?x?xf32>
  vector.print str "bf16_gated_mlp\n"
  %err = call @relerr2(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  %bound = arith.constant 1.0e-2 : f32
  call @report_within(%err, %bound) : (f32, f32) -> ()
  return
}
