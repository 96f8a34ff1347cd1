//===- GPUPipeline.cpp - Lowering μGraphs to PTX --------------------------===//

#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Pipelines/Pipelines.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

std::string mlsopt::getPTXFeatures(const TargetInfo &target) {
  // "7.8" -> "+ptx78", the spelling of NVPTX's subtarget features.
  std::string features = "+ptx";
  for (char c : target.ptxVersion)
    if (c != '.')
      features += c;
  return features;
}

/// libdevice, which defines the __nv_* functions convert-gpu-to-nvvm calls
/// for math ops (expf, erff, tanhf, ...): under `cudaPath` when given, else
/// under $CUDA_HOME, $CUDA_ROOT, $CUDA_PATH or /usr/local/cuda. Empty when
/// none has it; gpu-module-to-binary then leaves the calls unresolved, which
/// ptxas rejects.
static std::string findLibdevice(StringRef cudaPath) {
  SmallVector<std::string> roots;
  if (!cudaPath.empty())
    roots.push_back(cudaPath.str());
  for (const char *var : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *value = std::getenv(var))
      roots.push_back(value);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    SmallString<256> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(path))
      return std::string(path);
  }
  return "";
}

LogicalResult mlsopt::checkGPUPipelineOptions(
    const GPUPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> onError) {
  // A toolkit named on purpose that lacks libdevice is a mistake to report,
  // not a reason to fall back on another one.
  if (!options.cudaPath.empty()) {
    SmallString<256> path(options.cudaPath);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (!llvm::sys::fs::exists(path))
      return onError("mlsopt-gpu-pipeline: cuda-path '" + options.cudaPath +
                     "' has no nvvm/libdevice/libdevice.10.bc; give the "
                     "root of a CUDA toolkit");
  }
  return success();
}

void mlsopt::buildGPUPipeline(OpPassManager &pm,
                              const GPUPipelineOptions &options) {
  // mlsopt's dialects to gpu/nvgpu/scf/memref: every kernel op becomes a
  // custom kernel, every custom kernel a gpu.func. The second pass rejects an
  // unknown chip before any upstream pass sees it.
  //
  // A default block graph may use the chip's opt-in shared memory, as the
  // searched kernels do: its tiles shrink until they fit that, not 48 KiB,
  // so a row too long for 48 KiB (an rms_norm over 8192 f16 values, which
  // keeps its whole row in a block) still gets one.
  ConvertKernelToCustomOptions custom;
  if (std::optional<TargetInfo> target = lookupTarget(options.chip))
    custom.maxSharedMemory = static_cast<int64_t>(target->maxSharedMemPerBlock);
  // A host function of launches makes no calls: a helper's body takes the
  // place of each call to it.
  pm.addPass(createInlineHelpers());
  // A linalg.softmax the import left (f64, say) is the generic ops it
  // stands for, each then a loop kernel.
  pm.addPass(createDecomposeLinalgAggregates());
  pm.addPass(createConvertKernelToCustom(custom));
  // The kernels of the ops the search left alone read slices in place too.
  pm.addPass(createFoldSlicesIntoLoads());
  pm.addPass(createConvertCustomKernelToGPU({options.chip, options.allowTF32}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // The target: PTX version from mlsopt's table (lookupTarget cannot fail
  // here for the chips the pass above accepts; an unknown chip gets the
  // default's features and never reaches this pass).
  std::optional<TargetInfo> target = lookupTarget(options.chip);
  GpuNVVMAttachTargetOptions nvvm;
  nvvm.chip = options.chip;
  nvvm.features = getPTXFeatures(target ? *target : getDefaultTarget());
  nvvm.optLevel = 3;
  if (std::string libdevice = findLibdevice(options.cudaPath);
      !libdevice.empty())
    nvvm.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(nvvm));

  // Device code to the LLVM dialect. Bare pointers: each memref argument of
  // a kernel is one pointer in the PTX signature, which is what the launch
  // plan hands to cuLaunchKernel.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // The math ops it leaves (no libdevice function: math.trunc, which
  // torch-mlir writes for div(rounding_mode='trunc'), math.ctlz/cttz/ctpop
  // in a loop kernel) are LLVM intrinsics NVPTX selects.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createExternDynamicSharedMemory());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  // Upstream records its compile times in the objects; the same input must
  // give the same module.
  pm.addPass(createDropBinaryTimings());
}
