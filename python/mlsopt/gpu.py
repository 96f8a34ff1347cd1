"""Running a lowered graph on a GPU, through its launch plan.

`--mlsopt-gpu-pipeline` turns a graph into PTX kernels and a host function;
the launch plan (`mlsopt-translate --emit-launch-plan`, docs/gpu.md) lists
that function's kernel launches in order: kernel, grid, block, dynamic
shared memory and arguments, each a function argument (an input or a result)
or an intermediate buffer. Kernels take one pointer per memref argument
(bare-pointer convention). This module replays the plan on torch CUDA
tensors, loading the PTX and launching through CuPy or, without it,
cuda-python.
"""

import base64
import ctypes
import importlib.util
import re

_PLAN_VERSION = 1

# CUfunction_attribute's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

_TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
                 "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32",
                 "i64": "int64"}


def split_ptx(text):
    """{binary name: PTX} from the text of `mlsopt-translate --emit-ptx`,
    where each binary's PTX follows a `// gpu.binary @name, ...` line."""
    parts = re.split(r"^// gpu\.binary @([\w$.]+)[^\n]*\n", text, flags=re.M)
    return {name: ptx for name, ptx in zip(parts[1::2], parts[2::2])}


class LaunchPlan:
    """One host function of a launch plan: what to allocate and launch."""

    def __init__(self, plan, function):
        if plan.get("version") != _PLAN_VERSION:
            raise RuntimeError(
                f"launch plan version {plan.get('version')}; this package "
                f"reads version {_PLAN_VERSION}")
        matches = [f for f in plan["functions"] if f["name"] == function]
        if not matches:
            raise RuntimeError(f"the launch plan has no function @{function}")
        (self.function,) = matches
        arguments = sorted(self.function["arguments"], key=lambda a: a["index"])
        self.inputs = [a for a in arguments if a["role"] == "input"]
        self.results = sorted((a for a in arguments if a["role"] == "result"),
                              key=lambda a: a["result_index"])
        self.arguments = arguments
        self.buffers = self.function["buffers"]
        self.launches = self.function["launches"]
        # Buffers that start as a constant of the program (a weight the
        # front end inlined): their bytes, as the device holds them.
        self.initializers = {b["id"]: base64.b64decode(b["initializer"])
                             for b in self.buffers if "initializer" in b}

    def run(self, inputs, allocate_result, allocate_buffer, launch,
            initialize=None):
        """Replays the plan: `inputs` are device tensors in input order,
        `allocate_result(entry)` and `allocate_buffer(entry)` make device
        tensors for the plan's result arguments and intermediate buffers,
        `initialize(buffer, data)` copies the bytes of a constant into the
        buffer that holds it, `launch(launch_entry, pointers)` runs one
        kernel. Returns the results in result order."""
        if self.initializers and initialize is None:
            raise ValueError("the plan has constant buffers; run() needs "
                             "`initialize` to copy them to the device")
        if len(inputs) != len(self.inputs):
            raise ValueError(f"the graph takes {len(self.inputs)} inputs, "
                             f"got {len(inputs)}")
        by_index = {}
        for i, (tensor, argument) in enumerate(zip(inputs, self.inputs)):
            if list(tensor.shape) != argument["shape"]:
                raise ValueError(
                    f"input {i} has shape {tuple(tensor.shape)}; the graph "
                    f"expects {tuple(argument['shape'])}")
            by_index[argument["index"]] = tensor
        results = [allocate_result(r) for r in self.results]
        for result, tensor in zip(self.results, results):
            by_index[result["index"]] = tensor
        # Buffers are allocated up front and freed with this call: the plan
        # says when each is live, which a caching allocator makes cheap.
        buffers = {b["id"]: allocate_buffer(b) for b in self.buffers}
        for buffer_id, data in self.initializers.items():
            initialize(buffers[buffer_id], data)
        for entry in self.launches:
            pointers = []
            for arg in entry["args"]:
                if arg["kind"] == "argument":
                    pointers.append(by_index[arg["index"]].data_ptr())
                else:
                    pointers.append(buffers[arg["id"]].data_ptr())
            launch(entry, pointers)
        return results


def _opts_in(opted_in, key, shared):
    """Whether kernel `key` must raise its dynamic shared memory limit to
    launch with `shared` bytes: above 48 KiB a kernel opts in to the size it
    uses, once per size larger than any before."""
    if shared <= max(48 * 1024, opted_in.get(key, 0)):
        return False
    opted_in[key] = shared
    return True


class _CuPyDriver:
    def __init__(self, ptx_by_binary):
        import cupy
        self._cupy = cupy
        self._modules = {}
        for name, ptx in ptx_by_binary.items():
            module = cupy.cuda.function.Module()
            module.load(ptx.encode())
            self._modules[name] = module
        self._functions = {}
        self._shared = {}

    def launch(self, entry, pointers, stream_handle):
        key = (entry["module"], entry["kernel"])
        function = self._functions.get(key)
        shared = entry["dynamic_shared_memory_bytes"]
        if function is None:
            function = self._modules[entry["module"]].get_function(entry["kernel"])
            self._functions[key] = function
        if _opts_in(self._shared, key, shared):
            self._cupy.cuda.driver.funcSetAttribute(
                function.ptr, _MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
        args = tuple(self._cupy.uint64(p) for p in pointers)
        stream = self._cupy.cuda.ExternalStream(stream_handle)
        function(tuple(entry["grid"]), tuple(entry["block"]), args,
                 shared_mem=shared, stream=stream)


class _CudaPythonDriver:
    def __init__(self, ptx_by_binary):
        try:
            from cuda.bindings import driver
        except ImportError:
            from cuda import cuda as driver
        self._driver = driver
        self._modules = {name: self._check(driver.cuModuleLoadData(ptx.encode()))
                         for name, ptx in ptx_by_binary.items()}
        self._functions = {}
        self._shared = {}

    def _check(self, result):
        error, *values = result
        if error != self._driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"CUDA driver error {error}")
        return values[0] if len(values) == 1 else values

    def launch(self, entry, pointers, stream_handle):
        driver = self._driver
        key = (entry["module"], entry["kernel"])
        function = self._functions.get(key)
        shared = entry["dynamic_shared_memory_bytes"]
        if function is None:
            function = self._check(driver.cuModuleGetFunction(
                self._modules[entry["module"]], entry["kernel"].encode()))
            self._functions[key] = function
        if _opts_in(self._shared, key, shared):
            self._check(driver.cuFuncSetAttribute(
                function,
                driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared))
        args = (tuple(pointers), tuple(ctypes.c_void_p for _ in pointers))
        self._check(driver.cuLaunchKernel(
            function, *entry["grid"], *entry["block"], shared,
            driver.CUstream(stream_handle), args, 0))


_DRIVERS = {"cupy": _CuPyDriver, "cuda-python": _CudaPythonDriver}


def torch_dtype(name):
    """The torch dtype of a launch plan's element type ("f16", ...)."""
    import torch
    return getattr(torch, _TORCH_DTYPES[name])


def _driver(ptx_by_binary, name):
    if name is not None:
        if name not in _DRIVERS:
            raise ValueError(f"driver {name!r}: one of {sorted(_DRIVERS)}")
        return _DRIVERS[name](ptx_by_binary)
    if importlib.util.find_spec("cupy") is not None:
        return _CuPyDriver(ptx_by_binary)
    if importlib.util.find_spec("cuda") is not None:
        return _CudaPythonDriver(ptx_by_binary)
    raise RuntimeError("running on the GPU needs CuPy or cuda-python")


class GPURunner:
    """A graph lowered for one chip, ready to run on torch CUDA tensors.

    `driver` picks how kernels are loaded and launched ("cupy" or
    "cuda-python"; default: CuPy where installed). With `poison`, results
    and intermediate buffers start as all-ones bytes (NaN in every float
    type) instead of whatever the allocator returns, so that an element no
    kernel writes, or a buffer read before it is written, shows up as NaN;
    it is an attribute, to turn off before timing."""

    def __init__(self, plan, ptx_text, function, driver=None, poison=False):
        self.plan = LaunchPlan(plan, function)
        self._driver = _driver(split_ptx(ptx_text), driver)
        self.poison = poison

    def device_inputs(self, arrays, device="cuda"):
        """Host arrays (numpy, any float type) as the graph's inputs on
        `device`, each converted to the element type its plan argument
        names."""
        import torch
        return [torch.as_tensor(a).to(device, torch_dtype(arg["dtype"]))
                for a, arg in zip(arrays, self.plan.inputs)]

    def __call__(self, inputs):
        import torch

        device = inputs[0].device
        for i, (tensor, argument) in enumerate(zip(inputs, self.plan.inputs)):
            if tensor.device != device:
                raise ValueError(f"input {i} is on {tensor.device}, input 0 "
                                 f"on {device}")
            if tensor.dtype != torch_dtype(argument["dtype"]):
                raise ValueError(f"input {i} is {tensor.dtype}; the graph "
                                 f"takes {argument['dtype']}")
        # Kernels read row-major memory through 16-byte aligned pointers
        # (vector loads); a view into the middle of a tensor may be neither.
        inputs = [t if t.is_contiguous() and t.data_ptr() % 16 == 0
                  else t.clone(memory_format=torch.contiguous_format)
                  for t in inputs]
        def allocated(tensor):
            if self.poison:
                tensor.view(torch.uint8).fill_(0xFF)
            return tensor

        with torch.cuda.device(device):
            stream = torch.cuda.current_stream(device).cuda_stream
            return self.plan.run(
                inputs,
                lambda r: allocated(torch.empty(
                    r["shape"], device=device, dtype=torch_dtype(r["dtype"]))),
                lambda b: allocated(torch.empty(b["bytes"], device=device,
                                                dtype=torch.uint8)),
                lambda entry, pointers: self._driver.launch(entry, pointers,
                                                            stream),
                lambda buffer, data: buffer.copy_(torch.frombuffer(
                    bytearray(data), dtype=torch.uint8)))
