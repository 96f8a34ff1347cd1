// A weight stored [n, k], as a linear layer keeps it, is read transposed by
// the matmul. The transpose only moves data, so the partition leaves it out
// of the subprogram, whose input is the transposed weight; the kernel the
// search finds then loads the weight itself and reads its [n, k] tiles
// through block.transpose, and on the GPU the tensor cores read those tiles
// with untransposed ldmatrix (no copy kernel, no second tile in shared
// memory). Before, the search found nothing and the transpose, the norm and
// the matmul stayed three launches.
// latency-veto=false: the schedule checked here is the one the roofline
// alone picks (docs/cost-model.md, "Using it").
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=5 keep-reference=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t
// RUN: mlsopt-opt %t --verify-equivalence 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mlsopt-opt %s --superoptimize="latency-veto=false timeout=5" -o %t.fused
// RUN: mlsopt-opt %t.fused --mlsopt-gpu-pipeline=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm_90.mlir
// RUN: mlsopt-translate --emit-ptx %t.sm_90.mlir -o %t.sm_90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}
// RUN: sed s/f16/bf16/g %t.fused | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-ptx -o %t.sm_80.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}

// REMARK-DAG: remark: superoptimize: replaced 2 kernel ops ({{.*}}) by 1 kernels
// REMARK-DAG: @rmsnorm_linear launches 1 kernels
// REMARK-DAG: @linear launches 1 kernels

// CHECK-LABEL: func.func @rmsnorm_linear(
// CHECK-NOT: kernel.transpose
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK: %[[W:.*]] = block.load %in1 {{.*}} : tensor<1536x1024xf16> -> tensor<[[N:[0-9]+]]x[[K:[0-9]+]]xf16>
// CHECK: %[[WT:.*]] = block.transpose %[[W]] [1, 0] : tensor<[[N]]x[[K]]xf16>
// CHECK: thread.convert %{{.*}} : f32 to f16
// CHECK: block.matmul %{{.*}}, %[[WT]] : tensor<{{.*}}xf16>, tensor<[[K]]x[[N]]xf16> -> tensor<{{.*}}xf32>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @rmsnorm_linear is equivalent to @rmsnorm_linear_reference

// One launch, reading the weight as it is stored. The transposed tile is a
// view of the loaded one: 90816 bytes of shared memory, of which the
// 32x1024 weight tile takes 65536 once (a copy would add as many again).
// The f16 program is computed in f32; the rows of x, which its squares
// read in f32 too, are rounded back to f16 for the product, so the weight
// tile stays f16 and the product runs on the f16 tensor cores (it was
// tf32 on an f32 weight tile of 98304 bytes).
// HOST-LABEL: func.func @rmsnorm_linear(
// HOST: gpu.launch_func {{.*}} dynamic_shared_memory_size %c90816_i32 args(%arg0 : memref<8x1024xf16>, %arg1 : memref<1536x1024xf16>
// HOST-NOT: gpu.launch_func
// HOST: return

// The B fragments come from [n, k] tiles: ldmatrix without .trans, with the
// tiles copied by cp.async.
// PTX: cp.async.cg.shared.global
// PTX-NOT: ldmatrix.sync.aligned.m8n8.x2.trans
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-NOT: ldmatrix.sync.aligned.m8n8.x2.trans
func.func @rmsnorm_linear(%x: tensor<8x1024xf16>, %w: tensor<1536x1024xf16>) -> tensor<8x1536xf16> {
  %wt = kernel.transpose %w [1, 0] : tensor<1536x1024xf16>
  %n = kernel.rms_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x1024xf16>
  %o = kernel.matmul %n, %wt : tensor<8x1024xf16>, tensor<1024x1536xf16>
  return %o : tensor<8x1536xf16>
}

// A lone linear layer: the search keeps the matmul as a library kernel (at
// the cost lower bound), and the fusion gives it the default block graph
// the GPU lowering would, which loads the weight as stored. Before, the
// weight was copied transposed by a kernel of its own (32 MiB each way).
// CHECK-LABEL: func.func @linear(
// CHECK-NOT: kernel.transpose
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK: %[[W:.*]] = block.load %in1 {{.*}} : tensor<4096x4096xf16> -> tensor<[[N:[0-9]+]]x[[K:[0-9]+]]xf16>
// CHECK-NEXT: block.transpose %[[W]] [1, 0] : tensor<[[N]]x[[K]]xf16>
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @linear is equivalent to @linear_reference
// HOST-LABEL: func.func @linear(
// HOST: gpu.launch_func {{.*}} args(%arg0 : memref<8x4096xf16>, %arg1 : memref<4096x4096xf16>
// HOST-NOT: gpu.launch_func
// HOST: return
func.func @linear(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %wt = kernel.transpose %w [1, 0] : tensor<4096x4096xf16>
  %o = kernel.matmul %x, %wt : tensor<8x4096xf16>, tensor<4096x4096xf16>
  return %o : tensor<8x4096xf16>
}

// A linear layer with a GELU, searched: computed in f32, as f16 programs
// are, its kernel still multiplies on the f16 tensor cores, the weight's
// [n, k] tile loaded as stored and kept f16 through the transpose that
// only the matmul reads (a widening matmul, summed into f32).
// REMARK-DAG: @linear_gelu launches 1 kernels
// CHECK-LABEL: func.func @linear_gelu(
// CHECK: kernel.custom(%arg0, %arg1)
// CHECK: %[[X:.*]] = block.load %in0 {{.*}} -> tensor<{{[0-9]+}}x1024xf16>
// CHECK: %[[W:.*]] = block.load %in1 {{.*}} : tensor<1536x1024xf16> -> tensor<[[N:[0-9]+]]x[[K:[0-9]+]]xf16>
// CHECK: %[[WT:.*]] = block.transpose %[[W]] [1, 0] : tensor<[[N]]x[[K]]xf16>
// CHECK: block.matmul %[[X]], %[[WT]] : tensor<{{.*}}xf16>, tensor<[[K]]x[[N]]xf16> -> tensor<{{.*}}xf32>
// CHECK: thread.unary gelu {{.*}} : f32
// CHECK-NOT: kernel.
// CHECK: {{^    }}return
// VERIFY: remark: @linear_gelu is equivalent to @linear_gelu_reference
func.func @linear_gelu(%x: tensor<8x1024xf16>, %w: tensor<1536x1024xf16>) -> tensor<8x1536xf16> {
  %wt = kernel.transpose %w [1, 0] : tensor<1536x1024xf16>
  %o = kernel.matmul %x, %wt : tensor<8x1024xf16>, tensor<1024x1536xf16>
  %g = kernel.gelu %o : tensor<8x1536xf16>
  return %g : tensor<8x1536xf16>
}
