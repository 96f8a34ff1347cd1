// f32 and f64 log1p and expm1 become libm calls (upstream's LLVM lowering
// computes log(1 + x) and exp(x) - 1); other math ops, and these in types
// libm lacks, are left to --convert-math-to-llvm.
// RUN: mlsopt-opt %s --mlsopt-accurate-math-to-libm | FileCheck %s

// CHECK-DAG: func.func private @log1pf(f32) -> f32
// CHECK-DAG: func.func private @expm1(f64) -> f64
// CHECK-LABEL: func.func @small_terms
// CHECK: call @log1pf(%{{.*}}) : (f32) -> f32
// CHECK: call @expm1(%{{.*}}) : (f64) -> f64
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.log1p %{{.*}} : f16
func.func @small_terms(%x: f32, %y: f64, %z: f16) -> (f32, f64, f32, f16) {
  %a = math.log1p %x : f32
  %b = math.expm1 %y : f64
  %c = math.exp %x : f32
  %d = math.log1p %z : f16
  return %a, %b, %c, %d : f32, f64, f32, f16
}
