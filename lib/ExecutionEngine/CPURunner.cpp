//===- CPURunner.cpp - Run lowered μGraphs in-process ---------------------===//
//
// Each runnable function @f gets an entry point @__mlsopt_run_f taking one
// memref per input and per result, with the C interface, before the module is
// lowered. The entry point wraps the memrefs as tensors, calls @f and
// materializes its results into the result memrefs, so the JIT-compiled code
// works on the caller's buffers and the calling convention is the plain
// memref descriptor of CRunnerUtils.h. The memrefs are always f32; for a
// function on f16 or bf16 tensors the entry point converts elementwise on the
// way in and out, so callers never handle 16-bit floats. A boolean mask
// input is passed as floats too, true where nonzero, and an integer input
// as the integers' values (exact up to 2^24), truncated to its width.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/ExecutionEngine/CPURunner.h"
#include "mlsopt/ExecutionEngine/CheckedAllocation.h"
#include "mlsopt/ExecutionEngine/MemRefDescriptor.h"
#include "mlsopt/Pipelines/Pipelines.h"
#include "mlsopt/Support/ScalarArguments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <unistd.h>

using namespace mlir;
using namespace mlsopt;

HostTensor HostTensor::zeros(ArrayRef<int64_t> shape) {
  HostTensor t;
  t.shape.assign(shape.begin(), shape.end());
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  t.data.assign(n, 0.0f);
  return t;
}

CPURunner::~CPURunner() = default;

static std::string entryName(StringRef function) {
  return ("__mlsopt_run_" + function).str();
}

/// Element types a runnable function may compute in.
static bool isRunnableElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

/// `tensor` with its elements converted to `elementType` (f32 to a 16-bit
/// float or back) by an elementwise linalg.generic, which the CPU pipeline
/// bufferizes and lowers like the program's own linalg.
static Value convertElements(OpBuilder &b, Location loc, Value tensor,
                             Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  auto resultType = type.clone(elementType);
  Value init =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), elementType);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  bool narrowing = !isa<IntegerType>(elementType) &&
                   elementType.getIntOrFloatBitWidth() <
                       type.getElementType().getIntOrFloatBitWidth();
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, tensor, init, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value converted;
        Type from = args[0].getType();
        if (from.isInteger(1)) {
          // A mask's true is 1, where sitofp would give -1.
          converted =
              arith::UIToFPOp::create(nested, loc, elementType, args[0]);
        } else if (isa<IntegerType>(from)) {
          converted =
              arith::SIToFPOp::create(nested, loc, elementType, args[0]);
        } else if (elementType.isInteger(1)) {
          Value zero = arith::ConstantOp::create(
              nested, loc, nested.getFloatAttr(args[0].getType(), 0.0));
          converted = arith::CmpFOp::create(
              nested, loc, arith::CmpFPredicate::UNE, args[0], zero);
        } else if (isa<IntegerType>(elementType)) {
          // Through i64, so that 200 becomes the bits of uint8's 200.
          converted = arith::FPToSIOp::create(nested, loc, nested.getI64Type(),
                                              args[0]);
          if (!elementType.isInteger(64))
            converted =
                arith::TruncIOp::create(nested, loc, elementType, converted);
        } else if (narrowing) {
          converted =
              arith::TruncFOp::create(nested, loc, elementType, args[0]);
        } else {
          converted = arith::ExtFOp::create(nested, loc, elementType, args[0]);
        }
        linalg::YieldOp::create(nested, loc, converted);
      });
  return generic.getResult(0);
}

/// Adds the memref entry point of `func` to `module`.
static void addEntryPoint(ModuleOp module, func::FuncOp func) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = func.getLoc();
  // Host buffers are f32 whatever the function computes in.
  auto toMemRef = [&](Type t) {
    auto tensor = cast<RankedTensorType>(t);
    return MemRefType::get(tensor.getShape(), b.getF32Type());
  };
  SmallVector<Type> args;
  for (Type t : func.getArgumentTypes())
    args.push_back(toMemRef(t));
  for (Type t : func.getResultTypes())
    args.push_back(toMemRef(t));
  auto entry = func::FuncOp::create(b, loc, entryName(func.getSymName()),
                                    b.getFunctionType(args, {}));
  entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                 b.getUnitAttr());
  Block *body = entry.addEntryBlock();
  b.setInsertionPointToStart(body);
  unsigned numInputs = func.getNumArguments();
  SmallVector<Value> tensors;
  for (unsigned i = 0; i < numInputs; ++i) {
    auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
    Value hostTensor = bufferization::ToTensorOp::create(
        b, loc, type.clone(b.getF32Type()), body->getArgument(i),
        /*restrict=*/true, /*writable=*/false);
    tensors.push_back(
        convertElements(b, loc, hostTensor, type.getElementType()));
  }
  auto call = func::CallOp::create(b, loc, func, tensors);
  for (auto [i, result] : llvm::enumerate(call.getResults())) {
    Value hostResult = convertElements(b, loc, result, b.getF32Type());
    auto materialize = bufferization::MaterializeInDestinationOp::create(
        b, loc, hostResult, body->getArgument(numInputs + i));
    materialize.setWritable(true);
  }
  func::ReturnOp::create(b, loc);
}

/// The host's physical memory in bytes, or 0 where it cannot be told.
static double getPhysicalMemoryBytes() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    return double(pages) * double(pageSize);
#endif
  return 0;
}

/// Fails, at the value, if some tensor of `func` is larger than the host's
/// memory: the lowered code allocates it with an unchecked malloc, whose null
/// result it would then write through (a crash, not an error).
static LogicalResult checkTensorsFitHost(func::FuncOp func) {
  double limit = getPhysicalMemoryBytes();
  if (limit == 0)
    return success();
  auto check = [&](Value value) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return success();
    // In double: a shape's element count may overflow int64_t.
    double bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    for (int64_t size : type.getShape())
      bytes *= double(size);
    if (bytes <= limit)
      return success();
    auto gib = [](double b) {
      return static_cast<int64_t>(std::ceil(b / double(1 << 30)));
    };
    return emitError(value.getLoc())
           << "a " << type << " takes " << gib(bytes)
           << " GiB, more than this machine's memory (" << gib(limit)
           << " GiB); the function cannot run on the host";
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(check(arg)))
      return failure();
  WalkResult walk = func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (failed(check(result)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<std::unique_ptr<CPURunner>>
CPURunner::create(ModuleOp module, ArrayRef<StringRef> functions) {
  std::unique_ptr<CPURunner> runner(new CPURunner());
  // The pipeline needs every dialect it lowers through and their external
  // interface models (bufferization, LLVM conversion), whatever the caller
  // registered; the entry points use some dialects before any pass loads
  // them.
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  context->appendDialectRegistry(registry);
  context->loadDialect<bufferization::BufferizationDialect, func::FuncDialect,
                       LLVM::LLVMDialect, memref::MemRefDialect>();
  OwningOpRef<ModuleOp> copy = module.clone();
  for (StringRef name : functions) {
    auto func = copy->lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal())
      return module.emitError("no function @") << name << " to run";
    // A scalar argument is passed as a buffer of one element, like the
    // 0-d tensor the import reads it as.
    passScalarArgumentsAsTensors(func);
    Signature signature;
    auto collect = [&](TypeRange types,
                       SmallVectorImpl<SmallVector<int64_t>> &shapes) {
      for (Type t : types) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        if (!tensor || !tensor.hasStaticShape() ||
            !(isRunnableElementType(tensor.getElementType()) ||
              isa<IntegerType>(tensor.getElementType())))
          return false;
        shapes.emplace_back(tensor.getShape());
      }
      return true;
    };
    if (!collect(func.getArgumentTypes(), signature.inputs) ||
        !collect(func.getResultTypes(), signature.results))
      return func.emitError("@")
             << name
             << " cannot run on the host: it must take and return statically "
                "shaped f16, bf16, f32 or integer (i1 for masks) tensors";
    runner->signatures[name] = std::move(signature);
    addEntryPoint(*copy, func);
  }

  // A call of a function the module only declares would fail when the JIT
  // first looks it up, with the symbol's name and no location; unless the
  // process has the symbol (a libm function), say so at the call.
  WalkResult undefined = copy->walk([&](func::CallOp call) {
    auto callee = copy->lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || !callee.isExternal() ||
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            callee.getSymName().str()))
      return WalkResult::advance();
    emitError(call.getLoc(), "@")
        << callee.getSymName()
        << " is only declared in the module, and the host has no definition "
           "of it to run this call with";
    return WalkResult::interrupt();
  });
  if (undefined.wasInterrupted())
    return failure();

  // Every function, as the runnable ones may call the others.
  WalkResult tooLarge = copy->walk([&](func::FuncOp f) {
    return failed(checkTensorsFitHost(f)) ? WalkResult::interrupt()
                                          : WalkResult::advance();
  });
  if (tooLarge.wasInterrupted())
    return failure();

  PassManager pm(module.getContext());
  buildCPUPipeline(pm);
  if (failed(pm.run(*copy)))
    return failure();
  redirectAllocations(*copy);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  ExecutionEngineOptions options;
  // Lowered memref copies of strided views call memrefCopy from MLIR's C
  // runner utilities.
  StringRef runtimeLibraries[] = {MLSOPT_C_RUNNER_UTILS};
  options.sharedLibPaths = runtimeLibraries;
  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*copy, options);
  if (!engine)
    return module.emitError("JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  runner->engine = std::move(*engine);
  registerCheckedAllocations(*runner->engine);
  return runner;
}

FailureOr<SmallVector<HostTensor>> CPURunner::run(StringRef function,
                                                  ArrayRef<HostTensor> inputs,
                                                  std::string *error) const {
  auto fail = [&](const Twine &message) {
    if (error)
      *error = message.str();
    return failure();
  };
  auto it = signatures.find(function);
  if (it == signatures.end())
    return fail("@" + function + " was not compiled to run");
  const Signature &signature = it->second;
  if (inputs.size() != signature.inputs.size())
    return fail("@" + function + " takes " + Twine(signature.inputs.size()) +
                " inputs, got " + Twine(inputs.size()));
  for (auto [i, input, shape] : llvm::enumerate(inputs, signature.inputs))
    if (ArrayRef<int64_t>(input.shape) != ArrayRef<int64_t>(shape))
      return fail("input " + Twine(i) + " of @" + function +
                  " has another shape than its signature's");

  SmallVector<HostTensor> results;
  for (const SmallVector<int64_t> &shape : signature.results)
    results.push_back(HostTensor::zeros(shape));
  // The JIT code reads inputs through non-const pointers but never writes
  // them (the entry point marks them read-only).
  SmallVector<MemRefDescriptor> descriptors;
  for (const HostTensor &input : inputs)
    descriptors.emplace_back(const_cast<float *>(input.data.data()),
                             input.shape);
  for (HostTensor &result : results)
    descriptors.emplace_back(result.data.data(), result.shape);
  // The C interface takes a pointer to each descriptor; the packed wrapper
  // takes a pointer to each argument.
  SmallVector<void *> pointers, args;
  for (MemRefDescriptor &d : descriptors)
    pointers.push_back(d.words.data());
  for (void *&p : pointers)
    args.push_back(&p);
  if (llvm::Error failure = invokePackedCheckingAllocations(
          *engine, "_mlir_ciface_" + entryName(function), args))
    return fail(llvm::toString(std::move(failure)));
  return results;
}
