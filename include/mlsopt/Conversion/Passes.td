//===- Passes.td - Conversions into and out of mlsopt's dialects ----------===//

#ifndef MLSOPT_CONVERSION_PASSES_TD
#define MLSOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToKernel : Pass<"convert-linalg-to-kernel"> {
  let summary = "Import linalg on tensors into the kernel dialect";
  let description = [{
    Rewrites, inside any function, what the kernel dialect can express:

    - `linalg.matmul`, `linalg.batch_matmul` (any `indexing_maps`, so the
      transposed variants too), `linalg.contract` and matmul-shaped generics,
      into `kernel.matmul` plus `kernel.transpose` for permuted operands; a
      zero-filled init is dropped, another constant fill is added as a scalar
      (`kernel.add_scalar`), any other init is added; one whose left
      operand and result have several row dims the right operand does not
      index, `(b, m, k) x (k, n)`, rows contiguous in the left operand, into
      a matmul of the flattened rows between a `tensor.collapse_shape` and a
      `tensor.expand_shape`, then a `kernel.transpose` where the result
      orders its dims otherwise (`[b, n, m]`); one with several M, N or K
      loops (an einsum `bhsd,hdo->bso`, `linalg.batch_reduce_matmul`, a
      batch matmul whose left operand has no batch dim) into a matmul of
      each group flattened, after a `kernel.transpose` where an operand
      does not hold a group's dims adjacent;
    - `linalg.transpose`;
    - a `linalg.generic` with several results, none of whose payloads
      reads another result's output, as one generic per result first;
    - `linalg.softmax`, decomposed as upstream does it (a max, exp of the
      difference, a sum, a division);
    - `linalg.reduce` and generics with reduction dims (several: one
      kernel reduction per dim, the innermost first) combining with
      `arith.addf` / `arith.maximumf` (or `arith.maxnumf`, which differs on
      NaN only) into `kernel.reduce_sum` / `kernel.reduce_max` (with a
      `tensor.collapse_shape` when linalg drops the reduced dim, which
      kernel binary ops that broadcast it the same way read past), and with
      `arith.minimumf` / `arith.minnumf` into the negated `kernel.reduce_max`
      of the negated values; an init that is not the identity is added to a
      sum (`kernel.add`, or `kernel.add_scalar` for a constant fill) and
      bounds a maximum or minimum (`kernel.max_scalar` /
      `kernel.min_scalar` for a constant fill, `kernel.max` / `kernel.min`
      for a tensor);
    - elementwise generics with arith/math bodies, linalg's named elementwise
      ops, `linalg.elementwise`, `linalg.map` and arith/math ops on whole
      tensors (as upstream's `--convert-elementwise-to-linalg` makes them
      generics): one kernel op per body op,
      inputs broadcast through projected-permutation maps (reshaped for numpy
      broadcasting, transposed when permuted); constants become
      `mul_scalar` / `add_scalar` (a division by a constant c multiplies
      by 1.0 / c: exact when the inverse is, within an ulp of the quotient
      otherwise (an attention's scores / sqrt(128)); for an integer count n,
      a mean's, what the verifier reads as 1/n; a constant divided by a
      value, and a value to the power -1, `kernel.div` of a splat constant
      tensor by the value); the
      idioms `x * x`, `max(x, 0)`, `1 / (1 + exp(-x))`, `x * sigmoid(x)`,
      the erf form of gelu (multiplying by 1/sqrt(2) or, as torch-mlir
      writes it, dividing by sqrt(2)) and `1 / sqrt(x)` (constant exactly 1, computed in
      f32) become `square`, `relu`, `sigmoid`, `silu`, `gelu` and `rsqrt`,
      `math.absf` becomes `max(x, -x)` (exact; there is no abs op),
      `arith.maximumf` / `arith.minimumf` of two values (torch.maximum,
      torch.minimum) `max` / `min`, and so do `arith.maxnumf` /
      `arith.minnumf` (torch.fmax, torch.fmin, which return the other
      operand where one is NaN), `math.fma(a, b, c)` becomes `a * b + c`
      (within an ulp), torch-mlir's selects on a comparison of
      their own operands, `select(x > c, x, c)` and its mirror images (relu,
      clamp, threshold), become `relu` / `max_scalar` / `min_scalar`, and of
      two values, `select(x > y, x, y)` and its mirror images, `max` / `min`
      (NaN aside: an unordered comparison picks one side for it), and its
      leaky relu
      `select(x > 0, x, x * a)` with `0 <= a <= 1` becomes
      `relu(x) - a * relu(-x)` (exact), torch's elu `select(x > 0, x, a *
      (exp(x) - 1))` with `a > 0` becomes `relu(x) + min(a * (exp(x) - 1),
      0)` (exact; SELU's and an input scale's `select(x > 0, c * x, a *
      (exp(s * x) - 1))`, with c, s > 0, `c * relu(x)` and `exp(s * x)`), torch's softplus `select(b * x > 20, x, log1p(exp(b * x))
      / b)` (and Mish, which applies tanh to it) becomes `softplus(b * x) /
      b` (`softplus` itself for b = 1), `math.log1p` `log1p`, `math.floor`,
      `math.ceil` and `math.roundeven` (torch.round) `floor`, `ceil` and
      `round`, `math.log2` and `math.log10` `log(x)` times 1 / ln 2 and
      1 / ln 10, `math.exp2`
      `exp(x * ln 2)` (a base-2 softmax's, within |x ln 2| ulps),
      `math.powf` / `math.fpowi` to the
      power 2 `square` (of `x` for `|x|^2`, a vector norm's), to the power 3
      `square(x) * x` (within an ulp) and `math.powf` to 0.5 `sqrt`; in the
      element type, other integer powers up to 64 by squaring (`x^5 =
      square(square(x)) * x`, a negative one `1 / x^n`) and any other
      constant `exp(c * log(x))` (NaN for a negative x, as `powf`; within
      |c log x| ulps), and a
      constant cast in the body (an f64 eps truncated) is that constant,
      and `x / (1 + exp(-x))` `silu` (in f32 on f16/bf16 values too); GELU's
      tanh approximation spelled out (GPT-2's `0.5 * x * (1 + tanh(sqrt(2 /
      pi) * (x + 0.044715 * x^3)))`, in any association, its constants
      rounded to the element type) becomes `gelu_tanh`, and the logistic
      function spelled out through tanh (`0.5 * tanh(x / 2) + 0.5`, XLA's
      expansion) or through exp in separate ops (`1 / (1 + exp(-x))`)
      `sigmoid`, and x times it `silu` (matched by value, across linalg
      ops); a select between
      a constant and a value by one `arith.cmpi` of two loop indices, each
      side `linalg.index` plus or minus integer constants (through index
      casts), with coefficients +1 and -1 (a causal mask, `j > i + past`,
      or its complement) becomes `triangle_fill`; any other select of
      floats on a condition computed from loop indices, integer inputs and
      constants (a decode step's `key > past` with `%past: i64` an
      argument, `ids[j] == pad`) reads that condition as an `i1` mask that
      a generic of its own computes over the loops it varies along (it
      stays linalg), and becomes `where`;
      f16/bf16 bodies that extend to f32, compute one op and truncate become
      that op;
    - mixed precision, split exactly at its casts into `kernel.convert` ops
      and ops of one element type: an input the payload only extends
      (`arith.extf`) or only truncates is converted first (a generic that
      does nothing else is that conversion, and a named op such as an f16
      `linalg.matmul` into an f32 result is generalized first); in an
      all-parallel op, an `arith.truncf` of a computed value (torch-mlir's
      f16 softmax or bf16 RMSNorm computed in f32) becomes a generic that
      computes the value in f32, a conversion, and an input reading it, as
      does an `arith.extf` of one (Hugging Face's bf16 attention scale,
      extended to f32 for the softmax), computed in bf16; and
      a matmul or reduction of extended values, rounded back, is the kernel
      op on the narrow values (which accumulates in f32 and rounds once).
      An f16 payload that extends, computes one op and truncates is that
      f16 op, as above;
    - `linalg.broadcast` (which only adds dims) where a resulting
      `kernel.add` / `sub` / `mul` / `div` reads it: the kernel op reads the
      broadcast's input with size-1 dims in place of the added ones (a
      `tensor.expand_shape`; none for leading dims) when numpy broadcasting
      then gives the same result shape, and the broadcast goes once nothing
      else reads it; a kernel op of one operand (`int_to_float`, `where`,
      `exp`, ...) or a reduction along a dim the broadcast keeps computes
      on the broadcast's input and is broadcast after (sentence-transformers'
      mean pooling, `mask.unsqueeze(-1).expand(x.shape).float()`, converts
      and counts the mask itself: an integer broadcast stayed linalg);
    - a contraction whose right operand is a `linalg.broadcast` that adds the
      leading (batch) dims of the left operand and the result (torch-mlir's
      `torch.matmul` of a `[b, m, k]` batch by a `[k, n]` weight) reads the
      weight itself, through a map without those dims: one matmul of the
      flattened rows, no copy of the weight; a `linalg.transpose` of a
      broadcast is the broadcast of the transposed input (multi-query
      attention's one K head expanded to every query head, then
      transposed; also once the transpose is a `kernel.transpose`, when
      the expand was an `aten.expand` generic), so such a K is read in
      place too;
    - ops on the flattened rows: an elementwise kernel op, reduction or
      RMS norm that reads a `tensor.expand_shape` of rows (a
      linear layer's output on `[batch, seq, hidden]`) computes on the
      expand's source and is expanded after, and a `tensor.collapse_shape`
      of such an op's result (a linear layer's input) is the op computed on
      collapsed operands, wherever the op's dims allow it (its reduced or
      normalized dim is not merged; each broadcast operand is constant
      along, or spans, each merged group): the reshapes move to the
      arguments and results, where they are views, and a whole transformer
      block on `[batch, seq, hidden]` is one kernel program the search can
      fuse; equal reshapes of one value become one. The same holds for a
      decode step's `[b, 1, hidden]` (one token per sequence) where no
      reduction kept that size-1 dim, and for the single row of
      `[1, 1, hidden]`, whose row sums `[1, 1, 1]` collapsing to `[1, 1]`
      are taken as that row (the size-1 dims merged before the innermost,
      the same view), for conversions where the value they
      convert is computed by such an op (an f16 norm computed in f32), and
      for an operand the expand broadcasts along a dim it keeps whole (the
      `[b, s, 1]` gate of `x * sigmoid(x w)`). A binary op whose operands
      are reshapes of one shape that only add or drop size-1 dims computes
      before them; so do a binary op of such a collapse of a kernel op's
      result and an operand that broadcasts to it (`x.mean(1) * w`: the
      operand is reshaped alike) and a reduction of such a collapse (a
      loss's mean over per-row values);
    - a `tensor.collapse_shape` of a transpose whose merged dims stay
      consecutive in the operand (torch's K^T of `[b, h, s, d]` keys,
      collapsed to `[b h, d, s]` for a batch matmul) is the transpose of
      the collapsed operand, on the matmul's shape;
    - `tensor.concat` of static tensors (`torch.cat`) into `kernel.concat`,
      as are `tensor.insert_slice` ops that fill a `tensor.empty` slab by
      slab along one dim, and those that write slabs along one dim into
      any other tensor (a decode step's KV-cache write), between slices of
      that tensor, and a `tensor.pad` by a constant (`F.pad`), between
      splat constants along each padded dim;
    - a `tensor.extract_slice` with a stride that divides its dim
      (`x[..., ::2]`, `x[1::3]`) into a unit-stride window of the dim split
      into `[n / stride, stride]` (an expand, the window, and a collapse of
      its size-1 dim), which kernels load in place;
    - a generic that only copies its input along added dims, or along
      size-1 dims it reads at index 0 (torch-mlir's `aten.expand`), into the
      `linalg.broadcast` of the input without those size-1 dims, which the
      patterns above read through; a parallel generic whose inputs all leave
      out some loops (an addmm's bias written `b + 0.0` on every row), or
      a copy that also transposes, into the generic over the loops they
      read, then such a broadcast;
    - a float a payload converts from integers of its loop indices and
      constants alone (ALiBi's `slope * float(j - i)`, a clamped relative
      position), of up to 2^22 values, into a dense constant over the loops
      it reads, which the generic takes as one more input.
    - a contraction whose payload multiplies more than its two operands,
      `acc + f1 * ... * fn` in any association (`alpha * A B` in one
      generic, an einsum `ik,kj,k->ij`, an activation or a gain that
      upstream's `-linalg-fuse-elementwise-ops` folded into the matmul),
      into the plain contraction of two parallel generics, each the product
      of the factors that read one side of the matmul (its M and K loops,
      or its K and N loops), computed in the layout of an operand that reads
      them all; a finite constant goes to the smaller side (the same terms,
      so an f16 sum the scale keeps in range stays in range);
    - a `linalg.fill` of a constant, or a parallel generic yielding one,
      that no linalg op reads (a returned `torch.zeros_like` or
      `full_like`) into the splat `arith.constant` it fills;
    - a generic whose payload reads an element at constant indices from
      above (`tensor.extract %alpha[]`: torch's scalar passed as a 0-d
      tensor, `x * alpha`) into the same generic reading that tensor as an
      input through a constant map, which imports like any broadcast
      operand.

    Then, once the ops between batch matmuls are kernel ops:

    - grouped-query attention (Hugging Face's repeat_kv: keys and values
      broadcast to `[b, kv, rep, s, d]` and collapsed to the query heads'
      `[b, kv rep, s, d]`): a batch matmul by such a repeated operand (or
      its transpose) is the matmul of each group's query heads stacked as
      rows, `[b kv, rep m, k]`, by the operand as it is, reshaped back
      after; the ops up to the next matmul compute on the stacked rows. Only
      where they all can: each works per row and reads nothing else that
      varies along the rows (a causal mask or a `[s, s]` mask tensor
      cannot), and the chain ends at a matmul by repeated values, a reshape
      or a return; elsewhere the broadcasts stay;
    - a batch matmul of operands collapsed alike from more batch dims
      (torch's `[b, h]` heads merged for `linalg.batch_matmul`) computes on
      the uncollapsed operands, collapsed after, where an op between it and
      the next matmul stayed on those dims (a `[b, 1, 1, s]` padding mask or
      a `[1, h, s, s]` position bias, which the merged rows cannot
      broadcast); the ops that work per row between them follow;
    - an elementwise kernel op that reads a `tensor.collapse_shape` of a
      computed value merging its last dims alone (pairs stacked and
      flattened: GPT-J's `rotate_every_two`) computes on the collapse's
      source, its other operands split alike (a broadcast `[s, d]` table
      too), and an expand of such an op's result splits its operands: the
      rotary embedding computes on the pairs view and is one kernel (a
      table `repeat_interleave`d from `[s, d / 2]` is then a broadcast
      along the pairs, read through numpy broadcasting).

    Everything else stays as it is: convolutions, `linalg.broadcast` read by
    anything else (a left matmul operand, which the matmul reads as a
    batched operand, a reduction along an added dim, an op that stays, a
    binary op whose other operand is also size 1 there), bodies with
    other uses of `linalg.index` (a band of two comparisons, `j > 2 i`) or
    other ops, tensor ops that compute data (a `tensor.pad` by a value
    known only at run time, an insert along two dims), dynamic shapes, integer and f64 types, linalg on
    memrefs. The conversion is partial, the module stays valid and function
    signatures do not change.

    A safe softmax of f16 or bf16 values computed in f32 and rounded back
    (Hugging Face's `softmax(s, dtype=float32).to(s.dtype)`), whose widened
    values nothing else reads, becomes the safe softmax of the narrow values
    (`narrow-softmax`, on by default): the conversions it drops would cut an
    attention into three kernels, and its probabilities differ by a few
    units in the last place of the narrow type. So does one whose widened
    scores are scaled first (`scores.float() * scale`): the scale is
    computed in the narrow type, rounded once more as the product that made
    the scores was.
  }];
  let options = [
    Option<"narrowSoftmax", "narrow-softmax", "bool", /*default=*/"true",
           "Compute a softmax of f16 or bf16 values that the program widens "
           "to f32 and rounds back on the narrow values (kernel ops compute "
           "in f32 and round once), as the search can fuse it with the "
           "matmuls around it; false keeps the conversions">,
    Option<"remarkUnimported", "remark-unimported", "bool",
           /*default=*/"false",
           "Emit a remark on each linalg op left as it is, with the reason "
           "the import gave up where it has one (what --mlsopt-gpu-pipeline "
           "reports as an error later)">,
  ];
  let dependentDialects = ["::mlsopt::kernel::KernelDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvertKernelToLinalg : Pass<"convert-kernel-to-linalg"> {
  let summary = "Export kernel-dialect ops as linalg on tensors";
  let description = [{
    The way back for every pre-defined kernel op (and every block compute op
    outside a block graph), so another MLIR compiler can take mlsopt's output
    into its own pipeline. Elementwise ops become `linalg.generic` ops whose
    bodies are the arith/math computation of `ElementwiseMath.h`, with
    broadcast operands read through projected-permutation maps; matmuls and
    reductions of f16 and bf16 accumulate in f32 and round once.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ConvertCustomKernelToLoops : Pass<"convert-custom-kernel-to-loops"> {
  let summary = "Lower custom kernels to loops that follow their schedule";
  let description = [{
    Turns every `kernel.custom` into the loops of its block graph, on tensors:
    a loop nest over the grid, inside it the for-loop over iterations with the
    accumulators as loop-carried values, tiles cut from the inputs with
    `tensor.extract_slice` through the imaps and fmaps, and output tiles
    inserted through the omaps. Thread graphs become `linalg.generic` ops.
    Block compute ops stay, for `--convert-kernel-to-linalg` to lower. Because
    the loops follow the schedule exactly, a wrong imap or tile offset gives
    wrong numbers on the CPU.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ConvertKernelToCustom : Pass<"convert-kernel-to-custom"> {
  let summary = "Wrap pre-defined kernel ops into default custom kernels";
  let description = [{
    Replaces each pre-defined kernel op outside custom kernels (matmul,
    elementwise ops, reductions, rms_norm, concat) by a `kernel.custom` that
    computes the same tensor, so that one code generator handles every
    kernel. The default block graphs:

    - elementwise ops, `rms_norm`, `concat`: the grid splits the output (the
      last dim into tiles of up to 512 elements, the dims before it one index
      per block; `rms_norm` keeps the whole last dim, `concat` the whole
      concatenated dim), one iteration, broadcast inputs replicated;
    - `matmul`: output tiles of up to 64x64 (grid x splits n, y splits m, z
      the innermost batch dim), the for-loop walks k in tiles of up to 64
      with a `sum` accumulator;
    - `reduce_sum` / `reduce_max`: the grid splits the kept dims, the
      for-loop walks the reduced dim, each iteration reduces its tile and a
      `sum` / `max` accumulator combines them.

    A matmul without batch dims, or a reduction, whose grid has fewer than
    16 blocks, which would leave most SMs idle (a Gram matrix X^T X, a
    projection to a few columns, column sums), and whose for-loop has at
    least 4 iterations is split instead, two kernels: in the first, grid z
    takes chunks of the reduced dim (k), as many as bring the blocks to
    about 64 (each chunk at least 16 long and held whole by its block, no
    for-loop), and the blocks store their partial results side by side
    along an output dim the grid does not split (a reduction's reduced
    dim); the second walks the chunks with a `sum` (`max`) accumulator, on
    a grid of its own that splits the other output dims as finely as it
    can (up to 64 blocks, last-dim tiles of at least 8).

    Tiles shrink until a block's tiles fit in `max-shared-memory` bytes
    (`--mlsopt-gpu-pipeline` passes the chip's opt-in maximum). An
    `rms_norm` whose row fits no tiling (its default graph keeps a whole
    row in a block) is computed as the ops it stands for, in f32 between
    two `kernel.convert`s: `square`, `reduce_sum` (which walks the row in
    its loop), `mul_scalar` by 1/n, `add_scalar` of epsilon, `rsqrt`, `mul`.
    A `concat` whose joined dim fits no tiling joins `tensor.expand_shape`
    views of its inputs that split that dim into `[n_i / g, g]`, `g` the
    greatest common size of the inputs along it (2 x 10000 + 1 x 10000
    becomes one 3 x 10000 concat whose blocks split the 10000), and a
    `tensor.collapse_shape` of the result; with `g` = 1 it is an error.
    Every block has 128 threads. `kernel.transpose` has no block graph (the
    block dialect has no transpose): it stays, and
    `--convert-custom-kernel-to-gpu` launches it as a copy kernel.
  }];
  let options = [
    Option<"maxSharedMemory", "max-shared-memory", "int64_t",
           /*default=*/"49152",
           "Shared memory in bytes a default block graph may use (48 KiB, "
           # "what every target gives without opt-in)">,
  ];
  let dependentDialects = ["::mlsopt::kernel::KernelDialect",
                           "::mlsopt::block::BlockDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FoldSlicesIntoLoads : Pass<"fold-slices-into-loads"> {
  let summary = "Custom kernels read the slices they take in place";
  let description = [{
    A `kernel.custom` input that is a static, unit-stride
    `tensor.extract_slice` of the same rank (torch slicing and `split`: the
    q, k and v of a fused QKV projection, the halves of a fused gate-up
    product or of a rotary embedding) becomes the slice's source, and each
    `block.load` of it loads through the slice's window. The slice, which
    the GPU lowering launches as a copy kernel, goes when nothing else reads
    it; a source the kernel reads already is passed once.

    Likewise an input that is a `linalg.broadcast` (torch.matmul of a matrix
    by a batch of matrices broadcasts the matrix) becomes the broadcast's
    source, viewed with a dim of size 1 where the broadcast adds one, when
    every load's tile holds one element along those dims and the loop does
    not walk them: the grid dims that split them no longer map to them, and
    each block reads the one copy instead of a copy kernel writing many.

    ```mlir
    %u = tensor.extract_slice %h[0, 2816] [8, 2816] [1, 1]
        : tensor<8x5632xf16> to tensor<8x2816xf16>
    %o = kernel.custom(%u) ... {
      %t = block.load %in0 imap <x = 1> : tensor<8x2816xf16> -> tensor<8x64xf16>
    // becomes
    %o = kernel.custom(%h) ... {
      %t = block.load %in0 window [0, 2816] [8, 2816] imap <x = 1>
          : tensor<8x5632xf16> -> tensor<8x64xf16>
    ```

    Part of `--fuse-kernel-elementwise` (and so of `--superoptimize`); the
    GPU pipeline runs it after `--convert-kernel-to-custom`, for the kernels
    of ops the search left alone.
  }];
  let dependentDialects = ["::mlsopt::block::BlockDialect"];
}

def ConvertCustomKernelToGPU : Pass<"convert-custom-kernel-to-gpu",
                                    "::mlir::ModuleOp"> {
  let summary = "Lower custom kernels to gpu.func kernels and launches";
  let description = [{
    Every function that holds custom kernels becomes a host function on
    memrefs in destination-passing style: its tensor arguments become
    memrefs, its results become trailing memref arguments (marked
    `mlsopt.result_index`), each `kernel.custom` becomes a
    `gpu.launch_func` of a `gpu.func` in the module's `gpu.module
    @mlsopt_kernels`, and tensors passed between kernels are `gpu.alloc`ed
    before their first launch and `gpu.dealloc`ed after their last. Each
    result buffer is written by a launch: a result that is an argument (or
    a view of one), or the same tensor as an earlier result, is written by a
    copy kernel (an identity `kernel.transpose`). A static
    `tensor.extract_slice` (any offsets and strides, rank-reducing too) and a
    `linalg.broadcast` on tensors, the data movement a front end writes
    between layers (the halves of a rotary embedding, repeat_kv), are copy
    kernels too, one element per thread. A linalg op the import left (an
    argmax, an embedding's `tensor.extract` gather, `math.atan`) runs as a
    *loop kernel*, with a remark that gives the import's reason: one thread
    per element of its first result, which runs the reduction loops in
    linalg's order and applies the payload (arith and math ops,
    `linalg.index`, `tensor.extract`) as linalg defines it. A loop kernel is
    correct, not fast: no tiles, no search. A long reduction (512
    iterations or more) into fewer than 16384 elements whose payload folds
    with an associative op (a sum, a max) or selects by a strict, ordered
    comparison (an argmax) runs as two loop kernels instead: the partial results of
    chunks of its outermost reduction loop, then their combination in chunk
    order. A `linalg.fill` of a constant
    that it reads, as an input or as the init its results start from, is
    that constant (no launch); other inits are read from the tensor. In a module with
    no kernel op at all, the functions of such linalg ops run as loop
    kernels. A linalg op the import would take, where it was not run, is
    reported at that op, and so is one no loop kernel can run (dynamic
    shapes, `index` or complex elements, payload ops of other dialects),
    with both reasons. A function with kernel ops may otherwise hold only
    custom kernels, transposes, conversions, those slices and broadcasts
    (and the `tensor.empty` a broadcast writes), reshapes, dense tensor
    constants and its return. A function of
    data movement alone runs on the GPU as copy kernels too, and so does one
    that returns its tensor arguments or reshapes of them (what the search
    leaves of a sum over a dim of size 1): a copy fills each result buffer.
    Functions without kernel ops otherwise stay host code.

    Each `gpu.func` follows its block graph: the grid and thread block of the
    custom kernel, every tile in dynamic shared memory, block ops computed
    cooperatively by all threads of the block, the for-loop as an `scf.for`
    with f32 accumulators in shared memory, thread graphs fused into one
    register computation per element, and `block.store` writing the tiles
    through their omaps. Code quality, by op:

    - input iterators copy with 16-byte `cp.async` (`nvgpu.device_async_copy`)
      where the tile's rows allow it; tiles that change with the iteration
      are double-buffered, the next iteration's copy overlapping this one's
      compute; tiles that do not are loaded once, before the loop;
    - f16/bf16 `block.matmul` runs on tensor cores (`nvgpu.ldmatrix` and
      `nvgpu.mma.sync` m16n8k16, f32 accumulation) when n is a multiple of 8
      and k of 16; f32 `block.matmul` runs on tensor cores as tf32
      (`nvvm.convert.float.to.tf32` with round-to-nearest-away, then
      `nvvm.mma.sync` m16n8k8, f32 accumulation) when n and k are multiples
      of 8, unless `allow-tf32=false`; other matmuls are CUDA-core FMA
      loops; a warp computes up to 16 of its 16x8 result fragments in one
      walk over k, loading each A and B operand fragment they share once
      per step; a thread graph that is the product's only reader is
      applied to the fragments in registers (after a barrier where it
      reads the operands, waits for a copy or shares their bytes), and the
      product is then never stored;
    - elementwise ops and thread graphs take up to 16 bytes of a row per
      thread and access;
    - reductions and `rms_norm` give each row to a warp, which combines its
      lanes with `gpu.shuffle xor`;
    - output savers write 16-byte vectors.

    A kernel op outside a custom kernel is an error: run
    `--convert-kernel-to-custom` first.
  }];
  let statistics = [
    Statistic<"numFusedEpilogues", "fused-epilogues",
               "Thread graphs applied to mma fragments in registers">,
    Statistic<"numLoopKernels", "loop-kernels",
               "Linalg ops the import left, run as loop kernels">,
    Statistic<"numComputedOperands", "computed-operands",
               "Custom kernel operands computed where loaded, no loop kernel">,
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip: sm_80, sm_86, sm_89 or sm_90">,
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"true",
           "Run f32 matmuls on tensor cores with their operands rounded to "
           "tf32 (10-bit mantissa), like PyTorch's allow_tf32; false keeps "
           "them exact, as FMA loops on CUDA cores">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::func::FuncDialect",
                           // The import's patterns, which say why a linalg op
                           // the import left cannot run, build ops of these
                           // (on a copy of the function).
                           "::mlsopt::kernel::KernelDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def ExternDynamicSharedMemory : Pass<"mlsopt-extern-dynamic-shared-memory",
                                     "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory of NVVM kernels extern";
  let description = [{
    Upstream `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an
    internal zero-length `llvm.mlir.global` in address space 3. The NVPTX
    backend then demotes it to a one-byte `.shared` variable of the kernel,
    and every tile past its first byte is out of its bounds (ptxas says
    "Potential out of bound access"). CUDA's dynamic shared memory is an
    `.extern .shared` array at module scope: this pass gives the zero-length
    address-space-3 globals external linkage, which NVPTX prints that way.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def DropBinaryTimings : Pass<"mlsopt-drop-binary-timings", "::mlir::ModuleOp"> {
  let summary = "Remove compile-time measurements from gpu.binary objects";
  let description = [{
    Upstream `gpu-module-to-binary` records how long each step took in the
    properties of every `#gpu.object` (`LLVMIRToISATimeInMs`, and the other
    `...TimeInMs` entries). Those milliseconds differ from run to run, so the
    same input would give a different module each time; this pass removes
    every property whose name ends in `TimeInMs` and keeps the others (the
    optimization level). The GPU pipeline runs it last.
  }];
}

def DecomposeLinalgAggregates : Pass<"mlsopt-decompose-linalg-aggregates"> {
  let summary = "Decompose aggregated linalg ops (linalg.softmax) for the "
                "loop lowering";
  let description = [{
    Linalg ops that implement `AggregatedOpInterface` (`linalg.softmax`, as
    IREE and torch-mlir emit it) stand for several generic ops and have no
    lowering to loops of their own. This pass replaces each by the ops its
    `decomposeOperation` builds (for softmax: the maximum, the exponentials
    of the shifted values, their sum and the division, over its dimension),
    so that `--mlsopt-cpu-pipeline` runs a linalg program that
    `--convert-linalg-to-kernel` did not import, or only partly. One that
    cannot be decomposed is an error at the op.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def TileContractionsForCPU : Pass<"mlsopt-tile-contractions-for-cpu",
                                  "::mlir::func::FuncOp"> {
  let summary = "Tile contractions on buffers and walk their columns "
                "innermost, for the CPU's caches";
  let description = [{
    `--convert-linalg-to-loops` nests a contraction's loops in its
    iteration order, the reduction innermost: `C[i, j] += A[i, k] * B[k, j]`
    then reads B down a column, a cache line per product, and a 512 x 4096
    by 4096 x 4096 matmul took minutes in the f32 check of
    `--verify-equivalence`. This pass tiles each contraction on buffers
    (`linalg.matmul`, `linalg.batch_matmul` and contraction generics over
    one K dim whose rhs and result are both indexed by the N dim last; with
    several K dims, tiling the innermost would sum the terms in another
    order) by 32 rows, 256
    columns and 256 terms, where a dim is larger, and interchanges each
    tile's loops to batch, M, K, N: the innermost loop then runs along rows
    of B and C, which LLVM vectorizes. Each element still sums its terms in
    order of K, so the results are the same to the bit.
    `--mlsopt-cpu-pipeline` runs it just before the loop lowering.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ExpandDynamicExpandShapes : Pass<"mlsopt-expand-dynamic-expand-shapes"> {
  let summary = "Rewrite memref.expand_shape ops with several dynamic sizes "
                "in one group as reinterpret casts";
  let description = [{
    Upstream's `--expand-strided-metadata` (LLVM 22) crashes on a
    `memref.expand_shape` that splits one dim into several dynamic ones
    (`memref<?xf32> into memref<?x?xf32>`), which a dynamic
    `tensor.expand_shape` bufferizes to. This pass rewrites each such op as
    what that pass would build: a `memref.reinterpret_cast` of the source's
    base buffer, at its offset, to the output sizes, with strides that
    multiply up each group from the source dim's stride. Other
    `memref.expand_shape` ops are left to the upstream pass.
    `--mlsopt-cpu-pipeline` runs it just before that pass.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def AccurateMathToLibm : Pass<"mlsopt-accurate-math-to-libm",
                              "::mlir::ModuleOp"> {
  let summary = "Lower f32 and f64 log1p and expm1 to libm calls";
  let description = [{
    Upstream's `--convert-math-to-llvm` lowers `math.log1p` as `log(1 + x)`
    and `math.expm1` as `exp(x) - 1`, which lose every digit of a small
    `x` (`log1p(1e-10)` was 0, `log1p(1e-7)` 19% too large): the terms of
    a softplus or a Mish far from zero. This pass calls libm's `log1pf`,
    `expm1f`, `log1p` and `expm1` for them instead, as the GPU lowering
    calls libdevice's. `--mlsopt-cpu-pipeline` runs it before that pass.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def OutlineLoopNests : Pass<"mlsopt-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Move each top-level scf.for nest of a long function into a "
                "noinline function of its own";
  let description = [{
    A lowered μGraph is one function whose ops are loop nests one after
    another. LLVM's scalar evolution walks back through every nest before a
    loop to find its guards, so compiling such a function grows with the
    square of its nests: a JIT compile of 40 MLP layers took about a
    minute. Where the module holds at least `min-nests` `scf.for` ops at
    the top level of its functions, each becomes a private function
    (`passthrough = ["noinline"]`, so LLVM keeps it apart) called in its
    place. What the nest reads from above becomes an argument, except
    constants, which are cloned into it so that its bounds stay known; its
    results are the function's. `--mlsopt-cpu-pipeline` runs it before
    lowering scf, and the finite-field JIT of `--verify-equivalence` does
    too.
  }];
  let options = [
    Option<"minNests", "min-nests", "unsigned", "256",
           "Fewest top-level loop nests in the module for outlining; below "
           "it the calls cost more compile time than the walks save">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def LaunchesToHostLoops : Pass<"mlsopt-launches-to-host-loops",
                                "::mlir::ModuleOp"> {
  let summary = "Run GPU launches of kernels whose threads never "
                "synchronize as loops on the host";
  let description = [{
    A test oracle for the kernels `--convert-custom-kernel-to-gpu` writes
    without shared memory: copy kernels (transposes, conversions, slices,
    broadcasts) and loop kernels (the linalg ops the import left). Each
    `gpu.launch_func` becomes loops over the blocks of its grid and the
    threads of each block, outermost first, around a copy of the kernel's
    body in which `gpu.block_id` and `gpu.thread_id` are the loops' indices
    and `gpu.grid_dim` and `gpu.block_dim` the launch's constant sizes;
    `gpu.alloc` and `gpu.memcpy` become `memref.alloc` and `memref.copy`,
    `gpu.dealloc` goes (the CPU pipeline's buffer deallocation frees what
    is allocated, and refuses a function that frees it already), and the
    `gpu.module`s no launch names any more are erased. The host function then runs through `--mlsopt-cpu-pipeline`,
    so the CPU checks the indices each kernel computes, which ptxas cannot.
    A kernel with a barrier, shared memory, warp shuffles or NVVM ops (a
    custom kernel's block graph) runs its threads together and is an error
    at its launch, as is a launch of non-constant size or one with
    dependencies (async tokens).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def CheckLoweredToLLVM : Pass<"mlsopt-check-lowered-to-llvm",
                              "::mlir::ModuleOp"> {
  let summary = "Fail if an op outside the LLVM dialect is left";
  let description = [{
    The last pass of `--mlsopt-cpu-pipeline`. The conversions before it are
    partial: an op none of them lowers stays, with
    `builtin.unrealized_conversion_cast`s around it, and the module would
    only fail later, in `mlir-runner` or the JIT, far from its cause. This
    pass reports the first such op, at its location, with its name. A
    nested module (one for another chip) is left alone, as the pipeline's
    module passes leave it.
  }];
}

#endif // MLSOPT_CONVERSION_PASSES_TD
