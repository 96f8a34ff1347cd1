// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 --split-input-file -verify-diagnostics

func.func @leftover(%a: tensor<64xf16>) -> tensor<64xf16> {
  // expected-error @+1 {{is not inside a custom kernel; run --convert-kernel-to-custom first}}
  %e = kernel.exp %a : tensor<64xf16>
  return %e : tensor<64xf16>
}

// -----

func.func @not_imported(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %x = kernel.exp %a : tensor<64x64xf32>
  // expected-error @+1 {{cannot run on the GPU: run --convert-linalg-to-kernel first, which imports it}}
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// A linalg op the import leaves runs as a loop kernel where it can
// (loop-kernels.mlir); where it cannot, the error names it with the
// import's reason and the loop kernel's, not the tensor.empty it reads.
func.func @dynamic_generic(%a: tensor<8x64xf32>, %d: tensor<?x64xf32>) -> (tensor<8x64xf32>, tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %x = kernel.exp %a : tensor<8x64xf32>
  %n = tensor.dim %d, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  // expected-error @+1 {{'linalg.generic' op cannot run on the GPU: --convert-linalg-to-kernel did not import it: has a dynamic shape; nor can it run as a loop kernel: it reads or writes a tensor of dynamic shape}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.atan %v : f32
    linalg.yield %y : f32
  } -> tensor<?x64xf32>
  return %x, %s : tensor<8x64xf32>, tensor<?x64xf32>
}

// -----

func.func @index_elements(%a: tensor<8x64xf32>, %i: tensor<8xindex>) -> (tensor<8x64xf32>, tensor<8xindex>) {
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8xindex>
  // expected-error @+1 {{nor can it run as a loop kernel: its element type index is not a float or a signless integer of 1 to 64 bits}}
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%i : tensor<8xindex>) outs(%e : tensor<8xindex>) {
  ^bb0(%v: index, %o: index):
    %c1 = arith.constant 1 : index
    %y = arith.addi %v, %c1 : index
    linalg.yield %y : index
  } -> tensor<8xindex>
  return %x, %s : tensor<8x64xf32>, tensor<8xindex>
}

// -----

func.func @payload_region(%a: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  // expected-error @+1 {{nor can it run as a loop kernel: payload op 'scf.if' has regions}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %v, %zero : f32
    %y = scf.if %c -> f32 {
      %t = math.atan %v : f32
      scf.yield %t : f32
    } else {
      scf.yield %v : f32
    }
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  return %x, %s : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Upstream lowers math.ipowi neither to NVVM nor to the LLVM dialect.
func.func @integer_power(%a: tensor<8x64xf32>, %i: tensor<8xi32>) -> (tensor<8x64xf32>, tensor<8xi32>) {
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8xi32>
  // expected-error @+1 {{nor can it run as a loop kernel: payload op 'math.ipowi' has no lowering to NVVM}}
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%i : tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%v: i32, %o: i32):
    %y = math.ipowi %v, %v : i32
    linalg.yield %y : i32
  } -> tensor<8xi32>
  return %x, %s : tensor<8x64xf32>, tensor<8xi32>
}

// -----

// An init the payload reads that nothing wrote.
func.func @reads_empty_init(%a: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{nor can it run as a loop kernel: its payload reads an init that is uninitialized or filled with a value that is not a constant}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.atan2 %v, %o : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %x, %s : tensor<8x64xf32>, tensor<8xf32>
}

// -----

// A result that only some parallel loops index: two threads would write
// each element.
func.func @partial_result(%a: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-error @+1 {{nor can it run as a loop kernel: a result is not indexed by exactly its parallel loops}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.atan %v : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %x, %s : tensor<8x64xf32>, tensor<8xf32>
}

// -----

// A softmax on f64 stays linalg.softmax, which is no structured op: the
// error names it and the import's reason, where the generic error about
// what a lowered function may hold said neither.
func.func @softmax_f64(%a: tensor<8x64xf32>, %b: tensor<8x64xf64>) -> (tensor<8x64xf32>, tensor<8x64xf64>) {
  %x = kernel.exp %a : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf64>
  // expected-error @+1 {{'linalg.softmax' op cannot run on the GPU: --convert-linalg-to-kernel did not import it: not a static softmax on f16, bf16 or f32 tensors}}
  %s = linalg.softmax dimension(1) ins(%b : tensor<8x64xf64>) outs(%e : tensor<8x64xf64>) -> tensor<8x64xf64>
  return %x, %s : tensor<8x64xf32>, tensor<8x64xf64>
}

// -----

// With no kernel op in the module, a dynamic softmax was left as it was,
// without a word, and the pipeline exited 0; it is no loop kernel either
// (a linalg.softmax is no structured op).
func.func @dynamic_softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%d) : tensor<?x64xf32>
  // expected-error @+1 {{'linalg.softmax' op cannot run on the GPU: --convert-linalg-to-kernel did not import it: not a static softmax on f16, bf16 or f32 tensors}}
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

func.func @not_a_kernel_op(%a: tensor<64xf16>) -> tensor<64xf16> {
  // expected-error @+1 {{cannot run on the GPU: a function lowered by --convert-custom-kernel-to-gpu may hold only custom kernels, kernel.transpose, kernel.convert, tensor.collapse_shape, tensor.expand_shape, static tensor.extract_slice and linalg.broadcast, dense or dense_resource tensor constants of floats or signless integers, linalg ops that run as loop kernels and func.return}}
  %c = tensor.empty() : tensor<64xf16>
  %e = kernel.exp %a : tensor<64xf16>
  return %e : tensor<64xf16>
}

// -----

func.func @nothing_imported(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-error @+1 {{cannot run on the GPU: run --convert-linalg-to-kernel first, which imports it}}
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// A slice at an offset known only at run time runs as a kernel of its own
// (RunTimeSlices.h), but not an insert with strides...
func.func @strided_insert(%a: tensor<64xf16>, %r: tensor<8xf16>, %i: index) -> tensor<64xf16> {
  // expected-error @+1 {{'tensor.insert_slice' op cannot run on the GPU: a slice at an offset known only at run time runs as a kernel, but it inserts with strides}}
  %s = tensor.insert_slice %r into %a[%i] [8] [2] : tensor<8xf16> into tensor<64xf16>
  %e = kernel.exp %s : tensor<64xf16>
  return %e : tensor<64xf16>
}

// -----

// ... nor one whose offset is read from a tensor's element, which the
// kernel does not compute again (only constants and scalar arguments).
func.func @offset_from_a_table(%a: tensor<64xf16>, %ids: tensor<4xi64>) -> tensor<8xf16> {
  %c1 = arith.constant 1 : index
  %id = tensor.extract %ids[%c1] : tensor<4xi64>
  %i = arith.index_cast %id : i64 to index
  // expected-error @+1 {{'tensor.extract_slice' op cannot run on the GPU: a slice at an offset known only at run time runs as a kernel, but an offset is computed from more than constants and scalar arguments}}
  %s = tensor.extract_slice %a[%i] [8] [1] : tensor<64xf16> to tensor<8xf16>
  %e = kernel.exp %s : tensor<8xf16>
  return %e : tensor<8xf16>
}

// -----

// The padding value comes first, but the error names the tensor.pad that
// reads it: the pad is what cannot run.
func.func @pad(%a: tensor<64xf16>) -> (tensor<64xf16>, tensor<66xf16>) {
  %zero = arith.constant 0.0 : f16
  %e = kernel.exp %a : tensor<64xf16>
  // expected-error @+1 {{'tensor.pad' op cannot run on the GPU: a function lowered by --convert-custom-kernel-to-gpu may hold only}}
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f16
  } : tensor<64xf16> to tensor<66xf16>
  return %e, %p : tensor<64xf16>, tensor<66xf16>
}

// -----

// A tensor.empty is only the shape of a broadcast; returned, its contents
// would be undefined.
func.func @empty_result(%a: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf16>) {
  // expected-error @+1 {{cannot run on the GPU: a function lowered by --convert-custom-kernel-to-gpu may hold only}}
  %c = tensor.empty() : tensor<64xf16>
  %e = kernel.exp %a : tensor<64xf16>
  return %e, %c : tensor<64xf16>, tensor<64xf16>
}

// -----

// A constant of an element type kernels do not compute in is no buffer the
// host can fill.
func.func @f64_constant(%a: tensor<64xf16>) -> tensor<64xf16> {
  // expected-error @+1 {{cannot run on the GPU: a function lowered by --convert-custom-kernel-to-gpu may hold only}}
  %c = arith.constant dense<1.0> : tensor<64xf64>
  %e = kernel.exp %a : tensor<64xf16>
  return %e : tensor<64xf16>
}

// -----

// A function of kernels takes its results as buffers once lowered, so a
// call to it from host code (a test harness's @main) is reported rather
// than left calling the old signature.
func.func @forward(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
func.func @caller(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{calls @forward, which becomes a host function of GPU launches with its results passed as buffers; the call cannot be lowered with it (run @forward on its own, through its launch plan)}}
  %y = call @forward(%x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// A recursion (which also keeps the GPU pipeline's inliner from a helper)
// is reported as one.
func.func private @ping(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{calls @pong, which calls itself, directly or not; GPU launches cannot recurse}}
  %y = call @pong(%x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
func.func private @pong(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  %y = call @ping(%e) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// A kernel op in a loop is reported, not left behind without a binary.
func.func @in_a_loop(%a: tensor<64xf16>) -> tensor<64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %a) -> (tensor<64xf16>) {
    // expected-error @+1 {{is inside 'scf.for'; the GPU pipeline launches kernel ops at the top level of a function only (a loop over layers can be unrolled first)}}
    %e = kernel.exp %h : tensor<64xf16>
    scf.yield %e : tensor<64xf16>
  }
  return %r : tensor<64xf16>
}

// -----

// A μGraph searched for sm_90 (192 KiB of tiles) does not fit a block of
// sm_80.
func.func @too_large_for_the_chip(%x: tensor<8192x128xf16>) -> tensor<128x128xf16> {
  // expected-error @+1 {{'kernel.custom' op needs 196864 bytes of shared memory on the GPU (tiles, double buffers and f32 accumulators), more than the 166912 bytes a block of sm_80 can have; search for that chip (--superoptimize="target=sm_80")}}
  %0 = kernel.custom(%x) grid <8, 16, 1> block <128, 1, 1> : (tensor<8192x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%in0: tensor<8192x128xf16>, %out0: tensor<128x128xf16>):
    %1 = block.for_loop 4 iterations accumulate (sum) : tensor<16x8xf16> {
      %2 = block.load %in0 imap <x = 1> fmap 0 : tensor<8192x128xf16> -> tensor<2048x16xf16>
      %3 = block.transpose %2 [1, 0] : tensor<2048x16xf16>
      %4 = block.load %in0 imap <y = 1> fmap 0 : tensor<8192x128xf16> -> tensor<2048x8xf16>
      %5 = block.matmul %3, %4 : tensor<16x2048xf16>, tensor<2048x8xf16>
      block.yield %5 : tensor<16x8xf16>
    }
    block.store %1, %out0 omap <x = 0, y = 1> : tensor<16x8xf16> into tensor<128x128xf16>
    block.return
  }
  return %0 : tensor<128x128xf16>
}

// -----

// A block graph written with a rank-0 tile (default block graphs hold a
// rank-0 tensor as a [1] tile): refused, where the lowering read the last
// dim of an empty shape and crashed.
func.func @rank_zero_tile(%x: tensor<f16>) -> tensor<f16> {
  %o = kernel.custom (%x) grid <1, 1, 1> block <32, 1, 1> : (tensor<f16>) -> tensor<f16> {
  ^bb0(%in0: tensor<f16>, %out0: tensor<f16>):
    %a = block.for_loop 1 iterations accumulate (sum) : tensor<f16> {
      // expected-error @+1 {{'block.load' op has a rank-0 tile, which the GPU lowering does not take; give the kernel's tensors a dim of size 1}}
      %t = block.load %in0 imap <> : tensor<f16> -> tensor<f16>
      block.yield %t : tensor<f16>
    }
    block.store %a, %out0 omap <> : tensor<f16> into tensor<f16>
    block.return
  }
  return %o : tensor<f16>
}

// -----

// A dense_resource whose data the module does not hold (a dialect_resources
// section that lacks it) has no bytes to copy to the device.
func.func @resource_without_data(%x: tensor<5x3xf32>) -> tensor<5x2xf32> {
  // expected-error @+1 {{'arith.constant' op cannot run on the GPU: the module holds no data for its dense_resource 'missing_weight' (a dialect_resources section without it)}}
  %w = arith.constant dense_resource<missing_weight> : tensor<3x2xf32>
  // The first op the lowering cannot take ends it.
  %m = kernel.matmul %x, %w : tensor<5x3xf32>, tensor<3x2xf32>
  return %m : tensor<5x2xf32>
}

// -----

// A blob of another size than its constant's type (17 floats for a 4x4
// weight) would be read from bytes that are not the weight.
func.func @resource_of_another_size(%x: tensor<5x4xf32>) -> tensor<5x4xf32> {
  // expected-error @+1 {{'arith.constant' op cannot run on the GPU: its dense_resource 'short_weight' holds 68 bytes, where 'tensor<4x4xf32>' needs 16 elements}}
  %w = arith.constant dense_resource<short_weight> : tensor<4x4xf32>
  %m = kernel.matmul %x, %w : tensor<5x4xf32>, tensor<4x4xf32>
  return %m : tensor<5x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      short_weight: "0x040000000000803F000000000000000000000000000000000000003F00000000000000000000000000000000000080BF000000000000000000000000000000000000004000000000"
    }
  }
#-}
