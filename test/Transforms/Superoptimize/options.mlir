// Bad options are clean errors, never a crash.
// RUN: not mlsopt-opt %s --superoptimize=target=sm_70 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: superoptimize: unknown target 'sm_70'; supported: sm_80, sm_86, sm_89, sm_90
// RUN: not mlsopt-opt %s --superoptimize=max-kernel-ops=0 2>&1 | FileCheck %s --check-prefix=KERNEL-OPS
// KERNEL-OPS: error: superoptimize: max-kernel-ops must be at least 1
// RUN: not mlsopt-opt %s --superoptimize=max-block-ops=2 2>&1 | FileCheck %s --check-prefix=FEW-OPS
// FEW-OPS: error: superoptimize: max-block-ops must be from 3 (a load, an op and a store) to 64, not 2
// An unbounded block graph would run the loops over its sizes past any
// timeout (and wrap the counter at 2^32 - 1).
// RUN: not mlsopt-opt %s --superoptimize=max-block-ops=4294967295 2>&1 | FileCheck %s --check-prefix=MANY-OPS
// MANY-OPS: error: superoptimize: max-block-ops must be from 3 (a load, an op and a store) to 64, not 4294967295
// RUN: not mlsopt-opt %s --superoptimize=timeout=-1 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// TIMEOUT: error: superoptimize: timeout must be a finite number of seconds >= 0, not -1
// RUN: not mlsopt-opt %s --superoptimize=give-up-after=-2 2>&1 | FileCheck %s --check-prefix=GIVE-UP
// GIVE-UP: error: superoptimize: give-up-after must be a finite number of seconds >= 0, not -2

// A timeout of zero is not an error: the program stays as it was.
// RUN: mlsopt-opt %s --superoptimize=timeout=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: remark: superoptimize: kept the subprogram of 2 kernel ops, not searched: @f's timeout of 0.0 s has run out
// ZERO: kernel.exp
// ZERO-NEXT: kernel.mul
// ZERO-NOT: kernel.custom

// A timeout past what the clock counts (nanoseconds overflow 64 bits at
// about 9.2e9 s) is no deadline, not one in the past: the search runs.
// RUN: mlsopt-opt %s --superoptimize=timeout=1e10 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: mlsopt-opt %s --superoptimize=timeout=1e308 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels
// LONG-NOT: timed out
// LONG: kernel.custom

func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kernel.exp %x : tensor<4x8xf32>
  %m = kernel.mul %e, %y : tensor<4x8xf32>, tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
