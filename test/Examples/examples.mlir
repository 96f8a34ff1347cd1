// Checks the hand-written μGraphs under examples/: each parses and verifies,
// prints the structure that makes it correct, and prints the same from its
// custom and generic forms (and again from its own output).

// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir | FileCheck %s --check-prefix=RMS
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir --mlir-print-op-generic | mlsopt-opt | FileCheck %s --check-prefix=RMS
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir | grep "kernel.custom(" | count 1
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir > %t.rms.a
// RUN: mlsopt-opt %mlsopt_src_root/examples/rmsnorm_matmul.mlir --mlir-print-op-generic | mlsopt-opt > %t.rms.b
// RUN: mlsopt-opt %t.rms.a > %t.rms.c
// RUN: diff %t.rms.a %t.rms.b
// RUN: diff %t.rms.a %t.rms.c

// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir --mlir-print-op-generic | mlsopt-opt | FileCheck %s --check-prefix=MLP
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir | grep "kernel.custom(" | count 1
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir > %t.mlp.a
// RUN: mlsopt-opt %mlsopt_src_root/examples/gated_mlp.mlir --mlir-print-op-generic | mlsopt-opt > %t.mlp.b
// RUN: mlsopt-opt %t.mlp.a > %t.mlp.c
// RUN: diff %t.mlp.a %t.mlp.b
// RUN: diff %t.mlp.a %t.mlp.c

// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir | FileCheck %s --check-prefix=ATT
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir --mlir-print-op-generic | mlsopt-opt | FileCheck %s --check-prefix=ATT
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir | grep "kernel.custom(" | count 4
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir > %t.att.a
// RUN: mlsopt-opt %mlsopt_src_root/examples/attention.mlir --mlir-print-op-generic | mlsopt-opt > %t.att.b
// RUN: mlsopt-opt %t.att.a > %t.att.c
// RUN: diff %t.att.a %t.att.b
// RUN: diff %t.att.a %t.att.c

// The examples must stay free of RUN lines: they are for readers.
// RUN: not grep -l "RUN[:]" %mlsopt_src_root/examples/rmsnorm_matmul.mlir %mlsopt_src_root/examples/gated_mlp.mlir %mlsopt_src_root/examples/attention.mlir

//===----------------------------------------------------------------------===//
// rmsnorm_matmul.mlir
//===----------------------------------------------------------------------===//

// RMS-LABEL: func.func @reference(
// RMS-SAME:      -> tensor<8x6144xf16> {
// RMS:         kernel.rms_norm %{{.*}} {epsilon = 9.9999999999999995E-7 : f64} : tensor<8x4096xf16>
// RMS:         kernel.matmul %{{.*}}, %{{.*}} : tensor<8x4096xf16>, tensor<4096x6144xf16>
// RMS-NOT:     kernel.custom

// RMS-LABEL: func.func @fused(
// RMS-SAME:      -> tensor<8x6144xf16> attributes {mlsopt.equivalent_to = @reference} {
// RMS:         kernel.custom(%{{.*}}, %{{.*}}) grid <96, 1, 1> block <128, 1, 1>
// RMS:         block.for_loop 64 iterations accumulate (sum, sum) : tensor<8x64xf16>, tensor<8x1xf16> {
// RMS:           %[[X:[0-9]+]] = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
// RMS:           %[[W:[0-9]+]] = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x6144xf16> -> tensor<64x64xf16>
// RMS:           %[[M:[0-9]+]] = block.matmul %[[X]], %[[W]]
// RMS:           %[[SQ:[0-9]+]] = block.square %[[X]]
// RMS:           %[[S:[0-9]+]] = block.reduce_sum %[[SQ]] dim 1 : tensor<8x64xf16>
// RMS:           block.yield %[[M]], %[[S]] : tensor<8x64xf16>, tensor<8x1xf16>
// RMS:         thread.graph
// RMS:           thread.mul_scalar %{{.*}}, 2.44140625E-4 : f16
// RMS:           thread.add_scalar %{{.*}}, 9.9999999999999995E-7 : f16
// RMS:           thread.unary sqrt
// RMS:           thread.binary div
// RMS:         block.store %{{.*}}, %out0 omap <x = 1> : tensor<8x64xf16> into tensor<8x6144xf16>
// RMS-NEXT:    block.return
// RMS-NOT:     kernel.custom

//===----------------------------------------------------------------------===//
// gated_mlp.mlir
//===----------------------------------------------------------------------===//

// MLP-LABEL: func.func @reference(
// MLP:         kernel.matmul
// MLP:         kernel.matmul
// MLP:         kernel.silu
// MLP:         kernel.mul
// MLP-NOT:     kernel.custom

// MLP-LABEL: func.func @fused(
// MLP-SAME:      -> tensor<8x4096xf16> attributes {mlsopt.equivalent_to = @reference} {
// MLP:         kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <128, 1, 1> block <128, 1, 1>
// MLP:         block.for_loop 32 iterations accumulate (sum, sum) : tensor<8x32xf16>, tensor<8x32xf16> {
// MLP:           %[[X:[0-9]+]] = block.load %in0 imap <> fmap 1 : tensor<8x4096xf16> -> tensor<8x128xf16>
// MLP:           %[[W1:[0-9]+]] = block.load %in1 imap <x = 1> fmap 0 : tensor<4096x4096xf16> -> tensor<128x32xf16>
// MLP:           %[[W2:[0-9]+]] = block.load %in2 imap <x = 1> fmap 0 : tensor<4096x4096xf16> -> tensor<128x32xf16>
// MLP:           %[[A:[0-9]+]] = block.matmul %[[X]], %[[W1]]
// MLP:           %[[B:[0-9]+]] = block.matmul %[[X]], %[[W2]]
// MLP:           block.yield %[[A]], %[[B]]
// MLP:         thread.graph
// MLP:           thread.unary silu
// MLP:           thread.binary mul
// MLP:         block.store %{{.*}}, %out0 omap <x = 1> : tensor<8x32xf16> into tensor<8x4096xf16>
// MLP-NEXT:    block.return
// MLP-NOT:     kernel.custom

//===----------------------------------------------------------------------===//
// attention.mlir
//===----------------------------------------------------------------------===//

// ATT-LABEL: func.func @reference(
// ATT:         kernel.matmul %{{.*}}, %{{.*}} : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
// ATT:         kernel.exp
// ATT:         kernel.reduce_sum %{{.*}} dim 2
// ATT:         kernel.matmul %{{.*}}, %{{.*}} : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
// ATT:         kernel.div
// ATT-NOT:     kernel.custom

// ATT-LABEL: func.func @fused(
// ATT-SAME:      -> tensor<2x256x64xf16> attributes {mlsopt.equivalent_to = @reference} {
// ATT:         kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <2, 4, 1> block <128, 1, 1>
// ATT:         block.for_loop 64 iterations accumulate (sum, sum) : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
// ATT:           %[[Q:[0-9]+]] = block.load %in0 imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
// ATT:           %[[K:[0-9]+]] = block.load %in1 imap <x = 0> fmap 2 : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
// ATT:           %[[V:[0-9]+]] = block.load %in2 imap <x = 0> fmap 1 : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
// ATT:           %[[S:[0-9]+]] = block.matmul %[[Q]], %[[K]]
// ATT:           %[[E:[0-9]+]] = block.exp %[[S]]
// ATT:           %[[L:[0-9]+]] = block.reduce_sum %[[E]] dim 2
// ATT:           %[[EV:[0-9]+]] = block.matmul %[[E]], %[[V]]
// ATT:           block.yield %[[EV]], %[[L]]
// ATT:         block.div
// ATT:         block.store %{{.*}}, %out0 omap <x = 0, y = 1> : tensor<1x64x64xf16> into tensor<2x256x64xf16>
// ATT-NEXT:    block.return

// ATT-LABEL: func.func @fused_online_softmax(
// ATT-SAME:      -> tensor<2x256x64xf16> attributes {mlsopt.equivalent_to = @reference} {
// ATT:         kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <2, 4, 1> block <128, 1, 1>
// ATT:         %[[ACC:[0-9]+]]:3 = block.for_loop 64 iterations accumulate (max, rescale by 0, rescale by 0) : tensor<1x64x1xf16>, tensor<1x64x1xf16>, tensor<1x64x64xf16> {
// ATT:           %[[Q:[0-9]+]] = block.load %in0 imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
// ATT:           %[[K:[0-9]+]] = block.load %in1 imap <x = 0> fmap 2 : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
// ATT:           %[[V:[0-9]+]] = block.load %in2 imap <x = 0> fmap 1 : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
// ATT:           %[[S:[0-9]+]] = block.matmul %[[Q]], %[[K]]
// ATT:           %[[M:[0-9]+]] = block.reduce_max %[[S]] dim 2
// ATT:           %[[P:[0-9]+]] = thread.graph(%[[S]], %[[M]])
// ATT:             thread.binary sub
// ATT:             thread.unary exp
// ATT:           %[[L:[0-9]+]] = block.reduce_sum %[[P]] dim 2
// ATT:           %[[PV:[0-9]+]] = block.matmul %[[P]], %[[V]]
// ATT:           block.yield %[[M]], %[[L]], %[[PV]]
// ATT:         thread.graph(%[[ACC]]#2, %[[ACC]]#1)
// ATT:           thread.binary div
// ATT:         block.store %{{.*}}, %out0 omap <x = 0, y = 1> : tensor<1x64x64xf16> into tensor<2x256x64xf16>
// ATT-NEXT:    block.return

// Flash-decoding: the first kernel's grid z walks 16 chunks of 256 keys
// (one iteration, no fmap) and stores partials chunk by chunk along the
// last dim; the second kernel's loop reads them back chunk by chunk (fmap 2,
// 16 iterations), sums and divides.
// ATT-LABEL: func.func @flash_decoding(
// ATT-SAME:      -> tensor<2x256x64xf16> attributes {mlsopt.equivalent_to = @reference} {
// ATT:         %[[PART:[0-9]+]]:2 = kernel.custom(%{{.*}}, %{{.*}}, %{{.*}}) grid <2, 4, 16> block <128, 1, 1>
// ATT-SAME:        -> (tensor<2x256x1024xf16>, tensor<2x256x16xf16>)
// ATT:         %[[ACC:[0-9]+]]:2 = block.for_loop 1 iterations accumulate (sum, sum) : tensor<1x64x64xf16>, tensor<1x64x1xf16> {
// ATT:           %[[Q:[0-9]+]] = block.load %in0 imap <x = 0, y = 1> : tensor<2x256x64xf16> -> tensor<1x64x64xf16>
// ATT:           %[[K:[0-9]+]] = block.load %in1 imap <x = 0, z = 2> : tensor<2x64x4096xf16> -> tensor<1x64x256xf16>
// ATT:           %[[V:[0-9]+]] = block.load %in2 imap <x = 0, z = 1> : tensor<2x4096x64xf16> -> tensor<1x256x64xf16>
// ATT:           %[[S:[0-9]+]] = block.matmul %[[Q]], %[[K]]
// ATT:           %[[E:[0-9]+]] = thread.graph(%[[S]])
// ATT:             thread.unary exp
// ATT:           %[[EV:[0-9]+]] = block.matmul %[[E]], %[[V]]
// ATT:           %[[L:[0-9]+]] = block.reduce_sum %[[E]] dim 2
// ATT:           block.yield %[[EV]], %[[L]]
// ATT:         block.store %[[ACC]]#0, %out0 omap <x = 0, y = 1, z = 2> : tensor<1x64x64xf16> into tensor<2x256x1024xf16>
// ATT-NEXT:    block.store %[[ACC]]#1, %out1 omap <x = 0, y = 1, z = 2> : tensor<1x64x1xf16> into tensor<2x256x16xf16>
// ATT-NEXT:    block.return
// ATT:         kernel.custom(%[[PART]]#0, %[[PART]]#1) grid <2, 32, 1> block <128, 1, 1>
// ATT:         %[[SUM:[0-9]+]]:2 = block.for_loop 16 iterations accumulate (sum, sum) : tensor<1x8x64xf16>, tensor<1x8x1xf16> {
// ATT:           %[[N:[0-9]+]] = block.load %in0 imap <x = 0, y = 1> fmap 2 : tensor<2x256x1024xf16> -> tensor<1x8x64xf16>
// ATT:           %[[LC:[0-9]+]] = block.load %in1 imap <x = 0, y = 1> fmap 2 : tensor<2x256x16xf16> -> tensor<1x8x1xf16>
// ATT:           block.yield %[[N]], %[[LC]]
// ATT:         thread.graph(%[[SUM]]#0, %[[SUM]]#1)
// ATT:           thread.binary div
// ATT:         block.store %{{.*}}, %out0 omap <x = 0, y = 1> : tensor<1x8x64xf16> into tensor<2x256x64xf16>
// ATT-NEXT:    block.return
// ATT-NOT:     kernel.custom
