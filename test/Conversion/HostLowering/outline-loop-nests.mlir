// RUN: mlsopt-opt %s --mlsopt-outline-loop-nests=min-nests=2 --split-input-file | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-outline-loop-nests --split-input-file | FileCheck %s --check-prefix=FEW
// RUN: mlsopt-opt %s --mlsopt-outline-loop-nests=min-nests=2 --split-input-file --mlsopt-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// Each top-level nest becomes a private noinline function called in its
// place: what it reads from above is an argument, a constant is cloned into
// it (its bounds stay known), a loop-carried result is returned.
// CHECK-LABEL: func.func @two_nests(
// CHECK-SAME: %[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK: %[[S:.*]] = call @two_nests_nest(%[[A]]) : (memref<8xf32>) -> f32
// CHECK: call @two_nests_nest_0(%[[A]], %[[S]], %[[B]]) : (memref<8xf32>, f32, memref<8xf32>) -> ()
// CHECK-NOT: scf.for
// CHECK: return
// CHECK: func.func private @two_nests_nest(%[[X:.*]]: memref<8xf32>) -> f32 attributes {passthrough = ["noinline"]}
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 8 : index
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args
// CHECK: return %[[R]] : f32
// CHECK: func.func private @two_nests_nest_0({{.*}}) attributes {passthrough = ["noinline"]}
// CHECK: scf.for
// CHECK: memref.store
// Below min-nests (256 by default) nothing moves.
// FEW-LABEL: func.func @two_nests(
// FEW-COUNT-2: scf.for
// FEW-NOT: func.func private
// Through the CPU pipeline the functions stay apart for LLVM.
// LLVM: llvm.func @two_nests_nest(
// LLVM-SAME: passthrough = ["noinline"]
func.func @two_nests(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %a[%i] : memref<8xf32>
    %next = arith.addf %acc, %x : f32
    scf.yield %next : f32
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.subf %x, %sum : f32
    memref.store %y, %b[%i] : memref<8xf32>
  }
  return
}
