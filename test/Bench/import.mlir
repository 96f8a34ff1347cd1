// Every bench program imports completely into the kernel dialect: no linalg
// op, tensor.empty or zero fill is left, and the kernel ops come in the order
// of the program. The check lines of a program are shared by its two batch
// sizes (prefix <NAME>); the types that differ are checked per batch
// (<NAME>1, <NAME>8).
// RUN: mlsopt-opt %mlsopt_src_root/bench/gqa_b1.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=GQA,GQA1
// RUN: mlsopt-opt %mlsopt_src_root/bench/gqa_b8.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=GQA,GQA8
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b1.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=QKNORM,QKNORM1
// RUN: mlsopt-opt %mlsopt_src_root/bench/qknorm_b8.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=QKNORM,QKNORM8
// RUN: mlsopt-opt %mlsopt_src_root/bench/rmsnorm_b1.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=RMSNORM,RMSNORM1
// RUN: mlsopt-opt %mlsopt_src_root/bench/rmsnorm_b8.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=RMSNORM,RMSNORM8
// RUN: mlsopt-opt %mlsopt_src_root/bench/lora_b1.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=LORA,LORA1
// RUN: mlsopt-opt %mlsopt_src_root/bench/lora_b8.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=LORA,LORA8
// RUN: mlsopt-opt %mlsopt_src_root/bench/gated_mlp_b1.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=GATEDMLP,GATEDMLP1
// RUN: mlsopt-opt %mlsopt_src_root/bench/gated_mlp_b8.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=GATEDMLP,GATEDMLP8
// RUN: mlsopt-opt %mlsopt_src_root/bench/ntrans_b1.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=NTRANS,NTRANS1
// RUN: mlsopt-opt %mlsopt_src_root/bench/ntrans_b8.mlir --convert-linalg-to-kernel | FileCheck %s --check-prefixes=NTRANS,NTRANS8

// Each function is checked line by line from its signature to the end of the
// module (CHECK-NEXT throughout), so nothing else is left in it; the
// CHECK-NOT before the label rejects the affine-map aliases that a remaining
// linalg op would print.

//===----------------------------------------------------------------------===//
// GQA, O = softmax(Q K) V with softmax = exp / sum over the last dim
//===----------------------------------------------------------------------===//

// GQA-NOT: {{affine_map|linalg\.|tensor\.empty}}
// GQA-LABEL: func.func @gqa
// GQA1-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x256x64xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x64x4096xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
// GQA8-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<16x256x64xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<16x64x4096xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
// GQA-NEXT: %[[S:.*]] = kernel.matmul %[[Q]], %[[K]] :
// GQA-NEXT: %[[E:.*]] = kernel.exp %[[S]] :
// GQA-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[E]] dim 2 :
// GQA-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[SUM]] :
// GQA1-SAME: tensor<2x256x4096xf16>, tensor<2x256x1xf16>
// GQA8-SAME: tensor<16x256x4096xf16>, tensor<16x256x1xf16>
// GQA-NEXT: %[[O:.*]] = kernel.matmul %[[P]], %[[V]] :
// GQA-NEXT: return %[[O]] :
// GQA1-SAME: tensor<2x256x64xf16>
// GQA8-SAME: tensor<16x256x64xf16>
// GQA-NEXT: }
// GQA-NEXT: }

//===----------------------------------------------------------------------===//
// QKNorm, rms_norm of Q over dim 2 and of K over dim 1, then GQA's attention
//===----------------------------------------------------------------------===//

// QKNORM-NOT: {{affine_map|linalg\.|tensor\.empty}}
// QKNORM-LABEL: func.func @qknorm
// QKNORM1-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x256x64xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x64x4096xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
// QKNORM8-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<16x256x64xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<16x64x4096xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
// QKNORM-NEXT: %[[QSQ:.*]] = kernel.square %[[Q]] :
// QKNORM-NEXT: %[[QSUM:.*]] = kernel.reduce_sum %[[QSQ]] dim 2 :
// QKNORM-NEXT: %[[QMEAN:.*]] = kernel.mul_scalar %[[QSUM]], 1.562500e-02 :
// QKNORM-NEXT: %[[QVAR:.*]] = kernel.add_scalar %[[QMEAN]], 1.0132789611816406E-6 :
// QKNORM-NEXT: %[[QR:.*]] = kernel.rsqrt %[[QVAR]] :
// QKNORM-NEXT: %[[QN:.*]] = kernel.mul %[[Q]], %[[QR]] :
// QKNORM1-SAME: tensor<2x256x64xf16>, tensor<2x256x1xf16>
// QKNORM8-SAME: tensor<16x256x64xf16>, tensor<16x256x1xf16>
// QKNORM-NEXT: %[[KSQ:.*]] = kernel.square %[[K]] :
// QKNORM-NEXT: %[[KSUM:.*]] = kernel.reduce_sum %[[KSQ]] dim 1 :
// QKNORM-NEXT: %[[KMEAN:.*]] = kernel.mul_scalar %[[KSUM]], 1.562500e-02 :
// QKNORM-NEXT: %[[KVAR:.*]] = kernel.add_scalar %[[KMEAN]], 1.0132789611816406E-6 :
// QKNORM-NEXT: %[[KR:.*]] = kernel.rsqrt %[[KVAR]] :
// QKNORM-NEXT: %[[KN:.*]] = kernel.mul %[[K]], %[[KR]] :
// QKNORM1-SAME: tensor<2x64x4096xf16>, tensor<2x1x4096xf16>
// QKNORM8-SAME: tensor<16x64x4096xf16>, tensor<16x1x4096xf16>
// QKNORM-NEXT: %[[S:.*]] = kernel.matmul %[[QN]], %[[KN]] :
// QKNORM-NEXT: %[[E:.*]] = kernel.exp %[[S]] :
// QKNORM-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[E]] dim 2 :
// QKNORM-NEXT: %[[P:.*]] = kernel.div %[[E]], %[[SUM]] :
// QKNORM-NEXT: %[[O:.*]] = kernel.matmul %[[P]], %[[V]] :
// QKNORM-NEXT: return %[[O]] :
// QKNORM1-SAME: tensor<2x256x64xf16>
// QKNORM8-SAME: tensor<16x256x64xf16>
// QKNORM-NEXT: }
// QKNORM-NEXT: }

//===----------------------------------------------------------------------===//
// RMSNorm, O = rms_norm(X) W
//===----------------------------------------------------------------------===//

// RMSNORM-NOT: {{affine_map|linalg\.|tensor\.empty}}
// RMSNORM-LABEL: func.func @rmsnorm
// RMSNORM1-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x4096xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
// RMSNORM8-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
// RMSNORM-NEXT: %[[SQ:.*]] = kernel.square %[[X]] :
// RMSNORM-NEXT: %[[SUM:.*]] = kernel.reduce_sum %[[SQ]] dim 1 :
// RMSNORM-NEXT: %[[MEAN:.*]] = kernel.mul_scalar %[[SUM]], 2.44140625E-4 :
// RMSNORM-NEXT: %[[VAR:.*]] = kernel.add_scalar %[[MEAN]], 1.0132789611816406E-6 :
// RMSNORM-NEXT: %[[R:.*]] = kernel.rsqrt %[[VAR]] :
// RMSNORM-NEXT: %[[XN:.*]] = kernel.mul %[[X]], %[[R]] :
// RMSNORM1-SAME: tensor<2x4096xf16>, tensor<2x1xf16>
// RMSNORM8-SAME: tensor<16x4096xf16>, tensor<16x1xf16>
// RMSNORM-NEXT: %[[O:.*]] = kernel.matmul %[[XN]], %[[W]] :
// RMSNORM-NEXT: return %[[O]] :
// RMSNORM1-SAME: tensor<2x6144xf16>
// RMSNORM8-SAME: tensor<16x6144xf16>
// RMSNORM-NEXT: }
// RMSNORM-NEXT: }

//===----------------------------------------------------------------------===//
// LoRA, O = X W + (X A) B
//===----------------------------------------------------------------------===//

// LORA-NOT: {{affine_map|linalg\.|tensor\.empty}}
// LORA-LABEL: func.func @lora
// LORA1-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<16x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x4096xf16>, %[[A:[a-zA-Z0-9_]+]]: tensor<256x16xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
// LORA8-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<128x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x4096xf16>, %[[A:[a-zA-Z0-9_]+]]: tensor<256x16xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>) -> tensor<128x4096xf16> {
// LORA-NEXT: %[[XW:.*]] = kernel.matmul %[[X]], %[[W]] :
// LORA-NEXT: %[[XA:.*]] = kernel.matmul %[[X]], %[[A]] :
// LORA-NEXT: %[[XAB:.*]] = kernel.matmul %[[XA]], %[[B]] :
// LORA1-SAME: tensor<16x16xf16>, tensor<16x4096xf16>
// LORA8-SAME: tensor<128x16xf16>, tensor<16x4096xf16>
// LORA-NEXT: %[[O:.*]] = kernel.add %[[XW]], %[[XAB]] :
// LORA-NEXT: return %[[O]] :
// LORA1-SAME: tensor<16x4096xf16>
// LORA8-SAME: tensor<128x4096xf16>
// LORA-NEXT: }
// LORA-NEXT: }

//===----------------------------------------------------------------------===//
// GatedMLP, O = silu(X W1) * (X W2)
//===----------------------------------------------------------------------===//

// GATEDMLP-NOT: {{affine_map|linalg\.|tensor\.empty}}
// GATEDMLP-LABEL: func.func @gated_mlp
// GATEDMLP1-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>, %[[W1:[a-zA-Z0-9_]+]]: tensor<4096x4096xf16>, %[[W2:[a-zA-Z0-9_]+]]: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
// GATEDMLP8-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<64x4096xf16>, %[[W1:[a-zA-Z0-9_]+]]: tensor<4096x4096xf16>, %[[W2:[a-zA-Z0-9_]+]]: tensor<4096x4096xf16>) -> tensor<64x4096xf16> {
// GATEDMLP-NEXT: %[[G:.*]] = kernel.matmul %[[X]], %[[W1]] :
// GATEDMLP-NEXT: %[[U:.*]] = kernel.matmul %[[X]], %[[W2]] :
// GATEDMLP-NEXT: %[[S:.*]] = kernel.silu %[[G]] :
// GATEDMLP-NEXT: %[[O:.*]] = kernel.mul %[[S]], %[[U]] :
// GATEDMLP-NEXT: return %[[O]] :
// GATEDMLP1-SAME: tensor<8x4096xf16>
// GATEDMLP8-SAME: tensor<64x4096xf16>
// GATEDMLP-NEXT: }
// GATEDMLP-NEXT: }

//===----------------------------------------------------------------------===//
// nTrans, O = rms_norm(X + A * (rms_norm(Y) - X))
//===----------------------------------------------------------------------===//

// NTRANS-NOT: {{affine_map|linalg\.|tensor\.empty}}
// NTRANS-LABEL: func.func @ntrans
// NTRANS1-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>, %[[A:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
// NTRANS8-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<64x4096xf16>, %[[Y:[a-zA-Z0-9_]+]]: tensor<64x4096xf16>, %[[A:[a-zA-Z0-9_]+]]: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
// NTRANS-NEXT: %[[YSQ:.*]] = kernel.square %[[Y]] :
// NTRANS-NEXT: %[[YSUM:.*]] = kernel.reduce_sum %[[YSQ]] dim 1 :
// NTRANS-NEXT: %[[YMEAN:.*]] = kernel.mul_scalar %[[YSUM]], 2.44140625E-4 :
// NTRANS-NEXT: %[[YVAR:.*]] = kernel.add_scalar %[[YMEAN]], 1.0132789611816406E-6 :
// NTRANS-NEXT: %[[YR:.*]] = kernel.rsqrt %[[YVAR]] :
// NTRANS-NEXT: %[[YN:.*]] = kernel.mul %[[Y]], %[[YR]] :
// NTRANS1-SAME: tensor<8x4096xf16>, tensor<8x1xf16>
// NTRANS8-SAME: tensor<64x4096xf16>, tensor<64x1xf16>
// NTRANS-NEXT: %[[D:.*]] = kernel.sub %[[YN]], %[[X]] :
// NTRANS-NEXT: %[[T:.*]] = kernel.mul %[[A]], %[[D]] :
// NTRANS-NEXT: %[[H:.*]] = kernel.add %[[X]], %[[T]] :
// NTRANS-NEXT: %[[HSQ:.*]] = kernel.square %[[H]] :
// NTRANS-NEXT: %[[HSUM:.*]] = kernel.reduce_sum %[[HSQ]] dim 1 :
// NTRANS-NEXT: %[[HMEAN:.*]] = kernel.mul_scalar %[[HSUM]], 2.44140625E-4 :
// NTRANS-NEXT: %[[HVAR:.*]] = kernel.add_scalar %[[HMEAN]], 1.0132789611816406E-6 :
// NTRANS-NEXT: %[[HR:.*]] = kernel.rsqrt %[[HVAR]] :
// NTRANS-NEXT: %[[O:.*]] = kernel.mul %[[H]], %[[HR]] :
// NTRANS-NEXT: return %[[O]] :
// NTRANS1-SAME: tensor<8x4096xf16>
// NTRANS8-SAME: tensor<64x4096xf16>
// NTRANS-NEXT: }
// NTRANS-NEXT: }
