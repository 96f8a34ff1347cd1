//===- MLSOptModule.cpp - nanobind bindings of mlsopt._mlsopt -------------===//
//
// The extension module under the `mlsopt` package. It exposes Graph (Graph.h)
// with plain types: tensor ids, shapes as lists, numpy arrays for data. The
// Mirage-style API (KernelGraph, DTensor, dtypes) is Python, in
// mlsopt/__init__.py, on top of this.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"
#include "mlsopt/Search/Superoptimizer.h"
#include "mlsopt/Support/Target.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

namespace nb = nanobind;
using namespace nb::literals;
using namespace mlsopt;
using namespace mlsopt::python;

namespace {
using HostArray = nb::ndarray<const float, nb::c_contig, nb::device::cpu>;

HostTensor toHostTensor(const HostArray &array) {
  HostTensor tensor;
  for (size_t i = 0; i < array.ndim(); ++i)
    tensor.shape.push_back(array.shape(i));
  tensor.data.assign(array.data(), array.data() + array.size());
  return tensor;
}

/// A numpy array that owns `tensor`'s data, without copying it.
nb::object toNumpy(HostTensor &&tensor) {
  auto *data = new std::vector<float>(std::move(tensor.data));
  nb::capsule owner(data, [](void *p) noexcept {
    delete static_cast<std::vector<float> *>(p);
  });
  std::vector<size_t> shape(tensor.shape.begin(), tensor.shape.end());
  return nb::ndarray<nb::numpy, float>(data->data(), shape.size(),
                                       shape.data(), owner)
      .cast();
}

/// Runs `pipeline` on `graph` so that Ctrl-C interrupts it: a search
/// (--superoptimize, whose default timeout is a minute) stops as at its
/// timeout and the call raises KeyboardInterrupt. Python handles a signal
/// only between bytecodes, so the pipeline runs on a thread of its own while
/// this one, which keeps the GIL as every call into the shared context does,
/// checks for one every 50 ms.
std::vector<std::string> runPipelineInterruptibly(Graph &graph,
                                                  const std::string &pipeline) {
  search::setSearchesCancelled(false);
  std::vector<std::string> warnings;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread worker([&] {
    try {
      warnings = graph.runPipeline(pipeline);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    finished.notify_one();
  });
  bool interrupted = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(50),
                              [&] { return done; })) {
      if (!interrupted && PyErr_CheckSignals() != 0) {
        interrupted = true;
        search::setSearchesCancelled(true);
      }
    }
  }
  worker.join();
  search::setSearchesCancelled(false);
  // The KeyboardInterrupt PyErr_CheckSignals set; the pipeline's result is
  // discarded with the graph it ran on (superoptimize's clone).
  if (interrupted)
    throw nb::python_error();
  if (error)
    std::rethrow_exception(error);
  return warnings;
}

SourceLocation toSourceLocation(const std::string &file, unsigned line) {
  return SourceLocation{file, line};
}

/// How a parameter of Graph's C++ API arrives from Python: nanobind has no
/// casters for LLVM's views, so a view comes as the std container it views.
template <typename T> struct FromPython {
  using type = T;
};
template <> struct FromPython<llvm::StringRef> {
  using type = std::string;
};
template <typename T> struct FromPython<llvm::ArrayRef<T>> {
  using type = std::vector<T>;
};
template <typename T>
using FromPythonT = typename FromPython<std::decay_t<T>>::type;

/// `function` as Python calls it: its view parameters taken as the std
/// containers they view.
template <typename R, typename... Params>
auto fromPython(R (*function)(Params...)) {
  return [function](FromPythonT<Params>... args) { return function(args...); };
}
template <typename R, typename... Params>
auto fromPython(R (Graph::*method)(Params...)) {
  return [method](Graph &g, FromPythonT<Params>... args) {
    return (g.*method)(args...);
  };
}

/// A graph-building method as Python calls it: the parameters before its
/// last, the location of the call, and then the call's `file` and `line`.
template <typename R, typename... Params, size_t... I>
auto fromPythonLocated(R (Graph::*method)(Params...),
                       std::index_sequence<I...>) {
  using ParamTuple = std::tuple<Params...>;
  static_assert(std::is_same_v<std::tuple_element_t<sizeof...(I), ParamTuple>,
                               const SourceLocation &>,
                "the method's last parameter must be its SourceLocation");
  return [method](Graph &g,
                  FromPythonT<std::tuple_element_t<I, ParamTuple>>... args,
                  const std::string &file, unsigned line) {
    return (g.*method)(args..., toSourceLocation(file, line));
  };
}

/// Binds a graph-building method as `name`, with the parameters `names` and
/// then `file` and `line` (default "" and 0), which mlsopt/kernel.py fills in
/// with the user's frame so that a shape error points at their line.
template <typename R, typename... Params, typename... Names>
void defLocated(nb::class_<Graph> &graph, const char *name,
                R (Graph::*method)(Params...), const Names &...names) {
  static_assert(sizeof...(Names) + 1 == sizeof...(Params),
                "one name a parameter, the location excepted");
  graph.def(name,
            fromPythonLocated(
                method, std::make_index_sequence<sizeof...(Params) - 1>()),
            names..., "file"_a = "", "line"_a = 0);
}
} // namespace

NB_MODULE(_mlsopt, m) {
  m.doc() = "C++ core of the mlsopt package (use the `mlsopt` module)";
  m.attr("__version__") = MLSOPT_VERSION;
  // Whether this build can emit PTX and launch plans (Graph.cpp).
  m.attr("has_gpu_target") = hasGPUTarget();

  nb::exception<MLIRError>(m, "MLIRError", PyExc_ValueError);
  nb::exception<UnavailableError>(m, "UnavailableError",
                                  PyExc_NotImplementedError);

  nb::enum_<ElementType>(m, "ElementType")
      .value("f16", ElementType::F16)
      .value("bf16", ElementType::BF16)
      .value("f32", ElementType::F32)
      .value("i1", ElementType::I1)
      .value("i8", ElementType::I8)
      .value("i16", ElementType::I16)
      .value("i32", ElementType::I32)
      .value("i64", ElementType::I64);

  m.def("is_unary_op", fromPython(&isUnaryOpName));
  m.def("is_binary_op", fromPython(&isBinaryOpName));
  m.def("is_pass_registered", fromPython(&isPassRegistered), "name"_a,
        "True if `name` is a registered pass or pass pipeline.");

  m.def(
      "supported_targets",
      [] {
        std::vector<std::string> chips;
        for (const TargetInfo &target : getSupportedTargets())
          chips.push_back(target.chip.str());
        return chips;
      },
      "The chips mlsopt knows, oldest first.");
  m.def(
      "default_target", [] { return getDefaultTarget().chip.str(); },
      "The chip assumed when none is named.");

  m.def(
      "shared_memory_per_block",
      [](const std::string &chip) -> std::optional<uint64_t> {
        if (std::optional<TargetInfo> target = lookupTarget(chip))
          return target->maxSharedMemPerBlock;
        return std::nullopt;
      },
      "chip"_a,
      "Bytes of shared memory one block of `chip` may opt in to (the cost "
      "model's and the search's limit), or None for an unknown chip.");

  m.def(
      "infer_shape",
      [](const std::string &rule,
         const std::vector<std::vector<int64_t>> &shapes, int64_t dim,
         const std::string &file, unsigned line) {
        return inferShape(rule, shapes, dim, toSourceLocation(file, line));
      },
      "rule"_a, "shapes"_a, "dim"_a = 0, "file"_a = "", "line"_a = 0,
      "The shape rule `rule` of the kernel and block dialects applied to "
      "`shapes`.");

  nb::class_<search::BlockSteps>(
      m, "Steps",
      "Dependent steps of one thread block per kind, times its waves "
      "(docs/cost-model.md, \"Latency\").")
      .def_ro("shared_accesses", &search::BlockSteps::sharedAccesses)
      .def_ro("reduction_steps", &search::BlockSteps::reductionSteps)
      .def_ro("mma_steps", &search::BlockSteps::mmaSteps)
      .def_ro("mma_issues", &search::BlockSteps::mmaIssues)
      .def_ro("transfers", &search::BlockSteps::transfers)
      .def_ro("barriers", &search::BlockSteps::barriers)
      .def("cycles", &search::BlockSteps::cycles);

  nb::class_<search::KernelCost> cost(m, "Cost",
                                      "The cost model's estimate of a graph "
                                      "(docs/cost-model.md); times in us.");
  cost.def_ro("total_us", &search::KernelCost::totalUs)
      .def_ro("launch_us", &search::KernelCost::launchUs)
      .def_ro("compute_us", &search::KernelCost::computeUs)
      .def_ro("memory_us", &search::KernelCost::memoryUs)
      .def_ro("latency_us", &search::KernelCost::latencyUs)
      .def_ro("steps", &search::KernelCost::steps)
      .def_ro("device_bytes", &search::KernelCost::deviceBytes)
      .def_ro("tensor_core_flops", &search::KernelCost::tensorCoreFlops)
      .def_ro("tf32_flops", &search::KernelCost::tf32Flops)
      .def_ro("cuda_core_flops", &search::KernelCost::cudaCoreFlops)
      .def_ro("launches", &search::KernelCost::launches)
      .def_ro("waves", &search::KernelCost::waves)
      .def("is_memory_bound", &search::KernelCost::isMemoryBound)
      .def("__float__",
           [](const search::KernelCost &cost) { return cost.totalUs; });
  // Estimates order by their totals, against another estimate or a number
  // of microseconds: `optimized.cost() < graph.cost()`.
  auto defOrder = [&](const char *name, auto less) {
    cost.def(name,
             [less](const search::KernelCost &a, const search::KernelCost &b) {
               return less(a.totalUs, b.totalUs);
             });
    cost.def(name, [less](const search::KernelCost &a, double us) {
      return less(a.totalUs, us);
    });
  };
  defOrder("__lt__", [](double a, double b) { return a < b; });
  defOrder("__le__", [](double a, double b) { return a <= b; });
  defOrder("__gt__", [](double a, double b) { return a > b; });
  defOrder("__ge__", [](double a, double b) { return a >= b; });
  cost.def("__repr__", [](const search::KernelCost &cost) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "Cost(" << cost << ")";
    return text;
  });

  nb::class_<Graph> graph(m, "Graph");
  graph.def_static("create", &Graph::create)
      .def_static("parse", fromPython(&Graph::parse), "text"_a,
                  "function"_a = "")
      .def("clone", &Graph::clone)
      .def(
          "clone_with_outputs",
          [](Graph &g, const std::vector<unsigned> &tensors) {
            return g.cloneWithOutputs(tensors);
          },
          "tensors"_a);
  defLocated(graph, "add_input", &Graph::addInput, "shape"_a, "dtype"_a);
  defLocated(graph, "add_unary", &Graph::addUnary, "name"_a, "x"_a);
  defLocated(graph, "add_binary", &Graph::addBinary, "name"_a, "a"_a, "b"_a);
  defLocated(graph, "add_matmul", &Graph::addMatmul, "a"_a, "b"_a);
  defLocated(graph, "add_reduce_sum", &Graph::addReduceSum, "x"_a, "dim"_a);
  defLocated(graph, "add_rms_norm", &Graph::addRmsNorm, "x"_a, "epsilon"_a);
  defLocated(graph, "add_scalar_op", &Graph::addScalarOp, "name"_a, "x"_a,
             "scalar"_a);
  defLocated(graph, "add_transpose", &Graph::addTranspose, "x"_a,
             "permutation"_a);
  graph
      .def("add_custom_kernel", fromPython(&Graph::addCustomKernel), "text"_a,
           "inputs"_a)
      .def("mark_output", &Graph::markOutput, "x"_a)
      .def("set_target", fromPython(&Graph::setTarget), "chip"_a)
      .def("target", &Graph::getTarget)
      .def("emit_ptx", fromPython(&Graph::emitPTX), "chip"_a)
      .def("emit_launch_plan", fromPython(&Graph::emitLaunchPlan), "chip"_a)
      .def("shape",
           [](Graph &g, unsigned x) {
             auto shape = g.getShape(x);
             return std::vector<int64_t>(shape.begin(), shape.end());
           })
      .def("element_type", &Graph::getElementType)
      .def("inputs", &Graph::getInputs)
      .def("outputs", &Graph::getOutputs)
      .def("unread_tensors", &Graph::getUnreadTensors)
      .def("function_name", &Graph::getFunctionName)
      .def("print", &Graph::print, "generic"_a = false)
      .def("to_dot", &Graph::toDot)
      .def("estimate_cost", fromPython(&Graph::estimateCost), "target"_a = "",
           "latency"_a = false)
      .def("estimate_kernel_costs", fromPython(&Graph::estimateKernelCosts),
           "target"_a = "", "latency"_a = false)
      .def("uncosted_ops", &Graph::getUncostedOps)
      .def("run_pipeline", &runPipelineInterruptibly, "pipeline"_a)
      .def(
          "run_on_cpu",
          [](Graph &g, const std::vector<HostArray> &arrays) {
            std::vector<HostTensor> inputs;
            for (const HostArray &array : arrays)
              inputs.push_back(toHostTensor(array));
            // Checking and compiling read the module and report through
            // the shared context's diagnostic handlers, so they run under
            // the GIL like every other call.
            Graph::CPURun run = g.prepareCPURun(inputs);
            std::vector<HostTensor> results;
            {
              // The JIT-compiled code touches only these buffers and the
              // runner `run` holds: another thread may change the graph.
              nb::gil_scoped_release release;
              results = run(std::move(inputs));
            }
            nb::list outputs;
            for (HostTensor &result : results)
              outputs.append(toNumpy(std::move(result)));
            return outputs;
          },
          "inputs"_a);
}
