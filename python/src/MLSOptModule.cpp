//===- MLSOptModule.cpp - nanobind bindings of mlsopt._mlsopt -------------===//
//
// The extension module under the `mlsopt` package. It exposes Graph (Graph.h)
// with plain types: tensor ids, shapes as lists, numpy arrays for data. The
// Mirage-style API (KernelGraph, DTensor, dtypes) is Python, in
// mlsopt/__init__.py, on top of this.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "llvm/Support/raw_ostream.h"

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

SourceLocation toSourceLocation(const std::string &file, unsigned line) {
  return SourceLocation{file, line};
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
      .value("f32", ElementType::F32);

  m.def("is_unary_op", [](const std::string &name) {
    return isUnaryOpName(name);
  });
  m.def("is_binary_op", [](const std::string &name) {
    return isBinaryOpName(name);
  });
  m.def(
      "is_pass_registered",
      [](const std::string &name) { return isPassRegistered(name); },
      "name"_a, "True if `name` is a registered pass or pass pipeline.");

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

  nb::class_<search::KernelCost>(m, "Cost",
                                 "The cost model's estimate of a graph "
                                 "(docs/cost-model.md); times in us.")
      .def_ro("total_us", &search::KernelCost::totalUs)
      .def_ro("launch_us", &search::KernelCost::launchUs)
      .def_ro("compute_us", &search::KernelCost::computeUs)
      .def_ro("memory_us", &search::KernelCost::memoryUs)
      .def_ro("device_bytes", &search::KernelCost::deviceBytes)
      .def_ro("tensor_core_flops", &search::KernelCost::tensorCoreFlops)
      .def_ro("cuda_core_flops", &search::KernelCost::cudaCoreFlops)
      .def_ro("launches", &search::KernelCost::launches)
      .def_ro("waves", &search::KernelCost::waves)
      .def("is_memory_bound", &search::KernelCost::isMemoryBound)
      .def("__float__",
           [](const search::KernelCost &cost) { return cost.totalUs; })
      .def("__repr__", [](const search::KernelCost &cost) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "Cost(" << cost << ")";
        return text;
      });

  nb::class_<Graph>(m, "Graph")
      .def_static("create", &Graph::create)
      .def_static(
          "parse",
          [](const std::string &text, const std::string &function) {
            return Graph::parse(text, function);
          },
          "text"_a, "function"_a = "")
      .def("clone", &Graph::clone)
      .def(
          "add_input",
          [](Graph &g, const std::vector<int64_t> &shape, ElementType type,
             const std::string &file, unsigned line) {
            return g.addInput(shape, type, toSourceLocation(file, line));
          },
          "shape"_a, "dtype"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_unary",
          [](Graph &g, const std::string &name, unsigned x,
             const std::string &file, unsigned line) {
            return g.addUnary(name, x, toSourceLocation(file, line));
          },
          "name"_a, "x"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_binary",
          [](Graph &g, const std::string &name, unsigned a, unsigned b,
             const std::string &file, unsigned line) {
            return g.addBinary(name, a, b, toSourceLocation(file, line));
          },
          "name"_a, "a"_a, "b"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_matmul",
          [](Graph &g, unsigned a, unsigned b, const std::string &file,
             unsigned line) {
            return g.addMatmul(a, b, toSourceLocation(file, line));
          },
          "a"_a, "b"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_reduce_sum",
          [](Graph &g, unsigned x, int64_t dim, const std::string &file,
             unsigned line) {
            return g.addReduceSum(x, dim, toSourceLocation(file, line));
          },
          "x"_a, "dim"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_rms_norm",
          [](Graph &g, unsigned x, double epsilon, const std::string &file,
             unsigned line) {
            return g.addRmsNorm(x, epsilon, toSourceLocation(file, line));
          },
          "x"_a, "epsilon"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_mul_scalar",
          [](Graph &g, unsigned x, double scalar, const std::string &file,
             unsigned line) {
            return g.addMulScalar(x, scalar, toSourceLocation(file, line));
          },
          "x"_a, "scalar"_a, "file"_a = "", "line"_a = 0)
      .def(
          "add_custom_kernel",
          [](Graph &g, const std::string &text,
             const std::vector<unsigned> &inputs) {
            return g.addCustomKernel(text, inputs);
          },
          "text"_a, "inputs"_a)
      .def("mark_output", &Graph::markOutput, "x"_a)
      .def(
          "set_target",
          [](Graph &g, const std::string &chip) { g.setTarget(chip); },
          "chip"_a)
      .def("target", &Graph::getTarget)
      .def(
          "emit_ptx",
          [](Graph &g, const std::string &chip) { return g.emitPTX(chip); },
          "chip"_a)
      .def(
          "emit_launch_plan",
          [](Graph &g, const std::string &chip) {
            return g.emitLaunchPlan(chip);
          },
          "chip"_a)
      .def("shape",
           [](Graph &g, unsigned x) {
             auto shape = g.getShape(x);
             return std::vector<int64_t>(shape.begin(), shape.end());
           })
      .def("element_type", &Graph::getElementType)
      .def("inputs", &Graph::getInputs)
      .def("outputs", &Graph::getOutputs)
      .def("function_name", &Graph::getFunctionName)
      .def("print", &Graph::print, "generic"_a = false)
      .def("to_dot", &Graph::toDot)
      .def(
          "estimate_cost",
          [](Graph &g, const std::string &target) {
            return g.estimateCost(target);
          },
          "target"_a = "")
      .def("uncosted_ops", &Graph::getUncostedOps)
      .def(
          "run_pipeline",
          [](Graph &g, const std::string &pipeline) {
            g.runPipeline(pipeline);
          },
          "pipeline"_a)
      .def(
          "run_on_cpu",
          [](Graph &g, const std::vector<HostArray> &arrays) {
            std::vector<HostTensor> inputs;
            for (const HostArray &array : arrays)
              inputs.push_back(toHostTensor(array));
            // Compiling reports through the shared context's diagnostic
            // handlers, so it runs under the GIL like every other call.
            g.compileForCPU();
            std::vector<HostTensor> results;
            {
              // The JIT-compiled code touches only these buffers.
              nb::gil_scoped_release release;
              results = g.runOnCPU(std::move(inputs));
            }
            nb::list outputs;
            for (HostTensor &result : results)
              outputs.append(toNumpy(std::move(result)));
            return outputs;
          },
          "inputs"_a);
}
