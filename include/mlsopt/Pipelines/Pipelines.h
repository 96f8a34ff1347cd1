//===- Pipelines.h - mlsopt's pass pipelines --------------------*- C++ -*-===//

#ifndef MLSOPT_PIPELINES_PIPELINES_H
#define MLSOPT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlsopt {

struct TargetInfo;

/// --mlsopt-cpu-pipeline: lowers a module that mixes mlsopt's dialects with
/// func, arith, math, tensor and linalg to the LLVM dialect. Custom kernels
/// become loops that follow their block graphs, kernel ops become linalg,
/// then one-shot bufferization (identity layouts at function boundaries, so
/// functions take plain memrefs) and the upstream conversions to LLVM.
void buildCPUPipeline(mlir::OpPassManager &pm);

struct GPUPipelineOptions
    : mlir::PassPipelineOptions<GPUPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target chip: sm_80, sm_86, sm_89 or sm_90; the PTX "
                     "version follows it"),
      llvm::cl::init("sm_90")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose libdevice defines the math functions "
                     "(default: $CUDA_HOME, $CUDA_ROOT, $CUDA_PATH, "
                     "/usr/local/cuda)"),
      llvm::cl::init("")};
  Option<bool> allowTF32{
      *this, "allow-tf32",
      llvm::cl::desc("Run f32 matmuls on tensor cores with operands rounded "
                     "to tf32 (10-bit mantissa); false keeps them exact f32 "
                     "FMA loops"),
      llvm::cl::init(true)};
};

/// --mlsopt-gpu-pipeline: lowers every function of kernel ops and custom
/// kernels to a host function of gpu.launch_func ops and the kernels to a
/// gpu.binary @mlsopt_kernels holding PTX for `chip`
/// (docs/gpu.md). The host code stays on memrefs.
void buildGPUPipeline(mlir::OpPassManager &pm,
                      const GPUPipelineOptions &options);

/// Checks the options a pipeline cannot check itself before it runs (a
/// `cuda-path` without libdevice); reports through `onError`.
mlir::LogicalResult checkGPUPipelineOptions(
    const GPUPipelineOptions &options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> onError);

/// The NVPTX subtarget features of `target`'s PTX version ("+ptx78").
std::string getPTXFeatures(const TargetInfo &target);

/// Registers mlsopt's pass pipelines with the global registry.
void registerPipelines();

} // namespace mlsopt

#endif // MLSOPT_PIPELINES_PIPELINES_H
