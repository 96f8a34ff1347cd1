// A comparison of programs with many ops compiles each op's loop nest as a
// function of its own (FieldJIT, outlineLoopNests: from 256 nests in the
// module), so the compile time grows with the ops, not their square. Two
// comparisons of 150-op chains, 300 nests each: the copy is equal, the
// chain with one constant changed in the middle is not.
// RUN: %python %S/Inputs/long_chain.py 150 > %t.mlir
// RUN: not mlsopt-opt %t.mlir --verify-equivalence -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// CHECK-DAG: remark: @chain is equivalent to @reference
// CHECK-DAG: error: @changed is not equivalent to @reference
