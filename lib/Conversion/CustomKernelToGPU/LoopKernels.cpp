//===- LoopKernels.cpp - Linalg ops the import left, as loop kernels ------===//
//
// Thread t computes the element t of the op's first result (row-major, so
// neighbouring threads store neighbouring elements): it runs the reduction
// loops from 0 up, in the order of the op's loops, with the results as
// loop-carried values, and applies the payload at each point. That is the
// order linalg's own loops use, so an argmax keeps the first maximum and a
// float sum adds in the same order as the CPU pipeline's loops.
//
//===----------------------------------------------------------------------===//

#include "LoopKernels.h"
#include "BlockGraphToGPU.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/LinalgToKernel/LinalgToKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::gpu_codegen;

namespace {

/// Element types a loop kernel loads and stores: floats and signless
/// integers (a mask's i1 takes a byte, as the launch plan says). Not
/// `index`, whose width the host and the device need not share.
bool isLoopElementType(Type type) {
  if (isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type))
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.isSignless() &&
         llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth());
}

std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// Why a tensor a loop kernel reads or writes cannot be a kernel argument.
std::optional<std::string> whyNoBuffer(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return "it reads or writes a tensor of dynamic shape";
  if (!isLoopElementType(tensor.getElementType()))
    return "its element type " + printed(tensor.getElementType()) +
           " is not a float or a signless integer of 1 to 64 bits";
  return std::nullopt;
}

/// Why a loop kernel cannot read `tensor` as `role`: no buffer, or none
/// that a launch writes (a tensor.empty holds nothing; a fill of a
/// constant is read as that constant where it is an input or an init,
/// and is no launch).
std::optional<std::string> whyNotRead(Value tensor, StringRef role) {
  if (std::optional<std::string> why = whyNoBuffer(tensor.getType()))
    return why;
  if (tensor.getDefiningOp<tensor::EmptyOp>() ||
      tensor.getDefiningOp<linalg::FillOp>())
    return ("it reads a tensor.empty or a linalg.fill as " + role).str();
  return std::nullopt;
}

/// The number of points of the parallel loops of `op`, the elements of its
/// first result: one thread each.
int64_t getNumParallelPoints(linalg::LinalgOp op) {
  return cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
}

/// Which kernel argument holds each operand of a loop kernel's op.
struct LoopKernelArgs {
  /// The tensors, in argument order (getLoopKernelInputs).
  SmallVector<Value> tensors;
  /// Per DPS input: its argument, or none for a scalar or a fill of a
  /// constant.
  SmallVector<std::optional<unsigned>> inputs;
  /// Per init: its argument, or none where the payload does not read it
  /// or it is a fill of a constant.
  SmallVector<std::optional<unsigned>> inits;
  /// Per tensor the payload extracts elements of: its argument.
  llvm::SmallDenseMap<Value, unsigned> extracted;
};

/// Whether the loop kernel of `op` reads `input` from a buffer: a tensor
/// that is no fill of a constant (read as the constant) and that the
/// payload reads (a pooling op's window, a tensor.empty that gives only
/// the window's shape, is not read).
bool isReadInput(linalg::LinalgOp op, OpOperand *input) {
  return isa<ShapedType>(input->get().getType()) &&
         !getFillConstant(input->get()) &&
         !op.getMatchingBlockArgument(input).use_empty();
}

LoopKernelArgs getArgs(linalg::LinalgOp op) {
  LoopKernelArgs args;
  auto add = [&](Value tensor) {
    args.tensors.push_back(tensor);
    return static_cast<unsigned>(args.tensors.size() - 1);
  };
  for (OpOperand *input : op.getDpsInputOperands())
    args.inputs.push_back(isReadInput(op, input)
                              ? std::optional<unsigned>(add(input->get()))
                              : std::nullopt);
  for (OpOperand &init : op.getDpsInitsMutable())
    args.inits.push_back(op.payloadUsesValueFromOperand(&init) &&
                                 !getFillConstant(init.get())
                             ? std::optional<unsigned>(add(init.get()))
                             : std::nullopt);
  op.getBlock()->walk([&](tensor::ExtractOp extract) {
    if (!args.extracted.count(extract.getTensor()))
      args.extracted[extract.getTensor()] = add(extract.getTensor());
  });
  return args;
}

/// Whether `value` is defined outside `op` (its payload reads it from
/// above).
bool isDefinedOutside(Value value, Operation *op) {
  return !op->isAncestor(value.getParentRegion()->getParentOp());
}

/// Whether `value` is a tensor a payload extracts elements of (an argument
/// of the loop kernel), not a scalar it reads from above.
bool isExtractedTensor(Value value) { return isa<ShapedType>(value.getType()); }

/// The indices `map` gives for the loop indices `ivs`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else
      indices.push_back(affine::expandAffineExpr(b, loc, expr, ivs, {}));
  }
  return indices;
}

/// The payload of `op` at the loop indices `ivs`, on the carried results
/// `carried`: its inputs loaded from `kernelArg` of their LoopKernelArgs
/// argument (constants cloned), the values it yields.
SmallVector<Value> applyPayloadAt(OpBuilder &builder, Location loc,
                                  linalg::LinalgOp op,
                                  const LoopKernelArgs &args,
                                  ArrayRef<Value> ivs, ValueRange carried,
                                  function_ref<Value(unsigned)> kernelArg) {
  Block *payload = op.getBlock();
  IRMapping mapping;
  for (auto [n, input] : llvm::enumerate(op.getDpsInputOperands())) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (arg.use_empty())
      continue;
    if (TypedAttr constant = getFillConstant(input->get())) {
      mapping.map(arg, arith::ConstantOp::create(builder, loc, constant));
      continue;
    }
    if (!args.inputs[n]) {
      mapping.map(arg,
                  builder.clone(*input->get().getDefiningOp())->getResult(0));
      continue;
    }
    mapping.map(arg, memref::LoadOp::create(
                         builder, loc, kernelArg(*args.inputs[n]),
                         applyMap(builder, loc,
                                  op.getMatchingIndexingMap(input), ivs)));
  }
  for (auto [n, init] : llvm::enumerate(op.getDpsInitsMutable()))
    mapping.map(op.getMatchingBlockArgument(&init), carried[n]);
  // Constants from above are cloned where they are read.
  auto cloneConstantsFromAbove = [&](Operation &inner) {
    for (Value operand : inner.getOperands())
      if (isDefinedOutside(operand, op) && !mapping.contains(operand) &&
          !isExtractedTensor(operand))
        mapping.map(operand,
                    builder.clone(*operand.getDefiningOp())->getResult(0));
  };
  for (Operation &inner : payload->without_terminator()) {
    cloneConstantsFromAbove(inner);
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
    } else if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      SmallVector<Value> indices = llvm::map_to_vector(
          extract.getIndices(), [&](Value v) { return mapping.lookup(v); });
      mapping.map(extract.getResult(),
                  memref::LoadOp::create(
                      builder, loc,
                      kernelArg(args.extracted.lookup(extract.getTensor())),
                      indices));
    } else {
      builder.clone(inner, mapping);
    }
  }
  cloneConstantsFromAbove(*payload->getTerminator());
  return llvm::map_to_vector(
      payload->getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

} // namespace

std::optional<std::string> gpu_codegen::whyNoLoopKernel(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return "it works on buffers";
  if (op.getNumDpsInits() == 0)
    return "it has no result";
  for (Value result : op->getResults())
    if (std::optional<std::string> why = whyNoBuffer(result.getType()))
      return why;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (!isa<ShapedType>(value.getType())) {
      if (!matchPattern(value, m_Constant()))
        return std::string("it reads a scalar that is not a constant");
      continue;
    }
    if (!isReadInput(op, input))
      continue;
    if (std::optional<std::string> why = whyNotRead(value, "an input"))
      return why;
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!op.payloadUsesValueFromOperand(&init) || getFillConstant(init.get()))
      continue;
    if (init.get().getDefiningOp<tensor::EmptyOp>() ||
        init.get().getDefiningOp<linalg::FillOp>())
      return std::string("its payload reads an init that is uninitialized "
                         "or filled with a value that is not a constant");
  }

  // One thread per point of the parallel loops: each result must be indexed
  // by all of them, each once, and by nothing else.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numParallel = llvm::count(iterators, utils::IteratorType::parallel);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
        map.getNumResults() != numParallel ||
        llvm::any_of(map.getResults(), [&](AffineExpr expr) {
          return iterators[cast<AffineDimExpr>(expr).getPosition()] !=
                 utils::IteratorType::parallel;
        }))
      return std::string("a result is not indexed by exactly its parallel "
                         "loops");
  }
  for (AffineMap map : op.getIndexingMapsArray())
    if (map.getNumSymbols() != 0)
      return std::string("an indexing map has symbols");
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return std::string("a loop has a dynamic range");
  int64_t blocks =
      llvm::divideCeil(getNumParallelPoints(op), kElementKernelThreads);
  if (blocks > std::numeric_limits<int32_t>::max())
    return std::string("it has more parallel points than a grid has threads");

  for (Operation &payload : op.getBlock()->without_terminator()) {
    if (payload.getNumRegions() != 0)
      return "payload op '" + payload.getName().getStringRef().str() +
             "' has regions";
    if (auto extract = dyn_cast<tensor::ExtractOp>(payload)) {
      Value tensor = extract.getTensor();
      if (!isDefinedOutside(tensor, op))
        return std::string("its payload extracts from a tensor it computes");
      if (std::optional<std::string> why =
              whyNotRead(tensor, "the tensor its payload extracts from"))
        return why;
    } else if (isa<math::IPowIOp, math::ClampFOp>(payload)) {
      // Upstream lowers neither to NVVM (nor to the LLVM dialect).
      return "payload op '" + payload.getName().getStringRef().str() +
             "' has no lowering to NVVM";
    } else if (!isa<linalg::IndexOp>(payload) &&
               !isa<arith::ArithDialect, math::MathDialect>(
                   payload.getDialect())) {
      return "payload op '" + payload.getName().getStringRef().str() +
             "' has no GPU lowering in a loop kernel";
    }
    for (Value result : payload.getResults())
      if (!result.getType().isIntOrIndexOrFloat())
        return "payload op '" + payload.getName().getStringRef().str() +
               "' computes a " + printed(result.getType());
  }
  // Values from above must be constants, which the kernel clones (the
  // yield's too: a result that is a constant).
  for (Operation &payload : *op.getBlock())
    for (Value operand : payload.getOperands())
      if (isDefinedOutside(operand, op) && !isExtractedTensor(operand) &&
          !matchPattern(operand, m_Constant()))
        return "payload op '" + payload.getName().getStringRef().str() +
               "' reads a value from above that is not a constant";
  return std::nullopt;
}

bool gpu_codegen::isFoldedIntoLoopKernels(Operation &op) {
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !fill.hasPureTensorSemantics() ||
      !getFillConstant(fill.getResult(0)) || op.use_empty())
    return false;
  // A copy kernel (a linalg.broadcast) reads a buffer.
  return llvm::all_of(op.getUses(), [](OpOperand &use) {
    auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return reader && !isa<linalg::FillOp>(use.getOwner()) &&
           !isCopyOp(*use.getOwner()) &&
           (reader.isDpsInit(&use) || reader.isDpsInput(&use)) &&
           !whyNoLoopKernel(reader);
  });
}

SmallVector<Value> gpu_codegen::getLoopKernelInputs(linalg::LinalgOp op) {
  return getArgs(op).tensors;
}

void gpu_codegen::emitLoopKernel(linalg::LinalgOp op, gpu::GPUFuncOp func) {
  Location loc = op.getLoc();
  LoopKernelArgs args = getArgs(op);
  auto kernelArg = [&](unsigned n) { return func.getArgument(n); };
  unsigned firstResult = args.tensors.size();

  auto b = OpBuilder::atBlockBegin(&func.getBody().front());
  Value linear = buildGuardedThreadIndex(b, loc, kElementKernelThreads,
                                         getNumParallelPoints(op));

  // The parallel loop indices, from the element of the first result.
  SmallVector<Value> ivs(op.getNumLoops());
  OpOperand *first = op.getDpsInitOperand(0);
  SmallVector<Value> at =
      delinearize(b, loc, linear, shapeOf(op->getResult(0)));
  for (auto [i, expr] :
       llvm::enumerate(op.getMatchingIndexingMap(first).getResults()))
    ivs[cast<AffineDimExpr>(expr).getPosition()] = at[i];
  auto resultIndices = [&](OpBuilder &builder, unsigned n) {
    return applyMap(builder, loc,
                    op.getMatchingIndexingMap(op.getDpsInitOperand(n)), ivs);
  };

  // The values the results start from.
  SmallVector<Value> initial;
  for (auto [n, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    Type type = getElementTypeOrSelf(init.get().getType());
    if (TypedAttr constant = getFillConstant(init.get()))
      initial.push_back(arith::ConstantOp::create(b, loc, constant));
    else if (args.inits[n])
      initial.push_back(memref::LoadOp::create(
          b, loc, kernelArg(*args.inits[n]), resultIndices(b, n)));
    else // Never read: the payload does not use it.
      initial.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
  }

  // The payload at the point `ivs`, on the carried results `carried`.
  auto applyPayload = [&](OpBuilder &builder,
                          ValueRange carried) -> SmallVector<Value> {
    return applyPayloadAt(builder, loc, op, args, ivs, carried, kernelArg);
  };

  // The reduction loops, outermost first, carrying the results.
  SmallVector<unsigned> reductionDims;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator != utils::IteratorType::parallel)
      reductionDims.push_back(d);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::function<SmallVector<Value>(OpBuilder &, unsigned, ValueRange)> loops =
      [&](OpBuilder &builder, unsigned k,
          ValueRange carried) -> SmallVector<Value> {
    if (k == reductionDims.size())
      return applyPayload(builder, carried);
    unsigned dim = reductionDims[k];
    auto loop = scf::ForOp::create(
        builder, loc, indexConstant(builder, loc, 0),
        indexConstant(builder, loc, ranges[dim]),
        indexConstant(builder, loc, 1), carried,
        [&](OpBuilder &inner, Location, Value iv, ValueRange iterArgs) {
          ivs[dim] = iv;
          scf::YieldOp::create(inner, loc, loops(inner, k + 1, iterArgs));
        });
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> results = loops(b, 0, initial);
  for (auto [n, result] : llvm::enumerate(results))
    memref::StoreOp::create(b, loc, result, kernelArg(firstResult + n),
                            resultIndices(b, n));
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
}

bool gpu_codegen::isComputedWhereRead(linalg::LinalgOp op) {
  if (whyNoLoopKernel(op) || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isPermutation() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return false;
  // A mask (i1 elements, which a custom kernel copies into shared memory
  // one at a time anyway) may read tensors too (`ids[j] == pad`): an
  // element is a load of what it reads instead of its own, in place of a
  // launch and a round trip through device memory.
  if (getElementTypeOrSelf(op->getResult(0).getType()).isInteger(1))
    return true;
  // Otherwise scalars alone (a position, a window): an element costs a few
  // instructions more than its load did, and no tensor is read in place of
  // one that 16-byte copies would have moved.
  return llvm::all_of(getLoopKernelInputs(op), [](Value tensor) {
    return cast<ShapedType>(tensor.getType()).getRank() == 0;
  });
}

Value gpu_codegen::emitLoopKernelElement(OpBuilder &b, Location loc,
                                         linalg::LinalgOp op,
                                         ValueRange indices,
                                         ValueRange inputs) {
  SmallVector<Value> ivs(op.getNumLoops());
  for (auto [i, expr] : llvm::enumerate(
           op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults()))
    ivs[cast<AffineDimExpr>(expr).getPosition()] = indices[i];
  // The payload does not read the init (isComputedWhereRead).
  Type type = getElementTypeOrSelf(op->getResult(0).getType());
  Value unread = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  return applyPayloadAt(b, loc, op, getArgs(op), ivs, unread,
                        [&](unsigned n) { return inputs[n]; })
      .front();
}
