// Both translations fail with a located error, not an empty output, on a
// module that was not lowered.
// RUN: not mlsopt-translate --emit-ptx %s 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not mlsopt-translate --emit-launch-plan %s 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not mlsopt-translate --emit-launch-plan --split-input-file %s 2>&1 | FileCheck %s --check-prefix=DYN

// PTX: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the module holds no gpu.binary; lower it with --mlsopt-gpu-pipeline first
// PLAN: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the module launches no GPU kernels; lower it with --mlsopt-gpu-pipeline first
// DYN: error: the module launches no GPU kernels
module {
  func.func @f(%a: memref<4xf32>) {
    return
  }
}

// -----

// DYN: error: the launch plan needs a constant grid size
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%a: memref<4xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// -----

// A size whose bytes an int64 does not hold.
// DYN: error: the launch plan needs static sizes of at most 2^63 - 1 bytes, got 'memref<4611686018427387904x4xf32>'
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<4611686018427387904x4xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%a: memref<4611686018427387904x4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4611686018427387904x4xf32>)
    return
  }
}

// -----

// Result indices that do not number the results 0 to n - 1 once each.
// DYN: error: the launch plan needs the mlsopt.result_index of the 2 result arguments to number them 0 to 2 - 1, each once; argument 2 has 0 : i64
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%a: memref<4xf32>, %r0: memref<4xf32> {mlsopt.result_index = 0 : i64}, %r1: memref<4xf32> {mlsopt.result_index = 0 : i64}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}
