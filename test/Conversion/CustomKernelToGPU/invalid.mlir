// RUN: mlsopt-opt %s --convert-custom-kernel-to-gpu=chip=sm_80 --split-input-file -verify-diagnostics

func.func @leftover(%a: tensor<64xf16>) -> tensor<64xf16> {
  // expected-error @+1 {{is not inside a custom kernel; run --convert-kernel-to-custom first}}
  %e = kernel.exp %a : tensor<64xf16>
  return %e : tensor<64xf16>
}

// -----

func.func @passthrough(%a: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf16>) {
  %e = kernel.custom (%a) grid <1, 1, 1> block <64, 1, 1>
      : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%in0: tensor<64xf16>, %out0: tensor<64xf16>):
    %r = block.for_loop 1 iterations accumulate (sum) : tensor<64xf16> {
      %t = block.load %in0 imap <> : tensor<64xf16> -> tensor<64xf16>
      block.yield %t : tensor<64xf16>
    }
    block.store %r, %out0 omap <> : tensor<64xf16> into tensor<64xf16>
    block.return
  }
  // expected-error @+1 {{returns function argument 0 unchanged}}
  return %e, %a : tensor<64xf16>, tensor<64xf16>
}
