//===- CPUPipeline.cpp - Lowering μGraphs to LLVM for the CPU -------------===//

#include "mlsopt/Pipelines/Pipelines.h"
#include "mlsopt/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlsopt::buildCPUPipeline(OpPassManager &pm) {
  // mlsopt's dialects to linalg/scf/tensor: custom kernels first, because
  // their loop bodies still hold block compute ops for the next pass.
  pm.addPass(createConvertCustomKernelToLoops());
  pm.addPass(createConvertKernelToLinalg());
  // What the import left as linalg.softmax (or mlsopt's own export) runs as
  // the generic ops it stands for.
  pm.addPass(createDecomposeLinalgAggregates());
  pm.addPass(createCanonicalizerPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Accumulator updates produce new tensors each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  // The deallocation pipeline leaves bufferization.clone behind.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addNestedPass<func::FuncOp>(mlsopt::createTileContractionsForCPU());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // vector.print of a whole vector and transfers a test harness reads
  // results with become loops of scalar ones.
  pm.addPass(createConvertVectorToSCFPass());
  // A long program's loop nests compile apart, in linear time.
  pm.addPass(mlsopt::createOutlineLoopNests());
  pm.addPass(createSCFToControlFlowPass());
  // Upstream's expand-strided-metadata crashes on an expand of one dim
  // into several dynamic ones; those become reinterpret casts first.
  pm.addPass(createExpandDynamicExpandShapes());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // LLVM intrinsics where they exist and are exact; libm calls for the
  // rest (erf, tanh, and log1p and expm1, which the intrinsics' lowering
  // computes as log(1 + x) and exp(x) - 1).
  pm.addPass(createAccurateMathToLibm());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Front ends and test harnesses print with vector.print.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  // Poison values front ends leave (a padding value, an unused lane).
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCheckLoweredToLLVM());
}
