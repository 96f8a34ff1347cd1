//===- FieldProgram.cpp - Tensor programs as finite-field loop nests ------===//
//
// One memref of i128 field elements per tensor value, allocated once at the
// entry of the program and reused by every block and iteration that defines
// the value again (the slots of the evaluator). Each op becomes a loop nest
// that loads its operands' elements (numpy broadcasting through indices pinned
// to 0), calls the runtime and stores the result; a custom kernel becomes a
// loop nest over its grid around its block graph, a for-loop an scf.for
// around its body and its accumulators' update.
//
// The order of every computation follows Evaluator.cpp where it matters:
// which element a max keeps on ties, the first iteration of an accumulator
// (it starts from the yielded value: the field has no -inf), rescales
// applied right after their maximum, mean and rms finalized after the loop.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Verify/FieldProgram.h"
#include "mlsopt/Conversion/DataMovement.h"
#include "mlsopt/Conversion/ElementwiseMath.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"
#include "mlsopt/Support/TileShapes.h"
#include "mlsopt/Support/UnsupportedOps.h"
#include "mlsopt/Verify/FieldRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;

static_assert(thread::getMaxEnumValForUnaryKind() <
                  FieldRuntimeContext::kMaxFunctions,
              "FieldRuntimeContext needs a key per unary kind");

std::string mlsopt::verify::getFieldProgramName(StringRef function) {
  return ("__mlsopt_field_" + function).str();
}

namespace {

/// The grid position and for-loop iteration of the code being emitted; null
/// outside custom kernels and for-loops.
struct SchedulePosition {
  std::array<Value, 3> block;
  Value iteration;
};

class FieldProgramBuilder {
public:
  FieldProgramBuilder(ModuleOp module, func::FuncOp func,
                      const FieldEvaluator &analysis)
      : module(module), func(func), analysis(analysis), b(module.getContext()),
        fieldType(IntegerType::get(module.getContext(), 128)) {}

  LogicalResult build();

private:
  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  Location loc() const { return currentLoc; }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc(), v); }

  /// The i128 constant of the field element (p, q).
  Value element(uint64_t p, uint64_t q) {
    APInt value(128, {p, q});
    return arith::ConstantOp::create(b, loc(), fieldType,
                                     b.getIntegerAttr(fieldType, value));
  }
  Value element(FieldElement e) { return element(e.p, e.q); }

  /// The element 1/n in both fields, for the means of accumulators and
  /// rms_norm (n is a positive shape or iteration count, never 0 mod p or q).
  Value inverseOf(int64_t n) {
    FieldElement e = fieldInteger(n);
    return element(PrimeField::inverse(e.p), ExponentPart::inverse(e.q));
  }

  /// Declares runtime function `name` on first use and calls it.
  Value call(StringRef name, ValueRange args) {
    auto callee = module.lookupSymbol<func::FuncOp>(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      callee = func::FuncOp::create(
          b, module.getLoc(), name,
          b.getFunctionType(TypeRange(args), fieldType));
      callee.setPrivate();
    }
    return func::CallOp::create(b, loc(), callee, args).getResult(0);
  }

  MemRefType bufferType(ArrayRef<int64_t> shape) {
    return MemRefType::get(shape, fieldType);
  }

  /// A buffer of `shape` allocated at the program's entry and freed at its
  /// end: values defined inside loops reuse it on every iteration.
  Value allocate(ArrayRef<int64_t> shape) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(allocationPoint);
    Value buffer = memref::AllocOp::create(b, loc(), bufferType(shape));
    allocations.push_back(buffer);
    return buffer;
  }

  /// The static shape of a tensor value; an error on anything else.
  FailureOr<ArrayRef<int64_t>> shapeOf(Operation *op, Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return op->emitError("the finite-field program needs statically shaped "
                           "tensors, got ")
             << value.getType();
    return type.getShape();
  }

  /// Allocates the buffer of a result.
  LogicalResult define(Operation *op, Value value) {
    FailureOr<ArrayRef<int64_t>> shape = shapeOf(op, value);
    if (failed(shape))
      return failure();
    buffers[value] = allocate(*shape);
    return success();
  }

  Value bufferOf(Value value) { return buffers.lookup(value); }

  ArrayRef<int64_t> shapeOfBuffer(Value buffer) {
    return cast<MemRefType>(buffer.getType()).getShape();
  }

  /// Emits `body` inside a loop nest over every index of `shape` (row-major);
  /// a rank-0 shape runs it once.
  void forEachIndex(ArrayRef<int64_t> shape,
                    function_ref<void(ValueRange)> body) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t size : shape) {
      lbs.push_back(index(0));
      ubs.push_back(index(size));
      steps.push_back(index(1));
    }
    if (shape.empty()) {
      body({});
      return;
    }
    scf::buildLoopNest(b, loc(), lbs, ubs, steps,
                       [&](OpBuilder &nested, Location, ValueRange ivs) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPoint(nested.getInsertionBlock(),
                                             nested.getInsertionPoint());
                         body(ivs);
                       });
  }

  /// Calls body(batch ivs, i, j) for every row i < m and column j < n of
  /// `shape`'s last two dims, in blocks of kMatmulPairBlock rows and
  /// columns, as the evaluator's matmul does.
  void forEachBlockedPair(ArrayRef<int64_t> shape,
                          function_ref<void(ValueRange, Value, Value)> body) {
    constexpr int64_t block = kMatmulPairBlock;
    int64_t rank = shape.size();
    SmallVector<int64_t> outer(shape);
    outer[rank - 2] = llvm::divideCeil(shape[rank - 2], block);
    outer[rank - 1] = llvm::divideCeil(shape[rank - 1], block);
    forEachIndex(outer, [&](ValueRange ivs) {
      Value size = index(block);
      auto range = [&](Value blockIndex, int64_t extent) {
        Value from = arith::MulIOp::create(b, loc(), blockIndex, size);
        Value to = arith::MinSIOp::create(
            b, loc(), arith::AddIOp::create(b, loc(), from, size),
            index(extent));
        return std::make_pair(from, to);
      };
      auto [iFrom, iTo] = range(ivs[rank - 2], shape[rank - 2]);
      auto [jFrom, jTo] = range(ivs[rank - 1], shape[rank - 1]);
      scf::buildLoopNest(b, loc(), {iFrom, jFrom}, {iTo, jTo},
                         {index(1), index(1)},
                         [&](OpBuilder &nested, Location, ValueRange pair) {
                           OpBuilder::InsertionGuard guard(b);
                           b.setInsertionPoint(nested.getInsertionBlock(),
                                               nested.getInsertionPoint());
                           body(ivs.drop_back(2), pair[0], pair[1]);
                         });
    });
  }

  /// A loop from `from` to `to` carrying one field element.
  Value foldRange(int64_t from, int64_t to, Value init,
                  function_ref<Value(Value iv, Value acc)> step) {
    auto loop = scf::ForOp::create(
        b, loc(), index(from), index(to), index(1), ValueRange{init},
        [&](OpBuilder &nested, Location l, Value iv, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          scf::YieldOp::create(b, l, step(iv, carried.front()));
        });
    return loop.getResult(0);
  }

  /// The indices that read an operand of shape `operand` at index `ivs` of a
  /// result of shape `result` under numpy broadcasting: missing leading dims
  /// dropped, stretched size-1 dims pinned to 0.
  SmallVector<Value> broadcastIndices(ArrayRef<int64_t> operand,
                                      ArrayRef<int64_t> result,
                                      ValueRange ivs) {
    size_t offset = result.size() - operand.size();
    SmallVector<Value> indices;
    for (size_t j = 0; j < operand.size(); ++j)
      indices.push_back(operand[j] == result[offset + j] ? ivs[offset + j]
                                                         : index(0));
    return indices;
  }

  Value load(Value buffer, ValueRange indices) {
    return memref::LoadOp::create(b, loc(), buffer, indices);
  }
  Value loadBroadcast(Value buffer, ArrayRef<int64_t> resultShape,
                      ValueRange ivs) {
    return load(buffer,
                broadcastIndices(shapeOfBuffer(buffer), resultShape, ivs));
  }
  void store(Value value, Value buffer, ValueRange indices) {
    memref::StoreOp::create(b, loc(), value, buffer, indices);
  }

  void copy(Value from, Value to) {
    memref::CopyOp::create(b, loc(), from, to);
  }

  /// Emits `thenBody` when `condition` holds, else `elseBody`.
  void ifElse(Value condition, function_ref<void()> thenBody,
              function_ref<void()> elseBody) {
    auto ifOp = scf::IfOp::create(b, loc(), condition, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    thenBody();
    b.setInsertionPointToStart(ifOp.elseBlock());
    elseBody();
  }

  //===--------------------------------------------------------------------===//
  // Scalars
  //===--------------------------------------------------------------------===//

  Value emitUnary(thread::UnaryKind kind, Value x) {
    using thread::UnaryKind;
    switch (kind) {
    case UnaryKind::neg:
      return call("mlsopt_field_neg", x);
    case UnaryKind::square:
      return call("mlsopt_field_square", x);
    case UnaryKind::exp:
      return call("mlsopt_field_exp", {context, x});
    case UnaryKind::sqrt:
      return call("mlsopt_field_sqrt", {context, x});
    case UnaryKind::rsqrt:
      return call("mlsopt_field_rsqrt", {context, x});
    default: {
      // log, tanh, erf, relu, sigmoid, silu, gelu, gelu_tanh, sin, cos,
      // log1p, softplus, floor, ceil, round:
      // the op's random function, keyed by its kind as in the evaluator.
      Value function = arith::ConstantIntOp::create(
          b, loc(), b.getI64Type(), static_cast<int64_t>(kind));
      return call("mlsopt_field_random", {context, function, x});
    }
    }
  }

  Value emitBinary(thread::BinaryKind kind, Value lhs, Value rhs) {
    switch (kind) {
    case thread::BinaryKind::add:
      return call("mlsopt_field_add", {lhs, rhs});
    case thread::BinaryKind::sub:
      return call("mlsopt_field_sub", {lhs, rhs});
    case thread::BinaryKind::mul:
      return call("mlsopt_field_mul", {lhs, rhs});
    case thread::BinaryKind::div:
      return call("mlsopt_field_div", {context, lhs, rhs});
    // Symmetric random functions, as the evaluator's runPairFunction.
    case thread::BinaryKind::max:
    case thread::BinaryKind::min: {
      Value function =
          arith::ConstantIntOp::create(b, loc(), b.getI64Type(),
                                       static_cast<int64_t>(binaryFunctionId(
                                           kind == thread::BinaryKind::min)));
      return call("mlsopt_field_random_pair", {context, function, lhs, rhs});
    }
    }
    llvm_unreachable("unknown binary kind");
  }

  /// The scalar computation of an elementwise op of any level on one element
  /// of each operand; none if `op` is not elementwise.
  FailureOr<Value> emitElementwise(Operation &op, ValueRange args) {
    // The field does not model rounding: a conversion keeps the element.
    if (isa<thread::ConvertOp, thread::IntToFloatOp>(op))
      return args[0];
    if (auto unary = dyn_cast<thread::UnaryOp>(op))
      return emitUnary(unary.getKind(), args[0]);
    if (auto binary = dyn_cast<thread::BinaryOp>(op))
      return emitBinary(binary.getKind(), args[0], args[1]);
    if (!isa_and_nonnull<kernel::KernelDialect, block::BlockDialect,
                         thread::ThreadDialect>(op.getDialect()))
      return failure();
    // Kernel, block and thread elementwise ops share their mnemonics with the
    // thread kinds (one list in TensorOps.td).
    StringRef name = op.getName().stripDialect();
    if (isScalarOpName(name)) {
      auto scalar = op.getAttrOfType<FloatAttr>("scalar");
      if (!scalar)
        return op.emitError("scalar op without a 'scalar' attribute");
      // max and min: the random function of the op and its constant.
      if (std::optional<uint64_t> id =
              scalarFunctionId(name, scalar.getValueAsDouble())) {
        Value function = arith::ConstantIntOp::create(
            b, loc(), b.getI64Type(), static_cast<int64_t>(*id));
        return call("mlsopt_field_random_scalar", {context, function, args[0]});
      }
      std::optional<FieldElement> c = fieldConstant(
          scalar.getValueAsDouble(), analysis.getConstantExtents(),
          analysis.getConstantRoundingType());
      if (!c)
        return op.emitError("the constant ")
               << scalar.getValueAsDouble() << " has no finite-field image";
      return emitBinary(name == "mul_scalar" ? thread::BinaryKind::mul
                                             : thread::BinaryKind::add,
                        args[0], element(*c));
    }
    // f + m (t - f), the evaluator's runWhere.
    if (name == "where" && args.size() == 1) {
      auto constant = [&](StringRef attr) {
        return element(fieldFillConstant(
            op.getAttrOfType<FloatAttr>(attr).getValueAsDouble(),
            analysis.getConstantExtents(), analysis.getConstantRoundingType()));
      };
      Value onFalse = constant("on_false");
      Value step =
          emitBinary(thread::BinaryKind::sub, constant("on_true"), onFalse);
      return emitBinary(thread::BinaryKind::add, onFalse,
                        emitBinary(thread::BinaryKind::mul, args[0], step));
    }
    if (std::optional<thread::UnaryKind> kind =
            thread::symbolizeUnaryKind(name);
        kind && args.size() == 1)
      return emitUnary(*kind, args[0]);
    if (std::optional<thread::BinaryKind> kind =
            thread::symbolizeBinaryKind(name);
        kind && args.size() == 2)
      return emitBinary(*kind, args[0], args[1]);
    return failure();
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  LogicalResult emitBlock(Block &block, const SchedulePosition &pos) {
    for (Operation &op : block) {
      currentLoc = op.getLoc();
      if (failed(emitOp(op, pos)))
        return failure();
    }
    return success();
  }

  LogicalResult emitOp(Operation &op, const SchedulePosition &pos) {
    // A broadcast's init (a tensor.empty) gives its shape only.
    if (isa<tensor::EmptyOp>(op) && llvm::all_of(op.getUsers(), [](auto *u) {
          return isa<linalg::BroadcastOp>(u);
        }))
      return success();
    SmallVector<Value> operands(op.getOperands());
    if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op))
      operands = {broadcast.getInput()};
    for (Value operand : operands)
      if (!bufferOf(operand))
        return op.emitError("the finite-field program cannot find the "
                            "definition of an operand");
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [value, result] : llvm::zip_equal(
               ret.getOperands(), resultArguments))
        copy(bufferOf(value), result);
      return success();
    }
    // Their parents handle them.
    if (isa<block::ReturnOp, block::YieldOp>(op))
      return success();
    if (auto custom = dyn_cast<kernel::CustomOp>(op))
      return emitCustom(custom);
    if (auto loop = dyn_cast<block::ForLoopOp>(op))
      return emitForLoop(loop, pos);
    if (auto load = dyn_cast<block::LoadOp>(op))
      return emitLoad(load, pos);
    if (auto store = dyn_cast<block::StoreOp>(op))
      return emitStore(store, pos);
    if (auto graph = dyn_cast<thread::GraphOp>(op))
      return emitThreadGraph(graph);
    if (isa<kernel::MatmulOp, block::MatmulOp>(op))
      return emitMatmul(op);
    if (isa<kernel::ReduceSumOp, block::ReduceSumOp>(op))
      return emitReduce(op, /*isMax=*/false);
    if (isa<kernel::ReduceMaxOp, block::ReduceMaxOp>(op))
      return emitReduce(op, /*isMax=*/true);
    if (isa<kernel::RmsNormOp, block::RmsNormOp>(op))
      return emitRmsNorm(op);
    if (isa<kernel::ConcatOp, block::ConcatOp>(op))
      return emitConcat(op);
    if (auto fill = dyn_cast<kernel::TriangleFillOp>(op))
      return emitTriangleFill(
          fill, SmallVector<Value>(fill.getType().getRank(), index(0)));
    if (auto fill = dyn_cast<block::TriangleFillOp>(op)) {
      if (!pos.block[0] || (fill.getFmap() && !pos.iteration))
        return fill.emitError("the finite-field program needs a tile's "
                              "triangle_fill inside a custom kernel");
      return emitTriangleFill(fill,
                              tileOffsets(fill.getType().getShape(),
                                          fill.getImap(), fill.getFmap(), pos));
    }
    if (auto transpose = dyn_cast<kernel::TransposeOp>(op))
      return emitTranspose(transpose);
    if (auto transpose = dyn_cast<block::TransposeOp>(op))
      return emitTranspose(transpose);
    if (isa<tensor::ExtractSliceOp, linalg::BroadcastOp>(op))
      return emitCopy(op);
    // A conversion keeps each value (the field does not model rounding) and
    // the shape. Between kernels, where each buffer is written once, it is
    // its operand's buffer: an f16 program computed in f32 converts every
    // weight, and copies doubled the memory a decode MLP's check needs
    // (countEvaluatedElements does not count them). Inside a kernel a tile is
    // written again each iteration: a copy, as a reshape is.
    if (isa<kernel::ConvertOp>(op)) {
      buffers[op.getResult(0)] = bufferOf(op.getOperand(0));
      return success();
    }
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, block::ConvertOp,
            kernel::IntToFloatOp, block::IntToFloatOp>(op))
      return emitReshape(op);
    if (op.getNumResults() == 1 &&
        isa_and_nonnull<kernel::KernelDialect, block::BlockDialect>(
            op.getDialect()))
      return emitElementwiseOp(op);
    Operation *cause = getUnsupportedCause(&op);
    return cause->emitError("the finite-field program does not support '")
           << cause->getName() << "'" << describeUnsupported(cause);
  }

  LogicalResult emitElementwiseOp(Operation &op) {
    Value result = op.getResult(0);
    if (failed(define(&op, result)))
      return failure();
    Value out = bufferOf(result);
    ArrayRef<int64_t> shape = shapeOfBuffer(out);
    LogicalResult status = success();
    forEachIndex(shape, [&](ValueRange ivs) {
      SmallVector<Value> args = llvm::map_to_vector(
          op.getOperands(),
          [&](Value v) { return loadBroadcast(bufferOf(v), shape, ivs); });
      FailureOr<Value> y = emitElementwise(op, args);
      if (failed(y)) {
        status = failure();
        return;
      }
      store(*y, out, ivs);
    });
    if (failed(status))
      return op.emitError("the finite-field program does not support '")
             << op.getName() << "'";
    return success();
  }

  /// Batched matmul: out[..., i, j] = sum_k lhs[..., i, k] * rhs[..., k, j].
  /// Matmuls dominate the run time: their arithmetic is inline, and those
  /// with no exp downstream compute mod p alone, as in the evaluator.
  LogicalResult emitMatmul(Operation &op) {
    if (failed(define(&op, op.getResult(0))))
      return failure();
    Value lhs = bufferOf(op.getOperand(0)), rhs = bufferOf(op.getOperand(1));
    Value out = bufferOf(op.getResult(0));
    ArrayRef<int64_t> shape = shapeOfBuffer(out);
    if (shape.size() < 2 || shapeOfBuffer(lhs).size() != shape.size() ||
        shapeOfBuffer(rhs).size() != shape.size())
      return op.emitError("the finite-field program needs matmul operands "
                          "of the result's rank (2 or more)");
    emitDotProducts(lhs, rhs, out,
                    analysis.computesExponents(op.getResult(0)));
    return success();
  }

  /// Each output is a dot product of a row of lhs and a row of rhs
  /// transposed once (contiguous in both), with 128-bit products summed in
  /// 192 bits (a 128-bit sum and a count of its wrap-arounds) and reduced
  /// once by the runtime, like the evaluator's. `withExponents` adds the
  /// same mod q on the high words, plus the largest marker among the
  /// operands' q-parts, which replaces the q-part when there is one (a
  /// marker in a row or column makes its outputs markers); otherwise the
  /// q-part is the not-LAX marker, which nothing reads.
  void emitDotProducts(Value lhs, Value rhs, Value out, bool withExponents) {
    ArrayRef<int64_t> shape = shapeOfBuffer(out);
    ArrayRef<int64_t> rhsShape = shapeOfBuffer(rhs);
    int64_t rank = shape.size();
    int64_t k = shapeOfBuffer(lhs).back();
    SmallVector<int64_t> transposedShape(rhsShape);
    std::swap(transposedShape[rank - 2], transposedShape[rank - 1]);
    Value transposed = allocate(transposedShape);
    forEachIndex(rhsShape, [&](ValueRange ivs) {
      SmallVector<Value> at(ivs);
      std::swap(at[rank - 2], at[rank - 1]);
      store(load(rhs, ivs), transposed, at);
    });
    Type i64 = b.getI64Type();
    Value shift = arith::ConstantOp::create(b, loc(), fieldType,
                                            b.getIntegerAttr(fieldType, 64));
    Value markerShift = arith::ConstantIntOp::create(b, loc(), i64, 62);
    auto word = [&](Value element, bool high) -> Value {
      if (high)
        element = arith::ShRUIOp::create(b, loc(), element, shift);
      return arith::TruncIOp::create(b, loc(), i64, element);
    };
    auto wide = [&](Value v) -> Value {
      return arith::ExtUIOp::create(b, loc(), fieldType, v);
    };
    /// (sum, wraps) + x * y in 192 bits.
    auto accumulate = [&](Value sum, Value wraps, Value x, Value y) {
      Value product = arith::MulIOp::create(b, loc(), wide(x), wide(y));
      Value next = arith::AddIOp::create(b, loc(), sum, product);
      Value wrapped = arith::CmpIOp::create(
          b, loc(), arith::CmpIPredicate::ult, next, product);
      return std::make_pair(
          next, arith::AddIOp::create(
                    b, loc(), wraps,
                    arith::ExtUIOp::create(b, loc(), i64, wrapped))
                    .getResult());
    };
    /// The q-part if it is a marker (at least 2^62), else 0.
    auto markerOf = [&](Value q) -> Value {
      Value high = arith::ShRUIOp::create(b, loc(), q, markerShift);
      Value zero = arith::ConstantIntOp::create(b, loc(), i64, 0);
      Value isMarker = arith::CmpIOp::create(
          b, loc(), arith::CmpIPredicate::ne, high, zero);
      return arith::SelectOp::create(b, loc(), isMarker, q, zero);
    };
    forEachBlockedPair(shape, [&](ValueRange batch, Value i, Value j) {
      Value zero128 = arith::ConstantOp::create(
          b, loc(), fieldType, b.getIntegerAttr(fieldType, 0));
      Value zero64 = arith::ConstantIntOp::create(b, loc(), i64, 0);
      SmallVector<Value> inits = {zero128, zero64};
      if (withExponents)
        inits.append({zero128, zero64, zero64});
      auto loop = scf::ForOp::create(
          b, loc(), index(0), index(k), index(1), inits,
          [&](OpBuilder &nested, Location l, Value kk, ValueRange carried) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(nested.getInsertionBlock(),
                                nested.getInsertionPoint());
            SmallVector<Value> li(batch), ri(batch);
            li.append({i, kk});
            ri.append({j, kk});
            Value x = load(lhs, li), y = load(transposed, ri);
            auto [sumP, wrapsP] = accumulate(carried[0], carried[1],
                                             word(x, false), word(y, false));
            SmallVector<Value> next = {sumP, wrapsP};
            if (withExponents) {
              Value xq = word(x, true), yq = word(y, true);
              auto [sumQ, wrapsQ] =
                  accumulate(carried[2], carried[3], xq, yq);
              Value marker = arith::MaxUIOp::create(
                  b, l, carried[4],
                  arith::MaxUIOp::create(b, l, markerOf(xq), markerOf(yq)));
              next.append({sumQ, wrapsQ, marker});
            }
            scf::YieldOp::create(b, l, next);
          });
      Value result =
          withExponents
              ? call("mlsopt_field_reduce_wide_both",
                     {loop.getResult(1), loop.getResult(0), loop.getResult(3),
                      loop.getResult(2), loop.getResult(4)})
              : call("mlsopt_field_reduce_wide",
                     {loop.getResult(1), loop.getResult(0)});
      SmallVector<Value> at(batch);
      at.append({i, j});
      store(result, out, at);
    });
  }

  /// reduce_sum/reduce_max over one dim into a size-1 dim: the first element,
  /// then the others folded in order.
  LogicalResult emitReduce(Operation &op, bool isMax) {
    if (failed(define(&op, op.getResult(0))))
      return failure();
    auto dimAttr = op.getAttrOfType<IntegerAttr>("dim");
    Value in = bufferOf(op.getOperand(0)), out = bufferOf(op.getResult(0));
    ArrayRef<int64_t> inShape = shapeOfBuffer(in);
    if (!dimAttr || dimAttr.getInt() < 0 ||
        dimAttr.getInt() >= static_cast<int64_t>(inShape.size()))
      return op.emitError("reduction without a valid 'dim'");
    int64_t dim = dimAttr.getInt();
    forEachIndex(shapeOfBuffer(out), [&](ValueRange ivs) {
      SmallVector<Value> at(ivs);
      Value first = load(in, at);
      Value reduced =
          foldRange(1, inShape[dim], first, [&](Value c, Value acc) {
            at[dim] = c;
            Value v = load(in, at);
            return isMax ? call("mlsopt_field_max", {acc, v})
                         : call("mlsopt_field_add", {acc, v});
          });
      store(reduced, out, ivs);
    });
    return success();
  }

  /// rms_norm over dim d of extent n: x * (sqrt(sum x^2 * n^-1 + epsilon))^-1.
  LogicalResult emitRmsNorm(Operation &op) {
    if (failed(define(&op, op.getResult(0))))
      return failure();
    auto epsilonAttr = op.getAttrOfType<FloatAttr>("epsilon");
    std::optional<FieldElement> epsilon =
        epsilonAttr ? fieldConstant(epsilonAttr.getValueAsDouble(),
                                    analysis.getConstantExtents(),
                                    analysis.getConstantRoundingType())
                    : std::nullopt;
    if (!epsilon)
      return op.emitError("rms_norm needs a finite 'epsilon'");
    Value in = bufferOf(op.getOperand(0)), out = bufferOf(op.getResult(0));
    ArrayRef<int64_t> shape = shapeOfBuffer(in);
    if (shape.empty())
      return op.emitError("rms_norm needs a dim to normalize");
    int64_t dim = isa<kernel::RmsNormOp>(op)
                      ? cast<kernel::RmsNormOp>(op).getNormalizedDim()
                      : cast<block::RmsNormOp>(op).getNormalizedDim();
    int64_t n = shape[dim];
    // One row per index of the other dims: walk the shape with dim cut to 1.
    SmallVector<int64_t> rows(shape);
    rows[dim] = 1;
    forEachIndex(rows, [&](ValueRange rowIvs) {
      SmallVector<Value> at(rowIvs);
      Value sumOfSquares =
          foldRange(0, n, element(0, 0), [&](Value i, Value acc) {
            at[dim] = i;
            Value x = load(in, at);
            return call("mlsopt_field_mul_add", {acc, x, x});
          });
      Value meanSquare =
          call("mlsopt_field_mul", {sumOfSquares, inverseOf(n)});
      Value shifted = call("mlsopt_field_add", {meanSquare, element(*epsilon)});
      Value scale = call("mlsopt_field_rsqrt", {context, shifted});
      forEachIndex({n}, [&](ValueRange inner) {
        at[dim] = inner[0];
        store(call("mlsopt_field_mul", {load(in, at), scale}), out, at);
      });
    });
    return success();
  }

  LogicalResult emitConcat(Operation &op) {
    if (failed(define(&op, op.getResult(0))))
      return failure();
    auto dimAttr = op.getAttrOfType<IntegerAttr>("dim");
    Value out = bufferOf(op.getResult(0));
    if (!dimAttr || dimAttr.getInt() < 0 ||
        dimAttr.getInt() >= static_cast<int64_t>(shapeOfBuffer(out).size()))
      return op.emitError("concat without a valid 'dim'");
    int64_t dim = dimAttr.getInt();
    int64_t offset = 0;
    for (Value operand : op.getOperands()) {
      Value in = bufferOf(operand);
      forEachIndex(shapeOfBuffer(in), [&](ValueRange ivs) {
        SmallVector<Value> at(ivs);
        at[dim] = arith::AddIOp::create(b, loc(), ivs[dim], index(offset));
        store(load(in, ivs), out, at);
      });
      offset += shapeOfBuffer(in)[dim];
    }
    return success();
  }

  /// The fill value where the element's place, its index plus the tile's
  /// `offsets`, is in the triangle; the operand's element elsewhere.
  template <typename OpTy>
  LogicalResult emitTriangleFill(OpTy op, ArrayRef<Value> offsets) {
    if (failed(define(op, op.getResult())))
      return failure();
    Value in = bufferOf(op.getInput()), out = bufferOf(op.getResult());
    Value fill = element(fieldFillConstant(op.getValue().convertToDouble(),
                                           analysis.getConstantExtents(),
                                           analysis.getConstantRoundingType()));
    int64_t rows = op.getDims()[0], cols = op.getDims()[1];
    forEachIndex(shapeOfBuffer(out), [&](ValueRange ivs) {
      Value filled = emitTriangleCondition(
          b, loc(), arith::AddIOp::create(b, loc(), ivs[rows], offsets[rows]),
          arith::AddIOp::create(b, loc(), ivs[cols], offsets[cols]),
          op.getDiagonal());
      store(arith::SelectOp::create(b, loc(), filled, fill, load(in, ivs)), out,
            ivs);
    });
    return success();
  }

  /// Result dim i is operand dim permutation[i].
  template <typename OpTy> LogicalResult emitTranspose(OpTy op) {
    if (failed(define(op, op.getResult())))
      return failure();
    Value in = bufferOf(op.getInput()), out = bufferOf(op.getResult());
    ArrayRef<int64_t> permutation = op.getPermutation();
    forEachIndex(shapeOfBuffer(out), [&](ValueRange ivs) {
      SmallVector<Value> at(ivs.size());
      for (auto [i, p] : llvm::enumerate(permutation))
        at[p] = ivs[i];
      store(load(in, at), out, ivs);
    });
    return success();
  }

  /// A static slice or a broadcast: each result element is the source
  /// element buildCopySourceIndices names.
  LogicalResult emitCopy(Operation &op) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
        slice && (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
                  !slice.getStrides().empty()))
      return slice.emitError("the finite-field program needs static "
                             "offsets, sizes and strides");
    if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op);
        broadcast && !broadcast.hasPureTensorSemantics())
      return broadcast.emitError("the finite-field program needs tensors");
    Value result = op.getResult(0);
    if (failed(define(&op, result)))
      return failure();
    Value in = bufferOf(op.getOperand(0)), out = bufferOf(result);
    forEachIndex(shapeOfBuffer(out), [&](ValueRange ivs) {
      store(load(in, buildCopySourceIndices(b, loc(), &op, ivs)), out, ivs);
    });
    return success();
  }

  /// A collapse or expand keeps the elements in row-major order: output
  /// element i is input element i.
  LogicalResult emitReshape(Operation &op) {
    Value result = op.getResult(0);
    if (failed(define(&op, result)))
      return failure();
    Value in = bufferOf(op.getOperand(0)), out = bufferOf(result);
    ArrayRef<int64_t> inShape = shapeOfBuffer(in);
    ArrayRef<int64_t> outShape = shapeOfBuffer(out);
    forEachIndex(outShape, [&](ValueRange ivs) {
      Value flat = index(0);
      for (auto [iv, size] : llvm::zip_equal(ivs, outShape))
        flat = arith::AddIOp::create(
            b, loc(), arith::MulIOp::create(b, loc(), flat, index(size)), iv);
      SmallVector<Value> at(inShape.size());
      for (int64_t d = static_cast<int64_t>(inShape.size()) - 1; d >= 0; --d) {
        at[d] = arith::RemUIOp::create(b, loc(), flat, index(inShape[d]));
        flat = arith::DivUIOp::create(b, loc(), flat, index(inShape[d]));
      }
      store(load(in, at), out, ivs);
    });
    return success();
  }

  /// A thread graph computes its body on every element of its result shape,
  /// its operands broadcast to it.
  LogicalResult emitThreadGraph(thread::GraphOp graph) {
    for (Value result : graph.getResults())
      if (failed(define(graph, result)))
        return failure();
    if (graph.getNumResults() == 0)
      return graph.emitError("a thread graph without results");
    Block &body = graph.getBody().front();
    auto yield = cast<thread::YieldOp>(body.getTerminator());
    ArrayRef<int64_t> shape = shapeOfBuffer(bufferOf(graph.getResult(0)));
    for (Value result : graph.getResults())
      if (shapeOfBuffer(bufferOf(result)) != shape)
        return graph.emitError("thread graph results of different shapes");
    LogicalResult status = success();
    forEachIndex(shape, [&](ValueRange ivs) {
      DenseMap<Value, Value> scalars;
      for (auto [operand, arg] :
           llvm::zip_equal(graph.getInputs(), body.getArguments()))
        scalars[arg] = loadBroadcast(bufferOf(operand), shape, ivs);
      for (Operation &op : body.without_terminator()) {
        currentLoc = op.getLoc();
        SmallVector<Value> args = llvm::map_to_vector(
            op.getOperands(), [&](Value v) { return scalars.lookup(v); });
        FailureOr<Value> y = op.getNumResults() == 1 &&
                                     llvm::all_of(args, [](Value v) {
                                       return static_cast<bool>(v);
                                     })
                                 ? emitElementwise(op, args)
                                 : FailureOr<Value>(failure());
        if (failed(y)) {
          status = op.emitError("the finite-field program does not support "
                                "'")
                   << op.getName() << "' in a thread graph";
          return;
        }
        scalars[op.getResult(0)] = *y;
      }
      for (auto [result, value] :
           llvm::zip_equal(graph.getResults(), yield.getValues()))
        store(scalars.lookup(value), bufferOf(result), ivs);
    });
    return status;
  }

  //===--------------------------------------------------------------------===//
  // Custom kernels
  //===--------------------------------------------------------------------===//

  LogicalResult emitCustom(kernel::CustomOp custom) {
    for (Value result : custom->getResults())
      if (failed(define(custom, result)))
        return failure();
    // Loads read the kernel's operands, stores write its results.
    for (unsigned i = 0; i < custom.getInputs().size(); ++i)
      buffers[custom.getInputArgument(i)] = bufferOf(custom.getInputs()[i]);
    for (unsigned i = 0; i < custom->getNumResults(); ++i) {
      Value out = bufferOf(custom->getResult(i));
      buffers[custom.getOutputArgument(i)] = out;
      // What no block stores stays 0, as in the evaluator.
      forEachIndex(shapeOfBuffer(out),
                   [&](ValueRange ivs) { store(element(0, 0), out, ivs); });
    }
    // Blocks run one after another, x outermost; a grid dim of size 1 gets
    // index 0 and no loop.
    kernel::Dim3Attr grid = custom.getGrid();
    LogicalResult status = success();
    std::function<void(unsigned, SchedulePosition)> nest =
        [&](unsigned g, SchedulePosition pos) {
          if (g == 3) {
            status = emitBlock(custom.getBody().front(), pos);
            return;
          }
          if (grid.getSize(g) == 1) {
            pos.block[g] = index(0);
            nest(g + 1, pos);
            return;
          }
          forEachIndex({grid.getSize(g)}, [&](ValueRange ivs) {
            SchedulePosition inner = pos;
            inner.block[g] = ivs[0];
            nest(g + 1, inner);
          });
        };
    nest(0, SchedulePosition());
    return status;
  }

  /// The offset of the tile along each dim: grid index times the block's
  /// span (blockSpan) along the dims the grid map names, plus iteration times
  /// tile size along the loop dim, 0 elsewhere (as
  /// --convert-custom-kernel-to-loops).
  SmallVector<Value> tileOffsets(ArrayRef<int64_t> tile, block::DimMapAttr map,
                                 std::optional<int64_t> loopDim,
                                 const SchedulePosition &pos,
                                 int64_t iterations = 1) {
    SmallVector<Value> offsets(tile.size(), index(0));
    auto place = [&](int64_t dim, Value at, int64_t step) {
      offsets[dim] = arith::AddIOp::create(
          b, loc(), offsets[dim],
          arith::MulIOp::create(b, loc(), at, index(step)));
    };
    for (unsigned g = 0; g < 3; ++g)
      if (std::optional<int64_t> dim = map.getTensorDim(g))
        place(*dim, pos.block[g],
              blockSpan(tile[*dim], *dim, loopDim, iterations));
    if (loopDim)
      place(*loopDim, pos.iteration, tile[*loopDim]);
    return offsets;
  }

  SmallVector<Value> shifted(ValueRange ivs, ArrayRef<Value> offsets) {
    SmallVector<Value> at;
    for (auto [iv, offset] : llvm::zip_equal(ivs, offsets))
      at.push_back(arith::AddIOp::create(b, loc(), iv, offset));
    return at;
  }

  LogicalResult emitLoad(block::LoadOp load, const SchedulePosition &pos) {
    if (!pos.block[0] || (load.getFmap() && !pos.iteration))
      return load.emitError("the finite-field program needs block.load "
                            "inside a custom kernel's for-loop");
    if (failed(define(load, load.getTile())))
      return failure();
    Value tile = bufferOf(load.getTile());
    Value source = bufferOf(load.getSource());
    ArrayRef<int64_t> shape = shapeOfBuffer(tile);
    SmallVector<Value> offsets = tileOffsets(
        shape, load.getImap(), load.getFmap(), pos, load.getLoopIterations());
    for (auto [offset, start] : llvm::zip(offsets, load.getWindowOffsets()))
      if (start != 0)
        offset = arith::AddIOp::create(b, loc(), offset, index(start));
    if (!load.hasRaggedTiles()) {
      forEachIndex(shape, [&](ValueRange ivs) {
        store(this->load(source, shifted(ivs, offsets)), tile, ivs);
      });
      return success();
    }
    // Past the end of the window, the last block's tile reads zeros.
    SmallVector<int64_t> ends = load.getWindowEnds();
    forEachIndex(shape, [&](ValueRange ivs) {
      SmallVector<Value> at = shifted(ivs, offsets);
      ifElse(
          buildIsBefore(b, loc(), at, ends),
          [&] { store(this->load(source, at), tile, ivs); },
          [&] { store(element(0, 0), tile, ivs); });
    });
    return success();
  }

  LogicalResult emitStore(block::StoreOp op, const SchedulePosition &pos) {
    if (!pos.block[0])
      return op.emitError("the finite-field program needs block.store "
                          "inside a custom kernel");
    Value tile = bufferOf(op.getTile()), dest = bufferOf(op.getDest());
    ArrayRef<int64_t> shape = shapeOfBuffer(tile);
    SmallVector<Value> offsets =
        tileOffsets(shape, op.getOmap(), std::nullopt, pos);
    if (!op.hasRaggedTiles()) {
      forEachIndex(shape, [&](ValueRange ivs) {
        store(load(tile, ivs), dest, shifted(ivs, offsets));
      });
      return success();
    }
    // What lies past the end of the output is not written.
    ArrayRef<int64_t> limits = shapeOfBuffer(dest);
    forEachIndex(shape, [&](ValueRange ivs) {
      SmallVector<Value> at = shifted(ivs, offsets);
      ifElse(
          buildIsBefore(b, loc(), at, limits),
          [&] { store(load(tile, ivs), dest, at); }, [] {});
    });
    return success();
  }

  LogicalResult emitForLoop(block::ForLoopOp loop, const SchedulePosition &pos) {
    unsigned numAccs = loop.getNumResults();
    Block &body = loop.getBody().front();
    auto yield = cast<block::YieldOp>(body.getTerminator());
    if (yield.getValues().size() != numAccs)
      return loop.emitError("the loop yields ")
             << yield.getValues().size() << " values for " << numAccs
             << " accumulators";
    SmallVector<block::AccumulatorAttr> accs;
    for (unsigned j = 0; j < numAccs; ++j) {
      accs.push_back(loop.getAccumulator(j));
      if (failed(define(loop, loop.getResult(j))))
        return failure();
    }
    // The previous maximum of every max accumulator some rescale reads.
    DenseMap<unsigned, Value> oldMax;
    for (block::AccumulatorAttr acc : accs) {
      if (acc.getKind() != block::AccumKind::rescale)
        continue;
      std::optional<int64_t> k = acc.getScaleBy();
      if (!k || *k < 0 || *k >= numAccs ||
          accs[*k].getKind() != block::AccumKind::max)
        return loop.emitError("a rescale accumulator that does not refer to "
                              "a max accumulator");
      if (!oldMax.count(*k))
        oldMax[*k] = allocate(shapeOfBuffer(bufferOf(loop.getResult(*k))));
    }

    LogicalResult status = success();
    Location loopLoc = loc();
    int64_t iterations = loop.getIterations();
    forEachIndex({iterations}, [&](ValueRange ivs) {
      SchedulePosition inner = pos;
      inner.iteration = ivs[0];
      if (failed(emitBlock(body, inner))) {
        status = failure();
        return;
      }
      currentLoc = loopLoc;
      Value first = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq,
                                          ivs[0], index(0));
      auto running = [&](unsigned j) { return bufferOf(loop.getResult(j)); };
      auto yielded = [&](unsigned j) {
        return bufferOf(yield.getValues()[j]);
      };
      // Max accumulators first, each followed by the rescales that read it.
      for (unsigned k = 0; k < numAccs; ++k) {
        if (accs[k].getKind() != block::AccumKind::max)
          continue;
        Value max = running(k), value = yielded(k);
        // On the first iteration this copies a value no rescale reads.
        if (Value old = oldMax.lookup(k))
          copy(max, old);
        ifElse(
            first, [&] { copy(value, max); },
            [&] {
              forEachIndex(shapeOfBuffer(max), [&](ValueRange at) {
                store(call("mlsopt_field_max", {load(max, at), load(value, at)}),
                      max, at);
              });
            });
        for (unsigned j = 0; j < numAccs; ++j)
          if (accs[j].getKind() == block::AccumKind::rescale &&
              *accs[j].getScaleBy() == k)
            emitRescale(running(j), yielded(j), value, max, oldMax.lookup(k),
                        first);
      }
      for (unsigned j = 0; j < numAccs; ++j) {
        block::AccumKind kind = accs[j].getKind();
        if (kind == block::AccumKind::max ||
            kind == block::AccumKind::rescale)
          continue;
        Value acc = running(j), value = yielded(j);
        bool rms = kind == block::AccumKind::rms;
        forEachIndex(shapeOfBuffer(acc), [&](ValueRange at) {
          Value v = load(value, at);
          if (rms)
            v = call("mlsopt_field_square", v);
          ifElse(
              first, [&] { store(v, acc, at); },
              [&] {
                store(call("mlsopt_field_add", {load(acc, at), v}), acc, at);
              });
        });
      }
    });
    if (failed(status))
      return failure();
    // mean and rms divide by the iteration count once the loop is done.
    Value inverse = inverseOf(loop.getIterations());
    for (unsigned j = 0; j < numAccs; ++j) {
      block::AccumKind kind = accs[j].getKind();
      if (kind != block::AccumKind::mean && kind != block::AccumKind::rms)
        continue;
      Value acc = bufferOf(loop.getResult(j));
      forEachIndex(shapeOfBuffer(acc), [&](ValueRange at) {
        Value mean = call("mlsopt_field_mul", {load(acc, at), inverse});
        if (kind == block::AccumKind::rms)
          mean = call("mlsopt_field_sqrt", {context, mean});
        store(mean, acc, at);
      });
    }
    return success();
  }

  /// acc = acc * exp(M_old - M_new) + v * exp(m - M_new), or v * exp(m -
  /// M_new) on the first iteration; the factors are read at the maximum's
  /// shape, broadcast to the accumulator's.
  void emitRescale(Value acc, Value value, Value yieldedMax, Value newMax,
                   Value oldMax, Value first) {
    ArrayRef<int64_t> shape = shapeOfBuffer(acc);
    forEachIndex(shape, [&](ValueRange ivs) {
      auto expDifference = [&](Value a, Value b) {
        Value difference = call("mlsopt_field_sub",
                                {loadBroadcast(a, shape, ivs),
                                 loadBroadcast(b, shape, ivs)});
        return call("mlsopt_field_exp", {context, difference});
      };
      // exp(M_old - M_new) reads M_old, which the first iteration does not
      // have: evaluating it there could flag a division by zero that is not
      // the program's.
      ifElse(
          first,
          [&] {
            Value term = call("mlsopt_field_mul",
                              {loadBroadcast(value, shape, ivs),
                               expDifference(yieldedMax, newMax)});
            store(term, acc, ivs);
          },
          [&] {
            Value scaled = call("mlsopt_field_mul",
                                {load(acc, ivs), expDifference(oldMax, newMax)});
            Value term = call("mlsopt_field_mul",
                              {loadBroadcast(value, shape, ivs),
                               expDifference(yieldedMax, newMax)});
            store(call("mlsopt_field_add", {scaled, term}), acc, ivs);
          });
    });
  }

  ModuleOp module;
  func::FuncOp func;
  const FieldEvaluator &analysis;
  OpBuilder b;
  Type fieldType;
  Location currentLoc = UnknownLoc::get(module.getContext());
  Value context;
  SmallVector<Value> resultArguments;
  DenseMap<Value, Value> buffers;
  Operation *allocationPoint = nullptr;
  SmallVector<Value> allocations;
};

} // namespace

LogicalResult FieldProgramBuilder::build() {
  if (func.isExternal() || func.getBody().getBlocks().size() != 1)
    return func.emitError("the finite-field program needs a function with "
                          "one block");
  currentLoc = func.getLoc();
  SmallVector<Type> argTypes = {LLVM::LLVMPointerType::get(b.getContext())};
  SmallVector<ArrayRef<int64_t>> inputShapes, resultShapes;
  for (BlockArgument arg : func.getArguments()) {
    FailureOr<ArrayRef<int64_t>> shape = shapeOf(func, arg);
    if (failed(shape))
      return failure();
    argTypes.push_back(bufferType(*shape));
  }
  for (Type type : func.getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError("the finite-field program needs statically "
                            "shaped tensor results, got ")
             << type;
    argTypes.push_back(bufferType(tensor.getShape()));
  }

  b.setInsertionPointToEnd(module.getBody());
  auto program = func::FuncOp::create(b, func.getLoc(),
                                      getFieldProgramName(func.getSymName()),
                                      b.getFunctionType(argTypes, {}));
  program->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   b.getUnitAttr());
  Block *entry = program.addEntryBlock();
  b.setInsertionPointToStart(entry);
  context = entry->getArgument(0);
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    buffers[arg] = entry->getArgument(1 + i);
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    resultArguments.push_back(
        entry->getArgument(1 + func.getNumArguments() + i));
  auto ret = func::ReturnOp::create(b, func.getLoc());
  // Buffers are allocated before everything else, code goes before the
  // return.
  b.setInsertionPoint(ret);
  allocationPoint = arith::ConstantIndexOp::create(b, func.getLoc(), 0);
  if (failed(emitBlock(func.getBody().front(), SchedulePosition()))) {
    program.erase();
    return failure();
  }
  b.setInsertionPoint(ret);
  for (Value buffer : allocations)
    memref::DeallocOp::create(b, func.getLoc(), buffer);
  return success();
}

LogicalResult mlsopt::verify::buildFieldProgram(ModuleOp module,
                                                func::FuncOp func,
                                                const FieldEvaluator &analysis) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect,
                   memref::MemRefDialect, scf::SCFDialect>();
  return FieldProgramBuilder(module, func, analysis).build();
}
