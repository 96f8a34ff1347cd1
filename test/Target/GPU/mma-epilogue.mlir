// A thread graph that is the only reader of a tensor-core matmul's product
// is applied to the accumulator fragments in registers: the product is
// never stored. Where nothing else stands in the way, the thread graph's
// results are written from the fragments before the barrier that ends the
// matmul. Where its results would share bytes with a tile the matmul reads,
// where it reads the matmul's operands or a tile whose copy lands only when
// the matmul ends, or where a copy is issued at it, the warps first pass a
// barrier, which needs each warp's fragments in one walk over k (they wait
// in registers); otherwise it is not fused. Nor where the product has
// another reader. ptxas accepts the PTX for sm_80 and sm_90 in f16 and
// bf16.
// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_90 | FileCheck %s
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.f16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.f16.sm_90.ptx -o %t.f16.sm_90.cubin %}
// RUN: %if ptxas %{ mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.f16.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f16.sm_80.ptx -o %t.f16.sm_80.cubin %}
// RUN: %if ptxas %{ sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_90 | mlsopt-translate --emit-ptx -o %t.bf16.sm_90.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.bf16.sm_90.ptx -o %t.bf16.sm_90.cubin %}
// RUN: %if ptxas %{ sed s/f16/bf16/g %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.bf16.sm_80.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.bf16.sm_80.ptx -o %t.bf16.sm_80.cubin %}

// Attention's exp(S) in a loop whose tiles are all double-buffered: the
// scores' fragments go through exp in registers, each element stored once
// in f32 (for the row sums) and once rounded to f16 (for the product with
// V), with no barrier between the mma.syncs and those stores and no store
// into the scores' own tile.
// CHECK-LABEL: gpu.func @attention_kernel0
// CHECK: %[[K:.*]]:16 = scf.for %{{.*}} step %c16{{.*}} iter_args
// CHECK: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK-NOT: gpu.barrier
// A lane's two columns of a fragment row go through the chain one after
// the other and are stored as pairs, one 2-element store per result.
// CHECK: %[[V:.*]] = vector.extract %[[K]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK-NEXT: %[[V1:.*]] = vector.extract %[[K]]#0[0, 1] : f32 from vector<2x2xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[V]] : f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK: %[[E1:.*]] = math.exp %[[V1]] : f32
// CHECK-NEXT: %[[H1:.*]] = arith.truncf %[[E1]] : f32 to f16
// CHECK-NEXT: %[[EP:.*]] = vector.from_elements %[[E]], %[[E1]] : vector<2xf32>
// CHECK-NEXT: vector.store %[[EP]], %[[EXP:.*]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<1x64x128xf32
// CHECK-NEXT: %[[HP:.*]] = vector.from_elements %[[H]], %[[H1]] : vector<2xf16>
// CHECK-NEXT: vector.store %[[HP]], %[[HALF:.*]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<1x64x128xf16
// CHECK-NOT: gpu.barrier
// The warp's 16 fragments, then the barrier that ends both the matmul and
// the thread graph; the row sums come next.
// CHECK: vector.extract %[[K]]#15[1, 1]
// CHECK-NEXT: math.exp
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[HALF]]
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: math.exp
// CHECK: gpu.shuffle xor
// CHECK: gpu.return
func.func @attention(%q: tensor<2x64x64xf16>, %k: tensor<2x64x512xf16>, %v: tensor<2x512x64xf16>) -> tensor<2x64x64xf16> {
  %o = kernel.custom (%q, %k, %v) grid <2, 1, 1> block <128, 1, 1>
      : (tensor<2x64x64xf16>, tensor<2x64x512xf16>, tensor<2x512x64xf16>) -> tensor<2x64x64xf16> {
  ^bb0(%in0: tensor<2x64x64xf16>, %in1: tensor<2x64x512xf16>, %in2: tensor<2x512x64xf16>, %out0: tensor<2x64x64xf16>):
    %acc:2 = block.for_loop 4 iterations accumulate (sum, sum) : tensor<1x64x64xf32>, tensor<1x64x1xf32> {
      %qt = block.load %in0 imap <x = 0> : tensor<2x64x64xf16> -> tensor<1x64x64xf16>
      %kt = block.load %in1 imap <x = 0> fmap 2 : tensor<2x64x512xf16> -> tensor<1x64x128xf16>
      %vt = block.load %in2 imap <x = 0> fmap 1 : tensor<2x512x64xf16> -> tensor<1x128x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x64x64xf16>, tensor<1x64x128xf16> -> tensor<1x64x128xf32>
      %e:2 = thread.graph(%s) : (tensor<1x64x128xf32>) -> (tensor<1x64x128xf32>, tensor<1x64x128xf16>) {
      ^bb0(%a: f32):
        %x = thread.unary exp %a : f32
        %h = thread.convert %x : f32 to f16
        thread.yield %x, %h : f32, f16
      }
      %l = block.reduce_sum %e#0 dim 2 : tensor<1x64x128xf32>
      %pv = block.matmul %e#1, %vt : tensor<1x64x128xf16>, tensor<1x128x64xf16> -> tensor<1x64x64xf32>
      block.yield %pv, %l : tensor<1x64x64xf32>, tensor<1x64x1xf32>
    }
    %d = block.div %acc#0, %acc#1 : tensor<1x64x64xf32>, tensor<1x64x1xf32>
    block.store %d, %out0 omap <x = 0> : tensor<1x64x64xf32> into tensor<2x64x64xf16>
    block.return
  }
  return %o : tensor<2x64x64xf16>
}

// A product rounded to f16 by its tile type: the fragment is rounded
// before the thread graph sees it, as the tile would have held it. The row
// scale is read from its tile at the fragment's row.
// CHECK-LABEL: gpu.func @rounded_kernel0
// CHECK: %[[K:.*]]:2 = scf.for %{{.*}} step %c16{{.*}} iter_args
// CHECK-NOT: gpu.barrier
// CHECK: %[[V:.*]] = vector.extract %[[K]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[S:.*]] = memref.load %{{.*}}[%{{.*}}, %c0{{.*}}] : memref<32x1xf16
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: %[[RX:.*]] = arith.extf %[[R]] : f16 to f32
// CHECK-NEXT: %[[SX:.*]] = arith.extf %[[S]] : f16 to f32
// CHECK-NEXT: arith.mulf %[[RX]], %[[SX]] : f32
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @rounded(%x: tensor<32x64xf16>, %w: tensor<64x64xf16>, %s: tensor<32x1xf16>) -> tensor<32x32xf16> {
  %o = kernel.custom (%x, %w, %s) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x64xf16>, tensor<64x64xf16>, tensor<32x1xf16>) -> tensor<32x32xf16> {
  ^bb0(%in0: tensor<32x64xf16>, %in1: tensor<64x64xf16>, %in2: tensor<32x1xf16>, %out0: tensor<32x32xf16>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<32x32xf16> {
      %xt = block.load %in0 imap <> : tensor<32x64xf16> -> tensor<32x64xf16>
      %wt = block.load %in1 imap <> fmap 1 : tensor<64x64xf16> -> tensor<64x32xf16>
      %st = block.load %in2 imap <> : tensor<32x1xf16> -> tensor<32x1xf16>
      %m = block.matmul %xt, %wt : tensor<32x64xf16>, tensor<64x32xf16>
      %t = thread.graph(%m, %st) : (tensor<32x32xf16>, tensor<32x1xf16>) -> tensor<32x32xf16> {
      ^bb0(%a: f16, %b: f16):
        %p = thread.binary mul %a, %b : f16
        thread.yield %p : f16
      }
      block.yield %t : tensor<32x32xf16>
    }
    block.store %acc, %out0 omap <> : tensor<32x32xf16> into tensor<32x32xf16>
    block.return
  }
  return %o : tensor<32x32xf16>
}

// After a barrier: the thread graph also reads the matmul's left operand,
// which other warps may still be reading through ldmatrix until then. The
// product is not stored.
// CHECK-LABEL: gpu.func @reads_operand_kernel0
// CHECK: nvvm.mma.sync
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK-NOT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: vector.extract
// CHECK-NOT: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @reads_operand(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32> {
  ^bb0(%in0: tensor<32x32xf32>, %in1: tensor<32x32xf32>, %out0: tensor<32x32xf32>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<32x32xf32> {
      %xt = block.load %in0 imap <> : tensor<32x32xf32> -> tensor<32x32xf32>
      %wt = block.load %in1 imap <> : tensor<32x32xf32> -> tensor<32x32xf32>
      %m = block.matmul %xt, %wt : tensor<32x32xf32>, tensor<32x32xf32>
      %t = thread.graph(%m, %xt) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32> {
      ^bb0(%a: f32, %b: f32):
        %e = thread.unary exp %a : f32
        %p = thread.binary add %e, %b : f32
        thread.yield %p : f32
      }
      block.yield %t : tensor<32x32xf32>
    }
    block.store %acc, %out0 omap <> : tensor<32x32xf32> into tensor<32x32xf32>
    block.return
  }
  return %o : tensor<32x32xf32>
}

// After a barrier: in a loop of one iteration the row scale's copy is
// issued while the matmul computes and lands at its end; the warps wait
// for it before the barrier, then the thread graph reads it.
// CHECK-LABEL: gpu.func @late_copy_kernel0
// CHECK: nvgpu.mma.sync
// CHECK-NOT: math.exp
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: vector.extract
// CHECK-NOT: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.return
func.func @late_copy(%x: tensor<32x64xf16>, %k: tensor<64x256xf16>, %r: tensor<32x1xf32>) -> tensor<32x256xf32> {
  %o = kernel.custom (%x, %k, %r) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x64xf16>, tensor<64x256xf16>, tensor<32x1xf32>) -> tensor<32x256xf32> {
  ^bb0(%in0: tensor<32x64xf16>, %in1: tensor<64x256xf16>, %in2: tensor<32x1xf32>, %out0: tensor<32x256xf32>):
    %acc = block.for_loop 1 iterations accumulate (sum) : tensor<32x256xf32> {
      %xt = block.load %in0 imap <> : tensor<32x64xf16> -> tensor<32x64xf16>
      %kt = block.load %in1 imap <> : tensor<64x256xf16> -> tensor<64x256xf16>
      %rt = block.load %in2 imap <> : tensor<32x1xf32> -> tensor<32x1xf32>
      %s = block.matmul %xt, %kt : tensor<32x64xf16>, tensor<64x256xf16> -> tensor<32x256xf32>
      %t = thread.graph(%s, %rt) : (tensor<32x256xf32>, tensor<32x1xf32>) -> tensor<32x256xf32> {
      ^bb0(%a: f32, %b: f32):
        %e = thread.unary exp %a : f32
        %d = thread.binary div %e, %b : f32
        thread.yield %d : f32
      }
      block.yield %t : tensor<32x256xf32>
    }
    block.store %acc, %out0 omap <> : tensor<32x256xf32> into tensor<32x256xf32>
    block.return
  }
  return %o : tensor<32x256xf32>
}

// Not fused: the row maximum reads the product too, so it is stored.
// CHECK-LABEL: gpu.func @two_readers_kernel0
// CHECK: nvgpu.mma.sync
// CHECK-NOT: math.exp
// CHECK: vector.store %{{.*}} : memref<32x64xf32
// CHECK-NOT: math.exp
// CHECK: gpu.barrier
// CHECK-NOT: math.exp
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.return
func.func @two_readers(%x: tensor<32x64xf16>, %w: tensor<64x64xf16>) -> (tensor<32x64xf32>, tensor<32x1xf32>) {
  %o:2 = kernel.custom (%x, %w) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<32x64xf16>, tensor<64x64xf16>) -> (tensor<32x64xf32>, tensor<32x1xf32>) {
  ^bb0(%in0: tensor<32x64xf16>, %in1: tensor<64x64xf16>, %out0: tensor<32x64xf32>, %out1: tensor<32x1xf32>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<32x64xf32>, tensor<32x1xf32> {
      %xt = block.load %in0 imap <> : tensor<32x64xf16> -> tensor<32x64xf16>
      %wt = block.load %in1 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %s = block.matmul %xt, %wt : tensor<32x64xf16>, tensor<64x64xf16> -> tensor<32x64xf32>
      %m = block.reduce_max %s dim 1 : tensor<32x64xf32>
      %t = thread.graph(%s) : (tensor<32x64xf32>) -> tensor<32x64xf32> {
      ^bb0(%a: f32):
        %e = thread.unary exp %a : f32
        thread.yield %e : f32
      }
      block.yield %t, %m : tensor<32x64xf32>, tensor<32x1xf32>
    }
    block.store %acc#0, %out0 omap <> : tensor<32x64xf32> into tensor<32x64xf32>
    block.store %acc#1, %out1 omap <> : tensor<32x1xf32> into tensor<32x1xf32>
    block.return
  }
  return %o#0, %o#1 : tensor<32x64xf32>, tensor<32x1xf32>
}

// After a barrier: GQA's flash-decoding partials in a loop of one
// iteration. V's tile takes the bytes of K's once the scores are computed,
// so its copy is issued at the exp: here after the barrier that follows
// the mma.syncs and before the exp runs on the fragments, and waited for
// before the barrier that ends both.
// CHECK-LABEL: gpu.func @partials_kernel0
// CHECK: %[[S:.*]]:16 = scf.for %{{.*}} step %c16{{.*}} iter_args
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy %{{.*}} : memref<2x512x64xf16> to
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: vector.extract %[[S]]#0[0, 0]
// CHECK-NEXT: vector.extract %[[S]]#0[0, 1]
// CHECK-NEXT: math.exp
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.mma.sync
// CHECK: gpu.return
func.func @partials(%q: tensor<2x32x64xf16>, %k: tensor<2x64x512xf16>, %v: tensor<2x512x64xf16>) -> (tensor<2x32x128xf32>, tensor<2x32x2xf32>) {
  %o:2 = kernel.custom (%q, %k, %v) grid <2, 2, 1> block <128, 1, 1>
      : (tensor<2x32x64xf16>, tensor<2x64x512xf16>, tensor<2x512x64xf16>) -> (tensor<2x32x128xf32>, tensor<2x32x2xf32>) {
  ^bb0(%in0: tensor<2x32x64xf16>, %in1: tensor<2x64x512xf16>, %in2: tensor<2x512x64xf16>, %out0: tensor<2x32x128xf32>, %out1: tensor<2x32x2xf32>):
    %acc:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<1x32x64xf32>, tensor<1x32x1xf32> {
      %qt = block.load %in0 imap <x = 0> : tensor<2x32x64xf16> -> tensor<1x32x64xf16>
      %kt = block.load %in1 imap <x = 0, y = 2> : tensor<2x64x512xf16> -> tensor<1x64x256xf16>
      %vt = block.load %in2 imap <x = 0, y = 1> : tensor<2x512x64xf16> -> tensor<1x256x64xf16>
      %s = block.matmul %qt, %kt : tensor<1x32x64xf16>, tensor<1x64x256xf16> -> tensor<1x32x256xf32>
      %e:2 = thread.graph(%s) : (tensor<1x32x256xf32>) -> (tensor<1x32x256xf32>, tensor<1x32x256xf16>) {
      ^bb0(%a: f32):
        %x = thread.unary exp %a : f32
        %h = thread.convert %x : f32 to f16
        thread.yield %x, %h : f32, f16
      }
      %pv = block.matmul %e#1, %vt : tensor<1x32x256xf16>, tensor<1x256x64xf16> -> tensor<1x32x64xf32>
      %l = block.reduce_sum %e#0 dim 2 : tensor<1x32x256xf32>
      block.yield %pv, %l : tensor<1x32x64xf32>, tensor<1x32x1xf32>
    }
    block.store %acc#0, %out0 omap <x = 0, y = 2> : tensor<1x32x64xf32> into tensor<2x32x128xf32>
    block.store %acc#1, %out1 omap <x = 0, y = 2> : tensor<1x32x1xf32> into tensor<2x32x2xf32>
    block.return
  }
  return %o#0, %o#1 : tensor<2x32x128xf32>, tensor<2x32x2xf32>
}

// Not fused: the thread graph reads the matmul's right operand (64 x 128,
// k = m) and each of the 2 warps has 32 fragments, two walks over k, so
// the first walk's fragments cannot wait in registers for a barrier.
// CHECK-LABEL: gpu.func @two_walks_kernel0
// CHECK: nvgpu.mma.sync
// CHECK-NOT: math.exp
// CHECK: vector.store %{{.*}} : memref<64x128xf32
// CHECK-NOT: math.exp
// CHECK: :16 = scf.for
// CHECK-NOT: math.exp
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.return
func.func @two_walks(%x: tensor<64x64xf16>, %w: tensor<64x256xf16>) -> tensor<64x128xf32> {
  %o = kernel.custom (%x, %w) grid <1, 1, 1> block <64, 1, 1>
      : (tensor<64x64xf16>, tensor<64x256xf16>) -> tensor<64x128xf32> {
  ^bb0(%in0: tensor<64x64xf16>, %in1: tensor<64x256xf16>, %out0: tensor<64x128xf32>):
    %acc = block.for_loop 2 iterations accumulate (sum) : tensor<64x128xf32> {
      %xt = block.load %in0 imap <> : tensor<64x64xf16> -> tensor<64x64xf16>
      %wt = block.load %in1 imap <> fmap 1 : tensor<64x256xf16> -> tensor<64x128xf16>
      %m = block.matmul %xt, %wt : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
      %t = thread.graph(%m, %wt) : (tensor<64x128xf32>, tensor<64x128xf16>) -> tensor<64x128xf32> {
      ^bb0(%a: f32, %b: f16):
        %e = thread.unary exp %a : f32
        %c = thread.convert %b : f16 to f32
        %p = thread.binary add %e, %c : f32
        thread.yield %p : f32
      }
      block.yield %t : tensor<64x128xf32>
    }
    block.store %acc, %out0 omap <> : tensor<64x128xf32> into tensor<64x128xf32>
    block.return
  }
  return %o : tensor<64x128xf32>
}
