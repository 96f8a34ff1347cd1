// RUN: mlsopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{mlsopt.target must be one of sm_80, sm_86, sm_89, sm_90, got "sm_70"}}
module attributes {mlsopt.target = "sm_70"} {
  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}

// -----

// expected-error @+1 {{mlsopt.target must be one of sm_80, sm_86, sm_89, sm_90, got 90 : i64}}
module attributes {mlsopt.target = 90} {
  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}

// -----

func.func @reference(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
// expected-error @+1 {{mlsopt.equivalent_to names @missing, which is not a function here}}
func.func @fused(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @missing} {
  return %x : tensor<8xf32>
}

// -----

func.func @reference(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
// expected-error @+1 {{function type '(tensor<8xf16>) -> tensor<8xf16>' differs from '(tensor<8xf32>) -> tensor<8xf32>' of @reference; equivalent functions take and return the same tensors}}
func.func @fused(%x: tensor<8xf16>) -> tensor<8xf16> attributes {mlsopt.equivalent_to = @reference} {
  return %x : tensor<8xf16>
}

// -----

// expected-error @+1 {{a function cannot be mlsopt.equivalent_to itself}}
func.func @self(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = @self} {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @reference(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
// expected-error @+1 {{mlsopt.equivalent_to must name a function, as in @reference}}
func.func @fused(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.equivalent_to = "reference"} {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{mlsopt.equivalent_to belongs on a function}}
module attributes {mlsopt.equivalent_to = @m} {
  func.func @m(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = kernel.exp %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}

// -----

// expected-error @+1 {{unknown mlsopt attribute 'mlsopt.chip'; mlsopt knows mlsopt.target and mlsopt.equivalent_to}}
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> attributes {mlsopt.chip = "sm_90"} {
  %y = kernel.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
