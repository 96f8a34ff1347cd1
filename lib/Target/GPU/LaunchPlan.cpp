//===- LaunchPlan.cpp - How to run a lowered module -----------------------===//

#include "mlsopt/Target/GPU/LaunchPlan.h"
#include "LoweredModuleDialects.h"
#include "mlsopt/Conversion/CustomKernelToGPU/CustomKernelToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {

/// "f16", "bf16", "f32": the names numpy-like runtimes use (bf16 aside);
/// "i1" for a boolean mask, one byte per element (torch.bool, numpy's bool);
/// "i8" to "i64" for integer inputs.
std::string dtypeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// The bytes of a static memref; none when a dim is dynamic or the count
/// does not fit an int64.
std::optional<int64_t> memrefBytes(MemRefType type) {
  // An i1 element takes a byte.
  std::optional<int64_t> bytes =
      llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  for (int64_t d : type.getShape())
    bytes = d < 0 || !bytes ? std::nullopt : llvm::checkedMul(*bytes, d);
  return bytes;
}

void writeTensor(llvm::json::OStream &j, MemRefType type) {
  j.attributeArray("shape", [&] {
    for (int64_t d : type.getShape())
      j.value(d);
  });
  j.attribute("dtype", dtypeName(type.getElementType()));
  // Checked before anything is written (translateToLaunchPlan).
  j.attribute("bytes", *memrefBytes(type));
}

FailureOr<int64_t> constantOf(Operation *user, Value v, StringRef what) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return user->emitError("the launch plan needs a constant ") << what;
  return value.getSExtValue();
}

struct FunctionPlan {
  func::FuncOp func;
  SmallVector<mlir::gpu::LaunchFuncOp> launches;
  /// gpu.alloc results in order; their position is the buffer id.
  SmallVector<Value> buffers;
  /// The constant each buffer a gpu.memcpy fills from a memref.global
  /// starts as (a weight the front end inlined).
  DenseMap<Value, DenseElementsAttr> initializers;
};

/// The largest constant the plan's JSON carries (256 MiB, a large layer's
/// weights inlined by a front end).
constexpr uint64_t kMaxInitializerBytes = uint64_t(1) << 28;

/// How many bytes the device holds `value` in: a splat's element repeated.
uint64_t getDeviceByteCount(DenseElementsAttr value) {
  // An i1 takes a byte on the device, whatever the attribute stores.
  if (value.getElementType().isInteger(1))
    return value.getNumElements();
  uint64_t raw = value.getRawData().size();
  if (!value.isSplat())
    return raw;
  return llvm::SaturatingMultiply(
      raw, static_cast<uint64_t>(value.getNumElements()));
}

/// The bytes of `value` as the device holds them: each element's bit
/// pattern, little-endian, splats repeated.
std::string getDeviceBytes(DenseElementsAttr value) {
  if (value.getElementType().isInteger(1)) {
    std::string bytes;
    bytes.reserve(value.getNumElements());
    for (bool bit : value.getValues<bool>())
      bytes.push_back(bit ? 1 : 0);
    return bytes;
  }
  ArrayRef<char> raw = value.getRawData();
  if (!value.isSplat())
    return std::string(raw.begin(), raw.end());
  std::string bytes;
  bytes.reserve(getDeviceByteCount(value));
  for (int64_t i = 0, e = value.getNumElements(); i < e; ++i)
    bytes.append(raw.begin(), raw.end());
  return bytes;
}

/// The buffer a kernel argument is: a reshaped view (memref.collapse_shape,
/// memref.expand_shape) passes the pointer of the buffer it views.
Value storageOf(Value value) {
  while (isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

} // namespace

LogicalResult mlsopt::gpu::translateToLaunchPlan(ModuleOp module,
                                                 raw_ostream &os) {
  SmallVector<FunctionPlan> plans;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FunctionPlan plan;
    plan.func = func;
    WalkResult walk = func.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<mlir::gpu::AllocOp>(op))
        plan.buffers.push_back(alloc.getMemref());
      if (auto copy = dyn_cast<mlir::gpu::MemcpyOp>(op)) {
        auto get = copy.getSrc().getDefiningOp<memref::GetGlobalOp>();
        auto global =
            get ? SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
                      get, get.getNameAttr())
                : memref::GlobalOp();
        auto value = global ? dyn_cast_or_null<DenseElementsAttr>(
                                  global.getInitialValueAttr())
                            : DenseElementsAttr();
        if (!value || !global.getConstant())
          return copy.emitError("the launch plan needs a gpu.memcpy to copy "
                                "a constant memref.global with a dense "
                                "initial value into a buffer"),
                 WalkResult::interrupt();
        // The plan carries the bytes in base64: a splat of 8 GiB took
        // minutes and 19 GB of memory to write.
        uint64_t bytes = getDeviceByteCount(value);
        if (bytes > kMaxInitializerBytes)
          return copy.emitError("the launch plan carries constants of at most ")
                     << kMaxInitializerBytes << " bytes, and this one has "
                     << bytes << "; pass it to the function as an input",
                 WalkResult::interrupt();
        plan.initializers[copy.getDst()] = value;
      }
      if (auto launch = dyn_cast<mlir::gpu::LaunchFuncOp>(op)) {
        if (launch->getParentOp() != func)
          return launch.emitError("the launch plan needs launches at the top "
                                  "level of their host function"),
                 WalkResult::interrupt();
        plan.launches.push_back(launch);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (!plan.launches.empty())
      plans.push_back(plan);
  }
  if (plans.empty())
    return emitError(module.getLoc())
           << "the module launches no GPU kernels; lower it with "
              "--mlsopt-gpu-pipeline first";

  // Everything is checked before anything is written, so a failure leaves
  // no half-written JSON behind.
  for (FunctionPlan &plan : plans) {
    func::FuncOp func = plan.func;
    // A runtime allocates every argument and buffer from its shape and
    // bytes, and matches results to buffers by result_index: each size
    // must be one an int64 holds, each result index given once, 0 to n-1.
    SmallVector<Value> tensors(func.getArguments());
    llvm::append_range(tensors, plan.buffers);
    for (Value tensor : tensors) {
      auto type = dyn_cast<MemRefType>(tensor.getType());
      if (!type)
        continue;
      if (!memrefBytes(type))
        return emitError(tensor.getLoc())
               << "the launch plan needs static sizes of at most 2^63 - 1 "
                  "bytes, got "
               << type;
    }
    unsigned numResults = 0;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      numResults += func.getArgAttr(i, kResultIndexAttrName) != nullptr;
    SmallVector<bool> seen(numResults, false);
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      Attribute attr = func.getArgAttr(i, kResultIndexAttrName);
      if (!attr)
        continue;
      auto index = dyn_cast<IntegerAttr>(attr);
      if (!index || index.getValue().isNegative() ||
          index.getValue().uge(numResults) ||
          seen[index.getValue().getZExtValue()])
        return func.emitError("the launch plan needs the ")
               << kResultIndexAttrName << " of the " << numResults
               << " result arguments to number them 0 to " << numResults
               << " - 1, each once; argument " << i << " has " << attr;
      seen[index.getValue().getZExtValue()] = true;
    }
  }
  struct LaunchConfig {
    int64_t grid[3], block[3], shared;
  };
  DenseMap<Operation *, LaunchConfig> configs;
  for (FunctionPlan &plan : plans) {
    for (mlir::gpu::LaunchFuncOp launch : plan.launches) {
      LaunchConfig c;
      Value grid[3] = {launch.getGridSizeX(), launch.getGridSizeY(),
                       launch.getGridSizeZ()};
      Value block[3] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                        launch.getBlockSizeZ()};
      for (int i = 0; i < 3; ++i) {
        FailureOr<int64_t> g = constantOf(launch, grid[i], "grid size");
        FailureOr<int64_t> bl = constantOf(launch, block[i], "block size");
        if (failed(g) || failed(bl))
          return failure();
        c.grid[i] = *g;
        c.block[i] = *bl;
      }
      c.shared = 0;
      if (Value shared = launch.getDynamicSharedMemorySize()) {
        FailureOr<int64_t> s =
            constantOf(launch, shared, "dynamic shared memory size");
        if (failed(s))
          return failure();
        c.shared = *s;
      }
      for (Value operand : launch.getKernelOperands()) {
        if (!isa<MemRefType>(operand.getType()))
          return launch.emitError("the launch plan handles memref kernel "
                                  "arguments only, got ")
                 << operand.getType();
        Value arg = storageOf(operand);
        auto blockArg = dyn_cast<BlockArgument>(arg);
        bool isArgument =
            blockArg && blockArg.getOwner()->getParentOp() == plan.func;
        if (!isArgument && !llvm::is_contained(plan.buffers, arg))
          return launch.emitError("the launch plan needs every kernel "
                                  "argument to be a function argument or a "
                                  "gpu.alloc");
      }
      configs[launch] = c;
    }
  }

  llvm::json::OStream j(os, /*IndentSize=*/2);
  j.object([&] {
    j.attribute("version", kLaunchPlanVersion);
    j.attributeArray("binaries", [&] {
      for (auto binary : module.getOps<mlir::gpu::BinaryOp>())
        j.object([&] {
          j.attribute("name", binary.getSymName());
          j.attributeArray("targets", [&] {
            for (Attribute attr : binary.getObjects()) {
              auto object = cast<mlir::gpu::ObjectAttr>(attr);
              auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
              j.object([&] {
                if (nvvm) {
                  j.attribute("chip", nvvm.getChip());
                  j.attribute("features", nvvm.getFeatures());
                }
                j.attribute("format", mlir::gpu::stringifyCompilationTarget(
                                          object.getFormat()));
              });
            }
          });
        });
    });
    j.attributeArray("functions", [&] {
      for (FunctionPlan &plan : plans) {
        j.object([&] {
          j.attribute("name", plan.func.getSymName());
          j.attributeArray("arguments", [&] {
            for (BlockArgument arg : plan.func.getArguments()) {
              auto type = dyn_cast<MemRefType>(arg.getType());
              j.object([&] {
                j.attribute("index", arg.getArgNumber());
                if (auto result = plan.func.getArgAttrOfType<IntegerAttr>(
                        arg.getArgNumber(), kResultIndexAttrName)) {
                  j.attribute("role", "result");
                  j.attribute("result_index", result.getInt());
                } else {
                  j.attribute("role", "input");
                }
                if (type)
                  writeTensor(j, type);
              });
            }
          });
          // Buffers live from the first launch that uses them to the last.
          j.attributeArray("buffers", [&] {
            for (auto [id, buffer] : llvm::enumerate(plan.buffers)) {
              int64_t first = -1, last = -1;
              for (auto [n, launch] : llvm::enumerate(plan.launches))
                if (llvm::is_contained(launch.getKernelOperands(), buffer)) {
                  if (first < 0)
                    first = n;
                  last = n;
                }
              j.object([&] {
                j.attribute("id", static_cast<int64_t>(id));
                writeTensor(j, cast<MemRefType>(buffer.getType()));
                j.attribute("first_launch", first);
                j.attribute("last_launch", last);
                if (DenseElementsAttr value = plan.initializers.lookup(buffer))
                  j.attribute("initializer",
                              llvm::encodeBase64(getDeviceBytes(value)));
              });
            }
          });
          j.attributeArray("launches", [&] {
            for (mlir::gpu::LaunchFuncOp launch : plan.launches) {
              const LaunchConfig &c = configs[launch];
              j.object([&] {
                j.attribute("module", launch.getKernelModuleName().getValue());
                j.attribute("kernel", launch.getKernelName().getValue());
                j.attributeArray("grid", [&] {
                  for (int64_t g : c.grid)
                    j.value(g);
                });
                j.attributeArray("block", [&] {
                  for (int64_t b : c.block)
                    j.value(b);
                });
                j.attribute("dynamic_shared_memory_bytes", c.shared);
                j.attributeArray("args", [&] {
                  for (Value operand : launch.getKernelOperands()) {
                    Value arg = storageOf(operand);
                    j.object([&] {
                      if (auto blockArg = dyn_cast<BlockArgument>(arg)) {
                        j.attribute("kind", "argument");
                        j.attribute("index", blockArg.getArgNumber());
                      } else {
                        j.attribute("kind", "buffer");
                        j.attribute(
                            "id",
                            static_cast<int64_t>(
                                llvm::find(plan.buffers, arg) -
                                plan.buffers.begin()));
                      }
                      writeTensor(j, cast<MemRefType>(operand.getType()));
                    });
                  }
                });
              });
            }
          });
        });
      }
    });
  });
  os << "\n";
  return success();
}

void mlsopt::gpu::registerToLaunchPlanTranslation() {
  TranslateFromMLIRRegistration registration(
      "emit-launch-plan",
      "print, as JSON, the kernel launches of every GPU host function",
      [](Operation *op, raw_ostream &os) {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return LogicalResult(op->emitError("expected a builtin.module"));
        return translateToLaunchPlan(module, os);
      },
      mlsopt::gpu::registerLoweredModuleDialects);
}
