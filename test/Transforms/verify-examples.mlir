// Every example μGraph is proven equivalent to its reference program, by the
// JIT-compiled field program (the default engine, with the f32 check) and by
// the in-process evaluator.
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir --verify-equivalence -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=RMSCHECK
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir --verify-equivalence -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MLPCHECK
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir --verify-equivalence -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ATTCHECK
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir --verify-equivalence="engine=evaluator f32-check=false" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=RMSCHECK
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir --verify-equivalence="engine=evaluator f32-check=false" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MLPCHECK
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir --verify-equivalence="engine=evaluator f32-check=false" -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ATTCHECK

// RMSCHECK: remark: @fused is equivalent to @reference: equal on 1 random test over GF(p); false-positive probability <= {{[0-9.]+}}e-{{[0-9]+}}
// MLPCHECK: remark: @fused is equivalent to @reference: equal on 1 random test over GF(p)
// ATTCHECK: remark: @fused is equivalent to @reference: equal on 1 random test over GF(p)
// ATTCHECK: remark: @fused_online_softmax is equivalent to @reference: {{.*}} (max ops are outside this bound: see docs/verification.md)
// ATTCHECK: remark: @flash_decoding is equivalent to @reference: equal on 1 random test over GF(p); false-positive probability <= {{[0-9.]+}}e-{{[0-9]+}}
