// The second run finds the first run's answer in the cache, verifies it
// and produces the same program; a corrupt entry is ignored with a warning
// and the search runs again.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlsopt-opt %s --superoptimize="cache-dir=%t timeout=20" -o %t/first.mlir 2>&1 | FileCheck %s --check-prefix=FIRST
// FIRST: remark: superoptimize: replaced 2 kernel ops
// RUN: mlsopt-opt %s --superoptimize="cache-dir=%t timeout=20" -o %t/second.mlir 2>&1 | FileCheck %s --check-prefix=SECOND
// SECOND: remark: superoptimize: replaced 2 kernel ops ({{[0-9.]+}} us) by 1 kernels ({{[0-9.]+}} us) with the result from the cache, verified again at full shapes
// RUN: diff %t/first.mlir %t/second.mlir

// A truncated entry.
// RUN: for f in %t/*.mlir; do case $f in */first.mlir|*/second.mlir) ;; *) head -c 40 $f > $f.cut && mv $f.cut $f ;; esac; done
// RUN: mlsopt-opt %s --superoptimize="cache-dir=%t timeout=20" -o %t/third.mlir 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: warning: superoptimize: ignoring corrupt cache entry
// CORRUPT: remark: superoptimize: replaced 2 kernel ops
// RUN: diff %t/first.mlir %t/third.mlir

// An entry that parses but computes something else.
// RUN: for f in %t/*.mlir; do case $f in */first.mlir|*/second.mlir|*/third.mlir) ;; *) sed -i 's/thread.unary exp/thread.unary tanh/' $f ;; esac; done
// RUN: mlsopt-opt %s --superoptimize="cache-dir=%t timeout=20" -o %t/fourth.mlir 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: warning: superoptimize: ignoring cache entry {{.*}} which does not verify against the subprogram
// RUN: diff %t/first.mlir %t/fourth.mlir

func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = kernel.exp %x : tensor<64x256xf32>
  %m = kernel.mul %e, %y : tensor<64x256xf32>, tensor<64x256xf32>
  return %m : tensor<64x256xf32>
}
