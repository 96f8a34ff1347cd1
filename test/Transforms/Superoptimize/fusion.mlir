// The search rediscovers, on its own, the single-kernel μGraphs of Mirage's
// programs (small shapes); every result is checked by --verify-equivalence.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --split-input-file --superoptimize="latency-veto=false timeout=10 keep-reference=true" -o %t 2>/dev/null
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --split-input-file --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY

// RMSNorm + MatMul: one kernel. It scales each row of the product by the
// rsqrt of X's mean square: as fast as normalizing X's tile first (both
// are memory-bound), and less arithmetic, which breaks the tie.
// CHECK-LABEL: func.func @rmsnorm_matmul(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-DAG: thread.unary square
// CHECK-DAG: block.matmul
// CHECK-DAG: block.reduce_sum
// CHECK-DAG: thread.unary rsqrt
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @rmsnorm_matmul is equivalent to @rmsnorm_matmul_reference
func.func @rmsnorm_matmul(%x: tensor<4x256xf16>, %w: tensor<256x512xf16>) -> tensor<4x512xf16> {
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<4x256xf16>
  %o = kernel.matmul %n, %w : tensor<4x256xf16>, tensor<256x512xf16>
  return %o : tensor<4x512xf16>
}

// -----

// QKNorm's key side: K stored [h, d, n] and normalized over d (dim 1), then
// Q K. One kernel whose blocks normalize the columns of their K tile over
// the whole of d and multiply. At QKNorm's b = 1 shapes, where the search
// stops at the cost lower bound at once.
// CHECK-LABEL: func.func @key_norm_matmul(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-DAG: block.rms_norm %{{.*}} dim 1 {epsilon = {{.*}}} : tensor<{{[0-9]+}}x64x{{[0-9]+}}xf32>
// CHECK-DAG: block.matmul %{{.*}} : tensor<{{.*}}xf16>, tensor<{{.*}}xf16> -> tensor<{{.*}}xf32>
// CHECK: block.store
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @key_norm_matmul is equivalent to @key_norm_matmul_reference
func.func @key_norm_matmul(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>) -> tensor<2x256x4096xf16> {
  %kn = kernel.rms_norm %k dim 1 {epsilon = 1.0e-06 : f64} : tensor<2x64x4096xf16>
  %s = kernel.matmul %q, %kn : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  return %s : tensor<2x256x4096xf16>
}

// -----

// Gated MLP: both products and the silu gate in one kernel.
// CHECK-LABEL: func.func @gated_mlp(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-COUNT-2: block.matmul
// CHECK: thread.unary silu
// CHECK: thread.binary mul
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @gated_mlp is equivalent to @gated_mlp_reference
func.func @gated_mlp(%x: tensor<8x512xf16>, %w1: tensor<512x512xf16>, %w2: tensor<512x512xf16>) -> tensor<8x512xf16> {
  %a = kernel.matmul %x, %w1 : tensor<8x512xf16>, tensor<512x512xf16>
  %b = kernel.matmul %x, %w2 : tensor<8x512xf16>, tensor<512x512xf16>
  %s = kernel.silu %a : tensor<8x512xf16>
  %o = kernel.mul %s, %b : tensor<8x512xf16>, tensor<8x512xf16>
  return %o : tensor<8x512xf16>
}

// -----

// LoRA, X W + (X A) B: one kernel, whose blocks each compute their
// columns of both products and add them. (X (W + A B) moves as many bytes
// and the cost model ranks it the same; the search looks for it only among
// programs cheaper than the best so far, so the literal one stays.)
// CHECK-LABEL: func.func @lora(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-COUNT-3: block.matmul
// CHECK: thread.binary add
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @lora is equivalent to @lora_reference
func.func @lora(%x: tensor<16x256xf16>, %w: tensor<256x1024xf16>, %a: tensor<256x16xf16>, %b: tensor<16x1024xf16>) -> tensor<16x1024xf16> {
  %xw = kernel.matmul %x, %w : tensor<16x256xf16>, tensor<256x1024xf16>
  %xa = kernel.matmul %x, %a : tensor<16x256xf16>, tensor<256x16xf16>
  %xab = kernel.matmul %xa, %b : tensor<16x16xf16>, tensor<16x1024xf16>
  %o = kernel.add %xw, %xab : tensor<16x1024xf16>, tensor<16x1024xf16>
  return %o : tensor<16x1024xf16>
}

// -----

// Attention (softmax without max subtraction, as in Mirage's GQA): one
// kernel.
// CHECK-LABEL: func.func @attention(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK: block.matmul
// CHECK: thread.unary exp
// CHECK-DAG: block.reduce_sum
// CHECK-DAG: block.matmul
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @attention is equivalent to @attention_reference
func.func @attention(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> tensor<2x64x64xf16> {
  %s = kernel.matmul %q, %k : tensor<2x64x64xf16>, tensor<2x64x1024xf16>
  %e = kernel.exp %s : tensor<2x64x1024xf16>
  %sum = kernel.reduce_sum %e dim 2 : tensor<2x64x1024xf16>
  %p = kernel.div %e, %sum : tensor<2x64x1024xf16>, tensor<2x64x1xf16>
  %o = kernel.matmul %p, %v : tensor<2x64x1024xf16>, tensor<2x1024x64xf16>
  return %o : tensor<2x64x64xf16>
}

// -----

// The nGPT update, rms_norm(X + A (rms_norm(Y) - X)): one kernel.
// CHECK-LABEL: func.func @ntrans(
// CHECK-NOT: kernel.
// CHECK: kernel.custom
// CHECK-COUNT-2: block.rms_norm
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @ntrans is equivalent to @ntrans_reference
func.func @ntrans(%x: tensor<8x1024xf16>, %y: tensor<8x1024xf16>, %a: tensor<8x1024xf16>) -> tensor<8x1024xf16> {
  %ny = kernel.rms_norm %y {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  %d = kernel.sub %ny, %x : tensor<8x1024xf16>, tensor<8x1024xf16>
  %m = kernel.mul %a, %d : tensor<8x1024xf16>, tensor<8x1024xf16>
  %s = kernel.add %x, %m : tensor<8x1024xf16>, tensor<8x1024xf16>
  %o = kernel.rms_norm %s {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  return %o : tensor<8x1024xf16>
}
