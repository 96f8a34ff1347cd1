//===- InitAll.cpp - Register everything mlsopt provides ------------------===//

#include "mlsopt/InitAllDialects.h"
#include "mlsopt/InitAllTranslations.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Pipelines/Pipelines.h"
#include "mlsopt/Transforms/Passes.h"
#include "mlsopt/Target/Dot/GraphToDot.h"
#include "mlsopt/Target/GPU/LaunchPlan.h"
#include "mlsopt/Target/GPU/PTX.h"
#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Dialect/Thread/IR/ThreadDialect.h"
#include "mlsopt/Dialect/Thread/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void mlsopt::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<MLSOptDialect, kernel::KernelDialect, block::BlockDialect,
                  thread::ThreadDialect>();
}

void mlsopt::registerAllPasses() {
  thread::registerThreadPasses();
  registerConversionPasses();
  registerPipelines();
  registerTransformsPasses();
}

void mlsopt::registerAllTranslations() {
  registerToDotTranslation();
  gpu::registerToPTXTranslation();
  gpu::registerToLaunchPlanTranslation();
}
