// A module whose GPU functions sit next to a function the GPU pipeline leaves
// as it was (linalg on tensors, no kernel ops): mlsopt-translate parses the
// whole module, so --emit-ptx and --emit-launch-plan work on it (they failed
// with "Dialect `tensor' not found"). A module whose linalg the import took
// nothing from runs that linalg as loop kernels, with a remark (it was
// lowered to a module without a GPU binary), and mlsopt-translate on a module
// with no GPU function says what to do.
// RUN: mlsopt-opt %s --mlsopt-gpu-pipeline=chip=sm_80 -o %t.mlir
// RUN: mlsopt-translate --emit-ptx %t.mlir | FileCheck %s --check-prefix=PTX
// RUN: mlsopt-translate --emit-launch-plan %t.mlir | FileCheck %s --check-prefix=PLAN
// RUN: sed -e '/^func.func @on_gpu/,/^}/d' %s | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 -o %t.loop.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNIMPORTED
// RUN: mlsopt-translate --emit-ptx %t.loop.mlir | FileCheck %s --check-prefix=LOOP
// RUN: echo 'func.func @host() { return }' | mlsopt-opt --mlsopt-gpu-pipeline=chip=sm_80 \
// RUN:   | not mlsopt-translate --emit-ptx 2>&1 | FileCheck %s --check-prefix=NONE

// PTX: .visible .entry on_gpu_kernel0(
// PLAN: "name": "on_gpu",
// PLAN-NOT: "name": "stays_linalg"
// UNIMPORTED: remark: 'linalg.exp' runs as a loop kernel, one thread per result element (correct, not fast): --convert-linalg-to-kernel did not import it: element type is not one of f16, bf16, f32
// LOOP: .visible .entry stays_linalg_kernel0(
// NONE: error: the module holds no gpu.binary; lower it with --mlsopt-gpu-pipeline first

func.func @on_gpu(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kernel.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}

func.func @stays_linalg(%x: tensor<8x64xf64>) -> tensor<8x64xf64> {
  %e = tensor.empty() : tensor<8x64xf64>
  %r = linalg.exp ins(%x : tensor<8x64xf64>) outs(%e : tensor<8x64xf64>) -> tensor<8x64xf64>
  return %r : tensor<8x64xf64>
}
