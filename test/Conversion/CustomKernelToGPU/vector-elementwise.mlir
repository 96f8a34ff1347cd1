// Elementwise ops and thread graphs take several consecutive elements of a
// row per thread: one vector access per operand and result, 16 bytes of the
// widest element type they touch, the elements computed one by one in
// registers. The width halves until it divides the rows (and every buffer's
// row pitch); an operand that broadcasts along the rows is one scalar load.
// ptxas accepts the PTX for sm_80 and sm_90.
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// exp(S) / rowsum in f32 and rounded to f16: 4 elements (16 bytes of f32)
// per thread and step over 32 x 256 / 4 = 2048 pieces; the row sums are a
// scalar each; the f16 result is stored 4 at a time (8 bytes).
// CHECK-LABEL: gpu.func @rows_kernel0
// CHECK: gpu.barrier
// CHECK: arith.constant 2048 : index
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c2048{{.*}} step %c128
// CHECK: %[[S:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<32x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[R:.*]] = memref.load %{{.*}} : memref<32x1xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: math.exp
// CHECK: %[[E:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.store %[[E]], %{{.*}} {alignment = 16 : i64} : memref<32x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: %[[H:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK-NEXT: vector.store %[[H]], %{{.*}} {alignment = 8 : i64} : memref<32x256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK: gpu.return

// A computed tile whose rows are padded (a matmul's operand: 260 f32 per
// row of 256) is accessed 4 elements at a time all the same: 260 is a
// multiple of 4.
// CHECK-LABEL: gpu.func @padded_kernel0
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<32x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<32x256xf32, strided<[260, 1]>, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.return

// Rows of 6 f32: 2 elements per access (4 do not divide 6).
// CHECK-LABEL: gpu.func @six_kernel0
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<8x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<8x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: gpu.return

// Rows of 5: one element per thread and step, as scalar loads and stores.
// CHECK-LABEL: gpu.func @five_kernel0
// CHECK-NOT: vector.load
// CHECK: memref.load %{{.*}} : memref<8x5xf32, #gpu.address_space<workgroup>>
// CHECK: math.exp
// CHECK: memref.store %{{.*}} : memref<8x5xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.return

// f16 alone: 8 elements (16 bytes) per access, a silu each.
// CHECK-LABEL: gpu.func @halves_kernel0
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-COUNT-8: math.exp
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<16x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.return

// The PTX has 16-byte shared-memory accesses around the exponentials.
// PTX-LABEL: .entry rows_kernel0(
// PTX: ld.shared.v4.b32
// PTX: ex2.approx
// PTX: st.shared.v4.b32
// PTX-LABEL: .entry halves_kernel0(
// PTX: ld.shared.v4.b32
// PTX: st.shared.v4.b32

func.func @rows(%x: tensor<32x256xf32>, %r: tensor<32x1xf32>) -> (tensor<32x256xf32>, tensor<32x256xf16>) {
  %o:2 = kernel.custom (%x, %r) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x256xf32>, tensor<32x1xf32>) -> (tensor<32x256xf32>, tensor<32x256xf16>) {
  ^bb0(%in0: tensor<32x256xf32>, %in1: tensor<32x1xf32>, %out0: tensor<32x256xf32>, %out1: tensor<32x256xf16>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<32x256xf32>, tensor<32x256xf16> {
      %s = block.load %in0 imap <> : tensor<32x256xf32> -> tensor<32x256xf32>
      %rt = block.load %in1 imap <> : tensor<32x1xf32> -> tensor<32x1xf32>
      %t:2 = thread.graph(%s, %rt) : (tensor<32x256xf32>, tensor<32x1xf32>) -> (tensor<32x256xf32>, tensor<32x256xf16>) {
      ^bb0(%a: f32, %b: f32):
        %e = thread.unary exp %a : f32
        %d = thread.binary div %e, %b : f32
        %h = thread.convert %d : f32 to f16
        thread.yield %d, %h : f32, f16
      }
      block.yield %t#0, %t#1 : tensor<32x256xf32>, tensor<32x256xf16>
    }
    block.store %acc#0, %out0 omap <> : tensor<32x256xf32> into tensor<32x256xf32>
    block.store %acc#1, %out1 omap <> : tensor<32x256xf16> into tensor<32x256xf16>
    block.return
  }
  return %o#0, %o#1 : tensor<32x256xf32>, tensor<32x256xf16>
}

func.func @padded(%x: tensor<32x256xf32>, %w: tensor<256x64xf32>) -> tensor<32x64xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x256xf32>, tensor<256x64xf32>) -> tensor<32x64xf32> {
  ^bb0(%in0: tensor<32x256xf32>, %in1: tensor<256x64xf32>, %out0: tensor<32x64xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<32x64xf32> {
      %xt = block.load %in0 imap <> : tensor<32x256xf32> -> tensor<32x256xf32>
      %wt = block.load %in1 imap <> : tensor<256x64xf32> -> tensor<256x64xf32>
      %e = block.exp %xt : tensor<32x256xf32>
      %m = block.matmul %e, %wt : tensor<32x256xf32>, tensor<256x64xf32>
      block.yield %m : tensor<32x64xf32>
    }
    block.store %acc, %out0 omap <> : tensor<32x64xf32> into tensor<32x64xf32>
    block.return
  }
  return %o : tensor<32x64xf32>
}

func.func @six(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x6xf32>) -> tensor<8x6xf32> {
  ^bb0(%in0: tensor<8x6xf32>, %out0: tensor<8x6xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<8x6xf32> {
      %xt = block.load %in0 imap <> : tensor<8x6xf32> -> tensor<8x6xf32>
      %e = block.exp %xt : tensor<8x6xf32>
      block.yield %e : tensor<8x6xf32>
    }
    block.store %acc, %out0 omap <> : tensor<8x6xf32> into tensor<8x6xf32>
    block.return
  }
  return %o : tensor<8x6xf32>
}

func.func @five(%x: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x5xf32>) -> tensor<8x5xf32> {
  ^bb0(%in0: tensor<8x5xf32>, %out0: tensor<8x5xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<8x5xf32> {
      %xt = block.load %in0 imap <> : tensor<8x5xf32> -> tensor<8x5xf32>
      %e = block.exp %xt : tensor<8x5xf32>
      block.yield %e : tensor<8x5xf32>
    }
    block.store %acc, %out0 omap <> : tensor<8x5xf32> into tensor<8x5xf32>
    block.return
  }
  return %o : tensor<8x5xf32>
}

func.func @halves(%x: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<16x64xf16>) -> tensor<16x64xf16> {
  ^bb0(%in0: tensor<16x64xf16>, %out0: tensor<16x64xf16>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<16x64xf16> {
      %xt = block.load %in0 imap <> : tensor<16x64xf16> -> tensor<16x64xf16>
      %e = block.silu %xt : tensor<16x64xf16>
      block.yield %e : tensor<16x64xf16>
    }
    block.store %acc, %out0 omap <> : tensor<16x64xf16> into tensor<16x64xf16>
    block.return
  }
  return %o : tensor<16x64xf16>
}
