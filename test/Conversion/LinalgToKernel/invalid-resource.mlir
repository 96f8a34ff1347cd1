// RUN: mlsopt-opt %s --convert-linalg-to-kernel --split-input-file -verify-diagnostics

// A weight in a dense_resource blob of another size than its type (17
// floats for a 4x4 weight, as a truncated or mislabelled export writes it)
// is refused: read as far as the type goes, it gives numbers from bytes
// that are not the weight.
func.func @resource_of_another_size(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'arith.constant' op cannot be read: its dense_resource 'short_weight' holds 68 bytes, where 'tensor<4x4xf32>' needs 16 elements}}
  %w = arith.constant dense_resource<short_weight> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      short_weight: "0x040000000000803F000000000000000000000000000000000000003F00000000000000000000000000000000000080BF000000000000000000000000000000000000004000000000"
    }
  }
#-}

// -----

// A dense_resource the module holds no data for.
func.func @resource_without_data(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'arith.constant' op cannot be read: the module holds no data for its dense_resource 'missing_weight' (a dialect_resources section without it)}}
  %w = arith.constant dense_resource<missing_weight> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
