//===- Graph.cpp - The kernel graph behind the Python package -------------===//

#include "Graph.h"

#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/InitAllDialects.h"
#include "mlsopt/Support/ScalarArguments.h"
#include "mlsopt/Support/ShapeInference.h"
#include "mlsopt/Support/Target.h"
#include "mlsopt/Target/Dot/GraphToDot.h"

// The GPU target (PTX and launch plans) comes with the GPU pipeline; a build
// without it still has everything else. CMake defines MLSOPT_HAVE_GPU_TARGET
// when the library exists (a definition, unlike __has_include, makes ninja
// rebuild this file when it appears).
#ifdef MLSOPT_HAVE_GPU_TARGET
#include "mlsopt/Target/GPU/LaunchPlan.h"
#include "mlsopt/Target/GPU/PTX.h"
#endif

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <new>
#include <pthread.h>
#include <type_traits>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::python;

//===----------------------------------------------------------------------===//
// The process-wide context
//===----------------------------------------------------------------------===//

static MLIRContext &getContext();

/// A fresh thread pool for the context. The one before it is left alive and
/// unused: after a fork, its threads are the parent's, which the child does
/// not have, so destroying it (joining them) would hang as waiting on it
/// did.
static void giveContextNewThreadPool() {
  MLIRContext &context = getContext();
  context.disableMultithreading();
  context.setThreadPool(*new llvm::DefaultThreadPool());
}

/// One context for every graph, so that graphs can be cloned into each
/// other's modules and types compare by pointer. It lives until the process
/// exits: Python may destroy graphs after module teardown, in any order.
/// Its thread pool is the package's own, replaced in a forked child
/// (multiprocessing's default start method, DataLoader workers): the
/// child's first pass run waited forever on the parent's pool threads.
static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    // Parsing a front end's module needs the upstream dialects (linalg,
    // tensor, arith, math), and pipelines need their passes.
    mlir::registerAllPasses();
    mlsopt::registerAllPasses();
    DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    // The GPU pipeline serializes gpu.modules through LLVM IR to PTX.
    mlir::registerAllToLLVMIRTranslations(registry);
    mlsopt::registerAllDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->setThreadPool(*new llvm::DefaultThreadPool());
    pthread_atfork(/*prepare=*/nullptr, /*parent=*/nullptr,
                   /*child=*/&giveContextNewThreadPool);
    // Errors go to Python users: the sentence and its location, without the
    // generic form of the op that MLIR appends as a note by default.
    context->printOpOnDiagnostic(false);
    context->loadDialect<func::FuncDialect, kernel::KernelDialect>();
    return context;
  }();
  return *context;
}

bool mlsopt::python::hasGPUTarget() {
#ifdef MLSOPT_HAVE_GPU_TARGET
  return true;
#else
  return false;
#endif
}

bool mlsopt::python::isPassRegistered(StringRef name) {
  (void)getContext(); // registers the passes
  return PassInfo::lookup(name) || PassPipelineInfo::lookup(name);
}

namespace {
/// Collects every diagnostic emitted on the context while it lives, as
/// "file:line:col: error: message" lines (mlsopt-opt's format), so that a
/// failure can be thrown with the text MLIR produced, and keeps the
/// warnings apart, for Python's warnings after a success.
class DiagnosticCapture {
public:
  DiagnosticCapture()
      : handler(&getContext(), [this](Diagnostic &diag) {
          std::string formatted;
          append(formatted, diag);
          for (Diagnostic &note : diag.getNotes())
            append(formatted, note);
          if (diag.getSeverity() == DiagnosticSeverity::Warning)
            warnings.push_back(formatted);
          append(text, formatted);
          return success();
        }) {}

  /// Throws MLIRError with what was collected, or `fallback` if nothing was.
  [[noreturn]] void fail(StringRef fallback) {
    throw MLIRError(text.empty() ? fallback.str() : text);
  }

  /// The warnings, each with its notes.
  std::vector<std::string> takeWarnings() { return std::move(warnings); }

private:
  static void append(std::string &to, StringRef line) {
    if (!to.empty())
      to += "\n";
    to += line;
  }
  static void append(std::string &to, Diagnostic &diag) {
    if (!to.empty())
      to += "\n";
    llvm::raw_string_ostream os(to);
    if (auto fileLoc = diag.getLocation()->findInstanceOf<FileLineColLoc>()) {
      os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine();
      // Python tells lines, not columns: 0 means "no column".
      if (fileLoc.getColumn() != 0)
        os << ":" << fileLoc.getColumn();
      os << ": ";
    }
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag.str();
  }

  std::string text;
  std::vector<std::string> warnings;
  ScopedDiagnosticHandler handler;
};
} // namespace

/// `shape` as Python prints a tuple, for errors about Python's arguments.
static std::string formatTuple(ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (auto [i, size] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(size);
  return text + (shape.size() == 1 ? ",)" : ")");
}

static Location toLocation(const SourceLocation &loc) {
  MLIRContext &context = getContext();
  if (loc.file.empty())
    return UnknownLoc::get(&context);
  return FileLineColLoc::get(&context, loc.file, loc.line, /*column=*/0);
}

static Type toMLIRType(ElementType type) {
  MLIRContext &context = getContext();
  switch (type) {
  case ElementType::F16:
    return Float16Type::get(&context);
  case ElementType::BF16:
    return BFloat16Type::get(&context);
  case ElementType::F32:
    return Float32Type::get(&context);
  case ElementType::I1:
    return IntegerType::get(&context, 1);
  case ElementType::I8:
    return IntegerType::get(&context, 8);
  case ElementType::I16:
    return IntegerType::get(&context, 16);
  case ElementType::I32:
    return IntegerType::get(&context, 32);
  case ElementType::I64:
    return IntegerType::get(&context, 64);
  }
  llvm_unreachable("unknown element type");
}

//===----------------------------------------------------------------------===//
// Op tables
//===----------------------------------------------------------------------===//

namespace {
/// A list of kernel ops that Python names by mnemonic ("exp" for kernel.exp).
template <typename... OpTys> struct KernelOpList {
  /// Calls `fn` with a null `OpTy *` for the op of the list named `name`;
  /// false if there is none.
  template <typename Fn> static bool visit(StringRef name, Fn &&fn) {
    return ((name == OpTys::getOperationName().drop_front(
                         kernel::KernelDialect::getDialectNamespace().size() +
                         1) &&
             (fn(static_cast<OpTys *>(nullptr)), true)) ||
            ...);
  }
};

/// The elementwise ops Graph::addUnary and Graph::addBinary build.
using UnaryOps =
    KernelOpList<kernel::ExpOp, kernel::LogOp, kernel::SqrtOp, kernel::RsqrtOp,
                 kernel::SquareOp, kernel::SiluOp, kernel::SigmoidOp,
                 kernel::GeluOp, kernel::ReluOp, kernel::TanhOp, kernel::ErfOp,
                 kernel::NegOp, kernel::GeluTanhOp, kernel::SinOp,
                 kernel::CosOp, kernel::Log1pOp, kernel::SoftplusOp,
                 kernel::FloorOp, kernel::CeilOp, kernel::RoundOp>;
using BinaryOps = KernelOpList<kernel::AddOp, kernel::SubOp, kernel::MulOp,
                               kernel::DivOp, kernel::MaxOp, kernel::MinOp>;
using ScalarOps = KernelOpList<kernel::MulScalarOp, kernel::AddScalarOp,
                               kernel::MaxScalarOp, kernel::MinScalarOp>;
} // namespace

bool mlsopt::python::isUnaryOpName(StringRef name) {
  return UnaryOps::visit(name, [](auto *) {});
}

bool mlsopt::python::isBinaryOpName(StringRef name) {
  return BinaryOps::visit(name, [](auto *) {});
}

std::vector<int64_t>
mlsopt::python::inferShape(StringRef rule,
                           const std::vector<std::vector<int64_t>> &shapes,
                           int64_t dim, const SourceLocation &loc) {
  SmallVector<ArrayRef<int64_t>> operands(shapes.begin(), shapes.end());
  size_t arity = llvm::StringSwitch<size_t>(rule)
                     .Cases({"matmul", "broadcast"}, 2)
                     .Case("concat", operands.size())
                     .Default(1);
  if (operands.size() != arity || operands.empty())
    throw std::invalid_argument("shape rule '" + rule.str() + "' takes " +
                                std::to_string(arity) + " shapes");
  ShapeOrError result;
  if (rule == "matmul")
    result = matmulShape(operands[0], operands[1]);
  else if (rule == "broadcast")
    result = broadcastShapes(operands[0], operands[1]);
  else if (rule == "same")
    result = sameShape(operands[0]);
  else if (rule == "last_dim")
    result = normalizedDimShape(operands[0], std::nullopt);
  else if (rule == "reduce")
    result = reduceShape(operands[0], dim);
  else if (rule == "concat")
    result = concatShape(operands, dim);
  else
    throw std::invalid_argument("no shape rule '" + rule.str() + "'");
  if (!result.ok()) {
    DiagnosticCapture diagnostics;
    emitError(toLocation(loc)) << result.error;
    diagnostics.fail(result.error);
  }
  return std::vector<int64_t>(result.shape.begin(), result.shape.end());
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

std::unique_ptr<Graph> Graph::create() {
  std::unique_ptr<Graph> graph(new Graph());
  MLIRContext &context = getContext();
  OpBuilder b(&context);
  Location loc = UnknownLoc::get(&context);
  graph->module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(graph->module->getBody());
  auto func = func::FuncOp::create(b, loc, "main", b.getFunctionType({}, {}));
  b.setInsertionPointToStart(func.addEntryBlock());
  func::ReturnOp::create(b, loc);
  graph->func = func;
  return graph;
}

/// `func` and the functions it calls, directly or not. Emits an error at
/// the first call that reaches a function already on the path to it and
/// fails: a graph is a DAG of tensor ops, a recursive call has no base case
/// to stop it, and running it never ended.
static FailureOr<llvm::SmallPtrSet<Operation *, 8>>
getCalledFunctions(ModuleOp module, func::FuncOp func) {
  llvm::SmallPtrSet<Operation *, 8> onPath, done;
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp current) -> LogicalResult {
    if (done.contains(current))
      return success();
    onPath.insert(current);
    WalkResult walked = current.walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!callee)
        return WalkResult::advance();
      if (onPath.contains(callee)) {
        call.emitError("recursive call of @")
            << callee.getSymName() << ": a graph is a DAG of tensor ops";
        return WalkResult::interrupt();
      }
      return failed(visit(callee)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    onPath.erase(current);
    done.insert(current);
    return failure(walked.wasInterrupted());
  };
  if (failed(visit(func)))
    return failure();
  return done;
}

/// Erases every function of `module` but those in `kept` (`func` and the
/// functions it calls), so that the graph is one program: passes such as
/// --superoptimize work on every function of a module. A link to an erased
/// reference (mlsopt.equivalent_to) goes too.
static void keepOnly(ModuleOp module,
                     const llvm::SmallPtrSet<Operation *, 8> &kept) {
  for (auto other : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!kept.contains(other))
      other.erase();
  for (Operation *op : kept)
    if (auto reference = op->getAttrOfType<FlatSymbolRefAttr>(
            MLSOptDialect::kEquivalentToAttrName))
      if (!module.lookupSymbol(reference))
        op->removeAttr(MLSOptDialect::kEquivalentToAttrName);
}

std::unique_ptr<Graph> Graph::parse(StringRef text, StringRef function) {
  DiagnosticCapture diagnostics;
  MLIRContext &context = getContext();
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, /*sourceName=*/"<mlir>");
  if (!module)
    diagnostics.fail("the text is not an MLIR module");

  // A front end's linalg becomes kernel ops; what the kernel dialect cannot
  // express stays linalg, which the CPU pipeline still runs.
  PassManager pm(&context);
  if (failed(parsePassPipeline("convert-linalg-to-kernel", pm)))
    diagnostics.fail("--convert-linalg-to-kernel is not registered");
  if (failed(pm.run(*module)))
    diagnostics.fail("--convert-linalg-to-kernel failed");

  func::FuncOp func;
  if (!function.empty()) {
    func = module->lookupSymbol<func::FuncOp>(function);
    if (!func || func.isExternal())
      throw MLIRError(("the module has no function @" + function).str());
  } else {
    // The first entry point: a private function is a helper the others
    // call (only when all are private, the first of those).
    for (auto candidate : module->getOps<func::FuncOp>())
      if (!candidate.isExternal() &&
          (!func || (func.isPrivate() && !candidate.isPrivate())))
        func = candidate;
    if (!func)
      throw MLIRError("the module has no function with a body");
  }
  FailureOr<llvm::SmallPtrSet<Operation *, 8>> called =
      getCalledFunctions(*module, func);
  if (failed(called))
    diagnostics.fail("the graph's function calls itself");
  keepOnly(*module, *called);
  // A scalar argument (`%alpha: f32`) is an input of shape (), the 0-d
  // tensor the import reads it as (the functions that called the graph's
  // are gone; one it calls keeps its scalars, passed as elements).
  passScalarArgumentsAsTensors(func);
  // The graph's inputs and outputs stand for numpy arrays and torch
  // tensors: a dynamic shape or an f64 tensor could be neither shown
  // (`dims`) nor run. An argument may be a boolean mask (kernel.where reads
  // it) or integers (kernel.int_to_float); a result may be integers too (an
  // argmax's indices, which a linalg op the import left computes).
  auto checkBoundary = [&](Location loc, Type type, StringRef what) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && isMaskOrIntegerElementType(tensor.getElementType()))
      type = tensor.clone(Float32Type::get(type.getContext()));
    if (failed(verifyTensorOperands(loc, type)))
      diagnostics.fail(
          ("@" + func.getSymName() + " has an unsupported " + what).str());
  };
  for (BlockArgument arg : func.getArguments())
    checkBoundary(arg.getLoc(), arg.getType(), "argument");
  for (Type type : func.getResultTypes())
    checkBoundary(func.getLoc(), type, "result");
  std::unique_ptr<Graph> graph(new Graph());
  graph->module = std::move(module);
  graph->attach(func);
  return graph;
}

std::unique_ptr<Graph> Graph::clone() {
  std::unique_ptr<Graph> copy(new Graph());
  copy->module = module->clone();
  copy->attach(copy->module->lookupSymbol<func::FuncOp>(func.getSymName()));
  return copy;
}

std::unique_ptr<Graph> Graph::cloneWithOutputs(ArrayRef<unsigned> ids) {
  SmallVector<Value> values;
  for (unsigned id : ids)
    values.push_back(lookup(id));
  IRMapping mapping;
  std::unique_ptr<Graph> copy(new Graph());
  copy->module = cast<ModuleOp>(module->getOperation()->clone(mapping));
  auto copied = copy->module->lookupSymbol<func::FuncOp>(func.getSymName());
  Operation *terminator = copied.getBody().back().getTerminator();
  SmallVector<Value> results;
  for (Value value : values)
    results.push_back(mapping.lookup(value));
  terminator->setOperands(results);
  copied.setFunctionType(FunctionType::get(&getContext(),
                                           copied.getFunctionType().getInputs(),
                                           ValueRange(results).getTypes()));
  copy->attach(copied);
  return copy;
}

void Graph::attach(func::FuncOp function) {
  func = function;
  tensors.clear();
  invalidate();
  for (BlockArgument arg : func.getArguments())
    track(arg);
  for (Value result : func.getBody().back().getTerminator()->getOperands())
    track(result);
}

unsigned Graph::track(Value value) {
  tensors.push_back(value);
  return tensors.size() - 1;
}

Value Graph::lookup(unsigned tensor) {
  if (tensor >= tensors.size())
    throw std::out_of_range("no tensor " + std::to_string(tensor) +
                            " in this graph");
  return tensors[tensor];
}

unsigned Graph::addInput(ArrayRef<int64_t> shape, ElementType type,
                         const SourceLocation &loc) {
  DiagnosticCapture diagnostics;
  Location location = toLocation(loc);
  for (int64_t size : shape)
    if (size <= 0) {
      emitError(location) << "input dims must be positive, got "
                          << formatTuple(shape);
      diagnostics.fail("bad input shape");
    }
  auto tensorType = RankedTensorType::get(shape, toMLIRType(type));
  Block &entry = func.getBody().front();
  BlockArgument arg = entry.addArgument(tensorType, location);
  SmallVector<Type> inputs(entry.getArgumentTypes());
  func.setFunctionType(FunctionType::get(&getContext(), inputs,
                                         func.getFunctionType().getResults()));
  invalidate();
  return track(arg);
}

std::vector<unsigned> Graph::addCustomKernel(StringRef text,
                                             ArrayRef<unsigned> inputs) {
  DiagnosticCapture diagnostics;
  ParserConfig config(&getContext());
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(text, config, "<threadblock graph>");
  if (!parsed)
    diagnostics.fail("the threadblock graph does not verify");
  auto wrapper = parsed->lookupSymbol<func::FuncOp>("__mlsopt_custom");
  if (!wrapper || wrapper.getNumArguments() != inputs.size())
    throw std::invalid_argument(
        "expected @__mlsopt_custom with one argument per input");
  auto customs = wrapper.getOps<kernel::CustomOp>();
  if (customs.empty())
    throw std::invalid_argument("@__mlsopt_custom holds no kernel.custom");
  kernel::CustomOp custom = *customs.begin();
  IRMapping mapping;
  for (auto [arg, input] : llvm::zip(wrapper.getArguments(), inputs)) {
    Value value = lookup(input);
    if (value.getType() != arg.getType())
      throw std::invalid_argument("input type mismatch for the custom kernel");
    mapping.map(arg, value);
  }
  OpBuilder b(func.getBody().back().getTerminator());
  Operation *cloned = b.clone(*custom, mapping);
  invalidate();
  std::vector<unsigned> ids;
  for (Value result : cloned->getResults())
    ids.push_back(track(result));
  return ids;
}

void Graph::markOutput(unsigned tensor) {
  Value value = lookup(tensor);
  Operation *terminator = func.getBody().back().getTerminator();
  terminator->insertOperands(terminator->getNumOperands(), value);
  SmallVector<Type> results(terminator->getOperandTypes());
  func.setFunctionType(FunctionType::get(
      &getContext(), func.getFunctionType().getInputs(), results));
  invalidate();
}

/// Builds one kernel op before the function's terminator. The result type
/// is inferred first, with the op's own rule, so that a shape error becomes
/// a diagnostic (the inferring builders abort on failure), and the new op is
/// verified before it is kept.
template <typename OpTy>
unsigned Graph::addOp(const SourceLocation &loc, ValueRange operands,
                      ArrayRef<NamedAttribute> attributes) {
  DiagnosticCapture diagnostics;
  MLIRContext &context = getContext();
  Location location = toLocation(loc);
  DictionaryAttr dictionary = DictionaryAttr::get(&context, attributes);
  typename OpTy::Properties properties;
  if constexpr (!std::is_same_v<typename OpTy::Properties, EmptyProperties>) {
    if (failed(OpTy::setPropertiesFromAttr(
            properties, dictionary, [&] { return emitError(location); })))
      diagnostics.fail("bad attributes");
  }
  SmallVector<Type> resultTypes;
  if (failed(OpTy::inferReturnTypes(
          &context, location,
          typename OpTy::Adaptor(operands, dictionary, properties),
          resultTypes)))
    diagnostics.fail("the result type cannot be inferred");
  OpBuilder b(func.getBody().back().getTerminator());
  auto op = OpTy::create(b, location, resultTypes, operands, attributes);
  if (failed(mlir::verify(op))) {
    op->erase();
    diagnostics.fail("the new op does not verify");
  }
  invalidate();
  return track(op->getResult(0));
}

unsigned Graph::addUnary(StringRef name, unsigned input,
                         const SourceLocation &loc) {
  unsigned result = 0;
  if (!UnaryOps::visit(name, [&](auto *tag) {
        using OpTy = std::remove_pointer_t<decltype(tag)>;
        result = addOp<OpTy>(loc, lookup(input));
      }))
    throw std::invalid_argument("no unary kernel op '" + name.str() + "'");
  return result;
}

unsigned Graph::addBinary(StringRef name, unsigned lhs, unsigned rhs,
                          const SourceLocation &loc) {
  unsigned result = 0;
  if (!BinaryOps::visit(name, [&](auto *tag) {
        using OpTy = std::remove_pointer_t<decltype(tag)>;
        result = addOp<OpTy>(loc, {lookup(lhs), lookup(rhs)});
      }))
    throw std::invalid_argument("no binary kernel op '" + name.str() + "'");
  return result;
}

unsigned Graph::addMatmul(unsigned lhs, unsigned rhs,
                          const SourceLocation &loc) {
  return addOp<kernel::MatmulOp>(loc, {lookup(lhs), lookup(rhs)});
}

unsigned Graph::addReduceSum(unsigned input, int64_t dim,
                             const SourceLocation &loc) {
  Builder b(&getContext());
  return addOp<kernel::ReduceSumOp>(
      loc, lookup(input), {b.getNamedAttr("dim", b.getI64IntegerAttr(dim))});
}

unsigned Graph::addRmsNorm(unsigned input, double epsilon,
                           const SourceLocation &loc) {
  Builder b(&getContext());
  return addOp<kernel::RmsNormOp>(
      loc, lookup(input),
      {b.getNamedAttr("epsilon", b.getF64FloatAttr(epsilon))});
}

unsigned Graph::addScalarOp(StringRef name, unsigned input, double scalar,
                            const SourceLocation &loc) {
  Builder b(&getContext());
  unsigned result = 0;
  if (!ScalarOps::visit(name, [&](auto *tag) {
        using OpTy = std::remove_pointer_t<decltype(tag)>;
        result =
            addOp<OpTy>(loc, lookup(input),
                        {b.getNamedAttr("scalar", b.getF64FloatAttr(scalar))});
      }))
    throw std::invalid_argument("no scalar kernel op '" + name.str() + "'");
  return result;
}

unsigned Graph::addTranspose(unsigned input,
                             const std::vector<int64_t> &permutation,
                             const SourceLocation &loc) {
  Builder b(&getContext());
  return addOp<kernel::TransposeOp>(
      loc, lookup(input),
      {b.getNamedAttr("permutation", b.getDenseI64ArrayAttr(permutation))});
}

SmallVector<int64_t> Graph::getShape(unsigned tensor) {
  auto type = cast<RankedTensorType>(lookup(tensor).getType());
  return SmallVector<int64_t>(type.getShape());
}

ElementType Graph::getElementType(unsigned tensor) {
  Type type = cast<RankedTensorType>(lookup(tensor).getType()).getElementType();
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF32())
    return ElementType::F32;
  if (type.isInteger(1))
    return ElementType::I1;
  if (type.isInteger(8))
    return ElementType::I8;
  if (type.isInteger(16))
    return ElementType::I16;
  if (type.isInteger(32))
    return ElementType::I32;
  if (type.isInteger(64))
    return ElementType::I64;
  std::string name;
  llvm::raw_string_ostream(name) << type;
  throw MLIRError("tensor " + std::to_string(tensor) + " has element type " +
                  name + "; mlsopt graphs hold f16, bf16 or f32");
}

std::vector<unsigned> Graph::getInputs() {
  std::vector<unsigned> ids;
  for (BlockArgument arg : func.getArguments())
    ids.push_back(llvm::find(tensors, Value(arg)) - tensors.begin());
  return ids;
}

std::vector<unsigned> Graph::getOutputs() {
  // A tensor marked twice is two outputs with one id.
  std::vector<unsigned> ids;
  for (Value result : func.getBody().back().getTerminator()->getOperands())
    ids.push_back(llvm::find(tensors, result) - tensors.begin());
  return ids;
}

std::vector<unsigned> Graph::getUnreadTensors() {
  std::vector<unsigned> ids;
  for (auto [id, tensor] : llvm::enumerate(tensors)) {
    if (isa<BlockArgument>(tensor) || !tensor.use_empty())
      continue;
    // The transpose new_input makes of a column-major input is the input
    // itself to the user: unread, it is an unused input, not a result.
    if (auto transpose = tensor.getDefiningOp<kernel::TransposeOp>();
        transpose && isa<BlockArgument>(transpose.getInput()))
      continue;
    ids.push_back(id);
  }
  return ids;
}

std::string Graph::getFunctionName() { return func.getSymName().str(); }

std::string Graph::print(bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  return text;
}

std::string Graph::toDot() {
  DiagnosticCapture diagnostics;
  std::string text;
  llvm::raw_string_ostream os(text);
  // The graph is one function; the module may hold others (from_mlir).
  if (failed(translateToDot(func, os)))
    diagnostics.fail("the graph cannot be drawn");
  return text;
}

/// The target named `targetName`, or the one the module around `func` names
/// when it is empty. Throws for an unknown name.
static TargetInfo resolveTarget(func::FuncOp func, StringRef targetName,
                                DiagnosticCapture &diagnostics) {
  if (targetName.empty()) {
    FailureOr<TargetInfo> enclosing = getEnclosingTarget(func);
    if (failed(enclosing))
      diagnostics.fail("the module names an unknown target");
    return *enclosing;
  }
  if (std::optional<TargetInfo> named = lookupTarget(targetName))
    return *named;
  throw MLIRError("unknown target '" + targetName.str() +
                  "'; supported targets: " + supportedTargetNames());
}

search::KernelCost Graph::estimateCost(StringRef targetName, bool latency) {
  DiagnosticCapture diagnostics;
  TargetInfo target = resolveTarget(func, targetName, diagnostics);
  FailureOr<search::KernelCost> cost =
      search::estimateFunctionCost(func, target, {latency});
  if (failed(cost))
    diagnostics.fail("the cost model cannot estimate this graph");
  return *cost;
}

std::vector<search::KernelCost> Graph::estimateKernelCosts(StringRef targetName,
                                                           bool latency) {
  DiagnosticCapture diagnostics;
  TargetInfo target = resolveTarget(func, targetName, diagnostics);
  FailureOr<SmallVector<search::KernelCost>> costs =
      search::estimateKernelCosts(func, target, {latency});
  if (failed(costs))
    diagnostics.fail("the cost model cannot estimate this graph");
  return {costs->begin(), costs->end()};
}

std::vector<std::string> Graph::getUncostedOps() {
  std::vector<std::string> names;
  Block &body = func.getBody().front();
  for (Operation &op : body) {
    // Constants, empty tensors and the terminator are not computations,
    // reshapes are views, and the cost model costs slices and broadcasts as
    // the copy kernels the GPU runs them as. (Ops are matched by class, not
    // by trait: a trait's TypeID instantiated in this extension, built with
    // hidden visibility, would be its own and differ from libMLIR.so's,
    // breaking trait checks process-wide.)
    if (isa<kernel::KernelDialect>(op.getDialect()) ||
        isa<arith::ConstantOp, tensor::EmptyOp, tensor::CollapseShapeOp,
            tensor::ExpandShapeOp, tensor::ExtractSliceOp, linalg::BroadcastOp>(
            op) ||
        &op == body.getTerminator())
      continue;
    names.push_back(op.getName().getStringRef().str());
  }
  return names;
}

std::vector<std::string> Graph::runPipeline(StringRef pipeline) {
  DiagnosticCapture diagnostics;
  PassManager pm(&getContext());
  std::string parseError;
  llvm::raw_string_ostream parseErrorStream(parseError);
  if (failed(parsePassPipeline(pipeline, pm, parseErrorStream)))
    throw MLIRError("bad pass pipeline '" + pipeline.str() + "': " +
                    parseError);
  std::string name = func.getSymName().str();
  if (failed(pm.run(*module)))
    diagnostics.fail(("pass pipeline '" + pipeline + "' failed").str());
  // Passes may replace the function; it keeps its name.
  auto replaced = module->lookupSymbol<func::FuncOp>(name);
  if (!replaced || replaced.isExternal())
    throw MLIRError("pass pipeline '" + pipeline.str() +
                    "' left no function @" + name);
  attach(replaced);
  return diagnostics.takeWarnings();
}

void Graph::setTarget(StringRef chip) {
  if (!lookupTarget(chip))
    throw MLIRError("unknown target '" + chip.str() +
                    "'; supported targets: " + supportedTargetNames());
  (*module)->setAttr(kTargetAttrName, StringAttr::get(&getContext(), chip));
}

std::string Graph::getTarget() {
  auto name = (*module)->getAttrOfType<StringAttr>(kTargetAttrName);
  return name ? name.str() : "";
}

OwningOpRef<ModuleOp> Graph::lowerForGPU(StringRef chip) {
  if (!isPassRegistered("mlsopt-gpu-pipeline"))
    throw UnavailableError("this build of mlsopt has no --mlsopt-gpu-pipeline, "
                           "so the graph cannot be lowered for the GPU");
  DiagnosticCapture diagnostics;
  std::string pipeline = ("mlsopt-gpu-pipeline{chip=" + chip + "}").str();
  PassManager pm(&getContext());
  std::string parseError;
  llvm::raw_string_ostream parseErrorStream(parseError);
  if (failed(parsePassPipeline(pipeline, pm, parseErrorStream)))
    throw MLIRError("bad pass pipeline '" + pipeline + "': " + parseError);
  OwningOpRef<ModuleOp> lowered = module->clone();
  if (failed(pm.run(*lowered)))
    diagnostics.fail("lowering for " + chip.str() + " failed");
  return lowered;
}

#ifdef MLSOPT_HAVE_GPU_TARGET
std::string Graph::emitPTX(StringRef chip) {
  OwningOpRef<ModuleOp> lowered = lowerForGPU(chip);
  DiagnosticCapture diagnostics;
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(gpu::translateToPTX(*lowered, os)))
    diagnostics.fail("the lowered module has no PTX");
  return text;
}

std::string Graph::emitLaunchPlan(StringRef chip) {
  OwningOpRef<ModuleOp> lowered = lowerForGPU(chip);
  DiagnosticCapture diagnostics;
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(gpu::translateToLaunchPlan(*lowered, os)))
    diagnostics.fail("the lowered module has no launch plan");
  return text;
}
#else
std::string Graph::emitPTX(StringRef) {
  throw UnavailableError("this build of mlsopt has no GPU target "
                         "(mlsopt/Target/GPU), so it cannot emit PTX");
}

std::string Graph::emitLaunchPlan(StringRef) {
  throw UnavailableError("this build of mlsopt has no GPU target "
                         "(mlsopt/Target/GPU), so it cannot emit a launch "
                         "plan");
}
#endif

void Graph::compileForCPU() {
  if (runner)
    return;
  DiagnosticCapture diagnostics;
  StringRef name = func.getSymName();
  FailureOr<std::unique_ptr<CPURunner>> created =
      CPURunner::create(*module, {name});
  if (failed(created))
    diagnostics.fail("the graph cannot be compiled for the CPU");
  runner = std::move(*created);
}

Graph::CPURun Graph::prepareCPURun(const std::vector<HostTensor> &inputs) {
  ArrayRef<Type> inputTypes = func.getArgumentTypes();
  if (inputs.size() != inputTypes.size())
    throw std::invalid_argument(
        "the graph takes " + std::to_string(inputTypes.size()) +
        " inputs, got " + std::to_string(inputs.size()));
  for (auto [i, input, type] : llvm::enumerate(inputs, inputTypes)) {
    ArrayRef<int64_t> expected = cast<RankedTensorType>(type).getShape();
    if (ArrayRef<int64_t>(input.shape) != expected)
      throw std::invalid_argument(
          "input " + std::to_string(i) + " has shape " +
          formatTuple(input.shape) + "; the graph expects " +
          formatTuple(expected));
  }
  compileForCPU();
  CPURun run{runner, func.getSymName().str()};
  for (Type type : func.getResultTypes())
    run.resultBytes +=
        uint64_t(cast<RankedTensorType>(type).getNumElements()) * sizeof(float);
  return run;
}

std::vector<HostTensor>
Graph::CPURun::operator()(std::vector<HostTensor> inputs) const {
  std::string error;
  FailureOr<SmallVector<HostTensor>> results = failure();
  try {
    results = runner->run(function, inputs, &error);
  } catch (const std::bad_alloc &) {
    // The results' buffers (f32 on the host) are allocated before the
    // compiled code runs, which checks its own allocations; a failure here
    // reads as those do.
    throw MLIRError("running @" + function +
                    " on the CPU failed: the host could not allocate " +
                    std::to_string(resultBytes) + " bytes for its results");
  }
  if (failed(results))
    throw MLIRError("running @" + function + " on the CPU failed: " + error);
  return std::vector<HostTensor>(std::make_move_iterator(results->begin()),
                                 std::make_move_iterator(results->end()));
}
