//===- FieldJIT.cpp - Finite-field programs through the ExecutionEngine ---===//
//
// The ORC headers make this the slow file to compile; it holds nothing but the
// lowering, the compilation and the calls.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Verify/FieldJIT.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/ExecutionEngine/CheckedAllocation.h"
#include "mlsopt/ExecutionEngine/MemRefDescriptor.h"
#include "mlsopt/Verify/FieldProgram.h"
#include "mlsopt/Verify/FieldRuntime.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;

FieldJIT::~FieldJIT() = default;

/// The field program uses scf, memref, arith and func on i128 elements and an
/// !llvm.ptr context: the standard CPU lowering of those dialects.
static void buildFieldLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Ops are loop nests one after another in one function: a long program's
  // compile in linear time apart (16 MLP layers against their μGraph, 270
  // nests: 9.7 s to check, 8.1 s outlined; 40 layers 64 s, 20.7 s).
  pm.addPass(mlsopt::createOutlineLoopNests());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

FailureOr<std::unique_ptr<FieldJIT>>
FieldJIT::create(ArrayRef<func::FuncOp> functions) {
  if (functions.empty())
    return failure();
  func::FuncOp first = functions.front();
  MLIRContext *context = first.getContext();
  std::unique_ptr<FieldJIT> jit(new FieldJIT());
  OwningOpRef<ModuleOp> module = ModuleOp::create(first.getLoc());
  for (func::FuncOp func : functions) {
    // The evaluator's analysis checks the program (supported ops, LAX where
    // exp needs it) and tells which values need q-parts.
    FailureOr<FieldEvaluator> analysis = FieldEvaluator::create(func);
    if (failed(analysis) || failed(buildFieldProgram(*module, func, *analysis)))
      return failure();
    Signature signature;
    signature.func = func;
    for (Type t : func.getArgumentTypes())
      signature.inputs.emplace_back(cast<RankedTensorType>(t).getShape());
    for (Type t : func.getResultTypes())
      signature.results.emplace_back(cast<RankedTensorType>(t).getShape());
    jit->signatures.push_back(std::move(signature));
  }

  PassManager pm(context);
  buildFieldLoweringPipeline(pm);
  if (failed(pm.run(*module)))
    return first.emitError(
        "lowering the finite-field program to LLVM failed");
  redirectAllocations(*module);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  ExecutionEngineOptions options;
  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return first.emitError(
               "JIT compilation of the finite-field program failed: ")
           << llvm::toString(engine.takeError());
  jit->engine = std::move(*engine);
  // The runtime's arithmetic lives in this process: resolve its calls here
  // rather than through the process's exported symbols.
  jit->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto [name, address] : getFieldRuntimeSymbols())
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  registerCheckedAllocations(*jit->engine);
  return jit;
}

namespace {

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}
} // namespace

FailureOr<FieldEvaluation>
FieldJIT::evaluate(unsigned function, ArrayRef<FieldTensor> inputs,
                   const FieldOptions &options) {
  if (function >= signatures.size())
    return failure();
  const Signature &signature = signatures[function];
  func::FuncOp func = signature.func;
  if (inputs.size() != signature.inputs.size())
    return func.emitError("the finite-field program got ")
           << inputs.size() << " inputs for " << signature.inputs.size()
           << " arguments";
  // Elements travel packed: the residue mod p low, the q-part high.
  std::vector<std::vector<uint128_t>> buffers;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inputs, signature.inputs))) {
    const FieldTensor &input = std::get<0>(pair);
    ArrayRef<int64_t> shape = std::get<1>(pair);
    if (ArrayRef<int64_t>(input.shape) != shape ||
        input.getNumElements() != numElements(shape))
      return func.emitError("finite-field input ")
             << i << " does not match the argument's shape";
    std::vector<uint128_t> &buffer = buffers.emplace_back(numElements(shape));
    for (int64_t e = 0, n = buffer.size(); e < n; ++e)
      buffer[e] = packFieldElement(
          input.p[e], input.hasExponents() ? input.q[e] : kNotLaxExponent);
  }
  for (ArrayRef<int64_t> shape : signature.results)
    buffers.emplace_back(numElements(shape));

  SmallVector<ArrayRef<int64_t>> shapes;
  for (const auto &shape : signature.inputs)
    shapes.push_back(shape);
  for (const auto &shape : signature.results)
    shapes.push_back(shape);
  SmallVector<MemRefDescriptor> descriptors;
  for (auto [buffer, shape] : llvm::zip_equal(buffers, shapes))
    descriptors.emplace_back(buffer.data(), shape);

  FieldRuntimeContext runtime;
  runtime.functionSeed = options.functionSeed;
  // The keys FieldEvaluator::evaluate uses: one random function per unary
  // kind k in each field, keyed k + 1.
  for (unsigned k = 0; k < FieldRuntimeContext::kMaxFunctions; ++k) {
    runtime.functionKeys[k] = randomFunctionKey(options.functionSeed, k + 1);
    runtime.exponentKeys[k] = exponentFunctionKey(options.functionSeed, k + 1);
  }
  FieldRuntimeContext *runtimePointer = &runtime;

  // The C interface takes the context and a pointer to each descriptor; the
  // packed wrapper takes a pointer to each argument.
  SmallVector<void *> pointers, args;
  for (MemRefDescriptor &d : descriptors)
    pointers.push_back(d.words.data());
  args.push_back(&runtimePointer);
  for (void *&p : pointers)
    args.push_back(&p);
  std::string entry =
      "_mlir_ciface_" + getFieldProgramName(func.getSymName());
  if (llvm::Error error = invokePackedCheckingAllocations(*engine, entry, args))
    return func.emitError("running the finite-field program failed: ")
           << llvm::toString(std::move(error));
  if (runtime.notLax)
    return func.emitError("exp of a value without a residue mod q: the "
                          "program is not LAX");

  FieldEvaluation evaluation;
  evaluation.divisionByZero = runtime.divisionByZero != 0;
  for (auto [buffer, shape] :
       llvm::zip(ArrayRef(buffers).drop_front(inputs.size()),
                 signature.results)) {
    FieldTensor &result = evaluation.results.emplace_back(shape);
    for (int64_t e = 0, n = buffer.size(); e < n; ++e) {
      result.p[e] = residueOf(buffer[e]);
      result.q[e] = exponentOf(buffer[e]);
    }
  }
  return evaluation;
}
