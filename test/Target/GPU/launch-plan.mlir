// The launch plan of the RMSNorm example: per host function the ordered
// launches with grid, block, dynamic shared memory and arguments, which are
// function arguments (inputs or results) or intermediate buffers.
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir --mlsopt-gpu-pipeline=chip=sm_80 | mlsopt-translate --emit-launch-plan | FileCheck %s
// The plan reads the launches, so it also works before the device code is
// compiled (no gpu.binary yet).
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir --convert-kernel-to-custom --convert-custom-kernel-to-gpu=chip=sm_80 | mlsopt-translate --emit-launch-plan | FileCheck %s --check-prefix=NOBIN

// CHECK: "version": 1,
// CHECK: "binaries": [
// CHECK: "name": "mlsopt_kernels",
// CHECK: "chip": "sm_80",
// CHECK-NEXT: "features": "+ptx70",
// CHECK-NEXT: "format": "assembly"
// CHECK: "functions": [

// @reference: rms_norm and matmul, two launches through one buffer.
// CHECK: "name": "reference",
// CHECK-NEXT: "arguments": [
// CHECK-NEXT: {
// CHECK-NEXT: "index": 0,
// CHECK-NEXT: "role": "input",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 8,
// CHECK-NEXT: 4096
// CHECK-NEXT: ],
// CHECK-NEXT: "dtype": "f16",
// CHECK-NEXT: "bytes": 65536
// CHECK: "index": 1,
// CHECK-NEXT: "role": "input",
// CHECK: "bytes": 50331648
// CHECK: "index": 2,
// CHECK-NEXT: "role": "result",
// CHECK-NEXT: "result_index": 0,
// CHECK: "bytes": 98304
// CHECK: "buffers": [
// CHECK-NEXT: {
// CHECK-NEXT: "id": 0,
// CHECK: "dtype": "f16",
// CHECK-NEXT: "bytes": 65536,
// CHECK-NEXT: "first_launch": 0,
// CHECK-NEXT: "last_launch": 1
// CHECK: "launches": [
// CHECK-NEXT: {
// CHECK-NEXT: "module": "mlsopt_kernels",
// CHECK-NEXT: "kernel": "reference_kernel0",
// CHECK-NEXT: "grid": [
// CHECK-NEXT: 8,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1
// CHECK-NEXT: ],
// CHECK-NEXT: "block": [
// CHECK-NEXT: 128,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1
// CHECK-NEXT: ],
// CHECK-NEXT: "dynamic_shared_memory_bytes": {{[1-9][0-9]*}},
// CHECK-NEXT: "args": [
// CHECK-NEXT: {
// CHECK-NEXT: "kind": "argument",
// CHECK-NEXT: "index": 0,
// CHECK: "kind": "buffer",
// CHECK-NEXT: "id": 0,
// CHECK: "kernel": "reference_kernel1",
// CHECK-NEXT: "grid": [
// CHECK-NEXT: 96,
// CHECK: "kind": "buffer",
// CHECK-NEXT: "id": 0,
// CHECK: "kind": "argument",
// CHECK-NEXT: "index": 1,
// CHECK: "kind": "argument",
// CHECK-NEXT: "index": 2,

// @fused: one launch, no buffers.
// CHECK: "name": "fused",
// CHECK: "buffers": [],
// CHECK-NEXT: "launches": [
// CHECK-NEXT: {
// CHECK-NEXT: "module": "mlsopt_kernels",
// CHECK-NEXT: "kernel": "fused_kernel0",
// CHECK-NEXT: "grid": [
// CHECK-NEXT: 96,
// CHECK-NOT: "kernel":

// NOBIN: "binaries": [],
// NOBIN: "kernel": "reference_kernel0",
// NOBIN: "kernel": "reference_kernel1",
// NOBIN: "kernel": "fused_kernel0",
