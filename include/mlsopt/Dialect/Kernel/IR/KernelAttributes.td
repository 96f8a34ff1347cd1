//===- KernelAttributes.td - Kernel dialect attributes --------------------===//

#ifndef MLSOPT_DIALECT_KERNEL_IR_KERNELATTRIBUTES_TD
#define MLSOPT_DIALECT_KERNEL_IR_KERNELATTRIBUTES_TD

include "mlsopt/Dialect/Kernel/IR/KernelDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Kernel_Dim3Attr : AttrDef<Kernel_Dialect, "Dim3"> {
  let mnemonic = "dim3";
  let summary = "Sizes along x, y and z, as for a CUDA grid or thread block";
  let description = [{
    Three positive sizes: `<64, 1, 1>`. Used for the grid of a custom kernel
    (how many thread blocks run it) and for its thread block (how many
    threads each block has).

    ```mlir
    #kernel.dim3<64, 2, 1>
    ```
  }];
  let parameters = (ins "int64_t":$x, "int64_t":$y, "int64_t":$z);
  let assemblyFormat = "`<` $x `,` $y `,` $z `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// x * y * z.
    int64_t getVolume() const { return getX() * getY() * getZ(); }
    /// The size along dim 0 (x), 1 (y) or 2 (z).
    int64_t getSize(unsigned dim) const {
      return dim == 0 ? getX() : dim == 1 ? getY() : getZ();
    }
  }];
}

#endif // MLSOPT_DIALECT_KERNEL_IR_KERNELATTRIBUTES_TD
