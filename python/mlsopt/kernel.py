"""Kernel graphs with Mirage's Python API, over mlsopt's C++ libraries.

A KernelGraph is an MLIR module holding one function in the kernel dialect.
Every op is built (and its shape checked) by the C++ core as soon as it is
called; a shape error raises MLIRError with MLIR's diagnostic, located at the
caller's line.
"""

import collections.abc
import json
import math
import numbers
import operator
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np

from . import _mlsopt as _core
from ._mlsopt import MLIRError, UnavailableError


class dtype:
    """An element type: ``mlsopt.float16``, ``mlsopt.bfloat16`` or
    ``mlsopt.float32``. Mirage's other type names (``mlsopt.int8``, ...,
    ``mlsopt.float64``) exist so that scripts naming them import, but a graph
    cannot hold them. As in Mirage, ``name`` and ``str()`` are the short
    names (``"fp16"``, ``"bf16"``, ``"fp32"``, ``"int8"``, ...) and
    ``is_fp16()``, ``is_bf16()``, ... test for one."""

    __slots__ = ("name", "attribute", "mlir_name", "_core_type", "_numpy")

    def __init__(self, attribute, name, mlir_name, core_type, numpy_type):
        # `attribute` is the module attribute naming it (mlsopt.float16).
        self.attribute = attribute
        self.name = name
        self.mlir_name = mlir_name
        self._core_type = core_type
        # What CPU results come back as: numpy has no bfloat16, so bf16
        # results (rounded to bf16 by the program) come back as float32.
        self._numpy = numpy_type

    def __repr__(self):
        return f"mlsopt.{self.attribute}"

    def __str__(self):
        return self.name


def _define_dtype_tests(cls):
    # Mirage's is_fp16() ... is_uint64(), one per type name.
    for name in ("fp16", "bf16", "fp32", "fp64", "int1", "int8", "int16",
                 "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        def test(self, name=name):
            return self.name == name
        test.__name__ = f"is_{name}"
        test.__doc__ = f"Whether this is Mirage's {name!r}."
        setattr(cls, test.__name__, test)


_define_dtype_tests(dtype)

float16 = dtype("float16", "fp16", "f16", _core.ElementType.f16, np.float16)
bfloat16 = dtype("bfloat16", "bf16", "bf16", _core.ElementType.bf16,
                 np.float32)
float32 = dtype("float32", "fp32", "f32", _core.ElementType.f32, np.float32)

_DTYPES = (float16, bfloat16, float32)

# Mirage's other element types (mirage/_cython/core.pyx): names a ported
# script may mention, which no mlsopt graph holds (no core type).
# int8 to int64 are also the types of integer inputs a graph read by
# from_mlir may take (an int64 attention_mask, made floats by
# kernel.int_to_float); new_input does not take them.
int8 = dtype("int8", "int8", "i8", _core.ElementType.i8, np.int8)
int16 = dtype("int16", "int16", "i16", _core.ElementType.i16, np.int16)
int32 = dtype("int32", "int32", "i32", _core.ElementType.i32, np.int32)
int64 = dtype("int64", "int64", "i64", _core.ElementType.i64, np.int64)
uint8 = dtype("uint8", "uint8", "ui8", None, np.uint8)
uint16 = dtype("uint16", "uint16", "ui16", None, np.uint16)
uint32 = dtype("uint32", "uint32", "ui32", None, np.uint32)
uint64 = dtype("uint64", "uint64", "ui64", None, np.uint64)
float64 = dtype("float64", "fp64", "f64", None, np.float64)
_UNSUPPORTED_DTYPES = (int8, int16, int32, int64, uint8, uint16, uint32,
                       uint64, float64)
_DTYPE_NAMES = {
    "float16": float16, "f16": float16, "half": float16, "fp16": float16,
    "bfloat16": bfloat16, "bf16": bfloat16,
    "float32": float32, "f32": float32, "float": float32, "fp32": float32,
}


def _as_dtype(value):
    """Our dtype for `value`: a dtype, its name, a numpy or a torch dtype;
    TypeError for one a graph cannot hold (Mirage's mlsopt.int8, ...)."""
    if value is bool_:
        raise TypeError(
            "mlsopt.bool_ is the type of a mask a graph read by from_mlir "
            "takes as an input (kernel.where reads it); new_input makes "
            "float16, bfloat16 or float32 tensors")
    if isinstance(value, dtype):
        if value._core_type is None or value in _INTEGER_DTYPES:
            role = ("is the type of integer inputs that a graph read by "
                    "from_mlir may take" if value in _INTEGER_DTYPES else
                    "exists only so that Mirage scripts naming it import")
            raise TypeError(
                f"unsupported dtype {value!r}: mlsopt supports float16, "
                "bfloat16 and float32 (mlsopt.float16, mlsopt.bfloat16, "
                f"mlsopt.float32); {value!r} {role}")
        return value
    if isinstance(value, str):
        name = value
    else:
        # numpy dtypes and scalar types print as "float16"; torch dtypes as
        # "torch.float16".
        name = str(np.dtype(value)) if _is_numpy_dtype(value) else str(value)
        name = name.rsplit(".", 1)[-1]
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    raise TypeError(
        f"unsupported dtype {value!r}; mlsopt supports float16, bfloat16 "
        "and float32 (mlsopt.float16, mlsopt.bfloat16, mlsopt.float32)")


def _is_numpy_dtype(value):
    try:
        np.dtype(value)
        return True
    except TypeError:
        return False


# A boolean mask, which a graph read from MLIR may take as an input
# (`tensor<...xi1>`, read through kernel.where); no op makes one, so
# new_input does not take it.
bool_ = dtype("bool_", "bool", "i1", _core.ElementType.i1, np.bool_)

_INTEGER_DTYPES = (bool_, int8, int16, int32, int64)
_CORE_TO_DTYPE = {d._core_type: d for d in _DTYPES + _INTEGER_DTYPES}

# What superoptimize() optimizes for and ptx() lowers for unless told.
_DEFAULT_TARGET = _core.default_target()
# The chips mlsopt knows, checked here before a name goes into a pass
# pipeline, whose option parser would print its own complaint to stderr
# first.
_TARGETS = tuple(_core.supported_targets())


def _local_gpu_target():
    """The chip of the CUDA device torch sees, if the script has imported
    torch (Mirage's scripts do, for their inputs) and mlsopt knows the chip;
    else None. A program searched for another chip may need more shared
    memory than this one has, and then would not run here."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        if not torch.cuda.is_available():
            return None
        major, minor = torch.cuda.get_device_capability()
    except Exception:  # a torch without CUDA support, or no usable driver
        return None
    chip = f"sm_{major}{minor}"
    return chip if chip in _TARGETS else None


def _check_target(target):
    """`target` if it names a chip mlsopt knows, else ValueError."""
    if target not in _TARGETS:
        raise ValueError(f"unknown target {target!r}; supported targets: "
                         f"{', '.join(_TARGETS)}")
    return target


# The 64-bit signed range the dialects' shapes hold.
_MAX_DIM = 2**63 - 1


def _as_int(value, what):
    """`value` as a Python int, for the argument `what` names ("reduction's
    dim"): TypeError for anything but an integer (1.7 is not truncated)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r} "
                        f"({type(value).__name__})") from None


def _as_float(value, what):
    """`value` as a Python float, for the argument `what` names: a real
    number, or anything float() takes but a string (a 0-d array or torch
    scalar); TypeError otherwise (a string, a complex, a bool)."""
    error = TypeError(f"{what} must be a real number, got {value!r} "
                      f"({type(value).__name__})")
    if isinstance(value, (str, bytes, bool, np.bool_)) or (
            isinstance(value, numbers.Complex) and
            not isinstance(value, numbers.Real)):
        raise error
    try:
        return float(value)
    except (TypeError, ValueError):
        raise error from None


def _input_dims(dims):
    """`dims` as a tuple of Python ints: TypeError for a dim that is not an
    integer (8.5 is not truncated), ValueError for rank 0 or a dim past
    64 bits. The dialect checks that each is positive."""
    try:
        dims = tuple(dims)
    except TypeError:
        raise TypeError(f"dims must be a sequence of integers, got "
                        f"{dims!r}") from None
    checked = []
    for d in dims:
        if isinstance(d, (bool, np.bool_)):
            raise TypeError(f"dims must be integers, got {d!r} in {dims}")
        try:
            checked.append(operator.index(d))
        except TypeError:
            raise TypeError(f"dims must be integers, got {d!r} "
                            f"({type(d).__name__}) in {dims}") from None
    if not checked:
        raise ValueError("dims=() makes a rank-0 tensor; mlsopt tensors "
                         "need at least one dim (a scalar is dims=(1,))")
    for d in checked:
        if abs(d) > _MAX_DIM:
            raise ValueError(f"dim {d} in {tuple(checked)} does not fit in "
                             "64 bits")
    # Each dim fitting is not enough: the element count (and byte sizes
    # after it) are 64-bit too.
    if all(d > 0 for d in checked) and math.prod(checked) > _MAX_DIM:
        raise ValueError(f"dims {tuple(checked)} hold "
                         f"{math.prod(checked)} elements, more than 64 bits "
                         "count")
    return tuple(checked)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_frame():
    """The first frame outside this package (where the user called the
    API) and how many frames up from this function's caller it is, or
    (None, that count past the last frame)."""
    depth, frame = 1, sys._getframe(1)
    while frame is not None and os.path.dirname(
            os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        depth += 1
        frame = frame.f_back
    return frame, depth


def _caller():
    """(file, line) of the first frame outside this package: where the user
    called the API, for diagnostics."""
    frame, _ = _user_frame()
    if frame is None:
        return "", 0
    return frame.f_code.co_filename, frame.f_lineno


def _warn(message):
    """warnings.warn(message), reported at the first frame outside this
    package, however many of its functions lie between."""
    _, depth = _user_frame()
    warnings.warn(message, stacklevel=depth)


class DTensor:
    """A tensor of a KernelGraph (Mirage's name): its shape and dtype are
    known as soon as it is built."""

    __slots__ = ("_graph", "_id")

    def __init__(self, graph, tensor_id):
        self._graph = graph
        self._id = tensor_id

    @property
    def num_dims(self):
        return len(self.dims)

    def dim(self, i):
        return _dim_of(self.dims, i)

    @property
    def dims(self):
        return tuple(self._graph._core.shape(self._id))

    shape = dims

    @property
    def dtype(self):
        return _CORE_TO_DTYPE[self._graph._core.element_type(self._id)]

    @property
    def guid(self):
        """The tensor's number in its graph."""
        return self._id

    def __repr__(self):
        return f"DTensor(dims={self.dims}, dtype={self.dtype!r})"

    # The graph hands out a new DTensor each time (`inputs`, `outputs`):
    # two are the same tensor when they name the same value of the same
    # graph, so `O in graph.outputs` and dicts keyed by tensors work.
    def __eq__(self, other):
        if not isinstance(other, DTensor):
            return NotImplemented
        return self._graph is other._graph and self._id == other._id

    def __hash__(self):
        return hash((id(self._graph), self._id))


class _CompileHandle:
    """What Mirage's compile(async_=True) returns: its build is already
    done here, so wait() has nothing to wait for."""

    def wait(self):
        return None

    def done(self):
        return True


def _dim_of(dims, i):
    """dims[i], with an IndexError that says how many dims there are."""
    if not -len(dims) <= i < len(dims):
        raise IndexError(f"dim({i}) of a tensor with {len(dims)} dims "
                         f"{tuple(dims)}")
    return dims[i]


def _same_but_unit_dims(shape, dims):
    """Whether `shape` and `dims` differ only by dims of size 1, `dims`
    having some (a scalar's 0-d input, which Mirage has no counterpart of,
    takes a scalar or a 0-d array alone)."""
    return (len(dims) > 0 and tuple(shape) != tuple(dims)
            and [d for d in shape if d != 1] == [d for d in dims if d != 1])


def _with_unit_dims_of(x, dims):
    """`x` reshaped to `dims` where their shapes differ only by dims of size
    1: Mirage reads an input's data pointer alone, and its demos pass
    torch.randn(1, 1, K) or torch.randn(K) for a (1, K) input. Any other
    shape is left for the shape check to report."""
    shape = tuple(np.shape(x))
    if hasattr(x, "reshape") and _same_but_unit_dims(shape, dims):
        return x.reshape(tuple(dims))
    return x


def _check_latency(latency):
    """`latency` as a bool: None is the default, False."""
    if latency is None:
        return False
    if not isinstance(latency, (bool, np.bool_)):
        raise TypeError(f"latency must be True or False, got {latency!r}")
    return bool(latency)


def _not_provided(owner, name, replacements):
    """The AttributeError for `name`, saying what to use instead where it
    is a Mirage method mlsopt does not provide (`replacements`)."""
    if name in replacements:
        return AttributeError(
            f"{owner} has no {name!r}: Mirage has it, mlsopt does not; "
            f"{replacements[name]}")
    return AttributeError(f"{owner!r} object has no attribute {name!r}")


class MLSOptWarning(UserWarning):
    """A warning an MLIR pass emitted while it ran for the Python API (the
    search ignoring a corrupt cache entry, or a cache it cannot write), as
    mlsopt-opt prints it on stderr."""


class KernelGraph:
    """A kernel graph (Mirage's KNGraph) in mlsopt's kernel dialect."""

    # Mirage's KNGraph methods mlsopt lacks, and what a ported script
    # calls instead (docs/python.md, "Not provided").
    _MIRAGE_REPLACEMENTS = {
        "pow": "the kernel dialect has no power op; use square, sqrt, or "
               "exp of a product with a log",
        "to_json": "save the graph with g.mlir() and load it with "
                   "mi.from_mlir(text)",
        "get_error_message": "a graph that cannot be lowered raises "
                             "MLIRError with the diagnostic; "
                             "valid_kernels() says whether it lowers",
    }

    def __getattr__(self, name):
        # Only reached for names the class and instance lack.
        raise _not_provided("KernelGraph", name, self._MIRAGE_REPLACEMENTS)

    def __init__(self, core=None, column_major_inputs=(),
                 column_major_outputs=()):
        self._core = core if core is not None else _core.Graph.create()
        # GPU runners by chip, valid while the graph does not change.
        self._gpu_runners = {}
        # Positions of the inputs given column-major strides: the graph's
        # argument holds them with the dims reversed (row-major), and a
        # kernel.transpose gives the tensor the graph computes with.
        self._column_major_inputs = frozenset(column_major_inputs)
        # Likewise the outputs marked column-major: the graph's result holds
        # them with the dims reversed, and __call__ returns a view.
        self._column_major_outputs = frozenset(column_major_outputs)
        # Graphs computing other tensors than the marked outputs (a call's
        # `outputs=`), by tensor ids; adding ops leaves them valid.
        self._output_views = {}
        # The chips compile() lowered the graph for (valid_kernels()).
        self._compiled_for = set()
        # The transposes new_input returned for column-major inputs, by
        # tensor id: their positions among the inputs.
        self._declared_inputs = {}

    # ----------------------------------------------------------------------
    # Building (Mirage's names and arguments)
    # ----------------------------------------------------------------------

    def new_input(self, dims, strides=None, dtype=float16):
        """An input of shape `dims`, row-major (the default) or, as Mirage
        allows, column-major: `strides=(1, K)` for a `[K, N]` weight stored
        as a linear layer keeps it, `[N, K]`. A column-major input is the
        graph argument `[N, K]` and a kernel.transpose of it; the searched
        kernels load its tiles as stored, and __call__ takes the tensor
        (`W.t()` of a linear layer's weight) without a copy."""
        dims = _input_dims(dims)
        if strides is not None and not isinstance(strides, (list, tuple)) \
                and not hasattr(strides, "__iter__"):
            raise TypeError(
                f"new_input's second argument is strides (Mirage's order: "
                f"dims, strides, dtype), got {strides!r}; pass the dtype by "
                f"name: new_input(dims, dtype=...)")
        dtype = _as_dtype(dtype)._core_type
        if not _is_column_major(dims, strides):
            return self._added(
                self._core.add_input(list(dims), dtype, *_caller()))
        position = len(self._core.inputs())
        stored = self._core.add_input(list(reversed(dims)), dtype, *_caller())
        self._column_major_inputs |= {position}
        declared = self._added(self._core.add_transpose(
            stored, list(reversed(range(len(dims)))), *_caller()))
        self._declared_inputs[declared._id] = position
        return declared

    def mark_output(self, A, strides=None):
        """Appends `A` to the results, row-major (the default) or
        column-major (Mirage's two layouts): a column-major result is the
        graph's result with the dims reversed, which the searched kernel
        stores permuted, and __call__ returns it as a column-major view."""
        self._check(A)
        result = A._id
        if _is_column_major(A.dims, strides):
            self._column_major_outputs |= {len(self._core.outputs())}
            result = self._core.add_transpose(
                A._id, list(reversed(range(A.num_dims))), *_caller())
        self._core.mark_output(result)
        self._gpu_runners.clear()

    def matmul(self, A, B):
        self._check(A, B)
        return self._added(self._core.add_matmul(A._id, B._id, *_caller()))

    # add, sub, mul, div and the unary ops (exp, silu, ...): see
    # _define_elementwise_methods below the class.

    def mul_scalar(self, A, scalar):
        self._check(A)
        return self._added(
            self._core.add_scalar_op("mul_scalar", A._id,
                                     _as_float(scalar, "mul_scalar's scalar"),
                                     *_caller()))

    def clamp(self, A, min_val, max_val):
        """min(max(A, min_val), max_val) elementwise, as Mirage's and
        torch's clamp (NaN stays NaN): kernel.max_scalar, then
        kernel.min_scalar."""
        self._check(A)
        low = self._core.add_scalar_op(
            "max_scalar", A._id, _as_float(min_val, "clamp's min_val"),
            *_caller())
        return self._added(self._core.add_scalar_op(
            "min_scalar", low, _as_float(max_val, "clamp's max_val"),
            *_caller()))

    def reduction(self, A, dim):
        """Sum over `dim`, which stays with size 1 (as in Mirage)."""
        self._check(A)
        dim = _as_int(dim, "reduction's dim")
        # A negative dim counts from the end; one out of range goes to the
        # dialect as given, so that its error names the dim the caller gave.
        if -A.num_dims <= dim < 0:
            dim += A.num_dims
        return self._added(self._core.add_reduce_sum(A._id, dim, *_caller()))

    def rms_norm(self, A, normalized_shape=None, eps=0.0):
        """x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape`,
        which is the last dim (the default): kernel.rms_norm normalizes over
        one dim. A tensor in place of `normalized_shape` is a weight, as in
        Mirage's tutorials (`graph.rms_norm(X, G)`): the normalized rows
        times it, broadcast."""
        self._check(A)
        if isinstance(normalized_shape, DTensor):
            # Checked first: a failed mul would leave the norm behind.
            weight = normalized_shape
            self._check(weight)
            try:
                np.broadcast_shapes(A.dims, weight.dims)
            except ValueError:
                raise ValueError(
                    f"rms_norm's weight of dims {weight.dims} does not "
                    f"broadcast to the dims {A.dims} it scales") from None
            return self.mul(self.rms_norm(A, eps=eps), weight)
        if normalized_shape is None:
            normalized_shape = A.dims[-1:]
        # An int is one trailing dim, as torch.nn.functional.rms_norm takes.
        if isinstance(normalized_shape, (int, np.integer)):
            normalized_shape = (normalized_shape,)
        if isinstance(normalized_shape, (str, bytes)) or not isinstance(
                normalized_shape, collections.abc.Iterable):
            raise TypeError(
                "rms_norm's normalized_shape must be an int or a tuple of "
                "ints (the last dim), or a weight tensor; got "
                f"{normalized_shape!r} ({type(normalized_shape).__name__})")
        normalized_shape = tuple(
            _as_int(d, "rms_norm's normalized_shape") for d in normalized_shape)
        if normalized_shape != A.dims[-1:]:
            raise ValueError(
                f"rms_norm over {normalized_shape} of a tensor of dims "
                f"{A.dims}: mlsopt normalizes over the last dim only, so "
                f"normalized_shape must be {A.dims[-1:]}")
        eps = _as_float(eps, "rms_norm's eps")
        if not eps >= 0 or not math.isfinite(eps):
            raise ValueError(f"rms_norm's eps must be a finite number >= 0, "
                             f"got {eps!r}: a negative one takes the square "
                             "root of a negative mean for rows near zero")
        return self._added(self._core.add_rms_norm(A._id, eps, *_caller()))

    def customized(self, inputs, bgraph):
        """A custom kernel written by hand as a threadblock graph (Mirage's
        KNGraph.customized): one kernel.custom op whose block graph is
        `bgraph`, checked by the block dialect's μGraph rules. Returns its
        outputs, in new_output order."""
        from .threadblock import TBGraph
        if not isinstance(bgraph, TBGraph):
            raise TypeError(f"expected a threadblock graph, got "
                            f"{type(bgraph).__name__}")
        if isinstance(inputs, DTensor) or not isinstance(
                inputs, collections.abc.Iterable):
            raise TypeError("customized(inputs, ...) takes a list of the "
                            "tensors the threadblock graph reads, got "
                            f"{type(inputs).__name__}")
        inputs = list(inputs)
        self._check(*inputs)
        operands = [dtensor for dtensor, _ in bgraph._inputs]
        self._check(*operands)
        given = {t._id for t in inputs}
        used = {t._id for t in operands}
        if given != used:
            raise ValueError(
                "customized(inputs, ...) must list exactly the tensors the "
                "threadblock graph's new_input calls read")
        ids = self._core.add_custom_kernel(bgraph._mlir(*_caller()),
                                           [t._id for t in operands])
        return [self._added(i) for i in ids]

    # ----------------------------------------------------------------------
    # Inspection
    # ----------------------------------------------------------------------

    @property
    def inputs(self):
        """The graph's inputs, in the order __call__ takes them; a
        column-major input as it is stored, with its dims reversed."""
        return [self._tensor(i) for i in self._core.inputs()]

    @property
    def outputs(self):
        """The marked outputs, in the order __call__ returns them; a
        column-major output as the graph stores it, with its dims
        reversed."""
        return [self._tensor(i) for i in self._core.outputs()]

    def get_input_dtensors(self):
        return self.inputs

    def get_num_inputs(self):
        return len(self._core.inputs())

    def get_input_dtensor_shape_and_stride(self, A):
        """Mirage's (dims, strides) of input `A` (a tensor of `inputs`, or
        the one new_input returned) as declared: for a column-major input,
        the dims new_input was given and their column-major strides, which
        is what __call__ takes."""
        position = self._input_position(A)
        stored = tuple(self._tensor(self._core.inputs()[position]).dims)
        if position not in self._column_major_inputs:
            return stored, _row_major_strides(stored)
        dims = tuple(reversed(stored))
        return dims, _column_major_strides(dims)

    def get_input_dtensor_layout(self, A):
        """Mirage's strides of input `A`, as declared (see
        get_input_dtensor_shape_and_stride)."""
        return self.get_input_dtensor_shape_and_stride(A)[1]

    def _input_position(self, A):
        """The position of input `A` among the graph's inputs: a tensor of
        `inputs`, or the transpose new_input returned for a column-major
        one."""
        if not isinstance(A, DTensor) or A._graph is not self:
            raise ValueError(f"{A!r} is not a tensor of this graph")
        ids = list(self._core.inputs())
        if A._id in ids:
            return ids.index(A._id)
        position = self._declared_inputs.get(A._id)
        if position is None:
            raise ValueError(f"{A!r} is not an input of this graph")
        return position

    @property
    def cygraph(self):
        """Mirage's handle on the graph's Cython object, which its scripts
        pass to mi.generate_cuda_program: here, the graph itself."""
        return self

    def mlir(self, generic=False):
        """The graph's MLIR module as text."""
        return self._core.print(generic)

    def __str__(self):
        return self.mlir()

    def get_owner_independent_hash(self):
        """A hash of the graph's structure (Mirage's name): the same for
        graphs built the same way, whichever KernelGraph object holds them;
        a 64-bit int taken from the SHA-256 of the module's text (which
        names values by position, not by the objects that made them)."""
        import hashlib
        digest = hashlib.sha256(self.mlir().encode()).hexdigest()
        return int(digest[:16], 16)

    def cost(self, target=None, latency=False):
        """The cost model's estimate (docs/cost-model.md) on `target`
        ("sm_80", "sm_90", ...). By default, the target the module names in
        its `mlsopt.target` attribute (the one it was optimized for), else
        the cost model's default target. Pre-defined ops are costed as the
        default block graphs the GPU lowering runs them as. `latency=True`
        adds the latency of each block's dependent steps to the roofline
        (docs/cost-model.md, "Latency"); `latency_us` is reported either
        way. Ops outside the kernel dialect (linalg from_mlir could not
        convert) cost nothing in it: a warning names them."""
        latency = _check_latency(latency)
        graph = self._with_default_outputs("cost()")
        if graph is not self:
            return graph.cost(target, latency)
        uncosted = self._core.uncosted_ops()
        if uncosted:
            _warn(
                f"the cost leaves out {len(uncosted)} ops outside the kernel "
                f"dialect: {', '.join(sorted(set(uncosted)))}")
        if target is not None:
            _check_target(target)
        return self._on_chip(
            target, lambda: self._core.estimate_cost(target or "", latency))

    def kernel_costs(self, target=None, latency=False):
        """The cost model's estimate of each kernel launch, in program order
        (a list of the objects `cost` returns; `cost` is their sum): which
        kernel bounds the program, and by what (`memory_us`, `compute_us`,
        `latency_us`)."""
        latency = _check_latency(latency)
        graph = self._with_default_outputs("kernel_costs()")
        if graph is not self:
            return graph.kernel_costs(target, latency)
        if target is not None:
            _check_target(target)
        return self._on_chip(
            target,
            lambda: self._core.estimate_kernel_costs(target or "", latency))

    def to_dot(self):
        """The graph in Graphviz's language: kernels, and inside custom
        kernels their block graph, for-loop and thread graphs."""
        return self._core.to_dot()

    def visualize(self, file_name):
        """Writes the graph for Graphviz. A name ending in .dot or .gv (or
        with no extension, which gets .dot) gets the Graphviz text; .svg,
        .png or .pdf is rendered with Graphviz's `dot`. Returns the path."""
        root, ext = os.path.splitext(file_name)
        if ext in ("", ".dot", ".gv"):
            path = file_name if ext else file_name + ".dot"
            with open(path, "w") as f:
                f.write(self.to_dot())
            return path
        fmt = ext[1:]
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError(
                f"rendering {file_name} needs Graphviz's `dot` on PATH; "
                f"visualize('{root}.dot') writes the text instead")
        subprocess.run([dot, f"-T{fmt}", "-o", file_name],
                       input=self.to_dot(), text=True, check=True)
        return file_name

    # ----------------------------------------------------------------------
    # Optimizing
    # ----------------------------------------------------------------------

    def superoptimize(self, target=None, timeout=None,
                      max_kernel_ops=None, max_block_ops=None, threads=None,
                      seed=None, cache_dir=None, keep_reference=None,
                      latency_model=None, latency_veto=None,
                      backend="cuda", verbose=None, **mirage_options):
        """Searches for a faster equivalent graph (the `--superoptimize`
        pass) and returns it as a new KernelGraph; this one is unchanged.

        `target` is the GPU to optimize for ("sm_80", ..., "sm_90"; by
        default the chip of the CUDA device torch sees, as Mirage searches
        for the GPU it runs on, and sm_90 without one), `timeout` the
        search budget in seconds, `max_kernel_ops` and `max_block_ops`
        bound the size of the graphs it enumerates, `threads` the search
        threads, `seed` its random tests, `cache_dir` where
        results are cached; `latency_model=True` ranks candidates with the
        cost model's latency term (`cost(latency=True)`); ranking by the
        roofline, the latency term by default refuses what it says is
        slower than the input, sizes kernels and breaks ties, and
        `latency_veto=False` leaves all of it to the roofline; `verbose` (by
        default `mlsopt.global_config.verbose`) prints the cost before and
        after. Mirage's options that choose its search space by hand
        (config, griddims, imaps, ...), time its candidates
        (warmup_iters, profile_iters) or reuse its graph dataset and
        checkpoints (use_graph_dataset, use_cached_graphs,
        previous_checkpoint, save_codes) or choose its verifier
        (is_formal_verified) are accepted so that Mirage
        scripts run unchanged; mlsopt ignores them, with a warning."""
        unknown = set(mirage_options) - set(_MIRAGE_ONLY_OPTIONS)
        if unknown:
            raise TypeError("superoptimize() got unexpected keyword "
                            f"arguments {sorted(unknown)}")
        for options, why in _MIRAGE_ONLY_OPTION_GROUPS:
            ignored = sorted(set(mirage_options) & set(options))
            if ignored:
                _warn(f"mlsopt ignores Mirage's {why[0]} {ignored}: "
                      f"{why[1]}")
        if backend not in ("cuda", "mlir"):
            raise ValueError(
                f"backend {backend!r} is not available: mlsopt has the "
                "backends 'cuda' (PTX through MLIR's GPU path) and 'mlir' "
                "(the same); Mirage's Triton and NKI code generators are "
                "not provided")
        if target is None:
            target = _local_gpu_target() or _DEFAULT_TARGET
        target = _check_target(target)
        source = self._with_default_outputs("superoptimize()")
        if verbose is None:
            verbose = global_config.verbose
        if not _core.is_pass_registered("superoptimize"):
            raise UnavailableError(
                "this build of mlsopt has no --superoptimize pass, so "
                "superoptimize() cannot run; build a version that has it")
        _check_count("max_kernel_ops", max_kernel_ops, low=1)
        # A load, an op and a store at least; past 64 no timeout reaches.
        _check_count("max_block_ops", max_block_ops, low=3, high=64)
        _check_count("threads", threads)
        _check_count("seed", seed, high=2**64 - 1)
        if timeout is not None and (
                isinstance(timeout, bool)
                or not isinstance(timeout, numbers.Real)
                or not math.isfinite(timeout) or timeout < 0):
            raise ValueError("timeout must be a finite number of seconds "
                             f">= 0, got {timeout!r}")
        options = {
            "target": target, "timeout": timeout,
            "max-kernel-ops": max_kernel_ops, "max-block-ops": max_block_ops,
            "threads": threads, "seed": seed, "cache-dir": cache_dir,
            "keep-reference": keep_reference, "latency-model": latency_model,
            "latency-veto": latency_veto,
        }
        optimized = source._core.clone()
        for message in optimized.run_pipeline(_pipeline("superoptimize",
                                                        options)):
            warnings.warn(message, MLSOptWarning, stacklevel=2)
        # cost(), ptx() and launch_plan() default to the target it was
        # optimized for.
        optimized.set_target(target)
        result = KernelGraph(optimized, source._column_major_inputs,
                             source._column_major_outputs)
        if verbose:
            print(f"mlsopt: superoptimized for {target}: "
                  f"{source.cost(target).total_us:.2f} us -> "
                  f"{optimized.estimate_cost(target).total_us:.2f} us "
                  "(cost model)")
        return result

    # ----------------------------------------------------------------------
    # GPU code
    # ----------------------------------------------------------------------

    @property
    def target(self):
        """The GPU the graph was optimized for (its module's
        `mlsopt.target`), or None."""
        return self._core.target() or None

    def ptx(self, target=None):
        """The PTX of the graph lowered by --mlsopt-gpu-pipeline for
        `target` (default: the graph's target, else sm_90), as
        `mlsopt-translate --emit-ptx` prints it."""
        return self._lowered(lambda core, chip: core.emit_ptx(chip), target)

    def launch_plan(self, target=None):
        """How to run the lowered graph (`mlsopt-translate
        --emit-launch-plan`, docs/gpu.md), parsed from its JSON: the kernel
        launches of each function, in order, with their grid, block, shared
        memory and arguments."""
        return json.loads(self._lowered(
            lambda core, chip: core.emit_launch_plan(chip), target))

    def _gpu_target(self, target):
        if target is None:
            target = self._core.target() or _DEFAULT_TARGET
        return _check_target(target)

    def _lowered(self, emit, target):
        """`emit(core, chip)` of the core graph (with its default outputs)
        lowered for `target`."""
        chip = self._gpu_target(target)
        graph = self._with_default_outputs("lowering it for the GPU")
        return self._on_chip(chip, lambda: emit(graph._core, chip))

    def _on_chip(self, chip, run):
        """`run()`, which lowers or costs the graph for `chip`."""
        try:
            return run()
        except MLIRError as error:
            # A graph searched for one chip may not fit another (sm_90 has
            # 227 KiB of shared memory per block, sm_80 163 KiB): say which
            # search would give one that does, when the error is about what
            # a chip has.
            optimized_for = self._core.target()
            if not (chip and _is_target_resource_error(str(error))):
                raise
            if optimized_for and optimized_for != chip:
                raise MLIRError(
                    f"{error}\nnote: the graph was optimized for "
                    f"{optimized_for}; superoptimize(target={chip!r}) "
                    f"searches for one that fits {chip}") from None
            # A threadblock graph written by hand: its tiles are the
            # script's to shrink.
            hand_written = "kernel.custom" in self._core.print(False)
            if not optimized_for and hand_written:
                raise MLIRError(
                    f"{error}\nnote: for a threadblock graph written by "
                    "hand, a larger grid_dim or forloop_range makes its tiles "
                    f"smaller; superoptimize(target={chip!r}) searches for "
                    "kernels that fit") from None
            raise

    # ----------------------------------------------------------------------
    # Running
    # ----------------------------------------------------------------------

    def __call__(self, inputs=None, outputs=None, target=None,
                 target_cc=None, **mirage_options):
        """Runs the graph on `inputs` (one array per input, in order) and
        returns the list of outputs. numpy arrays (and torch CPU tensors) run
        on the CPU through MLIR's ExecutionEngine; results come back as numpy
        arrays of the output dtype, float32 for bfloat16 (torch tensors of
        the output dtype for torch inputs). torch CUDA tensors run on their
        GPU: the graph is lowered for the device's chip (or `target=`, or
        Mirage's `target_cc=90`) and its launch plan is replayed through CuPy
        or cuda-python; results are CUDA tensors. `outputs=[t, ...]` (tensors of
        this graph, marked as outputs or not) returns those instead of the
        marked outputs. Mirage's `stream=` (a torch.cuda.Stream) is the
        stream a GPU run launches on (by default torch's current one). Its
        options that tune its generated CUDA code (num_warp_groups,
        pipeline_stages, file_id, verbose, async_, profiling,
        enable_online_softmax) are accepted and have no effect."""
        target = _run_target("a graph call", target, target_cc,
                             mirage_options)
        stream = mirage_options.get("stream")
        # Checked on the CPU too, where the chip has no say: a typo fails
        # the same way wherever the inputs live.
        if target is not None:
            _check_target(target)
        if outputs is not None:
            return self._with_outputs(outputs)(inputs=inputs, target=target,
                                               stream=stream)
        graph = self._with_default_outputs("running it")
        if graph is not self:
            return graph(inputs=inputs, target=target, stream=stream)
        if isinstance(inputs, (dict, str, bytes)) or (
                inputs is not None and not hasattr(inputs, "__iter__")):
            raise TypeError(
                "inputs must be a list with one array per input, in the "
                f"order of new_input; got {type(inputs).__name__}")
        if hasattr(inputs, "shape") and hasattr(inputs, "dtype"):
            # Iterating over one array would take its rows as the inputs.
            raise TypeError(
                "inputs must be a list with one array per input, in the "
                f"order of new_input; got one {type(inputs).__name__} of "
                f"shape {tuple(inputs.shape)}: pass [array]")
        inputs = list(inputs if inputs is not None else [])
        # A column-major input goes in as the row-major tensor it is
        # transposed (the graph argument); for a column-major array that is
        # a view, not a copy. Its shape is checked first, against the dims
        # new_input was given: reversed, the message would name neither.
        declared = self.inputs
        for i in sorted(self._column_major_inputs):
            if i < len(inputs) and i < len(declared):
                shape = tuple(np.shape(inputs[i]))
                expected = tuple(reversed(declared[i].dims))
                if shape != expected:
                    raise ValueError(f"input {i} has shape {shape}; the graph "
                                     f"expects {expected} (column-major)")
        inputs = [_reversed_dims(x) if i in self._column_major_inputs
                  else _with_unit_dims_of(x, declared[i].dims)
                  if i < len(declared) else x
                  for i, x in enumerate(inputs)]
        if any(_is_cuda_tensor(x) for x in inputs):
            outputs = self._run_on_gpu(inputs, target, stream)
        else:
            torch_inputs = any(_is_torch_tensor(x) for x in inputs)
            arrays = [_host_float32(
                x, i, integer=i < len(declared)
                and declared[i].dtype in _INTEGER_DTYPES)
                      for i, x in enumerate(inputs)]
            results = self._core.run_on_cpu(arrays)
            outputs = [
                r.astype(out.dtype._numpy, copy=False)
                for r, out in zip(results, self.outputs)
            ]
            if torch_inputs:
                # torch has bfloat16, which numpy lacks: torch inputs get
                # tensors of each output's own dtype, as a GPU run returns.
                import torch
                outputs = [
                    torch.from_numpy(o).to(torch.bfloat16)
                    if out.dtype == bfloat16 else torch.from_numpy(o)
                    for o, out in zip(outputs, self.outputs)
                ]
        # A column-major output comes back as a view of the row-major
        # result it is transposed.
        return [_reversed_dims(o) if i in self._column_major_outputs else o
                for i, o in enumerate(outputs)]

    def cuda_call(self, **kwargs):
        """Mirage's KNGraph.cuda_call(inputs=..., outputs=..., stream=...),
        which Mirage's __call__ forwards to: the same as calling the graph
        (on the GPU for torch CUDA tensors)."""
        return self(**kwargs)

    def compile(self, inputs=None, target=None, target_cc=None,
                **mirage_options):
        """Mirage's KNGraph.compile, which builds the graph's CUDA code
        before its first call: here, lowers the graph for `target` (or
        Mirage's `target_cc=90`; default: the graph's target, else sm_90)
        and checks `inputs`, if given, against the graph's inputs, so that
        what would fail at the first call fails now. Calls lower the graph
        again (nothing is kept), on the CPU or for the device's chip.
        Mirage's options for its generated code (num_warp_groups,
        pipeline_stages, ...) are accepted and have no effect. With
        Mirage's `async_=True`, the lowering still runs before compile()
        returns, and the handle it returns has Mirage's `wait()`, which
        returns at once."""
        async_ = bool(mirage_options.get("async_", False))
        target = _run_target("compile()", target, target_cc, mirage_options)
        if inputs is not None:
            inputs = list(inputs)
            declared = self.inputs
            if len(inputs) != len(declared):
                raise ValueError(f"compile() got {len(inputs)} inputs; the "
                                 f"graph has {len(declared)}")
            for i, (x, tensor) in enumerate(zip(inputs, declared)):
                shape = tuple(np.shape(x))
                expected = tensor.dims
                if i in self._column_major_inputs:
                    expected = tuple(reversed(expected))
                elif _same_but_unit_dims(shape, expected):
                    continue
                if shape != expected:
                    raise ValueError(f"input {i} has shape {shape}; the "
                                     f"graph expects {expected}")
        self.ptx(target)
        self._compiled_for.add(self._gpu_target(target))
        return _CompileHandle() if async_ else None

    def valid_kernels(self):
        """Mirage's KNGraph.valid_kernels: whether compile() produced
        kernels that fit the chip. compile() raises MLIRError where they
        do not (Mirage prints and returns None instead), so after a
        compile() that returned this is True; before one it is an error,
        as in Mirage."""
        if not self._compiled_for:
            raise RuntimeError("valid_kernels() is known after compile(): "
                               "call graph.compile(...) first")
        return True

    def _run_on_gpu(self, inputs, target, stream=None):
        """Runs the graph on torch CUDA tensors: lowered for `target` (the
        device's chip by default) and launched through its launch plan, on
        `stream` (torch's current stream by default)."""
        # A scalar argument of the function (an input of shape ()) may be a
        # number beside the CUDA tensors: it goes to their device below.
        declared = self.inputs
        scalars = {i for i, x in enumerate(inputs)
                   if not _is_torch_tensor(x) and i < len(declared)
                   and declared[i].dims == () and np.ndim(x) == 0}
        if not all(_is_cuda_tensor(x) or i in scalars
                   for i, x in enumerate(inputs)):
            raise ValueError("inputs mix CUDA tensors with host arrays; pass "
                             "all of them on one device")
        device = next(x.device for x in inputs if _is_cuda_tensor(x))
        if target is None:
            import torch
            major, minor = torch.cuda.get_device_capability(device)
            target = f"sm_{major}{minor}"
        _check_target(target)
        runner = self._gpu_runners.get(target)
        if runner is None:
            from .gpu import GPURunner
            runner = GPURunner(self.launch_plan(target), self.ptx(target),
                               self._core.function_name())
            self._gpu_runners[target] = runner
        if scalars:
            import torch
            from .gpu import torch_dtype
            inputs = [torch.tensor(np.asarray(x).item(), device=device,
                                   dtype=torch_dtype(argument["dtype"]))
                      if i in scalars else x
                      for i, (x, argument) in enumerate(
                          zip(inputs, runner.plan.inputs))]
        if stream is None:
            return runner(inputs)
        import torch
        with torch.cuda.stream(stream):
            return runner(inputs)

    # ----------------------------------------------------------------------
    # Helpers
    # ----------------------------------------------------------------------

    def _with_outputs(self, outputs):
        """This graph computing `outputs` (DTensors of it) as its results."""
        if isinstance(outputs, DTensor):
            outputs = [outputs]
        outputs = list(outputs)
        if not outputs:
            raise ValueError("outputs= names no tensor")
        self._check(*outputs)
        key = tuple(t._id for t in outputs)
        view = self._output_views.get(key)
        if view is None:
            view = KernelGraph(self._core.clone_with_outputs(list(key)),
                               self._column_major_inputs)
            self._output_views[key] = view
        return view

    def _tensor(self, tensor_id):
        return DTensor(self, tensor_id)

    def _added(self, tensor_id):
        """A tensor just added to the graph, which compiled code lacks."""
        self._gpu_runners.clear()
        return DTensor(self, tensor_id)

    def _with_default_outputs(self, what):
        """This graph, or for one that marked no output, a view of it whose
        outputs are the tensors no op reads, as Mirage's demos that never
        call mark_output take them (demo_search.py), with a warning. The
        graph itself keeps none: a later mark_output chooses them.
        ValueError when no op computes anything."""
        if self._core.outputs():
            return self
        unread = self._core.unread_tensors()
        if not unread:
            raise ValueError(
                f"the graph has no outputs; call mark_output(tensor) before "
                f"{what}")
        _warn(
            f"the graph has no outputs: {what} takes the {len(unread)} "
            "tensors no op reads as its outputs, as Mirage's demos do; "
            "mark_output(tensor) chooses them")
        return self._with_outputs([self._tensor(i) for i in unread])

    def _check(self, *tensors):
        for t in tensors:
            if not isinstance(t, DTensor):
                raise TypeError(f"expected a DTensor, got {type(t).__name__}")
            if t._graph is not self:
                raise ValueError(f"{t!r} belongs to another graph")

    def _unary(self, name, A):
        self._check(A)
        return self._added(self._core.add_unary(name, A._id, *_caller()))

    def _binary(self, name, A, B):
        self._check(A, B)
        return self._added(
            self._core.add_binary(name, A._id, B._id, *_caller()))


def _define_elementwise_methods(cls, unary, binary, build_unary,
                                build_binary):
    """Gives `cls` a method `name(self, A)` returning
    build_unary(self, name, A) for each name in `unary`, and `name(self, A,
    B)` returning build_binary(self, name, A, B) for each in `binary`: one
    definition for Mirage's many elementwise methods, with their names and
    argument names."""
    def unary_method(name):
        def method(self, A):
            return build_unary(self, name, A)
        return method

    def binary_method(name):
        def method(self, A, B):
            return build_binary(self, name, A, B)
        return method

    for names, make in ((unary, unary_method), (binary, binary_method)):
        for name in names:
            assert name not in vars(cls), f"{cls.__name__}.{name} twice"
            method = make(name)
            method.__name__ = name
            method.__qualname__ = f"{cls.__name__}.{name}"
            method.__doc__ = f"The elementwise op {name} (Mirage's name)."
            setattr(cls, name, method)


# The kernel dialect's elementwise ops by mnemonic, as KernelGraph methods.
_define_elementwise_methods(
    KernelGraph,
    unary=("exp", "log", "sqrt", "rsqrt", "square", "silu", "sigmoid", "gelu",
           "gelu_tanh", "relu", "tanh", "neg", "sin", "cos", "log1p",
           "softplus", "floor", "ceil", "round"),
    binary=("add", "sub", "mul", "div", "max", "min"),
    build_unary=KernelGraph._unary, build_binary=KernelGraph._binary)


# Keyword arguments of Mirage's KNGraph.superoptimize that mlsopt accepts and
# ignores, by what they do in Mirage, with the warning they get.
_MIRAGE_ONLY_OPTION_GROUPS = (
    (("imaps", "omaps", "griddims", "blockdims", "fmaps", "franges",
      "config"),
     ("search-space options",
      "its search derives grids, maps and loop ranges from the graph")),
    (("warmup_iters", "profile_iters"),
     ("profiling options",
      "it ranks candidates with its cost model, not by timing them")),
    (("use_graph_dataset", "use_cached_graphs", "previous_checkpoint"),
     ("graph dataset and checkpoint options",
      "it has no graph dataset, and caches search results only in "
      "cache_dir")),
    (("save_codes",),
     ("code-saving option",
      "it generates no CUDA source; ptx() gives the PTX of a graph")),
    (("is_formal_verified",),
     ("verification option",
      "it verifies every result by random tests over finite fields "
      "(docs/verification.md), with or without it")),
)
# Keyword arguments of Mirage's graph call that tune the CUDA code it
# generates for the call; mlsopt's lowering has no such knobs.
# `profiling` and `enable_online_softmax` (the search finds online softmax
# schedules by itself) likewise; `stream` is honoured by GPU runs.
_MIRAGE_CALL_OPTIONS = frozenset(
    {"num_warp_groups", "pipeline_stages", "file_id", "verbose", "async_",
     "profiling", "enable_online_softmax", "stream"})
_MIRAGE_ONLY_OPTIONS = frozenset(
    name for names, _ in _MIRAGE_ONLY_OPTION_GROUPS for name in names)


def _run_target(what, target, target_cc, mirage_options):
    """The chip a call or compile() names, `target` or Mirage's
    `target_cc=90`; TypeError for options that are not Mirage's."""
    unknown = set(mirage_options) - _MIRAGE_CALL_OPTIONS
    if unknown:
        raise TypeError(f"{what} got unexpected keyword arguments "
                        f"{sorted(unknown)}")
    if target is None and target_cc is not None:
        target = f"sm_{_as_int(target_cc, 'target_cc')}"
    return target


def _check_count(name, value, low=0, high=2**32 - 1):
    """ValueError unless `value` (an option) is None or an int from `low` to
    `high` (by default, what the pass's unsigned options hold): the pass
    would reject anything else with a message on stderr only."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, "
                         f"got {value!r}")


def _pipeline(name, options):
    """Pass pipeline text `name{key=value ...}` for the options that are
    set, in MLIR's option syntax."""
    parts = []
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, float) and value.is_integer():
            value = int(value)
        value = str(value)
        if any(c in value for c in "{}\""):
            raise ValueError(f"option {key}={value!r}: double quotes and "
                             "braces cannot pass to a pass")
        # MLIR's option syntax takes a value with spaces, commas or equal
        # signs in double quotes (a cache directory under "My Documents").
        if any(c in value for c in " =,'"):
            value = f'"{value}"'
        parts.append(f"{key}={value}")
    return f"{name}{{{' '.join(parts)}}}" if parts else name


def _row_major_strides(dims):
    strides, step = [], 1
    for d in reversed(dims):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _column_major_strides(dims):
    return tuple(reversed(_row_major_strides(tuple(reversed(dims)))))


def _is_column_major(dims, strides):
    """Whether `strides` (None: row-major) lay out `dims` column-major
    rather than row-major, Mirage's two layouts; ValueError for any other
    (a dim of size 1 may make both the same: row-major then)."""
    if strides is None or tuple(strides) == _row_major_strides(dims):
        return False
    column_major = _column_major_strides(dims)
    if tuple(strides) != column_major:
        raise ValueError(
            f"strides {tuple(strides)} are neither row-major "
            f"{_row_major_strides(dims)} nor column-major {column_major} for "
            f"dims {dims}")
    return True


def _reversed_dims(x):
    """`x` with its dims in reverse order: a view of a numpy array or torch
    tensor."""
    if _is_torch_tensor(x):
        return x.permute(*reversed(range(x.dim())))
    return np.asarray(x).transpose()


def _is_torch_tensor(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "device")


def _is_cuda_tensor(x):
    return _is_torch_tensor(x) and getattr(x, "is_cuda", False)


def _host_float32(x, index=0, integer=False):
    """`x` as a contiguous float32 numpy array: the CPU runner's host type
    (it rounds to the graph's f16/bf16 itself). TypeError, naming input
    `index`, for an array of anything but real numbers (complex, bool,
    strings, objects), which a cast would silently change or misread.
    Integers are taken: a test's np.arange, say. An `integer` input (a
    mask or integers) takes booleans and integers, as their values (the
    runner reads a mask's nonzero as true), and no floats."""
    if integer:
        if _is_torch_tensor(x):
            x = x.detach().to("cpu").numpy()
        array = np.asarray(x)
        if array.dtype.kind not in "biu":
            raise TypeError(
                f"input {index} has dtype {array.dtype}; it is a mask or "
                "integer input, which takes bool or integer arrays")
        return array.astype(np.float32, order="C", copy=False)
    if _is_torch_tensor(x):
        if x.is_complex() or str(x.dtype) == "torch.bool":
            raise TypeError(
                f"input {index} has dtype {x.dtype}; mlsopt graphs take "
                "real-number inputs (float16, bfloat16, float32, integers)")
        x = x.detach().to("cpu").float().numpy()
    array = np.asarray(x)
    # numpy's floats, and bfloat16 from extensions such as ml_dtypes (whose
    # kind is not "f").
    if array.dtype.kind not in "fiu" and array.dtype.name != "bfloat16":
        raise TypeError(
            f"input {index} has dtype {array.dtype}; mlsopt graphs take "
            "real-number inputs (float16, bfloat16, float32, integers), "
            "not cast silently")
    # Not np.ascontiguousarray, which makes a 0-d array (a rank-0 input) 1-d.
    return array.astype(np.float32, order="C", copy=False)


# What the GPU lowering says when a graph needs more of a chip than it has
# (lib/Conversion/CustomKernelToGPU, lib/Conversion/KernelToCustom, the block
# graph verifier): the errors a search for that chip may avoid.
_TARGET_RESOURCE_WORDS = ("shared memory", "registers")


def _is_target_resource_error(message):
    return any(word in message for word in _TARGET_RESOURCE_WORDS)


def convert_dtype_to_torch_type(dtype):
    """The torch dtype of an mlsopt dtype (Mirage's helper of that name)."""
    import torch
    return {"float16": torch.float16, "bfloat16": torch.bfloat16,
            "float32": torch.float32}[_as_dtype(dtype).attribute]


# The GPU Mirage scripts select with set_gpu_device_id.
gpu_device_id = 0


class GlobalConfig:
    """Mirage's `mi.global_config` (mirage/global_config.py), accepted so
    that scripts setting it run. mlsopt honours `verbose` (the default of
    superoptimize's `verbose`: print the cost before and after the search)
    and `gpu_device_id` (the id set_gpu_device_id keeps); it ignores
    `bypass_compile_errors`, which in Mirage silences nvcc while it compiles
    candidates: mlsopt compiles none."""

    def __init__(self):
        self.verbose = False
        self.bypass_compile_errors = False

    @property
    def gpu_device_id(self):
        return gpu_device_id

    @gpu_device_id.setter
    def gpu_device_id(self, device_id):
        set_gpu_device_id(device_id)

    def __repr__(self):
        return (f"GlobalConfig(verbose={self.verbose!r}, "
                f"gpu_device_id={self.gpu_device_id!r}, "
                f"bypass_compile_errors={self.bypass_compile_errors!r})")


global_config = GlobalConfig()


def set_gpu_device_id(device_id):
    """Mirage's device selection, accepted so that its scripts run: mlsopt's
    search needs no GPU, and __call__ runs on the device its torch CUDA
    inputs are on; the id is kept in `mlsopt.gpu_device_id`."""
    global gpu_device_id
    device_id = int(device_id)
    if device_id < 0:
        raise ValueError(f"GPU device id {device_id} is negative")
    gpu_device_id = device_id


def get_shared_memory_capacity(target_cc):
    """Mirage's get_shared_memory_capacity: the bytes of shared memory one
    block of compute capability `target_cc` (80, 86, 89 or 90) may use,
    the limit the search and the GPU lowering size kernels to."""
    chip = f"sm_{_as_int(target_cc, 'target_cc')}"
    capacity = _core.shared_memory_per_block(chip)
    if capacity is None:
        raise ValueError(f"unknown target_cc {target_cc!r}; supported "
                         f"targets: {', '.join(_TARGETS)}")
    return capacity


def new_kernel_graph():
    """An empty kernel graph (Mirage's mi.new_kernel_graph())."""
    return KernelGraph()


def superoptimize(graph, **options):
    """Mirage's mi.superoptimize(graph, ...), as its tutorials call it:
    graph.superoptimize(**options)."""
    if not isinstance(graph, KernelGraph):
        raise TypeError("superoptimize() takes a kernel graph, got "
                        f"{type(graph).__name__}")
    return graph.superoptimize(**options)


def generate_cuda_program(graph, target_cc=90, input_strides=None,
                          output_tensors=None, **mirage_options):
    """Mirage's mi.generate_cuda_program(graph.cygraph, ...), for scripts
    that print or save a graph's generated code. mlsopt generates no CUDA
    C++: it lowers through MLIR's GPU path to PTX, so `"code"` holds the
    PTX of the graph lowered for `sm_<target_cc>` (with a warning saying
    so), and `"launch_plan"` the launches that run it. `output_tensors`
    (DTensors of the graph) are the results, as in Mirage; `input_strides`
    must be each input's layout as declared (row-major, or the
    column-major strides new_input was given)."""
    if not isinstance(graph, KernelGraph):
        raise TypeError(f"expected a KernelGraph (or its cygraph), got "
                        f"{type(graph).__name__}")
    _run_target("generate_cuda_program()", None, None, mirage_options)
    target = _check_target(f"sm_{_as_int(target_cc, 'target_cc')}")
    if input_strides is not None:
        inputs = graph.inputs
        if len(input_strides) != len(inputs):
            raise ValueError(f"{len(input_strides)} input strides for "
                             f"{len(inputs)} inputs")
        for i, (strides, tensor) in enumerate(zip(input_strides, inputs)):
            dims = tensor.dims
            if i in graph._column_major_inputs:
                dims = tuple(reversed(dims))
            if _is_column_major(dims, strides) != \
                    (i in graph._column_major_inputs):
                raise ValueError(
                    f"input {i} has strides {tuple(strides)}, not the layout "
                    "new_input declared; declare it with those strides")
    if output_tensors is not None:
        graph = graph._with_outputs(output_tensors)
    _warn(
        "mlsopt generates no CUDA C++: the program's \"code\" is the PTX "
        f"of the graph lowered for {target} through MLIR's GPU path")
    plan = graph.launch_plan(target)
    # Mirage's keys for what to set aside before a launch: the most
    # dynamic shared memory a kernel takes, and the bytes of the buffers
    # between kernels (the plan says which launches use each).
    functions = plan["functions"]
    max_smem = max((launch["dynamic_shared_memory_bytes"]
                    for f in functions for launch in f["launches"]),
                   default=0)
    buf_size = sum(b["bytes"] for f in functions for b in f["buffers"])
    return {"code": graph.ptx(target), "launch_plan": plan,
            "max_smem_size": max_smem, "buf_size": buf_size}


def from_mlir(text, function=None):
    """A kernel graph from MLIR text: a module in the kernel dialect, or in
    linalg on tensors (converted with --convert-linalg-to-kernel). The graph
    is `function`, by default the module's first public function with a
    body (a private one is a helper; the first of those if all are); the
    graph's module keeps it and the functions it calls, nothing else.
    superoptimize() inlines the calls."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode()
    if not isinstance(text, str):
        raise TypeError(f"from_mlir() takes MLIR text (str or bytes), got "
                        f"{type(text).__name__}")
    return KernelGraph(_core.Graph.parse(text, function or ""))
