//===- ThreadOps.cpp - Thread dialect operations --------------------------===//

#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Support/ShapeInference.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::thread;

//===----------------------------------------------------------------------===//
// Op kinds as bare keywords: `thread.unary exp %x`
//===----------------------------------------------------------------------===//

/// "exp, log, ...": every keyword of a kind enum, for diagnostics.
template <typename Kind>
static std::string kindList(unsigned maxValue,
                            StringRef (*stringify)(Kind)) {
  std::string list;
  for (unsigned v = 0; v <= maxValue; ++v)
    list += (v ? ", " : "") + stringify(static_cast<Kind>(v)).str();
  return list;
}

// The kind attributes print as `#thread<unary_kind exp>` on their own; in the
// ops, the keyword alone reads better and cannot be ambiguous.
static ParseResult parseKind(OpAsmParser &parser, UnaryKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<UnaryKind> kind = symbolizeUnaryKind(keyword);
  if (!kind)
    return parser.emitError(loc, "unknown unary op '")
           << keyword << "'; expected one of "
           << kindList<UnaryKind>(getMaxEnumValForUnaryKind(),
                                  stringifyUnaryKind);
  attr = UnaryKindAttr::get(parser.getContext(), *kind);
  return success();
}

static ParseResult parseKind(OpAsmParser &parser, BinaryKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<BinaryKind> kind = symbolizeBinaryKind(keyword);
  if (!kind)
    return parser.emitError(loc, "unknown binary op '")
           << keyword << "'; expected one of "
           << kindList<BinaryKind>(getMaxEnumValForBinaryKind(),
                                   stringifyBinaryKind);
  attr = BinaryKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printKind(OpAsmPrinter &printer, Operation *, UnaryKindAttr attr) {
  printer << stringifyUnaryKind(attr.getValue());
}

static void printKind(OpAsmPrinter &printer, Operation *,
                      BinaryKindAttr attr) {
  printer << stringifyBinaryKind(attr.getValue());
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

LogicalResult GraphOp::verifyRegions() {
  Operation *parent = (*this)->getParentOp();
  if (!isa_and_nonnull<kernel::CustomOp, block::ForLoopOp>(parent))
    return emitOpError("must be part of a block graph (directly in a "
                       "kernel.custom or block.for_loop body)");
  if (getOutputs().empty())
    return emitOpError("must produce at least one result");

  auto resultType = cast<RankedTensorType>(getOutputs().front().getType());
  ArrayRef<int64_t> shape = resultType.getShape();
  for (Type type : getOutputs().getTypes())
    if (cast<RankedTensorType>(type).getShape() != shape)
      return emitOpError("results must all have one shape, got ")
             << resultType << " and " << type;
  for (auto [i, type] : llvm::enumerate(getInputs().getTypes())) {
    ArrayRef<int64_t> operand = cast<RankedTensorType>(type).getShape();
    ShapeOrError joined = broadcastShapes(operand, shape);
    if (!joined.ok() || ArrayRef<int64_t>(joined.shape) != shape)
      return emitOpError("operand #")
             << i << " of shape " << formatShape(operand)
             << " does not broadcast to the result shape "
             << formatShape(shape);
  }

  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body must have one argument per operand (")
           << getInputs().size() << "), got " << body.getNumArguments();
  for (auto [i, type] : llvm::enumerate(getInputs().getTypes())) {
    Type element = cast<RankedTensorType>(type).getElementType();
    if (body.getArgument(i).getType() != element)
      return emitOpError("body argument #")
             << i << " must be an element of operand #" << i << " ("
             << element << "), got " << body.getArgument(i).getType();
  }
  for (Operation &op : body)
    if (op.getDialect() != (*this)->getDialect())
      return op.emitOpError("cannot appear in a thread graph; thread graphs "
                            "hold elementwise thread ops only");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != getOutputs().size())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the thread graph has "
           << getOutputs().size() << " results";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues(), getOutputs()))) {
    Type element =
        cast<RankedTensorType>(std::get<1>(pair).getType()).getElementType();
    if (std::get<0>(pair).getType() != element)
      return yield.emitOpError("value #")
             << i << " has type " << std::get<0>(pair).getType()
             << " but result #" << i << " holds " << element;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  return verifyConversion(*this, getInput().getType(), getResult().getType());
}

bool mlsopt::hasThreadForm(Operation *op) {
  if (!isa_and_nonnull<block::BlockDialect>(op->getDialect()) ||
      op->getNumResults() != 1)
    return false;
  StringRef name = op->getName().stripDialect();
  return isa<block::ConvertOp, block::WhereOp, block::IntToFloatOp>(op) ||
         isScalarOpName(name) || thread::symbolizeUnaryKind(name) ||
         thread::symbolizeBinaryKind(name);
}

bool mlsopt::isScalarOpName(StringRef name) {
  for (StringRef op :
       {MulScalarOp::getOperationName(), AddScalarOp::getOperationName(),
        MaxScalarOp::getOperationName(), MinScalarOp::getOperationName()})
    if (op.drop_front(ThreadDialect::getDialectNamespace().size() + 1) == name)
      return true;
  return false;
}

#define GET_OP_CLASSES
#include "mlsopt/Dialect/Thread/IR/ThreadOps.cpp.inc"
