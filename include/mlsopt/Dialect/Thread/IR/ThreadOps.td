//===- ThreadOps.td - Thread dialect operations ---------------------------===//

#ifndef MLSOPT_DIALECT_THREAD_IR_THREADOPS_TD
#define MLSOPT_DIALECT_THREAD_IR_THREADOPS_TD

include "mlsopt/Dialect/Thread/IR/ThreadDialect.td"
include "mlsopt/Dialect/Common/TensorOps.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// The op kinds come from the same lists as the kernel and block ops, so the
// three levels always offer the same elementwise operations.
def Thread_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary operation",
    !foreach(i, !range(MLSOpt_UnaryOpList),
             I32EnumAttrCase<MLSOpt_UnaryOpList[i][0], i>)> {
  let cppNamespace = "::mlsopt::thread";
  let genSpecializedAttr = 0;
}
def Thread_UnaryKindAttr
    : EnumAttr<Thread_Dialect, Thread_UnaryKind, "unary_kind"> {
  let assemblyFormat = "$value";
}

def Thread_BinaryKind : I32EnumAttr<"BinaryKind",
    "elementwise binary operation",
    !foreach(i, !range(MLSOpt_BinaryOpList),
             I32EnumAttrCase<MLSOpt_BinaryOpList[i][0], i>)> {
  let cppNamespace = "::mlsopt::thread";
  let genSpecializedAttr = 0;
}
def Thread_BinaryKindAttr
    : EnumAttr<Thread_Dialect, Thread_BinaryKind, "binary_kind"> {
  let assemblyFormat = "$value";
}

def Thread_Scalar : AnyTypeOf<[F16, BF16, F32]>;

def Thread_GraphOp : Thread_Op<"graph", [IsolatedFromAbove, Pure,
    SingleBlockImplicitTerminator<"YieldOp">, MLSOpt_ElementwiseByIndex]> {
  let summary = "A chain of elementwise ops fused in registers";
  let description = [{
    Applies its body to every element of its result tiles. The body's
    arguments are one element of each operand; operands broadcast (numpy
    rules) to the shape shared by all results. The body holds thread ops only
    and ends in `thread.yield` with one element per result.

    ```mlir
    // silu(a) * b for one element, fused: the epilogue of two matmuls.
    %y = thread.graph (%a, %b) : (tensor<8x64xf16>, tensor<8x64xf16>)
        -> tensor<8x64xf16> {
    ^bb0(%x: f16, %g: f16):
      %s = thread.unary silu %x : f16
      %m = thread.binary mul %s, %g : f16
      thread.yield %m : f16
    }
    ```
  }];
  let arguments = (ins Variadic<MLSOpt_Readable>:$inputs);
  let results = (outs Variadic<MLSOpt_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body
  }];
  let hasRegionVerifier = 1;
}

def Thread_YieldOp : Thread_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"GraphOp">]> {
  let summary = "The elements a thread graph produces";
  let arguments = (ins Variadic<Thread_Scalar>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

def Thread_UnaryOp : Thread_Op<"unary", [Pure, SameOperandsAndResultType,
    HasParent<"GraphOp">]> {
  let summary = "Elementwise unary operation on one element";
  let description = [{
    ```mlir
    %y = thread.unary exp %x : f32
    ```
  }];
  let arguments = (ins Thread_UnaryKindAttr:$kind, Thread_Scalar:$input);
  let results = (outs Thread_Scalar:$result);
  let assemblyFormat =
      "custom<Kind>($kind) $input attr-dict `:` type($result)";
}

def Thread_BinaryOp : Thread_Op<"binary", [Pure, SameOperandsAndResultType,
    HasParent<"GraphOp">]> {
  let summary = "Elementwise binary operation on two elements";
  let description = [{
    ```mlir
    %z = thread.binary div %x, %y : f32
    ```
  }];
  let arguments = (ins Thread_BinaryKindAttr:$kind, Thread_Scalar:$lhs,
                       Thread_Scalar:$rhs);
  let results = (outs Thread_Scalar:$result);
  let assemblyFormat =
      "custom<Kind>($kind) $lhs `,` $rhs attr-dict `:` type($result)";
}

foreach op = MLSOpt_ScalarOpList in
def Thread_#op[1]#Op : Thread_Op<op[0], [Pure, SameOperandsAndResultType,
    HasParent<"GraphOp">]> {
  let summary = "Elementwise " # op[2] # " of one element and a constant";
  let description = [{
    ```mlir
    %y = thread.}] # op[0] # [{ %x, 1.250000e-01 : f32
    ```
  }];
  let arguments = (ins Thread_Scalar:$input, F64Attr:$scalar);
  let results = (outs Thread_Scalar:$result);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` type($result)";
}

def Thread_WhereOp : Thread_Op<"where", [Pure, HasParent<"GraphOp">]> {
  let summary = "One of two constants, chosen by one mask element";
  let description = [{
    `on_true` where the element is true, `on_false` where it is false: the
    `block.where` of a chain fused in registers, so that a mask tile is
    read as bytes and never stored as floats.

    ```mlir
    %b = thread.where %m, 0.000000e+00, 0xFFF0000000000000 : i1 to f32
    ```
  }];
  let arguments = (ins I1:$mask, F64Attr:$on_true, F64Attr:$on_false);
  let results = (outs Thread_Scalar:$result);
  let assemblyFormat = "$mask `,` $on_true `,` $on_false attr-dict `:` "
                       "type($mask) `to` type($result)";
}

def Thread_IntToFloatOp : Thread_Op<"int_to_float",
    [Pure, HasParent<"GraphOp">]> {
  let summary = "Converts one integer element to a float";
  let description = [{
    The `block.int_to_float` of a chain fused in registers: signed unless
    `unsigned`, rounded to nearest.

    ```mlir
    %f = thread.int_to_float %x : i64 to f32
    ```
  }];
  let arguments = (ins AnyTypeOf<[I8, I16, I32, I64]>:$input,
                       UnitAttr:$is_unsigned);
  let results = (outs Thread_Scalar:$result);
  let assemblyFormat = "$input (`unsigned` $is_unsigned^)? attr-dict `:` "
                       "type($input) `to` type($result)";
}

def Thread_ConvertOp : Thread_Op<"convert", [Pure, HasParent<"GraphOp">]> {
  let summary = "Element type conversion of one element";
  let description = [{
    The element in the result's type: exact when it widens, rounded to
    nearest, ties to even, when it narrows. It is the `block.convert` of a
    chain fused in registers: a tile computed in f32 and rounded to f16 for
    a matmul is written to shared memory in f16 only.

    ```mlir
    %h = thread.convert %x : f32 to f16
    ```
  }];
  let arguments = (ins Thread_Scalar:$input);
  let results = (outs Thread_Scalar:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

#endif // MLSOPT_DIALECT_THREAD_IR_THREADOPS_TD
