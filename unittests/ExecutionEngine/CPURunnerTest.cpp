//===- CPURunnerTest.cpp - μGraphs through mlir::ExecutionEngine ----------===//

#include "mlsopt/ExecutionEngine/CPURunner.h"
#include "MLIRTest.h"
#include "TestPrograms.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlsopt;

namespace {

// A reference exp of a matmul, a custom kernel computing it on a 2x2 grid
// with a 4-iteration loop, the same kernel with a valid but wrong imap, and
// small functions for the element types.
static std::string program() {
  return R"mlir(
func.func @reference(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %m = kernel.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  %e = kernel.exp %m : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
)mlir" + test::tiledMatmulKernel("fused", "x = 0", "x = 0, y = 1", "exp") +
         test::tiledMatmulKernel("wrong", /*xImap=*/"y = 0", "x = 0, y = 1",
                                 "exp") +
         R"mlir(
func.func @f16_exp(%x: tensor<8xf16>) -> tensor<8xf16> {
  %e = kernel.exp %x : tensor<8xf16>
  return %e : tensor<8xf16>
}
func.func @bf16_mul(%x: tensor<2x4xbf16>, %y: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %p = kernel.mul %x, %y : tensor<2x4xbf16>, tensor<2x4xbf16>
  return %p : tensor<2x4xbf16>
}
func.func @integer_signature(%x: tensor<8xi32>) -> tensor<8xi32> {
  return %x : tensor<8xi32>
}
func.func @integers(%x: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = kernel.int_to_float %x : tensor<4xi8> to tensor<4xf32>
  %u = kernel.int_to_float %x unsigned : tensor<4xi8> to tensor<4xf32>
  return %s, %u : tensor<4xf32>, tensor<4xf32>
}
func.func @masked(%x: tensor<2x4xf32>, %m: tensor<4xi1>) -> tensor<2x4xf32> {
  %b = kernel.where %m, 0.0, -1.0e4 : tensor<4xi1> to tensor<4xf32>
  %y = kernel.add %x, %b : tensor<2x4xf32>, tensor<4xf32>
  return %y : tensor<2x4xf32>
}
func.func @mask_result(%m: tensor<4xi1>) -> tensor<4xi1> {
  return %m : tensor<4xi1>
}
func.func @f64_signature(%x: tensor<8xf64>) -> tensor<8xf64> {
  return %x : tensor<8xf64>
}
func.func @scalars(%x: tensor<4xbf16>, %alpha: f32, %n: i32) -> tensor<4xbf16> {
  %a = tensor.from_elements %alpha : tensor<f32>
  %c = kernel.convert %a : tensor<f32> to tensor<bf16>
  %y = kernel.mul %x, %c : tensor<4xbf16>, tensor<bf16>
  %s = arith.sitofp %n : i32 to bf16
  %t = tensor.from_elements %s : tensor<bf16>
  %z = kernel.add %y, %t : tensor<4xbf16>, tensor<bf16>
  return %z : tensor<4xbf16>
}
)mlir";
}

class CPURunnerTest : public test::MLIRTest {
protected:
  // mlsopt's dialects, and tensor for the 0-d tensors of scalar arguments:
  // CPURunner registers what lowering needs itself.
  CPURunnerTest() {
    context.getOrLoadDialect<tensor::TensorDialect>();
    module = parse(program());
  }

  static HostTensor wave(ArrayRef<int64_t> shape, float seed) {
    HostTensor t = HostTensor::zeros(shape);
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j)
        t.data[i * shape[1] + j] = 0.25f * std::sin(0.37f * i + 0.11f * j + seed);
    return t;
  }

  OwningOpRef<ModuleOp> module;
};

TEST_F(CPURunnerTest, CustomKernelMatchesReference) {
  ASSERT_TRUE(module);
  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"reference", "fused", "wrong"});
  ASSERT_TRUE(succeeded(runner));
  SmallVector<HostTensor> inputs = {wave({8, 16}, 0.3f), wave({16, 8}, 1.1f)};

  auto reference = (*runner)->run("reference", inputs);
  auto fused = (*runner)->run("fused", inputs);
  auto wrong = (*runner)->run("wrong", inputs);
  ASSERT_TRUE(succeeded(reference) && succeeded(fused) && succeeded(wrong));
  ASSERT_EQ((*reference)[0].data.size(), 64u);

  // exp of a matmul: checked against a plain C++ loop too.
  const HostTensor &x = inputs[0], &w = inputs[1];
  float maxFused = 0, maxWrong = 0;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      float dot = 0;
      for (int k = 0; k < 16; ++k)
        dot += x.data[i * 16 + k] * w.data[k * 8 + j];
      float expected = std::exp(dot);
      EXPECT_NEAR((*reference)[0].data[i * 8 + j], expected, 1e-5f * expected);
      maxFused = std::max(maxFused, std::fabs((*fused)[0].data[i * 8 + j] -
                                              expected));
      maxWrong = std::max(maxWrong, std::fabs((*wrong)[0].data[i * 8 + j] -
                                              expected));
    }
  }
  EXPECT_LT(maxFused, 1e-5f);
  // The wrong imap reads other rows of X: the results differ visibly.
  EXPECT_GT(maxWrong, 1e-2f);
}

// f16 and bf16 functions run on f32 host buffers: inputs are rounded to the
// function's type and the function computes in it, so results carry its
// precision rather than f32's.
TEST_F(CPURunnerTest, SixteenBitFunctionsComputeInTheirPrecision) {
  ASSERT_TRUE(module);
  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"f16_exp", "bf16_mul"});
  ASSERT_TRUE(succeeded(runner));

  HostTensor x = HostTensor::zeros({8});
  for (int i = 0; i < 8; ++i)
    x.data[i] = 0.1f * i + 1e-4f; // 1e-4 is below f16's resolution near 0.7
  auto exp = (*runner)->run("f16_exp", {x});
  ASSERT_TRUE(succeeded(exp));
  for (int i = 0; i < 8; ++i) {
    float expected = std::exp(0.1f * i);
    // f16 has an 11-bit significand: relative error up to 2^-11 per
    // rounding (input, result), and the result is an f16 value.
    EXPECT_NEAR((*exp)[0].data[i], expected, 2e-3f * expected) << i;
    _Float16 asHalf = static_cast<_Float16>((*exp)[0].data[i]);
    EXPECT_EQ(static_cast<float>(asHalf), (*exp)[0].data[i]) << i;
  }

  // bf16 keeps 8 significant bits: 1 + 2^-10 rounds to 1, so the product of
  // two such values is exactly 1 (in f32 it would be about 1 + 2^-9).
  HostTensor a = HostTensor::zeros({2, 4}), c = HostTensor::zeros({2, 4});
  for (int i = 0; i < 8; ++i) {
    a.data[i] = 1.0f + 0x1p-10f;
    c.data[i] = i < 4 ? 1.0f + 0x1p-10f : 3.0f;
  }
  auto product = (*runner)->run("bf16_mul", {a, c});
  ASSERT_TRUE(succeeded(product));
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ((*product)[0].data[i], i < 4 ? 1.0f : 3.0f) << i;
}

// A boolean mask is passed as floats, true where nonzero (-0.5 included).
TEST_F(CPURunnerTest, TakesMasksAsNonzeroFloats) {
  ASSERT_TRUE(module);
  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"masked"});
  ASSERT_TRUE(succeeded(runner));
  HostTensor x = HostTensor::zeros({2, 4}), m = HostTensor::zeros({4});
  for (int i = 0; i < 8; ++i)
    x.data[i] = static_cast<float>(i);
  m.data = {1.0f, 0.0f, -0.5f, 0.0f};
  auto y = (*runner)->run("masked", {x, m});
  ASSERT_TRUE(succeeded(y));
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ((*y)[0].data[i], m.data[i % 4] != 0 ? i : i - 1e4f) << i;
}

// Integers are passed as their values: 200 is int8's -56 and uint8's 200.
TEST_F(CPURunnerTest, TakesIntegersAsTheirValues) {
  ASSERT_TRUE(module);
  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"integers"});
  ASSERT_TRUE(succeeded(runner));
  HostTensor x = HostTensor::zeros({4});
  x.data = {0.0f, 1.0f, -3.0f, 200.0f};
  auto y = (*runner)->run("integers", {x});
  ASSERT_TRUE(succeeded(y));
  EXPECT_EQ((*y)[0].data, (std::vector<float>{0, 1, -3, -56}));
  EXPECT_EQ((*y)[1].data, (std::vector<float>{0, 1, 253, 200}));
}

// Integer and mask results (an argmax's indices, which a linalg op the
// import left computes) come back as their values: int32's -3 and 200000,
// a mask's 0 and 1.
TEST_F(CPURunnerTest, ReturnsIntegersAsTheirValues) {
  ASSERT_TRUE(module);
  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"integer_signature", "mask_result"});
  ASSERT_TRUE(succeeded(runner));
  HostTensor x = HostTensor::zeros({8});
  x.data = {0, 1, -3, 200000, 7, -8, 65536, 2};
  auto y = (*runner)->run("integer_signature", {x});
  ASSERT_TRUE(succeeded(y));
  EXPECT_EQ((*y)[0].data, x.data);
  HostTensor m = HostTensor::zeros({4});
  m.data = {1.0f, 0.0f, -0.5f, 0.0f};
  auto r = (*runner)->run("mask_result", {m});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ((*r)[0].data, (std::vector<float>{1, 0, 1, 0}));
}

// A scalar argument is passed as a 0-d tensor, one element: that of the
// tensor.from_elements the import reads it as, or the scalar itself.
TEST_F(CPURunnerTest, TakesScalarArgumentsAsZeroDimensionalTensors) {
  ASSERT_TRUE(module);
  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"scalars"});
  ASSERT_TRUE(succeeded(runner));
  HostTensor x = HostTensor::zeros({4});
  x.data = {1, -2, 0.5, 3};
  HostTensor alpha = HostTensor::zeros({}), n = HostTensor::zeros({});
  alpha.data = {4};
  n.data = {-3};
  auto y = (*runner)->run("scalars", {x, alpha, n});
  ASSERT_TRUE(succeeded(y));
  EXPECT_EQ((*y)[0].data, (std::vector<float>{1, -11, -1, 9}));
  // A scalar given as a vector of one element is the wrong shape.
  EXPECT_TRUE(failed((*runner)->run("scalars", {x, x, n})));
}

TEST_F(CPURunnerTest, RejectsWhatItCannotRun) {
  ASSERT_TRUE(module);
  test::DiagnosticCollector collect = collectDiagnostics();
  EXPECT_TRUE(failed(CPURunner::create(*module, {"missing"})));
  EXPECT_NE(diagnostics.find("no function @missing to run"), std::string::npos)
      << diagnostics;
  EXPECT_TRUE(failed(CPURunner::create(*module, {"f64_signature"})));
  EXPECT_NE(diagnostics.find("must take and return statically shaped f16, "
                             "bf16, f32 or integer (i1 for masks) tensors"),
            std::string::npos)
      << diagnostics;

  FailureOr<std::unique_ptr<CPURunner>> runner =
      CPURunner::create(*module, {"reference"});
  ASSERT_TRUE(succeeded(runner));
  // Wrong input count or shape, or a function that was not prepared.
  EXPECT_TRUE(failed((*runner)->run("reference", {wave({8, 16}, 0)})));
  EXPECT_TRUE(failed(
      (*runner)->run("reference", {wave({8, 16}, 0), wave({8, 16}, 0)})));
  EXPECT_TRUE(failed((*runner)->run("fused", {})));
}

} // namespace
