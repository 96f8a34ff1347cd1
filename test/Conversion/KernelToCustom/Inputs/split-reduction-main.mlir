// The driver of split-reduction.mlir's CPU run: each split program and its
// linalg reference on the same smooth inputs; prints the name, sum |O| and
// max |O| of the split result, and its relative error to the reference
// ("ok" within 1e-4).

func.func @main() {
  %c0_3 = arith.constant 0.3 : f32
  %c1_0 = arith.constant 1.0 : f32
  %c1_1 = arith.constant 1.1 : f32
  %c0_5 = arith.constant 0.5 : f32

  %e_x = tensor.empty() : tensor<4096x64xf32>
  %d_x = tensor.cast %e_x : tensor<4096x64xf32> to tensor<?x?xf32>
  %f_x = call @fill2(%d_x, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %f_x : tensor<?x?xf32> to tensor<4096x64xf32>
  %g = call @gram(%x) : (tensor<4096x64xf32>) -> tensor<64x64xf32>
  %gr = call @gram_ref(%x) : (tensor<4096x64xf32>) -> tensor<64x64xf32>
  %dg = tensor.cast %g : tensor<64x64xf32> to tensor<?x?xf32>
  %dgr = tensor.cast %gr : tensor<64x64xf32> to tensor<?x?xf32>
  vector.print str "gram\n"
  call @stats2(%dg) : (tensor<?x?xf32>) -> ()
  %eg = call @relerr2(%dgr, %dg) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%eg) : (f32) -> ()

  %e_a = tensor.empty() : tensor<256x2048xf32>
  %d_a = tensor.cast %e_a : tensor<256x2048xf32> to tensor<?x?xf32>
  %f_a = call @fill2(%d_a, %c1_1, %c0_5) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %a = tensor.cast %f_a : tensor<?x?xf32> to tensor<256x2048xf32>
  %e_b = tensor.empty() : tensor<2048x16xf32>
  %d_b = tensor.cast %e_b : tensor<2048x16xf32> to tensor<?x?xf32>
  %f_b = call @fill2t(%d_b, %c0_3, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %b = tensor.cast %f_b : tensor<?x?xf32> to tensor<2048x16xf32>
  %s = call @skinny(%a, %b) : (tensor<256x2048xf32>, tensor<2048x16xf32>) -> tensor<256x16xf32>
  %sr = call @skinny_ref(%a, %b) : (tensor<256x2048xf32>, tensor<2048x16xf32>) -> tensor<256x16xf32>
  %ds = tensor.cast %s : tensor<256x16xf32> to tensor<?x?xf32>
  %dsr = tensor.cast %sr : tensor<256x16xf32> to tensor<?x?xf32>
  vector.print str "skinny\n"
  call @stats2(%ds) : (tensor<?x?xf32>) -> ()
  %es = call @relerr2(%dsr, %ds) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%es) : (f32) -> ()

  %e_c = tensor.empty() : tensor<16x2048xf32>
  %d_c = tensor.cast %e_c : tensor<16x2048xf32> to tensor<?x?xf32>
  %f_c = call @fill2(%d_c, %c0_5, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %c = tensor.cast %f_c : tensor<?x?xf32> to tensor<16x2048xf32>
  %e_w = tensor.empty() : tensor<2048x256xf32>
  %d_w = tensor.cast %e_w : tensor<2048x256xf32> to tensor<?x?xf32>
  %f_w = call @fill2t(%d_w, %c1_1, %c0_5) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %f_w : tensor<?x?xf32> to tensor<2048x256xf32>
  %o = call @wide(%c, %w) : (tensor<16x2048xf32>, tensor<2048x256xf32>) -> tensor<16x256xf32>
  %or = call @wide_ref(%c, %w) : (tensor<16x2048xf32>, tensor<2048x256xf32>) -> tensor<16x256xf32>
  %do = tensor.cast %o : tensor<16x256xf32> to tensor<?x?xf32>
  %dor = tensor.cast %or : tensor<16x256xf32> to tensor<?x?xf32>
  vector.print str "wide\n"
  call @stats2(%do) : (tensor<?x?xf32>) -> ()
  %ew = call @relerr2(%dor, %do) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%ew) : (f32) -> ()

  %cs = call @colsum(%x) : (tensor<4096x64xf32>) -> tensor<1x64xf32>
  %csr = call @colsum_ref(%x) : (tensor<4096x64xf32>) -> tensor<1x64xf32>
  %dcs = tensor.cast %cs : tensor<1x64xf32> to tensor<?x?xf32>
  %dcsr = tensor.cast %csr : tensor<1x64xf32> to tensor<?x?xf32>
  vector.print str "colsum\n"
  call @stats2(%dcs) : (tensor<?x?xf32>) -> ()
  %ecs = call @relerr2(%dcsr, %dcs) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%ecs) : (f32) -> ()

  %e_r = tensor.empty() : tensor<4x32768xf32>
  %d_r = tensor.cast %e_r : tensor<4x32768xf32> to tensor<?x?xf32>
  %f_r = call @fill2(%d_r, %c1_1, %c1_0) : (tensor<?x?xf32>, f32, f32) -> tensor<?x?xf32>
  %waves = tensor.cast %f_r : tensor<?x?xf32> to tensor<4x32768xf32>
  // A ramp along each row, steeper in later rows: every row's maximum is in
  // its last chunk and differs from the others'.
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%waves : tensor<4x32768xf32>) {
  ^bb0(%wave: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ij = arith.muli %i, %j : index
    %ramp_i = arith.addi %ij, %j : index
    %ramp_n = arith.index_cast %ramp_i : index to i64
    %ramp = arith.sitofp %ramp_n : i64 to f32
    %slope = arith.constant 1.0e-4 : f32
    %rise = arith.mulf %ramp, %slope : f32
    %v = arith.addf %wave, %rise : f32
    linalg.yield %v : f32
  } -> tensor<4x32768xf32>
  %rm = call @rowmax(%r) : (tensor<4x32768xf32>) -> tensor<4x1xf32>
  %rmr = call @rowmax_ref(%r) : (tensor<4x32768xf32>) -> tensor<4x1xf32>
  %drm = tensor.cast %rm : tensor<4x1xf32> to tensor<?x?xf32>
  %drmr = tensor.cast %rmr : tensor<4x1xf32> to tensor<?x?xf32>
  vector.print str "rowmax\n"
  call @stats2(%drm) : (tensor<?x?xf32>) -> ()
  %erm = call @relerr2(%drmr, %drm) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  call @report(%erm) : (f32) -> ()
  return
}
