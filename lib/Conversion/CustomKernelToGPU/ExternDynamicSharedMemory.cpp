//===- ExternDynamicSharedMemory.cpp - Dynamic shared memory as extern ----===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlsopt {
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDMEMORY
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

struct ExternDynamicSharedMemoryPass
    : mlsopt::impl::ExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      bool hasInitializer = global.getValueOrNull() ||
                            (!global.getInitializerRegion().empty() &&
                             !global.getInitializerRegion().front().empty());
      if (global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          !array || array.getNumElements() != 0 || hasInitializer)
        continue;
      // A declaration with external linkage: `.extern .shared ... name[]`.
      global.setLinkage(LLVM::Linkage::External);
    }
  }
};

} // namespace
