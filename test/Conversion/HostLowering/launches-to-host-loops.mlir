// RUN: mlsopt-opt %s --mlsopt-launches-to-host-loops --split-input-file --verify-diagnostics | FileCheck %s

// A launch of a barrier-free kernel becomes loops over blocks (z, y, x)
// and threads (z, y, x) around the kernel's body, with the ids the loops'
// indices and the sizes constants; device buffers become host ones, and
// the kernel module goes.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: gpu.
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<8xf32>
// CHECK: scf.for %[[BZ:.*]] =
// CHECK: scf.for %[[BY:.*]] =
// CHECK: scf.for %[[BX:.*]] = %{{.*}} to %[[C2:.*]] step
// CHECK: scf.for %[[TZ:.*]] =
// CHECK: scf.for %[[TY:.*]] =
// CHECK: scf.for %[[TX:.*]] = %{{.*}} to %[[C4:.*]] step
// CHECK: %[[DIM:.*]] = arith.constant 4 : index
// CHECK: %[[I:.*]] = arith.muli %[[BX]], %[[DIM]]
// CHECK: %[[J:.*]] = arith.addi %[[I]], %[[TX]]
// CHECK: memref.load %{{.*}}[%[[J]]]
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[J]]]
// CHECK: memref.copy %[[BUF]], %{{.*}}
// CHECK-NOT: memref.dealloc
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @copy(%a: memref<8xf32>, %r: memref<8xf32>) {
    %buf = gpu.alloc () : memref<8xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@copy blocks in (%c2, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<8xf32>, %buf : memref<8xf32>)
    gpu.memcpy %r, %buf : memref<8xf32>, memref<8xf32>
    gpu.dealloc %buf : memref<8xf32>
    return
  }
  gpu.module @kernels {
    gpu.func @copy(%in: memref<8xf32>, %out: memref<8xf32>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %d = gpu.block_dim x
      %o = arith.muli %b, %d : index
      %i = arith.addi %o, %t : index
      %v = memref.load %in[%i] : memref<8xf32>
      memref.store %v, %out[%i] : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// A kernel whose threads wait for each other cannot run one after another.
module attributes {gpu.container_module} {
  func.func @barrier(%a: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op cannot run on the host: @sync synchronizes its threads or shares memory ('gpu.barrier')}}
    gpu.launch_func @kernels::@sync blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @sync(%in: memref<8xf32>) kernel {
      gpu.barrier
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @dynamic(%a: memref<8xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op cannot run on the host: its grid and block must be constant, without clusters or async tokens}}
    gpu.launch_func @kernels::@k blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%in: memref<8xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @shared(%a: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op cannot run on the host: @k has memory attributions}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%in: memref<8xf32>) workgroup(%w: memref<8xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

// A lane id has no loop that stands for it.
module attributes {gpu.container_module} {
  func.func @lane(%a: memref<8xindex>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op cannot run on the host: @k uses 'gpu.lane_id'}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xindex>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%out: memref<8xindex>) kernel {
      %l = gpu.lane_id
      memref.store %l, %out[%l] : memref<8xindex>
      gpu.return
    }
  }
}
