// RUN: mlsopt-opt %s --convert-kernel-to-custom --split-input-file -verify-diagnostics

func.func @too_wide(%a: tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  // expected-error @+1 {{has no default block graph that fits in 49152 bytes of shared memory}}
  %n = kernel.rms_norm %a : tensor<2x65536xf32>
  return %n : tensor<2x65536xf32>
}
