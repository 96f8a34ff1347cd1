// RUN: mlsopt-opt %s --convert-custom-kernel-to-loops | FileCheck %s

// The grid becomes a loop carrying the outputs, the for-loop a loop carrying
// f32 accumulators, loads slices at grid-index and iteration offsets, stores
// insert slices at the omap offsets.
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @accumulators(
// CHECK-SAME:    %[[X:.*]]: tensor<4x32xf16>)
// CHECK-DAG:     %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[GRID:.*]]:2 = scf.for %[[BX:.*]] = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%[[O0:.*]] = %{{.*}}, %[[O1:.*]] = %{{.*}}) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
// CHECK:           %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2x1xf32>)
// CHECK:           %[[LOOP:.*]]:4 = scf.for %[[I:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[M:.*]] = %[[MAXINIT]], %[[R:.*]] = %{{.*}}, %[[MEAN:.*]] = %{{.*}}, %[[RMS:.*]] = %{{.*}}) -> (tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
// CHECK:             %[[ROWOFF:.*]] = arith.muli %[[BX]], %[[C2]] : index
// CHECK:             %[[COLOFF:.*]] = arith.muli %[[I]], %[[C8]] : index
// CHECK:             %[[T:.*]] = tensor.extract_slice %[[X]][%[[ROWOFF]], %[[COLOFF]]] [2, 8] [1, 1] : tensor<4x32xf16> to tensor<2x8xf16>
// CHECK:             %[[LOCALMAX:.*]] = block.reduce_max %[[T]] dim 1
// The max accumulator is updated first: rescale needs its old and new value.
// CHECK:             %[[NEWMAX:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[LOCALMAX]] : tensor<2x1xf32>, tensor<2x1xf16>)
// CHECK:               arith.maximumf
// CHECK:             %[[NEWR:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ID]]], {{.*}} ins(%[[R]], %[[T]], %[[M]], %[[NEWMAX]], %[[LOCALMAX]] :
// A term whose maximum is -inf (nothing accumulated yet, or a tile masked
// entirely) adds 0, not exp(-inf - -inf) = NaN.
// CHECK:               %[[D1:.*]] = arith.subf
// CHECK-NEXT:          %[[OLDSCALE:.*]] = math.exp %[[D1]] : f32
// CHECK-NEXT:          %[[OLD:.*]] = arith.mulf %{{.*}}, %[[OLDSCALE]] : f32
// CHECK-NEXT:          %[[NOTHING:.*]] = arith.cmpf oeq, %{{.*}}, %[[NEGINF]] : f32
// CHECK-NEXT:          %[[OLDTERM:.*]] = arith.select %[[NOTHING]], %{{.*}}, %[[OLD]] : f32
// CHECK:               %[[NEWSCALE:.*]] = math.exp
// CHECK-NEXT:          %[[NEW:.*]] = arith.mulf %{{.*}}, %[[NEWSCALE]] : f32
// CHECK-NEXT:          %[[MASKED:.*]] = arith.cmpf oeq, %{{.*}}, %[[NEGINF]] : f32
// CHECK-NEXT:          %[[NEWTERM:.*]] = arith.select %[[MASKED]], %{{.*}}, %[[NEW]] : f32
// CHECK-NEXT:          arith.addf %[[OLDTERM]], %[[NEWTERM]] : f32
// CHECK:             %[[NEWMEAN:.*]] = linalg.generic {{.*}} ins(%[[MEAN]], %[[T]] :
// CHECK:               arith.addf
// CHECK:             %[[NEWRMS:.*]] = linalg.generic {{.*}} ins(%[[RMS]], %[[T]] :
// CHECK:               arith.mulf
// CHECK-NEXT:          arith.addf
// CHECK:             scf.yield %[[NEWMAX]], %[[NEWR]], %[[NEWMEAN]], %[[NEWRMS]]
// Finalization: mean = sum / 4, rms = sqrt(sum of squares / 4), rounded to f16.
// CHECK:           linalg.generic {{.*}} ins(%[[LOOP]]#1 : tensor<2x8xf32>) outs(%{{.*}} : tensor<2x8xf16>)
// CHECK:             arith.truncf
// CHECK:           linalg.generic {{.*}} ins(%[[LOOP]]#2 : tensor<2x8xf32>)
// CHECK:             arith.mulf %{{.*}}, %[[QUARTER]] : f32
// CHECK:           linalg.generic {{.*}} ins(%[[LOOP]]#3 : tensor<2x8xf32>)
// CHECK:             %[[MS:.*]] = arith.mulf %{{.*}}, %[[QUARTER]] : f32
// CHECK-NEXT:        math.sqrt %[[MS]] : f32
// The thread graph became one generic; the stores insert at row 2 * bx.
// CHECK:           %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8xf16>, tensor<2x8xf16>)
// CHECK:             arith.addf
// CHECK:           %[[OFF0:.*]] = arith.muli %[[BX]], %[[C2]] : index
// CHECK:           %[[S0:.*]] = tensor.insert_slice %[[SUM]] into %[[O0]][%[[OFF0]], 0] [2, 8] [1, 1] : tensor<2x8xf16> into tensor<4x8xf16>
// CHECK:           %[[S1:.*]] = tensor.insert_slice %{{.*}} into %[[O1]][%{{.*}}, 0] [2, 8] [1, 1] : tensor<2x8xf16> into tensor<4x8xf16>
// CHECK:           scf.yield %[[S0]], %[[S1]]
// CHECK:         return %[[GRID]]#0, %[[GRID]]#1
// CHECK-NOT:     kernel.custom
func.func @accumulators(%x: tensor<4x32xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  %o:2 = kernel.custom (%x) grid <2, 1, 1> block <64, 1, 1>
      : (tensor<4x32xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  ^bb0(%in0: tensor<4x32xf16>, %out0: tensor<4x8xf16>, %out1: tensor<4x8xf16>):
    %acc:4 = block.for_loop 4 iterations accumulate (max, rescale by 0, mean, rms)
        : tensor<2x1xf16>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<2x8xf16> {
      %t = block.load %in0 imap <x = 0> fmap 1 : tensor<4x32xf16> -> tensor<2x8xf16>
      %m = block.reduce_max %t dim 1 : tensor<2x8xf16>
      block.yield %m, %t, %t, %t : tensor<2x1xf16>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<2x8xf16>
    }
    %y = thread.graph (%acc#1, %acc#2) : (tensor<2x8xf16>, tensor<2x8xf16>) -> tensor<2x8xf16> {
    ^bb0(%a: f16, %b: f16):
      %s = thread.binary add %a, %b : f16
      thread.yield %s : f16
    }
    block.store %y, %out0 omap <x = 0> : tensor<2x8xf16> into tensor<4x8xf16>
    block.store %acc#3, %out1 omap <x = 0> : tensor<2x8xf16> into tensor<4x8xf16>
    block.return
  }
  return %o#0, %o#1 : tensor<4x8xf16>, tensor<4x8xf16>
}
