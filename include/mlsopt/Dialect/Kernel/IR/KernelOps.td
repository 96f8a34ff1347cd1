//===- KernelOps.td - Kernel dialect operations ---------------------------===//

#ifndef MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_TD
#define MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_TD

include "mlsopt/Dialect/Kernel/IR/KernelAttributes.td"
include "mlsopt/Dialect/Common/TensorOps.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Pre-defined ops
//===----------------------------------------------------------------------===//

defm Kernel : MLSOpt_TensorOps<Kernel_Dialect, "tensors in device memory">;

def Kernel_TriangleFillOp
    : MLSOpt_TriangleFillOp<Kernel_Dialect, "a tensor", (ins), "", "">;

def Kernel_ConvertOp : MLSOpt_ConvertOp<Kernel_Dialect, "a tensor", [{
    This is the `arith.extf` / `arith.truncf` a front end writes
    around an f16 softmax or normalization computed in f32, or around a
    matmul that accumulates f16 operands into an f32 result. It moves data
    only: the search sees through it (the kernels it finds for a subprogram
    that mixes element types convert as they load and store), and the GPU
    lowering launches one that no kernel absorbs as a copy kernel.
  }], "tensor<8x64xf16> to tensor<8x64xf32>">;

def Kernel_WhereOp : MLSOpt_WhereOp<Kernel_Dialect, "tensor", [{
    The search takes its result as an input like any other: the kernel that
    reads it loads the mask's tiles and maps them there
    (`--fuse-kernel-elementwise`), so the float tensor is never written.
  }], "tensor<2x1x1x128xi1> to tensor<2x1x1x128xf32>">;

def Kernel_IntToFloatOp : MLSOpt_IntToFloatOp<Kernel_Dialect, "a tensor", [{
    Like `where`, the search takes its result as an input, and the kernel
    that reads it loads the integers and converts them there.
  }], "tensor<2x128xi64> to tensor<2x128xf32>">;

//===----------------------------------------------------------------------===//
// Custom kernels
//===----------------------------------------------------------------------===//

def Kernel_CustomOp : Kernel_Op<"custom", [IsolatedFromAbove,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "A kernel that mlsopt generates, defined by a block graph";
  let description = [{
    One GPU kernel launch of `grid` thread blocks with `block` threads each.
    Its region is a block graph (the `block` dialect): what every thread
    block computes. The region's arguments are the kernel's inputs followed by
    its outputs, all in device memory; the block graph reads inputs only
    through `block.load` inside its `block.for_loop`, and writes each output
    exactly once with `block.store`.

    ```mlir
    %o = kernel.custom (%x, %w) grid <96, 1, 1> block <128, 1, 1>
        : (tensor<8x4096xf16>, tensor<4096x6144xf16>) -> tensor<8x6144xf16> {
    ^bb0(%in0: tensor<8x4096xf16>, %in1: tensor<4096x6144xf16>,
         %out0: tensor<8x6144xf16>):
      ...
      block.return
    }
    ```
  }];
  let arguments = (ins Variadic<MLSOpt_Readable>:$inputs,
                       Kernel_Dim3Attr:$grid, Kernel_Dim3Attr:$block);
  let results = (outs Variadic<MLSOpt_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` `grid` $grid `block` $block attr-dict `:`
    functional-type($inputs, $outputs) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The region argument that stands for input `i` in device memory.
    ::mlir::BlockArgument getInputArgument(unsigned i) {
      return getBody().getArgument(i);
    }
    /// The region argument that stands for output `i` in device memory.
    ::mlir::BlockArgument getOutputArgument(unsigned i) {
      return getBody().getArgument(getInputs().size() + i);
    }
    /// True if `value` is one of the input arguments of the region.
    bool isInputArgument(::mlir::Value value) {
      auto arg = ::llvm::dyn_cast<::mlir::BlockArgument>(value);
      return arg && arg.getOwner() == &getBody().front() &&
             arg.getArgNumber() < getInputs().size();
    }
    /// True if `value` is one of the output arguments of the region.
    bool isOutputArgument(::mlir::Value value) {
      auto arg = ::llvm::dyn_cast<::mlir::BlockArgument>(value);
      return arg && arg.getOwner() == &getBody().front() &&
             arg.getArgNumber() >= getInputs().size();
    }
  }];
}

#endif // MLSOPT_DIALECT_KERNEL_IR_KERNELOPS_TD
