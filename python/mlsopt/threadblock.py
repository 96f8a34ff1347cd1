"""Mirage's threadblock graphs, as mlsopt's block dialect.

A Mirage script writes a custom kernel by hand with
``mi.new_threadblock_graph(grid_dim, block_dim, forloop_range, ...)``, tile
ops on it and ``graph.customized(inputs, tb_graph)``. Here that becomes one
``kernel.custom`` op: inputs are ``block.load`` input iterators inside the
``block.for_loop`` (``input_map`` is the imap, ``forloop_dim`` the fmap),
ops before ``forloop_accum`` run in the loop, ``forloop_accum`` is an
accumulator and the ops after it run after the loop, and ``new_output`` is a
``block.store`` (``output_map`` is the omap). An input the loop does not
walk (``forloop_dim=-1``) that an op after the loop reads (a bias, a
residual) is loaded there, once, by a ``block.load`` after the loop.

Tiles are typed as they are built, by the shape rules the block dialect
verifies; the μGraph rules (exact tiling, output coverage, shared memory)
are checked by the dialect's verifiers when ``customized`` builds the op.
"""

import math
import struct

from . import _mlsopt as _core
from ._mlsopt import MLIRError
from .kernel import (DTensor, _as_int, _caller, _define_elementwise_methods,
                     _dim_of, _not_provided)

_GRID_AXES = ("x", "y", "z")

# Mirage's forloop_accum kinds. Mirage reduces the last dim for "sum",
# "mean" and "rms" while it accumulates over iterations; mlsopt's
# accumulators combine iterations elementwise, so the reduction happens in
# the loop body, before the accumulator. "sum_todimx" folds the last dim
# onto reduction_dimx columns (column c sums columns c, c + dimx, ...).
_ACCUMULATORS = (None, "sum", "mean", "rms", "sum_todimx")


class STensor:
    """A tile of a threadblock graph (Mirage's name): in shared memory, in
    the for-loop or after it."""

    __slots__ = ("_graph", "_name", "dims", "dtype", "_in_loop")

    def __init__(self, graph, name, dims, dtype, in_loop):
        self._graph = graph
        self._name = name
        self.dims = tuple(dims)
        self.dtype = dtype
        self._in_loop = in_loop

    @property
    def num_dims(self):
        return len(self.dims)

    def dim(self, i):
        return _dim_of(self.dims, i)

    shape = property(lambda self: self.dims)

    def __repr__(self):
        where = "in the for-loop" if self._in_loop else "after the for-loop"
        return f"STensor(dims={self.dims}, dtype={self.dtype!r}, {where})"


def _map_entry(value, what):
    """An entry of an input_map or output_map, or a forloop_dim: a tensor dim,
    or -1 for none. Numpy-style negative dims (-2 for the second to last)
    are refused rather than read as none."""
    d = _as_int(value, what)
    if d < -1:
        raise ValueError(f"{what} entry {d}: a tensor dim (0 or more), or -1 "
                         "for none")
    return d


def _type(dims, dtype):
    return f"tensor<{'x'.join(str(d) for d in dims)}x{dtype.mlir_name}>"


def _loc(file, line):
    if not file:
        return ""
    escaped = file.replace("\\", "\\\\").replace('"', '\\"')
    return f' loc("{escaped}":{line}:0)'


def _dim_map(mapping):
    """Mirage's (x, y, z) map, -1 for "not mapped", as a #block.dim_map."""
    mapping = tuple(_as_int(d, "a grid map") for d in mapping)
    if len(mapping) != 3:
        raise ValueError(f"a grid map has three entries (x, y, z), got {mapping}")
    # Checked here, so that the error names the script's line: the block
    # dialect's verifier would point into the generated text.
    mapped = [d for d in mapping if d >= 0]
    if len(set(mapped)) != len(mapped):
        raise ValueError(f"grid map {mapping} splits a tensor dim by two grid "
                         "dims; map each tensor dim at most once")
    entries = [f"{axis} = {d}" for axis, d in zip(_GRID_AXES, mapping) if d >= 0]
    return "<" + ", ".join(entries) + ">"


class TBGraph:
    """A threadblock graph (Mirage's TBGraph): what every block of one
    custom kernel computes."""

    _MIRAGE_REPLACEMENTS = {
        "forloop_accum_rescale":
            "the block dialect's rescaling accumulator follows a running "
            "maximum, not a tensor of factors; build the kernel graph "
            "without the custom kernel and let superoptimize find the "
            "online softmax",
    }

    def __getattr__(self, name):
        raise _not_provided("TBGraph", name, self._MIRAGE_REPLACEMENTS)

    def __init__(self, grid_dim, block_dim, forloop_range, reduction_dimx=None):
        self.grid_dim = _dim3(grid_dim, "grid_dim")
        self.block_dim = _dim3(block_dim, "block_dim")
        self.forloop_range = _as_int(forloop_range, "forloop_range")
        if self.forloop_range < 1:
            raise ValueError(f"forloop_range must be positive, got {forloop_range}")
        # The width Mirage's "sum_todimx" accumulations fold the last dim to.
        self.reduction_dimx = reduction_dimx
        self._inputs = []   # (DTensor, STensor)
        # The for-loop body: (tile name, names of the tiles it reads, MLIR
        # line) per op.
        self._loop_ops = []
        self._accumulators = []  # (kind, yielded STensor, result STensor)
        self._post_ops = []  # MLIR lines after the loop
        self._outputs = []  # (STensor, omap text, output dims, loc)
        self._count = 0
        # Tiles the same in every iteration, of inputs the loop does not
        # walk and ops on those alone: tile name -> how to build it after
        # the loop (the load's text, or the op and its operands), and the
        # copy after the loop, built when an op there first reads it.
        self._invariant = {}
        self._after_loop = {}
        # Tiles new_input loaded: name -> (input index, imap, fmap, DTensor,
        # input_map), for the loads sum_todimx reads in their place.
        self._loads = {}

    # ----------------------------------------------------------------------
    # Inputs and outputs
    # ----------------------------------------------------------------------

    def new_input(self, dtensor, input_map, forloop_dim, store_in_dmem=False):
        if not isinstance(dtensor, DTensor):
            raise TypeError(f"expected a DTensor, got {type(dtensor).__name__}")
        # store_in_dmem only says where Mirage keeps the tile (device memory,
        # for a tile too large for shared memory); the values are the same.
        # mlsopt stages every tile through shared memory: a tile that does
        # not fit is an error of the chip's shared-memory limit, as for any
        # other input.
        if not isinstance(store_in_dmem, bool):
            raise TypeError("store_in_dmem must be a bool, got "
                            f"{type(store_in_dmem).__name__}")
        file, line = _caller()
        dims = list(dtensor.dims)
        input_map = tuple(_map_entry(d, "input_map") for d in input_map)
        imap = _dim_map(input_map)
        for axis, d in enumerate(input_map):
            if d >= len(dims):
                raise ValueError(f"input_map {input_map} names dim {d} of a "
                                 f"tensor with {len(dims)} dims")
            if d >= 0:
                dims[d] = _split(dims[d], self.grid_dim[axis],
                                 f"grid dim {_GRID_AXES[axis]}", dtensor.dims, d)
        forloop_dim = _map_entry(forloop_dim, "forloop_dim")
        fmap = ""
        if forloop_dim >= 0:
            if forloop_dim >= len(dims):
                raise ValueError(f"forloop_dim {forloop_dim} of a tensor with "
                                 f"{len(dims)} dims")
            dims[forloop_dim] = _split(dims[forloop_dim], self.forloop_range,
                                       "the for-loop range", dtensor.dims,
                                       forloop_dim)
            fmap = f" fmap {forloop_dim}"
        tile = self._new(dims, dtensor.dtype, in_loop=True)
        index = len(self._inputs)
        self._inputs.append((dtensor, tile))
        load = (f"block.load %in{index} imap {imap}{fmap} : "
                f"{_type(dtensor.dims, dtensor.dtype)} -> "
                f"{_type(tile.dims, tile.dtype)}{_loc(file, line)}")
        if not fmap:
            self._invariant[tile._name] = load
        self._loop_ops.append((tile._name, (), f"{tile._name} = {load}"))
        self._loads[tile._name] = (index, imap, fmap, dtensor, input_map)
        return tile

    def _loaded_after_loop(self, tile):
        """The invariant tile `tile` computed after the loop: its input
        loaded there, and the ops from those loads to it done again."""
        after = self._after_loop.get(tile._name)
        if after is None:
            how = self._invariant[tile._name]
            if isinstance(how, str):
                after = self._new(tile.dims, tile.dtype, in_loop=False)
                self._post_ops.append(f"{after._name} = {how}")
            else:
                name, operands, rule, file, line, dim, suffix = how
                after = self._op(name,
                                 [self._loaded_after_loop(t) for t in operands],
                                 rule, file, line, dim, suffix)
            self._after_loop[tile._name] = after
        return after

    def new_output(self, stensor, output_map, forloop_dim=-1):
        self._check(stensor)
        file, line = _caller()
        if _as_int(forloop_dim, "forloop_dim") != -1:
            raise ValueError("mlsopt stores outputs once, after the for-loop "
                             "(forloop_dim must be -1)")
        if (stensor._in_loop and stensor._name in self._invariant
                and self.forloop_range != 1):
            stensor = self._loaded_after_loop(stensor)
        if stensor._in_loop:
            if self.forloop_range != 1:
                raise ValueError(
                    f"{stensor!r} is still in the for-loop: close it with "
                    "forloop_accum before new_output")
            # One iteration: its value is the sum over iterations.
            stensor = self.forloop_accum(stensor)
        output_map = tuple(_map_entry(d, "output_map") for d in output_map)
        dims = list(stensor.dims)
        for axis, d in enumerate(output_map):
            if d >= len(dims):
                raise ValueError(f"output_map {output_map} names dim {d} of a "
                                 f"tile with {len(dims)} dims")
            if d >= 0:
                dims[d] *= self.grid_dim[axis]
        self._outputs.append((stensor, _dim_map(output_map), tuple(dims),
                              _loc(file, line)))

    def forloop_accum(self, A, acc=None):
        """Closes the loop for `A`: the sum over iterations (acc=None), or
        Mirage's reductions of the last dim across all iterations ("sum",
        "mean", "rms"), or the sum over iterations with the last dim folded
        onto `reduction_dimx` columns ("sum_todimx")."""
        self._check(A)
        if acc not in _ACCUMULATORS:
            raise ValueError(
                f"forloop_accum(acc={acc!r}): mlsopt has {list(_ACCUMULATORS)}")
        if not A._in_loop:
            raise ValueError(f"{A!r} is already accumulated")
        file, line = _caller()
        if acc == "sum_todimx":
            return self._accumulated("sum", self._folded_to_dimx(A, file, line))
        value, kind = A, "sum"
        if acc is not None:
            last = A.num_dims - 1
            if acc in ("mean", "rms"):
                # The tile's share of the mean (the accumulator averages the
                # iterations' shares), scaled before it is summed: the sum
                # of 64 squares of f16 values near 40 is past f16's 65504,
                # their mean is not.
                n = A.dims[last]
                scale = 1.0 / n if acc == "mean" else 1.0 / math.sqrt(n)
                value = self._op("mul_scalar", [value], "same", file, line,
                                 suffix=f", {scale!r}")
                kind = "mean"
            if acc == "rms":
                value = self._op("square", [value], "same", file, line)
            value = self._op("reduce_sum", [value], "reduce", file, line,
                             dim=last, suffix=f" dim {last}")
        result = self._accumulated(kind, value)
        if acc == "rms":
            result = self._op("sqrt", [result], "same", file, line)
        return result

    def _folded_to_dimx(self, A, file, line):
        """The loaded tile `A` with its last dim folded onto reduction_dimx
        columns: column c is the sum of A's columns c, c + dimx, c + 2 dimx,
        .... The block dialect has no such reduction; each group of dimx
        columns is read by a load of its own window of the input instead,
        and the loads are added."""
        dimx = self.reduction_dimx
        if isinstance(dimx, bool) or not isinstance(dimx, int) or dimx < 1:
            raise ValueError("forloop_accum(acc='sum_todimx') folds the last "
                             "dim to reduction_dimx columns: give the "
                             "threadblock graph a positive reduction_dimx, "
                             f"not {dimx!r}")
        loaded = self._loads.get(A._name)
        if loaded is None:
            raise ValueError(
                "mlsopt folds forloop_accum(acc='sum_todimx') for a tile of "
                "an input (new_input) only, reading each group of "
                f"reduction_dimx columns as a window of the input; {A!r} is "
                "computed")
        index, imap, fmap, dtensor, input_map = loaded
        last = A.num_dims - 1
        if last in input_map or fmap == f" fmap {last}":
            raise ValueError(
                "forloop_accum(acc='sum_todimx') folds the last dim of a tile "
                "whose last dim the grid and the for-loop do not split: "
                f"input_map {input_map}, {fmap.strip() or 'no fmap'}")
        n = A.dims[last]
        if n % dimx:
            raise ValueError(f"forloop_accum(acc='sum_todimx'): the last dim "
                             f"of {A!r} ({n}) is not a multiple of "
                             f"reduction_dimx ({dimx})")
        sizes = list(dtensor.dims[:-1]) + [dimx]
        dims = list(A.dims[:-1]) + [dimx]
        groups = []
        for k in range(n // dimx):
            tile = self._new(dims, A.dtype, in_loop=True)
            offsets = [0] * last + [k * dimx]
            self._loop_ops.append((tile._name, (), (
                f"{tile._name} = block.load %in{index} window "
                f"[{', '.join(map(str, offsets))}] "
                f"[{', '.join(map(str, sizes))}] imap {imap}{fmap} : "
                f"{_type(dtensor.dims, dtensor.dtype)} -> "
                f"{_type(dims, A.dtype)}{_loc(file, line)}")))
            groups.append(tile)
        folded = groups[0]
        for tile in groups[1:]:
            folded = self._op("add", [folded, tile], "broadcast", file, line)
        return folded

    def forloop_accum_max(self, A):
        """Closes the loop for `A` with the elementwise maximum over the
        iterations (Mirage's forloop_accum_max; a `max` accumulator)."""
        self._check(A)
        if not A._in_loop:
            raise ValueError(f"{A!r} is already accumulated")
        return self._accumulated("max", A)

    def _accumulated(self, kind, value):
        """The loop's result that a `kind` accumulator makes of `value`."""
        # The loop's results are the group %acc:N; this is result i.
        result = STensor(self, f"%acc#{len(self._accumulators)}", value.dims,
                         value.dtype, in_loop=False)
        self._accumulators.append((kind, value, result))
        return result

    # ----------------------------------------------------------------------
    # Tile ops (Mirage's names)
    # ----------------------------------------------------------------------

    def matmul(self, A, B):
        return self._op("matmul", [A, B], "matmul", *_caller())

    # add, sub, mul, div and the unary ops (exp, silu, ...): see
    # _define_elementwise_methods below the class.

    def rms_norm(self, A):
        return self._op("rms_norm", [A], "last_dim", *_caller())

    def clamp(self, A, min_val, max_val):
        """min(max(A, min_val), max_val), as Mirage's clamp (NaN stays
        NaN): block.max_scalar, then block.min_scalar."""
        file, line = _caller()
        low = self._op("max_scalar", [A], "same", file, line,
                       suffix=f", {_f64_literal(min_val)}")
        return self._op("min_scalar", [low], "same", file, line,
                        suffix=f", {_f64_literal(max_val)}")

    def reduction(self, A, dim):
        return self._reduce("reduce_sum", "reduction", A, dim)

    def reduction_max(self, A, dim):
        return self._reduce("reduce_max", "reduction_max", A, dim)

    def _reduce(self, op, what, A, dim):
        """block.`op` of `A` over `dim` (negative: from the last), for the
        Mirage method `what`."""
        dim = _as_int(dim, f"{what}'s dim")
        if dim < 0:
            dim += A.num_dims
        return self._op(op, [A], "reduce", *_caller(), dim=dim,
                        suffix=f" dim {dim}")

    def mul_scalar(self, A, scalar):
        return self._op("mul_scalar", [A], "same", *_caller(),
                        suffix=f", {_f64_literal(scalar)}")

    def concat(self, A, B, dim):
        dim = _as_int(dim, "concat's dim")
        return self._op("concat", [A, B], "concat", *_caller(), dim=dim,
                        suffix=f" dim {dim}")

    # ----------------------------------------------------------------------
    # Building the kernel.custom op
    # ----------------------------------------------------------------------

    def _mlir(self, file="", line=0):
        """@__mlsopt_custom: a function whose body is the kernel.custom op,
        its arguments the kernel's inputs; the op is located at `file` and
        `line` (the script's customized call), where errors about the whole
        kernel (its shared memory, its grid) point."""
        if not self._outputs:
            raise ValueError("the threadblock graph has no output (new_output)")
        if not self._accumulators:
            # A block graph is a for-loop and what follows it; a load after
            # the loop has no loop to follow.
            raise ValueError(
                f"the threadblock graph has no for-loop: with forloop_range="
                f"{self.forloop_range}, accumulate a tile with forloop_accum "
                "(a copy of inputs the loop does not walk needs "
                "forloop_range=1)")
        in_types = [_type(d.dims, d.dtype) for d, _ in self._inputs]
        out_types = [_type(dims, t.dtype) for t, _, dims, _ in self._outputs]
        args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(in_types))
        region_args = ", ".join(
            [f"%in{i}: {t}" for i, t in enumerate(in_types)]
            + [f"%out{i}: {t}" for i, t in enumerate(out_types)])
        results = "%r" if len(out_types) == 1 else f"%r:{len(out_types)}"
        grid = ", ".join(map(str, self.grid_dim))
        block = ", ".join(map(str, self.block_dim))
        lines = [
            f"func.func @__mlsopt_custom({args}) -> ({', '.join(out_types)}) {{",
            f"  {results} = kernel.custom ("
            + ", ".join(f"%arg{i}" for i in range(len(in_types)))
            + f") grid <{grid}> block <{block}> : "
            f"({', '.join(in_types)}) -> ({', '.join(out_types)}) {{",
            f"  ^bb0({region_args}):",
        ]
        accs = self._accumulators
        if accs:
            kinds = ", ".join(a[0] for a in accs)
            acc_types = ", ".join(_type(a[1].dims, a[1].dtype) for a in accs)
            lines.append(f"    %acc:{len(accs)} = block.for_loop "
                         f"{self.forloop_range} iterations accumulate "
                         f"({kinds}) : {acc_types} {{")
            # Only what the accumulators read is computed in the loop: not
            # an input read only after it, or only through sum_todimx's
            # windows, nor an invariant tile an op after it computes again.
            live = {a[1]._name for a in accs}
            for name, reads, _ in reversed(self._loop_ops):
                if name in live:
                    live.update(reads)
            lines += [f"      {text}" for name, _, text in self._loop_ops
                      if name in live]
            lines.append("      block.yield "
                         + ", ".join(a[1]._name for a in accs)
                         + f" : {acc_types}")
            lines.append("    }")
        lines += [f"    {op}" for op in self._post_ops]
        for i, (tile, omap, dims, loc) in enumerate(self._outputs):
            lines.append(f"    block.store {tile._name}, %out{i} omap {omap} : "
                         f"{_type(tile.dims, tile.dtype)} into "
                         f"{_type(dims, tile.dtype)}{loc}")
        lines.append("    block.return")
        lines.append("  }" + _loc(file, line))
        returned = ("%r" if len(out_types) == 1
                    else ", ".join(f"%r#{i}" for i in range(len(out_types))))
        lines.append(f"  return {returned} : {', '.join(out_types)}")
        lines.append("}")
        return "\n".join(lines)

    # ----------------------------------------------------------------------
    # Helpers
    # ----------------------------------------------------------------------

    def _new(self, dims, dtype, in_loop):
        name = f"%t{self._count}"
        self._count += 1
        return STensor(self, name, dims, dtype, in_loop)

    def _check(self, *tiles):
        for t in tiles:
            if not isinstance(t, STensor):
                raise TypeError(f"expected an STensor, got {type(t).__name__}")
            if t._graph is not self:
                raise ValueError(f"{t!r} belongs to another threadblock graph")

    def _op(self, name, operands, rule, file, line, dim=0, suffix=""):
        self._check(*operands)
        where = {t._in_loop for t in operands}
        if len(where) > 1:
            # A tile the same in every iteration (of inputs the loop does
            # not walk) is computed again after the loop for an op there.
            operands = [self._loaded_after_loop(t)
                        if t._in_loop and t._name in self._invariant else t
                        for t in operands]
            where = {t._in_loop for t in operands}
        if len(where) > 1:
            raise MLIRError(
                f"{file}:{line}: error: {name} mixes tiles of the for-loop "
                "with accumulated ones: accumulate every operand with "
                "forloop_accum first (only tiles of inputs with "
                "forloop_dim=-1, and ops on those alone, are also read after "
                "the loop)")
        dtypes = {t.dtype for t in operands}
        if len(dtypes) > 1:
            raise MLIRError(f"{file}:{line}: error: {name} of tiles of "
                            f"different element types {sorted(d.attribute for d in dtypes)}")
        dims = _core.infer_shape(rule, [list(t.dims) for t in operands], dim,
                                 file, line)
        dtype = operands[0].dtype
        result = self._new(dims, dtype, in_loop=where.pop())
        operand_types = ", ".join(_type(t.dims, t.dtype) for t in operands)
        text = (f"{result._name} = block.{name} "
                + ", ".join(t._name for t in operands)
                + f"{suffix} : {operand_types}{_loc(file, line)}")
        if not result._in_loop:
            self._post_ops.append(text)
            return result
        self._loop_ops.append((result._name, [t._name for t in operands], text))
        if all(t._name in self._invariant for t in operands):
            self._invariant[result._name] = (name, operands, rule, file, line,
                                             dim, suffix)
        return result


# The tile ops Mirage's threadblock graphs have, elementwise: the unary ones
# keep their operand's shape, the binary ones broadcast.
_define_elementwise_methods(
    TBGraph,
    unary=("exp", "silu", "gelu", "relu", "square", "sqrt"),
    binary=("add", "sub", "mul", "div", "max", "min"),
    build_unary=lambda graph, name, A: graph._op(name, [A], "same",
                                                  *_caller()),
    build_binary=lambda graph, name, A, B: graph._op(name, [A, B], "broadcast",
                                                     *_caller()))


def _f64_literal(value):
    """`value` as an MLIR f64 attribute literal: its shortest decimal, or
    its bit pattern for an infinity or NaN, which have no decimal form."""
    value = float(value)
    if math.isfinite(value):
        return repr(value)
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def _dim3(dims, what):
    # 2.5 blocks is an error, not 2 (int() truncated it silently).
    dims = tuple(_as_int(d, what) for d in dims)
    if len(dims) != 3 or any(d < 1 for d in dims):
        raise ValueError(f"{what} must be three positive sizes, got {dims}")
    return dims


def _split(size, parts, by, tensor_dims, dim):
    if size % parts:
        raise ValueError(f"dim {dim} of a tensor of dims {tensor_dims} "
                         f"({size}) does not split evenly by {by} ({parts})")
    return size // parts


def new_threadblock_graph(grid_dim, block_dim, forloop_range,
                          reduction_dimx=None):
    """A threadblock graph for one custom kernel of `grid_dim` blocks of
    `block_dim` threads, with a for-loop of `forloop_range` iterations
    (Mirage's mi.new_threadblock_graph)."""
    return TBGraph(grid_dim, block_dim, forloop_range, reduction_dimx)
