// RUN: mlsopt-opt %s | mlsopt-opt | FileCheck %s
// RUN: mlsopt-opt %s --mlir-print-op-generic | mlsopt-opt | FileCheck %s

// Round-trip tests of every thread op: thread graphs after the for-loop and
// inside it, with broadcasting operands and several results.

// The RMSNorm epilogue of a matmul: a graph after the for-loop whose 8x1
// operand broadcasts to the 8x64 result.
// CHECK-LABEL: func.func @epilogue
func.func @epilogue(%x: tensor<8x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  %o = kernel.custom (%x, %w) grid <96, 1, 1> block <128, 1, 1>
      : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
  ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>, %out0: tensor<8x6144xf16>):
    %acc:2 = block.for_loop 64 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x1xf16> {
      %xt = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      %wt = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x6144xf16> -> tensor<64x64xf16>
      %m = block.matmul %xt, %wt : tensor<8x64xf16>, tensor<64x64xf16>
      %sq = block.square %xt : tensor<8x64xf16>
      %s = block.reduce_sum %sq dim 1 : tensor<8x64xf16>
      block.yield %m, %s : tensor<8x64xf16>, tensor<8x1xf16>
    }
    // CHECK: %[[Y:.*]] = thread.graph(%{{.*}}#0, %{{.*}}#1) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    // CHECK-NEXT: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16):
    // CHECK-NEXT: %[[MS:.*]] = thread.mul_scalar %[[B]], 2.44140625E-4 : f16
    // CHECK-NEXT: %[[AS:.*]] = thread.add_scalar %[[MS]], 9.9999999999999995E-7 : f16
    // CHECK-NEXT: %[[R:.*]] = thread.unary rsqrt %[[AS]] : f16
    // CHECK-NEXT: %[[P:.*]] = thread.binary mul %[[A]], %[[R]] : f16
    // CHECK-NEXT: thread.yield %[[P]] : f16
    // CHECK-NEXT: }
    %y = thread.graph (%acc#0, %acc#1) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16> {
    ^bb0(%a: f16, %b: f16):
      %ms = thread.mul_scalar %b, 2.44140625E-4 : f16
      %eps = thread.add_scalar %ms, 1.0e-6 : f16
      %r = thread.unary rsqrt %eps : f16
      %p = thread.binary mul %a, %r : f16
      thread.yield %p : f16
    }
    // CHECK-NEXT: block.store %[[Y]], %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    block.store %y, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
    block.return
  }
  return %o : tensor<8x6144xf16>
}

// Every unary and binary kind, in f32.
// CHECK-LABEL: func.func @all_kinds
func.func @all_kinds(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %o = kernel.custom (%x) grid <2, 1, 1> block <64, 1, 1>
      : (tensor<16x32xf32>) -> tensor<16x32xf32> {
  ^bb0(%in0: tensor<16x32xf32>, %out0: tensor<16x32xf32>):
    %a = block.for_loop 1 iterations accumulate (max) : tensor<8x32xf32> {
      %t = block.load %in0 imap <x = 0> : tensor<16x32xf32> -> tensor<8x32xf32>
      block.yield %t : tensor<8x32xf32>
    }
    // CHECK: thread.graph(%{{.*}}) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
    %y = thread.graph (%a) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
    ^bb0(%v: f32):
      // CHECK: thread.unary exp %{{.*}} : f32
      %0 = thread.unary exp %v : f32
      // CHECK-NEXT: thread.unary log %{{.*}} : f32
      %1 = thread.unary log %0 : f32
      // CHECK-NEXT: thread.unary sqrt %{{.*}} : f32
      %2 = thread.unary sqrt %1 : f32
      // CHECK-NEXT: thread.unary rsqrt %{{.*}} : f32
      %3 = thread.unary rsqrt %2 : f32
      // CHECK-NEXT: thread.unary square %{{.*}} : f32
      %4 = thread.unary square %3 : f32
      // CHECK-NEXT: thread.unary silu %{{.*}} : f32
      %5 = thread.unary silu %4 : f32
      // CHECK-NEXT: thread.unary sigmoid %{{.*}} : f32
      %6 = thread.unary sigmoid %5 : f32
      // CHECK-NEXT: thread.unary gelu %{{.*}} : f32
      %7 = thread.unary gelu %6 : f32
      // CHECK-NEXT: thread.unary relu %{{.*}} : f32
      %8 = thread.unary relu %7 : f32
      // CHECK-NEXT: thread.unary tanh %{{.*}} : f32
      %9 = thread.unary tanh %8 : f32
      // CHECK-NEXT: thread.unary erf %{{.*}} : f32
      %10 = thread.unary erf %9 : f32
      // CHECK-NEXT: thread.unary gelu_tanh %{{.*}} : f32
      %gt = thread.unary gelu_tanh %10 : f32
      // CHECK-NEXT: thread.unary sin %{{.*}} : f32
      %sin = thread.unary sin %gt : f32
      // CHECK-NEXT: thread.unary cos %{{.*}} : f32
      %cos = thread.unary cos %sin : f32
      // CHECK-NEXT: thread.unary log1p %{{.*}} : f32
      %l1p = thread.unary log1p %cos : f32
      // CHECK-NEXT: thread.unary softplus %{{.*}} : f32
      %sp = thread.unary softplus %l1p : f32
      // CHECK-NEXT: thread.unary floor %{{.*}} : f32
      %fl = thread.unary floor %sp : f32
      // CHECK-NEXT: thread.unary ceil %{{.*}} : f32
      %ce = thread.unary ceil %fl : f32
      // CHECK-NEXT: thread.unary round %{{.*}} : f32
      %ro = thread.unary round %ce : f32
      // CHECK-NEXT: thread.unary neg %{{.*}} : f32
      %11 = thread.unary neg %ro : f32
      // CHECK-NEXT: thread.binary add %{{.*}}, %{{.*}} : f32
      %12 = thread.binary add %11, %v : f32
      // CHECK-NEXT: thread.binary sub %{{.*}}, %{{.*}} : f32
      %13 = thread.binary sub %12, %v : f32
      // CHECK-NEXT: thread.binary mul %{{.*}}, %{{.*}} : f32
      %14 = thread.binary mul %13, %v : f32
      // CHECK-NEXT: thread.binary div %{{.*}}, %{{.*}} : f32
      %15 = thread.binary div %14, %v : f32
      // CHECK-NEXT: thread.mul_scalar %{{.*}}, 1.250000e-01 : f32
      %16 = thread.mul_scalar %15, 0.125 : f32
      // CHECK-NEXT: thread.add_scalar %{{.*}}, -3.000000e+00 : f32
      %17 = thread.add_scalar %16, -3.0 : f32
      // CHECK-NEXT: thread.max_scalar %{{.*}}, -1.500000e+00 : f32
      %18 = thread.max_scalar %17, -1.5 : f32
      // CHECK-NEXT: thread.min_scalar %{{.*}}, 2.000000e+00 : f32
      %19 = thread.min_scalar %18, 2.0 : f32
      // CHECK-NEXT: thread.binary max %{{.*}}, %{{.*}} : f32
      %20 = thread.binary max %19, %v : f32
      // CHECK-NEXT: thread.binary min %{{.*}}, %{{.*}} : f32
      %21 = thread.binary min %20, %16 : f32
      // CHECK-NEXT: thread.yield %{{.*}} : f32
      thread.yield %21 : f32
    }
    block.store %y, %out0 omap <x = 0> : tensor<8x32xf32> into tensor<16x32xf32>
    block.return
  }
  return %o : tensor<16x32xf32>
}

// A graph inside the for-loop body (a prologue of the accumulators) with
// several results and operands that broadcast, with rank extension, to the
// shared result shape; and a graph after the loop that only passes values on.
// The outputs hold the accumulated 16-column slice of each row.
// CHECK-LABEL: func.func @in_loop_multi_result
func.func @in_loop_multi_result(%x: tensor<4x16x64xbf16>, %g: tensor<64xbf16>,
                                %r: tensor<4x16x1xbf16>)
    -> (tensor<4x16x16xbf16>, tensor<4x16x16xbf16>) {
  %o:2 = kernel.custom (%x, %g, %r) grid <1, 2, 4> block <32, 2, 2>
      : (tensor<4x16x64xbf16>, tensor<64xbf16>, tensor<4x16x1xbf16>)
        -> (tensor<4x16x16xbf16>, tensor<4x16x16xbf16>) {
  ^bb0(%in0: tensor<4x16x64xbf16>, %in1: tensor<64xbf16>, %in2: tensor<4x16x1xbf16>,
       %out0: tensor<4x16x16xbf16>, %out1: tensor<4x16x16xbf16>):
    // CHECK: %[[L:.*]]:2 = block.for_loop 4 iterations accumulate (sum, max) : tensor<1x8x16xbf16>, tensor<1x8x16xbf16> {
    %l:2 = block.for_loop 4 iterations accumulate (sum, max)
        : tensor<1x8x16xbf16>, tensor<1x8x16xbf16> {
      %xt = block.load %in0 imap <y = 1, z = 0> fmap 2 : tensor<4x16x64xbf16> -> tensor<1x8x16xbf16>
      %gt = block.load %in1 imap <> fmap 0 : tensor<64xbf16> -> tensor<16xbf16>
      %rt = block.load %in2 imap <y = 1, z = 0> : tensor<4x16x1xbf16> -> tensor<1x8x1xbf16>
      // CHECK: %[[T:.*]]:2 = thread.graph(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x8x16xbf16>, tensor<16xbf16>, tensor<1x8x1xbf16>) -> (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>) {
      // CHECK-NEXT: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: bf16):
      %t:2 = thread.graph (%xt, %gt, %rt)
          : (tensor<1x8x16xbf16>, tensor<16xbf16>, tensor<1x8x1xbf16>)
            -> (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>) {
      ^bb0(%a: bf16, %b: bf16, %c: bf16):
        %s = thread.unary silu %a : bf16
        %m = thread.binary mul %s, %b : bf16
        %d = thread.binary sub %a, %c : bf16
        // CHECK: thread.yield %{{.*}}, %{{.*}} : bf16, bf16
        thread.yield %m, %d : bf16, bf16
      }
      // CHECK: block.yield %[[T]]#0, %[[T]]#1 : tensor<1x8x16xbf16>, tensor<1x8x16xbf16>
      block.yield %t#0, %t#1 : tensor<1x8x16xbf16>, tensor<1x8x16xbf16>
    }
    // CHECK: %[[U:.*]]:2 = thread.graph(%[[L]]#1, %[[L]]#0) : (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>) -> (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>) {
    // CHECK-NEXT: ^bb0(%[[P:.*]]: bf16, %[[Q:.*]]: bf16):
    // CHECK-NEXT: thread.yield %[[Q]], %[[P]] : bf16, bf16
    %u:2 = thread.graph (%l#1, %l#0) : (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>)
        -> (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>) {
    ^bb0(%p: bf16, %q: bf16):
      thread.yield %q, %p : bf16, bf16
    }
    // CHECK: block.store %[[U]]#0, %out0 omap <y = 1, z = 0> : tensor<1x8x16xbf16> into tensor<4x16x16xbf16>
    block.store %u#0, %out0 omap <y = 1, z = 0> : tensor<1x8x16xbf16> into tensor<4x16x16xbf16>
    block.store %u#1, %out1 omap <y = 1, z = 0> : tensor<1x8x16xbf16> into tensor<4x16x16xbf16>
    block.return
  }
  return %o#0, %o#1 : tensor<4x16x16xbf16>, tensor<4x16x16xbf16>
}

// Results of one shape but different element types, computed from
// operands of both types through conversions; operands of size 1 in every
// dim broadcast too.
// CHECK-LABEL: func.func @mixed_results
func.func @mixed_results(%x: tensor<8x64xf16>, %s: tensor<1x1xf32>)
    -> (tensor<8x64xf16>, tensor<8x64xf32>) {
  %o:2 = kernel.custom (%x, %s) grid <1, 1, 1> block <128, 1, 1>
      : (tensor<8x64xf16>, tensor<1x1xf32>) -> (tensor<8x64xf16>, tensor<8x64xf32>) {
  ^bb0(%in0: tensor<8x64xf16>, %in1: tensor<1x1xf32>, %out0: tensor<8x64xf16>,
       %out1: tensor<8x64xf32>):
    %l:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<1x1xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xf16> -> tensor<8x64xf16>
      %b = block.load %in1 imap <> : tensor<1x1xf32> -> tensor<1x1xf32>
      block.yield %a, %b : tensor<8x64xf16>, tensor<1x1xf32>
    }
    // CHECK: thread.graph(%{{.*}}#0, %{{.*}}#1) : (tensor<8x64xf16>, tensor<1x1xf32>) -> (tensor<8x64xf16>, tensor<8x64xf32>) {
    // CHECK-NEXT: ^bb0(%{{.*}}: f16, %{{.*}}: f32):
    %y:2 = thread.graph (%l#0, %l#1) : (tensor<8x64xf16>, tensor<1x1xf32>)
        -> (tensor<8x64xf16>, tensor<8x64xf32>) {
    ^bb0(%a: f16, %b: f32):
      %e = thread.unary exp %a : f16
      %n = thread.unary neg %b : f32
      // CHECK: %[[W:.*]] = thread.convert %{{.*}} : f16 to f32
      %w = thread.convert %e : f16 to f32
      // CHECK-NEXT: %[[S:.*]] = thread.binary add %[[W]], %{{.*}} : f32
      %sum = thread.binary add %w, %n : f32
      // CHECK-NEXT: %[[H:.*]] = thread.convert %[[S]] : f32 to f16
      %h = thread.convert %sum : f32 to f16
      // CHECK: thread.yield %[[H]], %{{.*}} : f16, f32
      thread.yield %h, %n : f16, f32
    }
    block.store %y#0, %out0 omap <> : tensor<8x64xf16> into tensor<8x64xf16>
    block.store %y#1, %out1 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o#0, %o#1 : tensor<8x64xf16>, tensor<8x64xf32>
}

// A mask element in a chain: the scores' bias, added in registers.
// CHECK-LABEL: func.func @where
func.func @where(%s: tensor<8x64xf32>, %m: tensor<8x64xi1>) -> tensor<8x64xf32> {
  %o = kernel.custom (%s, %m) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>, tensor<8x64xi1>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<8x64xi1>, %out0: tensor<8x64xf32>):
    %l = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      %b = block.load %in1 imap <> : tensor<8x64xi1> -> tensor<8x64xi1>
      // CHECK: thread.graph(%{{.*}}, %{{.*}}) : (tensor<8x64xf32>, tensor<8x64xi1>) -> tensor<8x64xf32> {
      // CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: i1):
      %y = thread.graph (%a, %b) : (tensor<8x64xf32>, tensor<8x64xi1>) -> tensor<8x64xf32> {
      ^bb0(%x: f32, %k: i1):
        // CHECK-NEXT: %[[W:.*]] = thread.where %{{.*}}, 0.000000e+00, 0xFFF0000000000000 : i1 to f32
        %w = thread.where %k, 0.0, 0xFFF0000000000000 : i1 to f32
        // CHECK-NEXT: thread.binary add %{{.*}}, %[[W]] : f32
        %r = thread.binary add %x, %w : f32
        thread.yield %r : f32
      }
      block.yield %y : tensor<8x64xf32>
    }
    block.store %l, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}

// An integer element in a chain, unsigned.
// CHECK-LABEL: func.func @int_to_float
func.func @int_to_float(%s: tensor<8x64xf32>, %m: tensor<8x64xi8>) -> tensor<8x64xf32> {
  %o = kernel.custom (%s, %m) grid <1, 1, 1> block <128, 1, 1> : (tensor<8x64xf32>, tensor<8x64xi8>) -> tensor<8x64xf32> {
  ^bb0(%in0: tensor<8x64xf32>, %in1: tensor<8x64xi8>, %out0: tensor<8x64xf32>):
    %l = block.for_loop 1 iterations accumulate (sum) : tensor<8x64xf32> {
      %a = block.load %in0 imap <> : tensor<8x64xf32> -> tensor<8x64xf32>
      %b = block.load %in1 imap <> : tensor<8x64xi8> -> tensor<8x64xi8>
      %y = thread.graph (%a, %b) : (tensor<8x64xf32>, tensor<8x64xi8>) -> tensor<8x64xf32> {
      ^bb0(%x: f32, %k: i8):
        // CHECK: %[[F:.*]] = thread.int_to_float %{{.*}} unsigned : i8 to f32
        %f = thread.int_to_float %k unsigned : i8 to f32
        // CHECK-NEXT: thread.binary mul %{{.*}}, %[[F]] : f32
        %r = thread.binary mul %x, %f : f32
        thread.yield %r : f32
      }
      block.yield %y : tensor<8x64xf32>
    }
    block.store %l, %out0 omap <> : tensor<8x64xf32> into tensor<8x64xf32>
    block.return
  }
  return %o : tensor<8x64xf32>
}
