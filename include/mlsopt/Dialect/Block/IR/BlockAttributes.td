//===- BlockAttributes.td - Block dialect attributes ----------------------===//

#ifndef MLSOPT_DIALECT_BLOCK_IR_BLOCKATTRIBUTES_TD
#define MLSOPT_DIALECT_BLOCK_IR_BLOCKATTRIBUTES_TD

include "mlsopt/Dialect/Block/IR/BlockDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Block_DimMapAttr : AttrDef<Block_Dialect, "DimMap"> {
  let mnemonic = "dim_map";
  let summary = "Which tensor dim each grid dim splits (imap, omap)";
  let description = [{
    Maps grid dims `x`, `y`, `z` to tensor dims. A mapped grid dim splits the
    tensor dim evenly among the blocks along it; a grid dim that is not listed
    is replicated: every block along it sees the whole tensor dim. Two grid
    dims may not split the same tensor dim.

    ```mlir
    #block.dim_map<x = 1>          // blockIdx.x picks a slice of dim 1
    #block.dim_map<x = 0, y = 2>
    #block.dim_map<>               // every block sees the whole tensor
    ```
  }];
  // -1 marks a replicated grid dim; the accessors hide it.
  let parameters = (ins "int64_t":$x, "int64_t":$y, "int64_t":$z);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "const ::mlsopt::GridToTensorDims &":$dims), [{
      return $_get($_ctxt, dims[0].value_or(-1), dims[1].value_or(-1),
                   dims[2].value_or(-1));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The tensor dim that grid dim `gridDim` (0 = x, 1 = y, 2 = z) splits.
    std::optional<int64_t> getTensorDim(unsigned gridDim) const {
      int64_t d = gridDim == 0 ? getX() : gridDim == 1 ? getY() : getZ();
      return d < 0 ? std::nullopt : std::optional<int64_t>(d);
    }
    /// All three mappings at once.
    ::mlsopt::GridToTensorDims getGridToTensorDims() const {
      return {getTensorDim(0), getTensorDim(1), getTensorDim(2)};
    }
  }];
}

def Block_AccumKind : I32EnumAttr<"AccumKind",
    "how a for-loop accumulator combines its iterations", [
  I32EnumAttrCase<"sum", 0>,
  I32EnumAttrCase<"max", 1>,
  I32EnumAttrCase<"mean", 2>,
  I32EnumAttrCase<"rms", 3>,
  I32EnumAttrCase<"rescale", 4>,
]> {
  let cppNamespace = "::mlsopt::block";
  let genSpecializedAttr = 0;
}

def Block_AccumulatorAttr : AttrDef<Block_Dialect, "Accumulator"> {
  let mnemonic = "accumulator";
  let summary = "How a for-loop accumulator combines the values of its iterations";
  let description = [{
    With `v_i` the value yielded in iteration `i` of `n`, elementwise:

    | kind | result |
    | --- | --- |
    | `sum` | `sum_i v_i` |
    | `max` | `max_i v_i` |
    | `mean` | `(sum_i v_i) / n` |
    | `rms` | `sqrt((sum_i v_i^2) / n)` |
    | `rescale by k` | `sum_i v_i * exp(m_i - M)`, where `m_i` is what the loop yields for its accumulator `k` (a `max` accumulator) in iteration `i` and `M = max_i m_i` is that accumulator's result |

    `rescale` is the online-softmax accumulator of FlashAttention: each
    iteration computes its values relative to its own maximum, and the
    accumulator brings them to the common maximum.

    Accumulators of f16 and bf16 tiles keep their running value in f32 and
    round it to the tile type once, after the last iteration.

    ```mlir
    #block.accumulator<sum>
    #block.accumulator<rescale by 0>
    ```
  }];
  let parameters = (ins EnumParameter<Block_AccumKind>:$kind,
                        OptionalParameter<"std::optional<int64_t>">:$scaleBy);
  let assemblyFormat = "`<` $kind (`by` $scaleBy^)? `>`";
  let genVerifyDecl = 1;
}

def Block_AccumulatorArrayAttr
    : TypedArrayAttrBase<Block_AccumulatorAttr, "accumulator array">;

#endif // MLSOPT_DIALECT_BLOCK_IR_BLOCKATTRIBUTES_TD
