//===- CustomKernelToGPU.cpp - Custom kernels to gpu.func and launches ----===//
//
// Each kernel.custom becomes one gpu.func that follows its block graph, and
// the function holding it becomes a host function on memrefs that launches
// it. Inside a kernel every block-level value is a tile in dynamic shared
// memory; each block op is computed by all threads of the block together and
// ends with a barrier, so the next op sees the whole tile:
//
//   prologue   cp.async of the loop-invariant tiles and of iteration 0's tiles
//   scf.for    cp.async of iteration i+1's tiles into the other buffer,
//              wait for iteration i's, compute, update the f32 accumulators
//   epilogue   finalize the accumulators, post-loop ops, store the outputs
//
// The CPU lowering (CustomKernelToLoops) runs the same block graphs with the
// same tile offsets; it is the numerical reference for this one.
//
// This file is the pass: host functions, gpu.funcs and launches. The body of
// each kernel is BlockGraphToGPU's (BlockGraphToGPU.h).
//
//===----------------------------------------------------------------------===//

#include "BlockGraphToGPU.h"
#include "LoopKernels.h"
#include "RunTimeSlices.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Support/ResourceBlobs.h"
#include "mlsopt/Support/ScalarArguments.h"

#include "mlsopt/Conversion/CustomKernelToGPU/CustomKernelToGPU.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"
#include "mlsopt/Conversion/Passes.h"
#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/Support/ShapeInference.h"
#include "mlsopt/Support/UnsupportedOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlsopt {
#define GEN_PASS_DEF_CONVERTCUSTOMKERNELTOGPU
#include "mlsopt/Conversion/Passes.h.inc"
} // namespace mlsopt

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

namespace {

MemRefType memrefTypeFor(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// The grid of a copy or loop kernel: a thread per element of `op`'s
/// (first) result, kElementKernelThreads to a block.
kernel::Dim3Attr elementGrid(Operation *op) {
  int64_t elements =
      cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
  return kernel::Dim3Attr::get(
      op->getContext(),
      std::max<int64_t>(1, llvm::divideCeil(elements, kElementKernelThreads)),
      1, 1);
}

/// The static slices whose result a copy op copies, then their source, and
/// so on, nearest first: the copy kernel reads the tensor they slice in
/// place (a conversion or a transpose of q sliced from a fused projection,
/// a slice of a slice), so they need no kernels of their own.
SmallVector<tensor::ExtractSliceOp> getSlicesReadThrough(Operation *copy) {
  SmallVector<tensor::ExtractSliceOp> slices;
  for (auto slice = copy->getOperand(0).getDefiningOp<tensor::ExtractSliceOp>();
       slice && isCopyOp(*slice);
       slice = slice.getSource().getDefiningOp<tensor::ExtractSliceOp>())
    slices.push_back(slice);
  return slices;
}

bool isTensorConstant(Operation &op);

/// A function of data movement alone (a slice or a broadcast of its
/// arguments, returned; a KV cache's write at a run-time position):
/// copy kernels, so the GPU runs it like any other,
/// where a function of other non-kernel ops stays host code. So is one
/// that returns its arguments or reshapes of them (the search may find a
/// sum over a dim of size 1 is a reshape): each result buffer gets a copy.
/// So is one that returns tensor constants (a linalg.fill of a constant,
/// folded): their globals are copied into the result buffers.
bool isDataMovementOnly(func::FuncOp func) {
  bool copies = false;
  for (Operation &op : func.getBody().getOps()) {
    if (isCopyOp(op) || isRunTimeSlice(op)) {
      copies = true;
      continue;
    }
    if (onlyFeedsRunTimeSlices(op))
      continue;
    if (!isa<tensor::EmptyOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
             func::ReturnOp>(op) &&
        !isTensorConstant(op))
      return false;
  }
  return copies || (func.getNumResults() > 0 &&
                    llvm::all_of(func.getResultTypes(), [](Type type) {
                      auto tensor = dyn_cast<RankedTensorType>(type);
                      return tensor && tensor.hasStaticShape();
                    }));
}

/// A static slice that only copy ops read, through it: no launch.
bool isReadThroughByCopies(Operation &op) {
  return isa<tensor::ExtractSliceOp>(op) && !op.use_empty() &&
         llvm::all_of(op.getUsers(),
                      [](Operation *user) { return isCopyOp(*user); });
}

/// The tensors a launch reads: a copy op's source (a broadcast's init is
/// only its shape) past the slices it reads through, or all operands of a
/// custom kernel.
SmallVector<Value> getLaunchInputs(Operation *launch) {
  if (isRunTimeSlice(*launch))
    return getRunTimeSliceInputs(launch);
  if (isa<kernel::CustomOp>(launch))
    return llvm::to_vector(launch->getOperands());
  if (auto loopKernel = dyn_cast<linalg::LinalgOp>(launch);
      loopKernel && !isCopyOp(*launch))
    return getLoopKernelInputs(loopKernel);
  SmallVector<tensor::ExtractSliceOp> slices = getSlicesReadThrough(launch);
  return {slices.empty() ? launch->getOperand(0) : slices.back().getSource()};
}

/// A copy op (isCopyOp) as a kernel of its own: each thread copies one
/// element, consecutive threads write consecutive result elements.
void emitCopyKernel(Operation *op, gpu::GPUFuncOp func) {
  Location loc = op->getLoc();
  auto b = OpBuilder::atBlockBegin(&func.getBody().front());
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> shape = type.getShape();
  Value linear = buildGuardedThreadIndex(b, loc, kElementKernelThreads,
                                         type.getNumElements());
  SmallVector<Value> at = delinearize(b, loc, linear, shape);
  SmallVector<Value> from = at;
  // Result dim i is operand dim permutation[i].
  if (auto transpose = dyn_cast<kernel::TransposeOp>(op))
    for (auto [i, p] : llvm::enumerate(transpose.getPermutation()))
      from[p] = at[i];
  if (isa<tensor::ExtractSliceOp, linalg::BroadcastOp>(op))
    from = buildCopySourceIndices(b, loc, op, at);
  for (tensor::ExtractSliceOp slice : getSlicesReadThrough(op))
    from = buildCopySourceIndices(b, loc, slice, from);
  Value element = memref::LoadOp::create(b, loc, func.getArgument(0), from);
  element = buildFloatConversion(b, loc, element, type.getElementType());
  memref::StoreOp::create(b, loc, element, func.getArgument(1), at);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}

/// A PTX identifier for kernel `n` of `function` that no symbol of
/// `kernels` has yet: PTX names hold letters, digits, `_` and `$` only and
/// do not start with a digit, where MLIR symbols may be any string
/// (`@"model.forward"` would give a PTX file ptxas rejects, `@"a-b"` an
/// abort in the NVPTX printer).
std::string getKernelName(StringRef function, unsigned n,
                          gpu::GPUModuleOp kernels) {
  std::string base;
  for (char c : function)
    base += llvm::isAlnum(c) || c == '_' || c == '$' ? c : '_';
  if (base.empty() || llvm::isDigit(base.front()))
    base.insert(base.begin(), '_');
  base += "_kernel" + std::to_string(n);
  std::string name = base;
  for (unsigned suffix = 1; SymbolTable::lookupSymbolIn(kernels, name);
       ++suffix)
    name = base + "_" + std::to_string(suffix);
  return name;
}

/// The bytes of a constant's dense_resource blob (where torch-mlir's fx
/// importer puts weights), where the module holds them and they fill the
/// constant's static type; none otherwise.
static std::optional<ArrayRef<char>>
getResourceBytes(arith::ConstantOp constant) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  bool splat = false;
  if (!blob || !type || !type.hasStaticShape() ||
      !DenseElementsAttr::isValidRawBuffer(type, blob->getData(), splat))
    return std::nullopt;
  return blob->getData();
}

/// A dense tensor constant of an element type kernels read: a weight or
/// table a front end inlined (or the position ids an embedding's gather
/// reads, an integer mask), which the host copies to the device.
bool isTensorConstant(Operation &op) {
  auto constant = dyn_cast<arith::ConstantOp>(op);
  if (!constant)
    return false;
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  return type && type.hasStaticShape() &&
         (isa<DenseElementsAttr>(constant.getValue()) ||
          getResourceBytes(constant)) &&
         (isSupportedElementType(type.getElementType()) ||
          isMaskOrIntegerElementType(type.getElementType()));
}

/// The elements of a tensor constant (isTensorConstant): its dense
/// attribute, or its blob's bytes read as dense elements, built once, for
/// the host global that holds them.
static DenseElementsAttr getDenseValue(arith::ConstantOp constant) {
  if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
    return dense;
  return DenseElementsAttr::getFromRawBuffer(
      cast<RankedTensorType>(constant.getType()), *getResourceBytes(constant));
}

/// The error for a linalg op the GPU cannot run, with the reason the import
/// left it where there is one, and `more` after it.
static LogicalResult emitNotImported(Operation *op, StringRef more) {
  std::optional<std::string> reason = explainNotImported(op);
  InFlightDiagnostic error = op->emitOpError("cannot run on the GPU: ");
  if (!reason)
    error << "run --convert-linalg-to-kernel first, which imports it";
  else if (reason->empty())
    error << "--convert-linalg-to-kernel did not import it (its pass "
             "description lists what it imports)";
  else
    error << "--convert-linalg-to-kernel did not import it: " << *reason;
  return error << more;
}

/// Whether every reader of `value`, through reshapes, is a custom kernel
/// (none a launch of another kind, none a result of the function).
static bool isReadByCustomKernelsOnly(Value value) {
  return !value.use_empty() &&
         llvm::all_of(value.getUsers(), [](Operation *user) {
           if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
             return isReadByCustomKernelsOnly(user->getResult(0));
           return isa<kernel::CustomOp>(user);
         });
}

/// The linalg ops of `entry` the import left, each a loop kernel, in
/// `loopKernels`, and those of them that the custom kernels reading them
/// compute instead (isComputedWhereRead) in `computedWhereRead` too; fails
/// with the error at the first one the import would take (where it was not
/// run) or that cannot run as a loop kernel.
LogicalResult
collectLoopKernels(Block &entry, SmallPtrSetImpl<Operation *> &loopKernels,
                   SmallPtrSetImpl<Operation *> &computedWhereRead) {
  for (Operation &op : llvm::make_early_inc_range(entry)) {
    if (!isa_and_nonnull<linalg::LinalgDialect>(op.getDialect()) ||
        isCopyOp(op) || onlyInitializesLinalgOps(&op) ||
        isFoldedIntoLoopKernels(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    std::optional<std::string> notImported = explainNotImported(&op);
    if (!linalgOp || !notImported)
      return emitNotImported(&op, "");
    if (std::optional<std::string> why = whyNoLoopKernel(linalgOp))
      return emitNotImported(&op, "; nor can it run as a loop kernel: " + *why);
    // At the op's location, without the op: a remark, not a failure.
    Location loc = op.getLoc();
    InFlightDiagnostic remark = emitRemark(loc, "'") << op.getName() << "' ";
    if (std::optional<SplitLoopKernel> split =
            splitLoopKernelReduction(linalgOp)) {
      loopKernels.insert(split->partial);
      loopKernels.insert(split->combine);
      remark << "runs as two loop kernels, its reduction split into "
             << split->chunks << " chunks of " << split->chunkLength
             << " (one thread per chunk of each result element, then one per "
                "element to combine them) (correct, not fast)";
    } else if (isComputedWhereRead(linalgOp) &&
               isReadByCustomKernelsOnly(op.getResult(0))) {
      // A launch of its own would cost more than its elements (a decode
      // step's mask from its position).
      loopKernels.insert(&op);
      computedWhereRead.insert(&op);
      remark << "is computed where the custom kernels that read it load its "
                "elements, with no launch of its own";
    } else {
      loopKernels.insert(&op);
      remark << "runs as a loop kernel, one thread per result element "
                "(correct, not fast)";
    }
    remark << ": --convert-linalg-to-kernel did not import it";
    if (!notImported->empty())
      remark << ": " << *notImported;
  }
  return success();
}

/// Whether `op` feeds loop kernels only and needs no launch: the
/// tensor.empty an init is, a fill of a constant they start from, or a
/// scalar constant their payloads or those fills read.
bool onlyFeedsLoopKernels(Operation &op,
                          const SmallPtrSetImpl<Operation *> &loopKernels) {
  if (isFoldedIntoLoopKernels(op))
    return true;
  auto readByLoopKernel = [&](Operation *user) {
    return llvm::any_of(loopKernels, [&](Operation *loopKernel) {
      return loopKernel->isProperAncestor(user);
    });
  };
  if (isa<tensor::EmptyOp>(op))
    return !op.use_empty() && llvm::all_of(op.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (isFoldedIntoLoopKernels(*user))
        return true;
      if (!loopKernels.contains(user))
        return false;
      // An init, or an input the payload does not read (a pooling op's
      // window, which gives the window's shape).
      auto linalgOp = cast<linalg::LinalgOp>(user);
      return linalgOp.isDpsInit(&use) ||
             linalgOp.getMatchingBlockArgument(&use).use_empty();
    });
  if (op.hasTrait<OpTrait::ConstantLike>() && op.getNumResults() == 1 &&
      !isa<ShapedType>(op.getResult(0).getType()))
    return !op.use_empty() && llvm::all_of(op.getUsers(), [&](Operation *user) {
      return loopKernels.contains(user) || readByLoopKernel(user) ||
             isFoldedIntoLoopKernels(*user);
    });
  return false;
}

/// What lowerFunction did, for the pass statistics.
struct LoweringCounts {
  /// Thread graphs applied to mma fragments in registers.
  unsigned fusedEpilogues = 0;
  /// Loop kernels launched, and operands computed where loaded instead.
  unsigned loopKernels = 0, computedOperands = 0;
};

/// The operands of `custom` that it computes (ComputedOperand), by number;
/// their producers' inputs, once each, go to `inputs`, and each operand's
/// `inputArgs` are positions in `inputs` (the caller offsets them to
/// kernel arguments).
static DenseMap<unsigned, ComputedOperand>
getComputedOperands(kernel::CustomOp custom,
                    const SmallPtrSetImpl<Operation *> &computedWhereRead,
                    SmallVectorImpl<Value> &inputs) {
  DenseMap<unsigned, ComputedOperand> computed;
  for (auto [i, operand] : llvm::enumerate(custom->getOperands())) {
    ComputedOperand c;
    Value v = operand;
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        break;
      c.reshapes.push_back(def);
      v = def->getOperand(0);
    }
    Operation *producer = v.getDefiningOp();
    if (!producer || !computedWhereRead.contains(producer))
      continue;
    c.producer = cast<linalg::LinalgOp>(producer);
    std::reverse(c.reshapes.begin(), c.reshapes.end());
    for (Value input : getLoopKernelInputs(c.producer)) {
      auto *it = llvm::find(inputs, input);
      c.inputArgs.push_back(it - inputs.begin());
      if (it == inputs.end())
        inputs.push_back(input);
    }
    computed[i] = std::move(c);
  }
  return computed;
}

/// Rewrites one function: its custom kernels become gpu.funcs in `kernels`,
/// the function itself a host function that launches them, and counts what
/// it did in `counts`.
LogicalResult lowerFunction(func::FuncOp func, gpu::GPUModuleOp kernels,
                            const TargetInfo &target, bool allowTF32,
                            LoweringCounts &counts) {
  // A scalar argument is a device buffer of one element, as the 0-d tensor
  // the import reads it as (the launch plan gives it shape []).
  passScalarArgumentsAsTensors(func);
  if (failed(checkResourceBlobs(func, "cannot run on the GPU")))
    return failure();
  Block &entry = func.getBody().front();
  // A linalg op the import left (a structured op, or a linalg.softmax) is
  // the cause to report, rather than the tensor.empty or constant it reads.
  SmallPtrSet<Operation *, 4> loopKernels, computedWhereRead;
  if (failed(collectLoopKernels(entry, loopKernels, computedWhereRead)))
    return failure();
  for (Operation &op : entry) {
    if (isa<kernel::CustomOp, func::ReturnOp, tensor::CollapseShapeOp,
            tensor::ExpandShapeOp>(op) ||
        isCopyOp(op) || isTensorConstant(op) || loopKernels.contains(&op) ||
        onlyFeedsLoopKernels(op, loopKernels))
      continue;
    // A scalar constant nothing reads (a front end's leftover) goes with
    // the body.
    if (op.hasTrait<OpTrait::ConstantLike>() && op.use_empty() &&
        !isa<ShapedType>(op.getResult(0).getType()))
      continue;
    // The shape a broadcast writes, no data.
    if (isa<tensor::EmptyOp>(op) && !op.use_empty() &&
        llvm::all_of(op.getUses(), [](OpOperand &use) {
          return isa<linalg::BroadcastOp>(use.getOwner()) &&
                 isCopyOp(*use.getOwner()) && use.getOperandNumber() == 1;
        }))
      continue;
    // A slice at a run-time offset is a kernel of its own; the scalars its
    // offsets are computed from, computed again there, are no host code.
    if (isRunTimeSlice(op)) {
      if (std::optional<std::string> why = whyNoRunTimeSliceKernel(&op))
        return op.emitOpError("cannot run on the GPU: a slice at an offset "
                              "known only at run time runs as a kernel, "
                              "but ")
               << *why;
      continue;
    }
    if (onlyFeedsRunTimeSlices(op))
      continue;
    if (op.getDialect() && op.getDialect()->getNamespace() == "kernel")
      return op.emitOpError("is not inside a custom kernel; run "
                            "--convert-kernel-to-custom first");
    // A scalar constant or a scalar argument's element is reported at the op
    // that reads it (a tensor.pad's padding value, the offset of a slice at
    // a run-time position), which is what cannot run.
    return getUnsupportedCause(&op)->emitOpError(
        "cannot run on the GPU: a function lowered by "
        "--convert-custom-kernel-to-gpu may hold only "
        "custom kernels, kernel.transpose, kernel.convert, "
        "tensor.collapse_shape, tensor.expand_shape, static "
        "tensor.extract_slice and linalg.broadcast, dense or "
        "dense_resource tensor constants of floats or signless integers, "
        "linalg ops that run as loop kernels and func.return");
  }
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to run on the GPU");
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  // Each result buffer is written by a launch, so a result no launch
  // writes is copied: an identity kernel.transpose, one element per thread.
  {
    OpBuilder copies(ret);
    for (unsigned i : getResultsCopiedOnReturn(ret.getOperands())) {
      OpOperand &result = ret->getOpOperand(i);
      // Anything but a tensor is reported with the signature below.
      auto type = dyn_cast<RankedTensorType>(result.get().getType());
      if (!type)
        continue;
      result.set(kernel::TransposeOp::create(
          copies, result.get().getLoc(), result.get(),
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))));
    }
  }

  MLIRContext *ctx = func.getContext();
  unsigned numInputs = func.getNumArguments();
  // Destination-passing style: results become trailing memref arguments.
  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes()) {
    if (!isa<RankedTensorType>(t) || !cast<RankedTensorType>(t).hasStaticShape())
      return func.emitOpError("has an argument of type ")
             << t << "; GPU host functions take statically shaped tensors";
    argTypes.push_back(memrefTypeFor(t));
  }
  for (Type t : func.getResultTypes()) {
    if (!isa<RankedTensorType>(t))
      return func.emitOpError("has a result of type ")
             << t << "; GPU host functions return tensors";
    argTypes.push_back(memrefTypeFor(t));
  }

  OpBuilder b(ctx);
  SymbolTable kernelSymbols(kernels);
  // Memrefs for the tensors: arguments, results, intermediates.
  DenseMap<Value, Value> memrefs;
  SmallVector<Location> argLocs;
  for (BlockArgument arg : entry.getArguments())
    argLocs.push_back(arg.getLoc());
  for (Value v : ret.getOperands())
    argLocs.push_back(v.getLoc());
  Block *newEntry = new Block();
  newEntry->addArguments(argTypes, argLocs);
  for (auto [arg, memref] :
       llvm::zip(entry.getArguments(), newEntry->getArguments()))
    memrefs[arg] = memref;
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    memrefs[value] = newEntry->getArgument(numInputs + i);

  b.setInsertionPointToEnd(newEntry);
  // A returned view: the tensor it reshapes is written into the result
  // buffer, viewed with the tensor's shape (reshapes undo each other).
  for (Operation &op : llvm::reverse(entry)) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
      continue;
    Value view = memrefs.lookup(op.getResult(0));
    Value source = op.getOperand(0);
    if (!view || memrefs.count(source))
      continue;
    Type type = memrefTypeFor(source.getType());
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      memrefs[source] = memref::ExpandShapeOp::create(
          b, op.getLoc(), type, view, collapse.getReassociationIndices());
    else
      memrefs[source] = memref::CollapseShapeOp::create(
          b, op.getLoc(), type, view,
          cast<tensor::ExpandShapeOp>(op).getReassociationIndices());
  }
  // A constant (a weight a front end inlined, as dense elements or as a
  // dense_resource blob) is a device buffer copied
  // from a host global before the first launch, and freed like any
  // intermediate after its last reader. The launch plan gives its bytes.
  auto module = func->getParentOfType<ModuleOp>();
  SymbolTable moduleSymbols(module);
  for (Operation &op : entry) {
    if (!isTensorConstant(op) || op.use_empty())
      continue;
    auto constant = cast<arith::ConstantOp>(op);
    auto memrefType = memrefTypeFor(constant.getType());
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    auto global = memref::GlobalOp::create(
        mb, op.getLoc(), (func.getSymName() + "_constant").str(),
        mb.getStringAttr("private"), memrefType, getDenseValue(constant),
        /*constant=*/true, /*alignment=*/mb.getI64IntegerAttr(16));
    // Renamed if taken: a function's constants share its prefix.
    moduleSymbols.insert(global);
    Value host = memref::GetGlobalOp::create(b, op.getLoc(), memrefType,
                                             global.getSymName());
    Value device =
        gpu::AllocOp::create(b, op.getLoc(), memrefType, Type(), ValueRange{},
                             ValueRange{}, ValueRange{})
            .getMemref();
    gpu::MemcpyOp::create(b, op.getLoc(), Type(), ValueRange{}, device, host);
    memrefs[constant.getResult()] = device;
  }

  // The storage a view reads, which its readers keep alive.
  auto viewOf = [&](Operation &op) -> Value {
    Value source = memrefs.lookup(op.getOperand(0));
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      return memref::CollapseShapeOp::create(
          b, op.getLoc(), source, collapse.getReassociationIndices());
    auto expand = cast<tensor::ExpandShapeOp>(op);
    return memref::ExpandShapeOp::create(
        b, op.getLoc(), memrefTypeFor(expand.getType()).getShape(), source,
        expand.getReassociationIndices());
  };

  // The tensors a launch reads; a custom kernel's computed operands are
  // read as their producers' inputs (the kernel's arguments in that
  // order), which `computed` describes.
  auto launchInputs = [&](Operation *launch,
                          DenseMap<unsigned, ComputedOperand> *computed =
                              nullptr) {
    auto custom = dyn_cast<kernel::CustomOp>(launch);
    if (!custom || computedWhereRead.empty())
      return getLaunchInputs(launch);
    SmallVector<Value> loaded, producerInputs;
    DenseMap<unsigned, ComputedOperand> found =
        getComputedOperands(custom, computedWhereRead, producerInputs);
    for (auto [i, operand] : llvm::enumerate(custom->getOperands()))
      if (!found.count(i))
        loaded.push_back(operand);
    // The producers' inputs follow the operands the kernel loads.
    for (auto &entry : found)
      for (unsigned &arg : entry.second.inputArgs)
        arg += loaded.size();
    llvm::append_range(loaded, producerInputs);
    if (computed)
      *computed = std::move(found);
    return loaded;
  };

  // The ops that become launches, in order, and the last launch that reads
  // each intermediate, to free it after.
  SmallVector<Operation *> launches;
  for (Operation &op : entry)
    if (isa<kernel::CustomOp>(op) || isRunTimeSlice(op) ||
        (loopKernels.contains(&op) && !computedWhereRead.contains(&op)) ||
        (isCopyOp(op) && !isReadThroughByCopies(op)))
      launches.push_back(&op);
  DenseMap<Value, unsigned> lastUse;
  for (auto [n, launch] : llvm::enumerate(launches))
    for (Value input : launchInputs(launch))
      lastUse[getViewedStorage(input)] = n;
  // A view returned as a result keeps what it views alive to the end.
  auto isReturned = [&](Value value) {
    return llvm::any_of(ret.getOperands(),
                        [&](Value r) { return getViewedStorage(r) == value; });
  };

  for (auto [n, launch] : llvm::enumerate(launches)) {
    Location loc = launch->getLoc();
    DenseMap<unsigned, ComputedOperand> computed;
    SmallVector<Value> inputs = launchInputs(launch, &computed);
    // The views this launch reads, of buffers that exist by now.
    for (Value input : inputs) {
      SmallVector<Operation *> chain;
      for (Value v = input; !memrefs.count(v);
           v = v.getDefiningOp()->getOperand(0))
        chain.push_back(v.getDefiningOp());
      for (Operation *op : llvm::reverse(chain))
        memrefs[op->getResult(0)] = viewOf(*op);
    }
    for (Value output : launch->getResults())
      if (!memrefs.count(output))
        memrefs[output] =
            gpu::AllocOp::create(b, loc, memrefTypeFor(output.getType()),
                                 Type(), ValueRange{}, ValueRange{},
                                 ValueRange{})
                .getMemref();

    // The kernel.
    SmallVector<Type> kernelArgs;
    for (Value v : inputs)
      kernelArgs.push_back(memrefTypeFor(v.getType()));
    for (Value v : launch->getResults())
      kernelArgs.push_back(memrefTypeFor(v.getType()));
    OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
    std::string name = getKernelName(func.getSymName(), n, kernels);
    auto gpuFunc = gpu::GPUFuncOp::create(kb, loc, name,
                                          FunctionType::get(ctx, kernelArgs, {}));
    kernelSymbols.insert(gpuFunc);
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     kb.getUnitAttr());
    kernel::Dim3Attr grid, block;
    FailureOr<int64_t> sharedBytes = 0;
    if (auto custom = dyn_cast<kernel::CustomOp>(launch)) {
      grid = custom.getGrid();
      block = custom.getBlock();
    } else {
      // Copy and loop kernels: a thread per element of the result.
      grid = elementGrid(launch);
      block = kernel::Dim3Attr::get(ctx, kElementKernelThreads, 1, 1);
    }
    gpuFunc.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr(
        {static_cast<int32_t>(block.getX()), static_cast<int32_t>(block.getY()),
         static_cast<int32_t>(block.getZ())}));
    gpuFunc.setKnownGridSizeAttr(kb.getDenseI32ArrayAttr(
        {static_cast<int32_t>(grid.getX()), static_cast<int32_t>(grid.getY()),
         static_cast<int32_t>(grid.getZ())}));
    if (auto custom = dyn_cast<kernel::CustomOp>(launch)) {
      counts.computedOperands += computed.size();
      BlockGraphToGPU emitter(custom, gpuFunc, target, allowTF32,
                              std::move(computed));
      sharedBytes = emitter.emit();
      counts.fusedEpilogues += emitter.getNumFusedEpilogues();
    } else if (loopKernels.contains(launch)) {
      emitLoopKernel(cast<linalg::LinalgOp>(launch), gpuFunc);
      ++counts.loopKernels;
    } else if (isRunTimeSlice(*launch)) {
      emitRunTimeSliceKernel(launch, gpuFunc);
    } else {
      emitCopyKernel(launch, gpuFunc);
    }
    if (failed(sharedBytes)) {
      delete newEntry;
      return failure();
    }

    // The launch.
    auto dim3 = [&](kernel::Dim3Attr d) {
      return gpu::KernelDim3{indexConstant(b, loc, d.getX()),
                             indexConstant(b, loc, d.getY()),
                             indexConstant(b, loc, d.getZ())};
    };
    SmallVector<Value> operands;
    for (Value v : inputs)
      operands.push_back(memrefs.lookup(v));
    for (Value v : launch->getResults())
      operands.push_back(memrefs.lookup(v));
    Value shared = arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(static_cast<int32_t>(*sharedBytes)));
    gpu::LaunchFuncOp::create(b, loc, gpuFunc, dim3(grid), dim3(block), shared,
                              operands);

    // Free the intermediates this launch was the last to read.
    SmallPtrSet<Value, 4> freed;
    for (Value input : inputs) {
      Value storage = getViewedStorage(input);
      if (lastUse.lookup(storage) == n && !isa<BlockArgument>(storage) &&
          !isReturned(storage) && freed.insert(storage).second)
        gpu::DeallocOp::create(b, loc, Type(), ValueRange{},
                               memrefs.lookup(storage));
    }
  }
  // Intermediates nobody reads.
  for (Operation *launch : launches)
    for (Value output : launch->getResults())
      if (!lastUse.count(output) && !isReturned(output))
        gpu::DeallocOp::create(b, launch->getLoc(), Type(), ValueRange{},
                               memrefs.lookup(output));
  func::ReturnOp::create(b, ret.getLoc());

  // Swap the body and the signature.
  func.getBody().front().dropAllDefinedValueUses();
  func.getBody().front().erase();
  func.getBody().push_back(newEntry);
  func.setFunctionType(FunctionType::get(ctx, argTypes, {}));
  func.setAllArgAttrs(SmallVector<Attribute>(argTypes.size(),
                                             DictionaryAttr::get(ctx)));
  func.setAllResultAttrs(ArrayRef<Attribute>{});
  for (unsigned i = numInputs; i < argTypes.size(); ++i)
    func.setArgAttr(i, kResultIndexAttrName,
                    b.getI64IntegerAttr(i - numInputs));
  // The reference link compared tensor functions; it does not apply to the
  // host function any more.
  func->removeAttr("mlsopt.equivalent_to");
  return success();
}

struct ConvertCustomKernelToGPUPass
    : mlsopt::impl::ConvertCustomKernelToGPUBase<ConvertCustomKernelToGPUPass> {
  using Base::Base;

  /// Kernels lowered before, for another chip, would be left as they are:
  /// the PTX of a module lowered for sm_90 and run through the pipeline
  /// for sm_80 stays sm_90's, which sm_80 cannot load.
  LogicalResult checkLoweredFor(ModuleOp module) {
    auto otherChip = [&](Attribute target) -> std::optional<std::string> {
      auto nvvm = dyn_cast_or_null<NVVM::NVVMTargetAttr>(target);
      if (!nvvm || nvvm.getChip() == chip)
        return std::nullopt;
      return nvvm.getChip().str();
    };
    WalkResult walk = module.walk([&](Operation *op) {
      SmallVector<Attribute> targets;
      if (auto binary = dyn_cast<gpu::BinaryOp>(op)) {
        for (Attribute object : binary.getObjects())
          if (auto o = dyn_cast<gpu::ObjectAttr>(object))
            targets.push_back(o.getTarget());
      } else if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(op)) {
        if (ArrayAttr attrs = gpuModule.getTargetsAttr())
          llvm::append_range(targets, attrs.getValue());
      }
      for (Attribute target : targets)
        if (std::optional<std::string> other = otherChip(target)) {
          // At its location, without the op: a gpu.binary prints all of
          // its PTX.
          emitError(op->getLoc())
              << "'" << op->getName() << "' is lowered for " << *other
              << " already; lowering the module for " << chip
              << " would leave its code for " << *other
              << ": lower the kernel-level program for " << chip << " instead";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetInfo> target = lookupTarget(chip);
    if (!target) {
      emitError(module.getLoc())
          << "unknown GPU chip '" << chip << "'; use one of "
          << supportedTargetNames();
      return signalPassFailure();
    }
    if (failed(checkLoweredFor(module)))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs;
    // Functions with kernel-dialect ops at their top level run on the GPU;
    // lowerFunction rejects the ones it cannot take whole. Others stay host
    // code (a linalg reference next to the kernels, say), but a module with
    // linalg ops and no kernel op at all is one the import took nothing
    // from: silence would leave it without a GPU binary.
    SmallVector<func::FuncOp> linalgFuncs;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // A kernel op inside a loop or a branch would be left as it is, and
      // the module would end with no GPU binary and no word why.
      WalkResult nested = func.walk([&](Operation *op) {
        if (!kernel::isNestedKernelOp(op, func))
          return WalkResult::advance();
        // Not emitOpError: the op may be the custom kernel that
        // --convert-kernel-to-custom made of the kernel op the user wrote
        // at this location, whose name would mislead.
        emitError(op->getLoc(), "this kernel op is inside '")
            << op->getParentOp()->getName()
            << "'; the GPU pipeline launches kernel ops at the top level of "
               "a function only (a loop over layers can be unrolled first)";
        return WalkResult::interrupt();
      });
      if (nested.wasInterrupted())
        return signalPassFailure();
      if (llvm::any_of(func.getBody().getOps(),
                       [](Operation &op) {
                         return isa_and_nonnull<kernel::KernelDialect>(
                             op.getDialect());
                       }) ||
          isDataMovementOnly(func))
        funcs.push_back(func);
      bool hasLinalg = false;
      walkLeftLinalgOps(func, [&](Operation *) {
        hasLinalg = true;
        return WalkResult::interrupt();
      });
      if (hasLinalg)
        linalgFuncs.push_back(func);
    }
    // A module the import took nothing from runs its functions of linalg
    // ops as loop kernels, or says which op the import would have taken.
    if (funcs.empty())
      funcs = std::move(linalgFuncs);
    if (funcs.empty())
      return;

    // Whether `func` reaches a call of itself through the calls in the
    // functions it calls.
    auto callsItself = [&](func::FuncOp func) {
      SmallVector<func::FuncOp> worklist{func};
      llvm::SmallPtrSet<Operation *, 8> seen;
      while (!worklist.empty()) {
        func::FuncOp f = worklist.pop_back_val();
        bool found = false;
        f.walk([&](func::CallOp inner) {
          auto target = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
              inner, inner.getCalleeAttr());
          if (!target)
            return;
          if (target == func)
            found = true;
          else if (seen.insert(target).second)
            worklist.push_back(target);
        });
        if (found)
          return true;
      }
      return false;
    };

    // A lowered function takes its results as buffers and launches
    // kernels; a call to it from elsewhere cannot follow, and is reported
    // rather than left calling the old signature.
    llvm::SmallPtrSet<Operation *, 4> lowered(funcs.begin(), funcs.end());
    WalkResult stale = module.walk([&](func::CallOp call) {
      Operation *callee =
          SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr());
      if (!callee || !lowered.contains(callee))
        return WalkResult::advance();
      // A recursion is what keeps the GPU pipeline's inliner from a
      // helper: say so rather than name the callee as an entry point.
      if (callsItself(cast<func::FuncOp>(callee))) {
        call.emitOpError("calls @")
            << call.getCallee()
            << ", which calls itself, directly or not; GPU launches cannot "
               "recurse";
        return WalkResult::interrupt();
      }
      call.emitOpError("calls @")
          << call.getCallee()
          << ", which becomes a host function of GPU launches with its "
             "results passed as buffers; the call cannot be lowered with "
             "it (run @"
          << call.getCallee() << " on its own, through its launch plan)";
      return WalkResult::interrupt();
    });
    if (stale.wasInterrupted())
      return signalPassFailure();

    // `mlsopt.equivalent_to` relates functions of the same tensors, for
    // --verify-equivalence; lowering gives the lowered ones buffers, and a
    // function left with no kernel (the search found it returns an
    // argument) would no longer match its lowered reference.
    for (auto func : module.getOps<func::FuncOp>())
      func->removeAttr(MLSOptDialect::kEquivalentToAttrName);

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto kernels =
        gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
    SymbolTable(module).insert(kernels);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    for (func::FuncOp func : funcs) {
      LoweringCounts counts;
      LogicalResult rewritten =
          lowerFunction(func, kernels, *target, allowTF32, counts);
      numFusedEpilogues += counts.fusedEpilogues;
      numLoopKernels += counts.loopKernels;
      numComputedOperands += counts.computedOperands;
      if (failed(rewritten))
        return signalPassFailure();
    }
  }
};

} // namespace
