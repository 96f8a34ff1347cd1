//===- TensorOps.td - Tensor ops shared by the kernel and block levels ----===//
//
// The kernel level computes on tensors in device memory and the block level on
// tiles in shared memory, with the same operations and the same shape rules.
// These classes define each operation once; KernelOps.td and BlockOps.td
// instantiate them for their dialect. The elementwise lists also drive the
// thread dialect's kind enums.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_DIALECT_COMMON_TENSOROPS_TD
#define MLSOPT_DIALECT_COMMON_TENSOROPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// [mnemonic, C++ class prefix, what it computes]
defvar MLSOpt_UnaryOpList = [
  ["exp", "Exp", "e raised to the operand"],
  ["log", "Log", "natural logarithm"],
  ["sqrt", "Sqrt", "square root"],
  ["rsqrt", "Rsqrt", "reciprocal square root, 1 / sqrt(x)"],
  ["square", "Square", "x * x"],
  ["silu", "Silu", "x * sigmoid(x)"],
  ["sigmoid", "Sigmoid", "1 / (1 + exp(-x))"],
  ["gelu", "Gelu", "x * Phi(x), the Gaussian error linear unit (erf form)"],
  ["relu", "Relu", "max(x, 0)"],
  ["tanh", "Tanh", "hyperbolic tangent"],
  ["erf", "Erf", "the Gauss error function"],
  ["neg", "Neg", "-x"],
  // GPT-2's, Gemma's and torch's gelu(approximate='tanh').
  ["gelu_tanh", "GeluTanh",
   "gelu's tanh approximation, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))"],
  // A rotary embedding's cos and sin of the position angles, where the
  // model computes them (Hugging Face's LlamaRotaryEmbedding.forward).
  ["sin", "Sin", "sine"],
  ["cos", "Cos", "cosine"],
  // Appended, not sorted in: a kind's place is its thread.unary enum value,
  // which keys its random function in the verifier.
  ["log1p", "Log1p", "log(1 + x)"],
  // torch.nn.functional.softplus at its defaults (beta 1, threshold 20),
  // which is also what Mish applies tanh to.
  ["softplus", "Softplus",
   "log(1 + exp(x)), and x itself where x > 20 (torch's threshold)"],
  // Rounding to integers, as fake quantization writes it (round(x / s) * s).
  ["floor", "Floor", "the largest integer not above x"],
  ["ceil", "Ceil", "the smallest integer not below x"],
  ["round", "Round", "the nearest integer, ties to even (torch.round)"],
];

// [mnemonic, C++ class prefix, what it computes]
defvar MLSOpt_BinaryOpList = [
  ["add", "Add", "lhs + rhs"],
  ["sub", "Sub", "lhs - rhs"],
  ["mul", "Mul", "lhs * rhs"],
  ["div", "Div", "lhs / rhs"],
  // torch.maximum and torch.minimum: NaN if either operand is NaN.
  ["max", "Max", "max(lhs, rhs)"],
  ["min", "Min", "min(lhs, rhs)"],
];

// [mnemonic, C++ class prefix, what it computes]: an element and a constant.
defvar MLSOpt_ScalarOpList = [
  ["mul_scalar", "MulScalar", "x * scalar"],
  ["add_scalar", "AddScalar", "x + scalar"],
  // Mirage's clamp(x, lo, hi) is min_scalar(max_scalar(x, lo), hi), as
  // torch.clamp is; NaN propagates through both.
  ["max_scalar", "MaxScalar", "max(x, scalar)"],
  ["min_scalar", "MinScalar", "min(x, scalar)"],
];

def MLSOpt_Tensor : StaticShapeTensorOf<[F16, BF16, F32]>;

// A boolean mask (torch's `bool` tensors: one byte per element in memory).
// Ops compute with floats only; a mask enters through `where`, which maps
// it to two constants, so kernels may read masks but never produce them.
def MLSOpt_Mask : StaticShapeTensorOf<[I1]>;

// An integer input (torch's int64 attention_mask, a uint8 mask), which
// enters the float computation through `int_to_float`.
def MLSOpt_IntTensor : StaticShapeTensorOf<[I8, I16, I32, I64]>;

// What kernels and tiles read: a tensor of floats, a mask or integers.
def MLSOpt_Readable : AnyTypeOf<[MLSOpt_Tensor, MLSOpt_Mask, MLSOpt_IntTensor]>;

// Each result element is computed from the operand elements at its index (a
// broadcast operand's at the broadcast index) and from nothing else, so a
// result may be written over an operand of its type that dies at the op
// (mlsopt/Dialect/Common/ElementwiseByIndex.h).
def MLSOpt_ElementwiseByIndex : NativeOpTrait<"ElementwiseByIndex">;

// An op whose result type follows from its operands by a shared shape rule.
// `rule` is the C++ expression that maps the operand shapes `shapes` (and the
// op's `adaptor`, for attributes) to the result shape; `where` names what the
// operands are at this level, for the docs.
class MLSOpt_InferredOp<Dialect dialect, string mnemonic, code rule,
                        list<Trait> traits = [],
                        Trait inference = InferTypeOpAdaptor>
    : Op<dialect, mnemonic, !listconcat(traits, [Pure, inference])> {
  let results = (outs MLSOpt_Tensor:$result);
  // Further member definitions of a subclass (its folder, say).
  code extraDefinitions = "";
  let extraClassDefinition = extraDefinitions # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::mlsopt::inferFromOperands(
          loc, adaptor.getOperands().getTypes(),
          [&](::llvm::ArrayRef<::llvm::ArrayRef<int64_t>> shapes)
              -> ::mlsopt::ShapeOrError { return }] # rule # [{; },
          inferred);
    }
  }];
}

// With `widening`, the product of f16 or bf16 operands may be an f32
// result (`-> tensor<...xf32>`, custom<WidenedResult>), its accumulated sum
// not rounded: a custom kernel that computes in f32 multiplies the tiles of
// f16 or bf16 inputs on the tensor cores as they are.
class MLSOpt_MatmulOp<Dialect dialect, string where, bit widening = 0>
    : MLSOpt_InferredOp<dialect, "matmul",
                        "::mlsopt::matmulShape(shapes[0], shapes[1])", [],
                        !if(widening, InferTypeOpAdaptorWithIsCompatible,
                            InferTypeOpAdaptor)> {
  let summary = "Batched matrix product of " # where;
  let description = [{
    `[..., m, k] x [..., k, n] -> [..., m, n]`; the leading (batch) dims of
    both operands must be equal. f16 and bf16 products accumulate in f32.

    ```mlir
    %c = }] # dialect.name # [{.matmul %a, %b : tensor<8x64xf16>, tensor<64x96xf16>
    ```
  }] # !if(widening, [{

    The product of f16 or bf16 operands may be f32, the accumulated sum
    unrounded (a kernel that computes in f32 keeps its products' operands
    narrow for the tensor cores):

    ```mlir
    %c = }] # dialect.name # [{.matmul %a, %b : tensor<8x64xbf16>, tensor<64x96xbf16> -> tensor<8x96xf32>
    ```
  }], "");
  let arguments = (ins MLSOpt_Tensor:$lhs, MLSOpt_Tensor:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)"
      # !if(widening, " `` custom<WidenedResult>(type($result), "
                      "ref(type($lhs)), ref(type($rhs)))", "");
  let extraDefinitions = !if(widening, [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                            ::mlir::TypeRange actual) {
      return isWidenedResult(inferred, actual);
    }
  }], "");
}

class MLSOpt_BinaryOp<Dialect dialect, list<string> op, string where>
    : MLSOpt_InferredOp<dialect, op[0],
                        "::mlsopt::broadcastShapes(shapes[0], shapes[1])",
                        [MLSOpt_ElementwiseByIndex]> {
  let summary = "Elementwise " # op[2] # " of " # where # ", with broadcasting";
  let description = [{
    Computes }] # op[2] # [{ elementwise. The operand shapes broadcast as in
    numpy: aligned on the right, a missing or size-1 dim stretches to the
    size of the other operand.

    ```mlir
    %c = }] # dialect.name # "." # op[0] # [{ %a, %b : tensor<8x64xf16>, tensor<8x1xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$lhs, MLSOpt_Tensor:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

class MLSOpt_UnaryOp<Dialect dialect, list<string> op, string where>
    : MLSOpt_InferredOp<dialect, op[0], "::mlsopt::sameShape(shapes[0])",
                        [MLSOpt_ElementwiseByIndex]> {
  let summary = "Elementwise " # op[2] # " of " # where;
  let description = "Computes " # op[2] # " elementwise.";
  let arguments = (ins MLSOpt_Tensor:$input);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class MLSOpt_ScalarOp<Dialect dialect, list<string> op, string where>
    : MLSOpt_InferredOp<dialect, op[0], "::mlsopt::sameShape(shapes[0])",
                        [MLSOpt_ElementwiseByIndex]> {
  let summary = "Elementwise " # op[2] # " of " # where # " and a constant";
  let description = [{
    Computes }] # op[2] # [{ for every element, with a compile-time constant
    `scalar`: e.g. the `1/sqrt(d)` of attention, the `1/n` of a mean, or the
    epsilon of a normalization.

    ```mlir
    %y = }] # dialect.name # "." # op[0] # [{ %x, 1.250000e-01 : tensor<8x64xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$input, F64Attr:$scalar);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` type($input)";
  let hasFolder = 1;
  // x * 1 is x in every float type (NaN and infinities too), so the scale
  // a front end writes for a head size of 1 costs no pass over the tile;
  // x + 0 is not (-0 + 0 is +0), nor is a clamp.
  let extraDefinitions = [{
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor) {
      if (getOperation()->getName().stripDialect() == "mul_scalar" &&
          getScalar().convertToDouble() == 1.0)
        return getInput();
      return {};
    }
  }];
}

class MLSOpt_ReduceOp<Dialect dialect, string mnemonic, string what,
                      string where>
    : MLSOpt_InferredOp<dialect, mnemonic,
        "::mlsopt::reduceShape(shapes[0], adaptor.getDim())"> {
  let summary = "Reduction of " # where # " by " # what # " over one dim";
  let description = [{
    Reduces dim `dim` by }] # what # [{. The reduced dim stays in the result
    with size 1, so the result broadcasts back against the operand.

    ```mlir
    %s = }] # dialect.name # "." # mnemonic # [{ %x dim 1 : tensor<8x64xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$input, I64Attr:$dim);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
}

class MLSOpt_RmsNormOp<Dialect dialect, string where>
    : MLSOpt_InferredOp<dialect, "rms_norm",
        "::mlsopt::normalizedDimShape(shapes[0], adaptor.getDim())"> {
  let summary = "RMS normalization of " # where # " over one dim";
  let description = [{
    `x / sqrt(mean(x^2 over dim) + epsilon)`, where `dim` is the last dim
    unless given (a key stored transposed, `[heads, d, n]`, is normalized
    over dim 1). The dim is printed only when it is not the last; an explicit
    last dim folds away, so each op has one spelling. The learnable scale of
    an RMSNorm layer is a separate `mul`, so the search may move it.

    ```mlir
    %y = }] # dialect.name # [{.rms_norm %x : tensor<8x4096xf16>
    %z = }] # dialect.name # [{.rms_norm %x {epsilon = 1.000000e-06 : f64} : tensor<8x4096xf16>
    %k = }] # dialect.name # [{.rms_norm %x dim 1 : tensor<2x64x4096xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "0.0">:$epsilon,
                       OptionalAttr<I64Attr>:$dim);
  let assemblyFormat = "$input (`dim` $dim^)? attr-dict `:` type($input)";
  let builders = [
    // Leaves `dim` out when it is the last dim: the one spelling of that op.
    OpBuilder<(ins "::mlir::Value":$input, "double":$epsilon,
                   "int64_t":$dim), [{
      auto rank = ::llvm::cast<::mlir::RankedTensorType>(input.getType())
                      .getRank();
      build($_builder, $_state, input, $_builder.getF64FloatAttr(epsilon),
            dim == rank - 1 ? ::mlir::IntegerAttr()
                            : $_builder.getI64IntegerAttr(dim));
    }]>
  ];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The normalized dim: `dim` when given, else the last.
    int64_t getNormalizedDim() {
      if (std::optional<uint64_t> dim = getDim())
        return static_cast<int64_t>(*dim);
      return ::llvm::cast<::mlir::RankedTensorType>(getInput().getType())
                 .getRank() - 1;
    }
  }];
  let extraDefinitions = [{
    // An explicit last dim is dropped in place, so that one op has one
    // spelling (the search compares programs by their text).
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor) {
      auto rank = ::llvm::cast<::mlir::RankedTensorType>(getInput().getType())
                      .getRank();
      if (!getDim() || static_cast<int64_t>(*getDim()) != rank - 1)
        return {};
      removeDimAttr();
      return getResult();
    }
  }];
}

class MLSOpt_ConcatOp<Dialect dialect, string where>
    : MLSOpt_InferredOp<dialect, "concat",
                        "::mlsopt::concatShape(shapes, adaptor.getDim())"> {
  let summary = "Concatenation of " # where # " along one dim";
  let description = [{
    ```mlir
    %c = }] # dialect.name # [{.concat %a, %b dim 1 : tensor<8x16xf16>, tensor<8x32xf16>
    ```
  }];
  let arguments = (ins Variadic<MLSOpt_Tensor>:$inputs, I64Attr:$dim);
  let assemblyFormat = "$inputs `dim` $dim attr-dict `:` type($inputs)";
}

class MLSOpt_TransposeOp<Dialect dialect, string where>
    : MLSOpt_InferredOp<dialect, "transpose",
        "::mlsopt::transposeShape(shapes[0], adaptor.getPermutation())"> {
  let summary = "Permutation of the dims of " # where;
  let description = [{
    Result dim `i` is operand dim `permutation[i]`. In a block graph it
    reads a tile loaded in the layout of its kernel input (a weight stored
    `[n, k]`, as a linear layer keeps it) in the order a matmul needs.

    ```mlir
    %t = }] # dialect.name # [{.transpose %k [0, 2, 1] : tensor<16x4096x64xf16>
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let assemblyFormat = "$input $permutation attr-dict `:` type($input)";
}

// An element type conversion between f16, bf16 and f32; `use` says what
// it is for at this level and `example` is its typical type pair.
class MLSOpt_ConvertOp<Dialect dialect, string where, string use,
                       string example>
    : Op<dialect, "convert", [Pure]> {
  let summary = "Element type conversion of " # where #
                " between f16, bf16 and f32";
  let description = [{
    Each element of the operand in the result's element type: exact when it
    widens (f16 or bf16 to f32), rounded to nearest, ties to even, when it
    narrows.}] # use # [{
    ```mlir
    %y = }] # dialect.name # [{.convert %x : }] # example # [{
    ```
  }];
  let arguments = (ins MLSOpt_Tensor:$input);
  let results = (outs MLSOpt_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlsopt::verifyConversion(getOperation(), getInput().getType(),
                                        getResult().getType());
    }
  }];
}

// The causal mask of attention (torch's `masked_fill` of a `triu`): the only
// op whose elements depend on where they sit, so it is not elementwise by
// index and not part of MLSOpt_TensorOps; each level says where its operand
// sits (`placement`, in `placementFormat`).
class MLSOpt_TriangleFillOp<Dialect dialect, string where, dag placement,
                            string placementFormat, string placementDoc>
    : MLSOpt_InferredOp<dialect, "triangle_fill",
                        "::mlsopt::sameShape(shapes[0])"> {
  let summary = "Fills a triangle of " # where # " with a constant";
  let description = [{
    Element `i` of the result is `value` where
    `i[dims[1]] - i[dims[0]] >= diagonal`, and the operand's element
    elsewhere: with `dims = [rows, cols]` it is torch's
    `x.masked_fill(ones.triu(diagonal).bool(), value)`. The causal mask of
    attention fills `-inf` above the diagonal (`diagonal 1`); a query block
    that starts `p` positions into the keys has `diagonal p + 1`, and
    swapping the dims fills below a diagonal instead.
  }] # placementDoc # [{

    ```mlir
    %m = }] # dialect.name # [{.triangle_fill %s dims [1, 2] diagonal 1 value 0xFFF0000000000000}] # placementFormat # [{ : tensor<8x128x128xf32>
    ```
  }];
  let arguments = !con((ins MLSOpt_Tensor:$input, DenseI64ArrayAttr:$dims,
                            I64Attr:$diagonal, F64Attr:$value), placement);
  let assemblyFormat = "$input `dims` $dims `diagonal` $diagonal `value` "
                       "$value " # placementFormat # " attr-dict `:` "
                       "type($input)";
  let hasVerifier = 1;
}

// torch.where(mask, a, b) of two constants: how a boolean mask enters the
// float computation. `use` says what it is for at this level and `example`
// is a typical shape.
class MLSOpt_WhereOp<Dialect dialect, string where, string use,
                     string example>
    : Op<dialect, "where", [Pure, MLSOpt_ElementwiseByIndex]> {
  let summary = "Maps each element of a boolean " # where #
                " to one of two constants";
  let description = [{
    Element `i` of the result is `on_true` where `mask[i]` is true and
    `on_false` where it is false, in the result's element type. A front end
    writes it as a select on a mask: `torch.where(m, x, -inf)` imports as
    `x + where(m, 0, -inf)`, exact for every finite x, so the mask becomes
    the additive bias that attention already adds to its scores.}] # use # [{

    ```mlir
    %b = }] # dialect.name # [{.where %m, 0.000000e+00, 0xFFF0000000000000 : }] # example # [{
    ```
  }];
  let arguments = (ins MLSOpt_Mask:$mask, F64Attr:$on_true, F64Attr:$on_false);
  let results = (outs MLSOpt_Tensor:$result);
  let assemblyFormat = "$mask `,` $on_true `,` $on_false attr-dict `:` "
                       "type($mask) `to` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlsopt::verifyWhere(getOperation(), getMask().getType(),
                                   getResult().getType(), getOnTrue(),
                                   getOnFalse());
    }
  }];
}

// sitofp (uitofp with `unsigned`) of an integer input; `use` says what it
// is for at this level and `example` is a typical type pair.
class MLSOpt_IntToFloatOp<Dialect dialect, string where, string use,
                          string example>
    : Op<dialect, "int_to_float", [Pure, MLSOpt_ElementwiseByIndex]> {
  let summary = "Converts each integer of " # where # " to a float";
  let description = [{
    Each element of the operand, read as a signed integer (unsigned with
    `unsigned`), rounded to nearest in the result's element type: exact
    where it fits the type's significand. A front end writes it as
    `arith.sitofp` / `arith.uitofp` of an integer input, such as
    Hugging Face's `(1.0 - attention_mask.to(dtype)) * finfo.min` of an
    int64 mask.}] # use # [{

    ```mlir
    %f = }] # dialect.name # [{.int_to_float %x : }] # example # [{
    ```
  }];
  let arguments = (ins MLSOpt_IntTensor:$input, UnitAttr:$is_unsigned);
  let results = (outs MLSOpt_Tensor:$result);
  let assemblyFormat = "$input (`unsigned` $is_unsigned^)? attr-dict `:` "
                       "type($input) `to` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlsopt::verifyConversion(getOperation(), getInput().getType(),
                                        getResult().getType());
    }
  }];
}

// Instantiates every computation shared by the kernel and block levels in
// `dialect`, with C++ classes named `<Prefix>Op`.
multiclass MLSOpt_TensorOps<Dialect dialect, string where,
                            bit widening = 0> {
  def _MatmulOp : MLSOpt_MatmulOp<dialect, where, widening>;
  foreach op = MLSOpt_BinaryOpList in
    def _#op[1]#Op : MLSOpt_BinaryOp<dialect, op, where>;
  foreach op = MLSOpt_UnaryOpList in
    def _#op[1]#Op : MLSOpt_UnaryOp<dialect, op, where>;
  foreach op = MLSOpt_ScalarOpList in
    def _#op[1]#Op : MLSOpt_ScalarOp<dialect, op, where>;
  def _ReduceSumOp : MLSOpt_ReduceOp<dialect, "reduce_sum", "sum", where>;
  def _ReduceMaxOp : MLSOpt_ReduceOp<dialect, "reduce_max", "maximum", where>;
  def _RmsNormOp : MLSOpt_RmsNormOp<dialect, where>;
  def _ConcatOp : MLSOpt_ConcatOp<dialect, where>;
  def _TransposeOp : MLSOpt_TransposeOp<dialect, where>;
}

#endif // MLSOPT_DIALECT_COMMON_TENSOROPS_TD
