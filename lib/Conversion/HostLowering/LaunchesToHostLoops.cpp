//===- LaunchesToHostLoops.cpp - Barrier-free launches as host loops ------===//
//
// A kernel whose threads never wait for each other computes the same thing
// whatever order its threads run in, one after another included. So the
// copy and loop kernels run on the host as loops over their grid and block,
// and the CPU pipeline checks the indices they compute.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlsopt {
#define GEN_PASS_DEF_LAUNCHESTOHOSTLOOPS
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;

namespace {

/// Why `kernel`'s threads cannot run one after another, as a clause
/// with the kernel as its subject; none when they can.
std::optional<std::string> whyNotSequential(gpu::GPUFuncOp kernel) {
  if (!kernel.getBody().hasOneBlock())
    return std::string("has more than one block");
  if (!kernel.getWorkgroupAttributions().empty() ||
      !kernel.getPrivateAttributions().empty())
    return std::string("has memory attributions");
  std::optional<std::string> why;
  kernel.walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::DynamicSharedMemoryOp>(op))
      why = ("synchronizes its threads or shares memory ('" +
             op->getName().getStringRef() + "')")
                .str();
    else if (isa_and_nonnull<NVVM::NVVMDialect>(op->getDialect()) ||
             op->getDialect()->getNamespace() == "nvgpu")
      why = "uses NVVM or NVGPU ops";
    else if (isa<gpu::ReturnOp>(op) &&
             op->getBlock() != &kernel.getBody().front())
      why = "returns early";
    // Ids the loops do not stand for (lanes, subgroups, clusters).
    else if (isa<gpu::GPUDialect>(op->getDialect()) &&
             !isa<gpu::GPUFuncOp, gpu::ReturnOp, gpu::ThreadIdOp,
                  gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(op))
      why = ("uses '" + op->getName().getStringRef() + "'").str();
    else
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return why;
}

/// The constant sizes of a launch's grid and block, x first.
std::optional<std::array<int64_t, 6>> getSizes(gpu::LaunchFuncOp launch) {
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  std::array<Value, 6> values = {grid.x,  grid.y,  grid.z,
                                 block.x, block.y, block.z};
  std::array<int64_t, 6> sizes;
  for (auto [i, value] : llvm::enumerate(values)) {
    std::optional<int64_t> size = getConstantIntValue(value);
    if (!size || *size < 1)
      return std::nullopt;
    sizes[i] = *size;
  }
  return sizes;
}

/// Replaces `launch` by loops over its blocks and threads around a copy of
/// `kernel`'s body.
void emitHostLoops(gpu::LaunchFuncOp launch, gpu::GPUFuncOp kernel,
                   const std::array<int64_t, 6> &sizes) {
  Location loc = launch.getLoc();
  OpBuilder b(launch);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // Block z, y, x, then thread z, y, x: the order a launch numbers them.
  std::array<Value, 6> ids;
  for (int i : {2, 1, 0, 5, 4, 3}) {
    auto loop = scf::ForOp::create(
        b, loc, zero, arith::ConstantIndexOp::create(b, loc, sizes[i]), one);
    ids[i] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  IRMapping mapping;
  mapping.map(kernel.getArguments(), launch.getKernelOperands());
  for (Operation &op : kernel.getBody().front().without_terminator())
    b.clone(op, mapping);
  // The ids and sizes, in the copy (nested regions included).
  Block *body = b.getInsertionBlock();
  SmallVector<Operation *> special;
  body->walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(
            op))
      special.push_back(op);
  });
  for (Operation *op : special) {
    OpBuilder at(op);
    auto dim = [](gpu::Dimension d) { return static_cast<int>(d); };
    Value value = llvm::TypeSwitch<Operation *, Value>(op)
                      .Case([&](gpu::BlockIdOp id) {
                        return ids[dim(id.getDimension())];
                      })
                      .Case([&](gpu::ThreadIdOp id) {
                        return ids[3 + dim(id.getDimension())];
                      })
                      .Case([&](gpu::GridDimOp d) -> Value {
                        return arith::ConstantIndexOp::create(
                            at, loc, sizes[dim(d.getDimension())]);
                      })
                      .Case([&](gpu::BlockDimOp d) -> Value {
                        return arith::ConstantIndexOp::create(
                            at, loc, sizes[3 + dim(d.getDimension())]);
                      });
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
  }
  launch.erase();
}

struct LaunchesToHostLoopsPass
    : public mlsopt::impl::LaunchesToHostLoopsBase<LaunchesToHostLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      std::optional<std::array<int64_t, 6>> sizes = getSizes(launch);
      if (!kernel) {
        launch.emitOpError("launches no gpu.func of this module");
        return signalPassFailure();
      }
      if (!sizes || !launch.getAsyncDependencies().empty() ||
          launch.getClusterSizeX()) {
        launch.emitOpError("cannot run on the host: its grid and block must "
                           "be constant, without clusters or async tokens");
        return signalPassFailure();
      }
      if (std::optional<std::string> why = whyNotSequential(kernel)) {
        launch.emitOpError("cannot run on the host: ")
            << "@" << kernel.getName() << " " << *why;
        return signalPassFailure();
      }
      emitHostLoops(launch, kernel, *sizes);
    }

    // The host side of device memory.
    SmallVector<Operation *> deviceOps;
    module.walk([&](Operation *op) {
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp>(op))
        deviceOps.push_back(op);
    });
    for (Operation *op : deviceOps) {
      OpBuilder b(op);
      if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        if (alloc.getAsyncToken() || !alloc.getDynamicSizes().empty()) {
          alloc.emitOpError("cannot run on the host: it is asynchronous or "
                            "of dynamic size");
          return signalPassFailure();
        }
        alloc.getMemref().replaceAllUsesWith(memref::AllocOp::create(
            b, alloc.getLoc(), cast<MemRefType>(alloc.getMemref().getType())));
      } else if (isa<gpu::DeallocOp>(op)) {
        // The CPU pipeline's buffer deallocation frees the allocations
        // itself, and refuses a function that frees them already.
      } else {
        auto copy = cast<gpu::MemcpyOp>(op);
        memref::CopyOp::create(b, copy.getLoc(), copy.getSrc(), copy.getDst());
      }
      op->erase();
    }

    // Kernel modules no launch names any more.
    for (auto kernels :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      if (SymbolTable::symbolKnownUseEmpty(kernels, module))
        kernels.erase();
    if (module.getOps<gpu::GPUModuleOp>().empty() &&
        module.getOps<gpu::BinaryOp>().empty())
      module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
