//===- Registration.cpp - mlsopt's pass pipelines in the registry ---------===//

#include "mlsopt/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
/// Registers a pipeline of module passes. Nested under another op
/// (`builtin.module(func.func(mlsopt-cpu-pipeline))`), adding a module pass
/// would end the process with a fatal error, so the pipeline is refused
/// with a message instead.
template <typename Options>
void registerModulePipeline(
    StringRef arg, StringRef description,
    std::function<void(OpPassManager &, const Options &)> builder,
    std::function<LogicalResult(const Options &,
                                function_ref<LogicalResult(const Twine &)>)>
        check = {}) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [builder, check,
       name](OpPassManager &pm, StringRef optionsText,
             function_ref<LogicalResult(const Twine &)> onError) {
        // An op-agnostic manager ("any", the Python package's) takes module
        // passes and checks at run time that they run on a module.
        if (pm.getOpAnchorName() != ModuleOp::getOperationName() &&
            pm.getOpAnchorName() != OpPassManager::getAnyOpAnchorName())
          return onError("'" + name +
                         "' lowers a whole builtin.module and cannot be "
                         "nested under '" +
                         pm.getOpAnchorName() + "'");
        Options options;
        if (failed(options.parseFromString(optionsText)) ||
            (check && failed(check(options, onError))))
          return failure();
        builder(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> showOptions) {
        showOptions(Options());
      });
}
} // namespace

void mlsopt::registerPipelines() {
  registerModulePipeline<EmptyPipelineOptions>(
      "mlsopt-cpu-pipeline",
      "Lower mlsopt's dialects, mixed with func/arith/math/tensor/linalg, to "
      "the LLVM dialect for CPU execution (mlir-runner, ExecutionEngine)",
      [](OpPassManager &pm, const EmptyPipelineOptions &) {
        buildCPUPipeline(pm);
      });
  registerModulePipeline<GPUPipelineOptions>(
      "mlsopt-gpu-pipeline",
      "Lower functions of kernel ops and custom kernels to GPU launches and a "
      "gpu.binary with PTX (through gpu, nvgpu and NVVM)",
      buildGPUPipeline, checkGPUPipelineOptions);
}
