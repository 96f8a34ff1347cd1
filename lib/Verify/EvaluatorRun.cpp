//===- EvaluatorRun.cpp - Running programs over finite fields -------------===//
//
// FieldEvaluator::Impl's evaluation of compiled instructions: elementwise
// ops under broadcasting, matmuls and reductions mod p and q, and custom
// kernels block by block and iteration by iteration.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "mlsopt/Support/TileShapes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::verify;
using namespace mlsopt::verify::detail;

using PF = PrimeField;
using EP = ExponentPart;

//===----------------------------------------------------------------------===//
// Index iteration
//===----------------------------------------------------------------------===//

using Strides = SmallVector<int64_t, 6>;

static Strides rowMajorStrides(ArrayRef<int64_t> shape) {
  Strides strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Strides that read `operand` while iterating over `result` under numpy
/// broadcasting: 0 along missing and stretched dims.
static Strides broadcastStrides(ArrayRef<int64_t> operand,
                                ArrayRef<int64_t> result) {
  Strides own = rowMajorStrides(operand);
  Strides strides(result.size(), 0);
  size_t offset = result.size() - operand.size();
  for (size_t j = 0; j < operand.size(); ++j)
    if (operand[j] == result[offset + j])
      strides[offset + j] = own[j];
  return strides;
}

/// Calls fn(i, a, b) for every element i (row-major) of `shape`, where a and
/// b are its offsets under `sa` and `sb`.
template <typename Fn>
static void forEachStrided(ArrayRef<int64_t> shape, ArrayRef<int64_t> sa,
                           ArrayRef<int64_t> sb, Fn &&fn) {
  int64_t rank = shape.size();
  if (rank == 0) {
    fn(0, 0, 0);
    return;
  }
  int64_t total = numElements(shape);
  int64_t inner = shape[rank - 1];
  if (total == 0)
    return;
  int64_t innerA = sa[rank - 1], innerB = sb[rank - 1];
  SmallVector<int64_t, 6> counter(rank, 0);
  int64_t a = 0, b = 0;
  for (int64_t i = 0; i < total; i += inner) {
    for (int64_t j = 0; j < inner; ++j)
      fn(i + j, a + j * innerA, b + j * innerB);
    for (int64_t d = rank - 2; d >= 0; --d) {
      a += sa[d];
      b += sb[d];
      if (++counter[d] < shape[d])
        break;
      a -= sa[d] * shape[d];
      b -= sb[d] * shape[d];
      counter[d] = 0;
    }
  }
}

/// Calls fn(boxRow, bigRow, length) for every row (a run along the last dim)
/// of the box of `shape` at `offsets` inside a row-major tensor of `bigShape`:
/// the row's start in the box and in the big tensor, and its length. Rows are
/// contiguous in both, so loads and stores copy them with memcpy.
template <typename Fn>
static void forEachBoxRow(ArrayRef<int64_t> bigShape, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> offsets, Fn &&fn) {
  int64_t rank = shape.size();
  Strides bigStrides = rowMajorStrides(bigShape);
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d)
    base += offsets[d] * bigStrides[d];
  if (rank == 0) {
    fn(0, 0, 1);
    return;
  }
  int64_t row = shape[rank - 1];
  SmallVector<int64_t, 6> rowShape(shape.drop_back());
  rowShape.push_back(1);
  forEachStrided(
      rowShape, bigStrides, bigStrides,
      [&](int64_t r, int64_t at, int64_t) { fn(r * row, base + at, row); });
}

/// The part of the box of `shape` at `offsets` that lies before `limits`
/// (where a ragged grid split's last tile ends; empty: the whole box), or
/// nothing when the whole box does.
static std::optional<SmallVector<int64_t, 6>>
clippedBox(ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
           ArrayRef<int64_t> limits) {
  if (limits.empty())
    return std::nullopt;
  SmallVector<int64_t, 6> clipped(shape);
  bool clips = false;
  for (auto [size, offset, limit] : llvm::zip_equal(clipped, offsets, limits))
    if (offset + size > limit) {
      size = std::max<int64_t>(limit - offset, 0);
      clips = true;
    }
  if (!clips)
    return std::nullopt;
  return clipped;
}

/// Calls fn(boxAt, bigAt) for every element of the part `clipped` (see
/// clippedBox) of the box of `shape` at `offsets` inside a row-major tensor
/// of `bigShape`: its offset in the box and in the big tensor.
template <typename Fn>
static void forEachClippedElement(ArrayRef<int64_t> bigShape,
                                  ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> offsets,
                                  ArrayRef<int64_t> clipped, Fn &&fn) {
  Strides bigStrides = rowMajorStrides(bigShape);
  int64_t base = 0;
  for (auto [offset, stride] : llvm::zip_equal(offsets, bigStrides))
    base += offset * stride;
  forEachStrided(
      clipped, rowMajorStrides(shape), bigStrides,
      [&](int64_t, int64_t at, int64_t bigAt) { fn(at, base + bigAt); });
}

/// Copies the box of `tile`'s shape at `offsets` out of `big` into `tile`;
/// past `limits` the tile reads `padding()`, or zeros without it.
static void extractBox(const std::vector<uint64_t> &big,
                       ArrayRef<int64_t> bigShape, std::vector<uint64_t> &tile,
                       ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                       ArrayRef<int64_t> limits = {},
                       function_ref<uint64_t()> padding = nullptr) {
  if (auto clipped = clippedBox(shape, offsets, limits)) {
    if (padding)
      std::generate(tile.begin(), tile.end(), padding);
    else
      std::fill(tile.begin(), tile.end(), 0);
    forEachClippedElement(
        bigShape, shape, offsets, *clipped,
        [&](int64_t at, int64_t from) { tile[at] = big[from]; });
    return;
  }
  forEachBoxRow(bigShape, shape, offsets,
                [&](int64_t boxRow, int64_t bigRow, int64_t length) {
                  std::memcpy(tile.data() + boxRow, big.data() + bigRow,
                              length * sizeof(uint64_t));
                });
}

/// Writes `tile` into the box of its shape at `offsets` of `big`, but for
/// what lies past `limits`.
static void insertBox(std::vector<uint64_t> &big, ArrayRef<int64_t> bigShape,
                      const std::vector<uint64_t> &tile,
                      ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                      ArrayRef<int64_t> limits = {}) {
  if (auto clipped = clippedBox(shape, offsets, limits)) {
    forEachClippedElement(bigShape, shape, offsets, *clipped,
                          [&](int64_t at, int64_t to) { big[to] = tile[at]; });
    return;
  }
  forEachBoxRow(bigShape, shape, offsets,
                [&](int64_t boxRow, int64_t bigRow, int64_t length) {
                  std::memcpy(big.data() + bigRow, tile.data() + boxRow,
                              length * sizeof(uint64_t));
                });
}

template <typename POp, typename QOp>
void FieldEvaluator::Impl::binaryKernel(const FieldTensor &a,
                                        const FieldTensor &b, FieldTensor &y,
                                        POp pop, QOp qop) {
  bool q = y.hasExponents();
  if (a.shape == y.shape && b.shape == y.shape) {
    int64_t n = y.getNumElements();
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = pop(a.p[i], b.p[i]);
    if (q)
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = qop(a.q[i], b.q[i]);
    return;
  }
  Strides sa = broadcastStrides(a.shape, y.shape);
  Strides sb = broadcastStrides(b.shape, y.shape);
  forEachStrided(y.shape, sa, sb, [&](int64_t i, int64_t ia, int64_t ib) {
    y.p[i] = pop(a.p[ia], b.p[ib]);
  });
  if (q)
    forEachStrided(y.shape, sa, sb, [&](int64_t i, int64_t ia, int64_t ib) {
      y.q[i] = qop(a.q[ia], b.q[ib]);
    });
}

template <typename Field>
uint64_t FieldEvaluator::Impl::dot(const uint64_t *a, const uint64_t *b,
                                   int64_t k) {
  uint128_t acc0 = 0, acc1 = 0;
  uint64_t top0 = 0, top1 = 0;
  int64_t i = 0;
  for (; i + 1 < k; i += 2) {
    uint128_t p0 = uint128_t(a[i]) * b[i];
    uint128_t p1 = uint128_t(a[i + 1]) * b[i + 1];
    acc0 += p0;
    top0 += acc0 < p0;
    acc1 += p1;
    top1 += acc1 < p1;
  }
  if (i < k) {
    uint128_t p0 = uint128_t(a[i]) * b[i];
    acc0 += p0;
    top0 += acc0 < p0;
  }
  return Field::add(Field::reduceWide(top0, acc0),
                    Field::reduceWide(top1, acc1));
}

template <typename Fn>
void FieldEvaluator::Impl::forEachBlockedPair(int64_t rowBegin, int64_t rowEnd,
                                              int64_t n, Fn &&fn) {
  for (int64_t i0 = rowBegin; i0 < rowEnd; i0 += kPairBlock)
    for (int64_t j0 = 0; j0 < n; j0 += kPairBlock)
      for (int64_t i = i0, ie = std::min(i0 + kPairBlock, rowEnd); i < ie; ++i)
        for (int64_t j = j0, je = std::min(j0 + kPairBlock, n); j < je; ++j)
          fn(i, j);
}

template <typename Fn>
void FieldEvaluator::Impl::forEachBlockedPairShared(int64_t m, int64_t n,
                                                    int64_t k, Fn &&fn) {
  int64_t rowBlocks = llvm::divideCeil(m, kPairBlock);
  int64_t threads =
      pool ? std::min<int64_t>(pool->getMaxConcurrency(), rowBlocks) : 1;
  // A task costs microseconds to start: a product of fewer than about a
  // million multiply-adds is done sooner alone.
  if (threads < 2 || m * n * k < (int64_t(1) << 20)) {
    forEachBlockedPair(0, m, n, fn);
    return;
  }
  llvm::ThreadPoolTaskGroup group(*pool);
  for (int64_t t = 0; t < threads; ++t)
    group.async([&, t] {
      forEachBlockedPair(
          rowBlocks * t / threads * kPairBlock,
          std::min(m, rowBlocks * (t + 1) / threads * kPairBlock), n, fn);
    });
  group.wait();
}

FieldTensor &FieldEvaluator::Impl::out(unsigned slot) {
  FieldTensor &t = storage[slot];
  t.reshape(shapes[slot], withQ[slot]);
  return t;
}

LogicalResult FieldEvaluator::Impl::run(std::vector<Instr> &instrs,
                                        const BlockPosition &pos) {
  for (Instr &instr : instrs)
    if (failed(runInstr(instr, pos)))
      return failure();
  return success();
}

LogicalResult FieldEvaluator::Impl::runInstr(Instr &instr,
                                             const BlockPosition &pos) {
  switch (instr.cls) {
  case OpClass::Unary:
    return runUnary(instr);
  case OpClass::Binary:
    runBinary(instr);
    return success();
  case OpClass::MulScalar:
  case OpClass::AddScalar:
    runScalar(instr);
    return success();
  case OpClass::ScalarFunction:
    runScalarFunction(instr);
    return success();
  case OpClass::PairFunction:
    runPairFunction(instr);
    return success();
  case OpClass::Matmul:
    runMatmul(instr);
    return success();
  case OpClass::ReduceSum:
  case OpClass::ReduceMax:
    runReduce(instr);
    return success();
  case OpClass::RmsNorm:
    runRmsNorm(instr);
    return success();
  case OpClass::Concat:
    runConcat(instr);
    return success();
  case OpClass::TriangleFill:
    runTriangleFill(instr, pos);
    return success();
  case OpClass::Where:
    runWhere(instr);
    return success();
  case OpClass::Transpose:
    runTranspose(instr);
    return success();
  case OpClass::Gather:
    runGather(instr);
    return success();
  case OpClass::Reshape: {
    const FieldTensor &x = in(instr.operands[0]);
    FieldTensor &y = out(instr.results[0]);
    y.p = x.p;
    if (y.hasExponents())
      y.q = x.q;
    return success();
  }
  case OpClass::Load:
    runLoad(instr, pos);
    return success();
  case OpClass::Store:
    runStore(instr, pos);
    return success();
  case OpClass::Custom:
    return runCustom(instr);
  case OpClass::ForLoop:
    return runForLoop(instr, pos);
  case OpClass::ThreadGraph:
    for (auto [operand, arg] : instr.broadcasts)
      broadcastInto(in(operand), out(arg));
    return run(instr.body, pos);
  case OpClass::Return:
    return success();
  }
  llvm_unreachable("unknown op class");
}

bool FieldEvaluator::Impl::expOf(uint64_t e, uint64_t &result) {
  if (LLVM_LIKELY(isExponentResidue(e))) {
    result = fieldExp(e);
    return true;
  }
  result = 0;
  if (e == kDivisionByZeroExponent) {
    divisionByZero = true;
    return true;
  }
  return false;
}

LogicalResult FieldEvaluator::Impl::notLax(Operation *op) {
  return op->emitError("exp of a value without a residue mod q: the "
                       "program is not LAX");
}

LogicalResult FieldEvaluator::Impl::runUnary(Instr &instr) {
  using thread::UnaryKind;
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  int64_t n = y.getNumElements();
  bool q = y.hasExponents();
  switch (instr.unary) {
  case UnaryKind::neg:
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = PF::neg(x.p[i]);
    if (q)
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = EP::neg(x.q[i]);
    return success();
  case UnaryKind::square:
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = PF::mul(x.p[i], x.p[i]);
    if (q)
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = EP::mul(x.q[i], x.q[i]);
    return success();
  case UnaryKind::exp:
    if (!x.hasExponents())
      return notLax(instr.op);
    for (int64_t i = 0; i < n; ++i)
      if (!expOf(x.q[i], y.p[i]))
        return notLax(instr.op);
    return success();
  case UnaryKind::sqrt:
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = fieldSqrt(x.p[i]);
    if (q)
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = sqrtExponent(x.p[i]);
    return success();
  case UnaryKind::rsqrt:
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = inverseP(fieldSqrt(x.p[i]));
    if (q)
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = EP::inverse(sqrtExponent(x.p[i]));
    return success();
  default: {
    assert(isRandomFunction(instr.unary) && "unexpected unary kind");
    auto kind = static_cast<unsigned>(instr.unary);
    uint64_t key = functionKeys[kind];
    for (int64_t i = 0; i < n; ++i)
      y.p[i] = applyRandomFunction(key, x.p[i]);
    if (q) {
      uint64_t exponentKey = exponentKeys[kind];
      for (int64_t i = 0; i < n; ++i)
        y.q[i] = applyExponentFunction(exponentKey, x.p[i]);
    }
    return success();
  }
  }
}

uint64_t FieldEvaluator::Impl::sqrtExponent(uint64_t x) const {
  return applyExponentFunction(
      exponentKeys[static_cast<unsigned>(thread::UnaryKind::sqrt)], x);
}

uint64_t FieldEvaluator::Impl::inverseP(uint64_t x) {
  if (LLVM_UNLIKELY(x == 0)) {
    divisionByZero = true;
    return 0;
  }
  return PF::inverse(x);
}

void FieldEvaluator::Impl::runBinary(Instr &instr) {
  const FieldTensor &a = in(instr.operands[0]);
  const FieldTensor &b = in(instr.operands[1]);
  FieldTensor &y = out(instr.results[0]);
  switch (instr.binary) {
  case thread::BinaryKind::add:
    return binaryKernel(a, b, y, PF::add, EP::add);
  case thread::BinaryKind::sub:
    return binaryKernel(a, b, y, PF::sub, EP::sub);
  case thread::BinaryKind::mul:
    return binaryKernel(a, b, y, PF::mul, EP::mul);
  case thread::BinaryKind::div: {
    // Invert the divisor at its own (unbroadcast) shape, then multiply.
    scratch.reshape(b.shape, y.hasExponents());
    for (int64_t i = 0, n = b.getNumElements(); i < n; ++i)
      scratch.p[i] = inverseP(b.p[i]);
    if (y.hasExponents())
      for (int64_t i = 0, n = b.getNumElements(); i < n; ++i)
        scratch.q[i] = EP::inverse(b.q[i]);
    return binaryKernel(a, scratch, y, PF::mul, EP::mul);
  }
  case thread::BinaryKind::max:
  case thread::BinaryKind::min:
    llvm_unreachable("max and min are pair functions");
  }
}

void FieldEvaluator::Impl::runScalar(Instr &instr) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  int64_t n = y.getNumElements();
  FieldElement c = instr.scalar;
  bool mul = instr.cls == OpClass::MulScalar;
  for (int64_t i = 0; i < n; ++i)
    y.p[i] = mul ? PF::mul(x.p[i], c.p) : PF::add(x.p[i], c.p);
  if (y.hasExponents())
    for (int64_t i = 0; i < n; ++i)
      y.q[i] = mul ? EP::mul(x.q[i], c.q) : EP::add(x.q[i], c.q);
}

void FieldEvaluator::Impl::runScalarFunction(Instr &instr) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  int64_t n = y.getNumElements();
  uint64_t key = randomFunctionKey(functionSeed, instr.function);
  for (int64_t i = 0; i < n; ++i)
    y.p[i] = applyRandomFunction(key, x.p[i]);
  if (y.hasExponents()) {
    uint64_t exponentKey = exponentFunctionKey(functionSeed, instr.function);
    for (int64_t i = 0; i < n; ++i)
      y.q[i] = applyExponentFunction(exponentKey, x.p[i]);
  }
}

void FieldEvaluator::Impl::runPairFunction(Instr &instr) {
  const FieldTensor &a = in(instr.operands[0]);
  const FieldTensor &b = in(instr.operands[1]);
  FieldTensor &y = out(instr.results[0]);
  uint64_t key = randomFunctionKey(functionSeed, instr.function);
  uint64_t exponentKey = exponentFunctionKey(functionSeed, instr.function);
  bool q = y.hasExponents();
  forEachStrided(y.shape, broadcastStrides(a.shape, y.shape),
                 broadcastStrides(b.shape, y.shape),
                 [&](int64_t i, int64_t ia, int64_t ib) {
                   uint64_t pair = symmetricPairResidue(a.p[ia], b.p[ib]);
                   y.p[i] = applyRandomFunction(key, pair);
                   if (q)
                     y.q[i] = applyExponentFunction(exponentKey, pair);
                 });
}

void FieldEvaluator::Impl::transposeInto(const uint64_t *b, int64_t k,
                                         int64_t n) {
  transposed.resize(k * n);
  constexpr int64_t tile = 32;
  for (int64_t i0 = 0; i0 < k; i0 += tile)
    for (int64_t j0 = 0; j0 < n; j0 += tile)
      for (int64_t i = i0, ie = std::min(i0 + tile, k); i < ie; ++i)
        for (int64_t j = j0, je = std::min(j0 + tile, n); j < je; ++j)
          transposed[j * k + i] = b[i * n + j];
}

void FieldEvaluator::Impl::runMatmul(Instr &instr) {
  const FieldTensor &a = in(instr.operands[0]);
  const FieldTensor &b = in(instr.operands[1]);
  FieldTensor &y = out(instr.results[0]);
  int64_t rank = y.shape.size();
  int64_t m = y.shape[rank - 2], n = y.shape[rank - 1];
  int64_t k = a.shape[rank - 1];
  int64_t batches = numElements(ArrayRef<int64_t>(y.shape).drop_back(2));
  for (int64_t batch = 0; batch < batches; ++batch) {
    const uint64_t *ap = a.p.data() + batch * m * k;
    uint64_t *yp = y.p.data() + batch * m * n;
    transposeInto(b.p.data() + batch * k * n, k, n);
    forEachBlockedPairShared(m, n, k, [&](int64_t i, int64_t j) {
      yp[i * n + j] = dot<PrimeField>(ap + i * k, transposed.data() + j * k, k);
    });
    if (!y.hasExponents())
      continue;
    // q-parts: a row or column holding a marker makes its outputs markers.
    const uint64_t *aq = a.q.data() + batch * m * k;
    uint64_t *yq = y.q.data() + batch * m * n;
    transposeInto(b.q.data() + batch * k * n, k, n);
    auto markerOf = [](const uint64_t *v, int64_t len) {
      uint64_t marker = 0;
      for (int64_t i = 0; i < len; ++i)
        if (!isExponentResidue(v[i]))
          marker = std::max(marker, v[i]);
      return marker;
    };
    rowMarkers.resize(m);
    colMarkers.resize(n);
    for (int64_t i = 0; i < m; ++i)
      rowMarkers[i] = markerOf(aq + i * k, k);
    for (int64_t j = 0; j < n; ++j)
      colMarkers[j] = markerOf(transposed.data() + j * k, k);
    forEachBlockedPairShared(m, n, k, [&](int64_t i, int64_t j) {
      uint64_t marker = std::max(rowMarkers[i], colMarkers[j]);
      yq[i * n + j] =
          marker ? marker
                 : dot<ExponentField>(aq + i * k, transposed.data() + j * k, k);
    });
  }
}

std::array<int64_t, 3> FieldEvaluator::Impl::splitAt(ArrayRef<int64_t> shape,
                                                     int64_t dim) {
  return {numElements(shape.take_front(dim)), shape[dim],
          numElements(shape.drop_front(dim + 1))};
}

void FieldEvaluator::Impl::runReduce(Instr &instr) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  auto [outer, count, inner] = splitAt(x.shape, instr.dim);
  bool q = y.hasExponents();
  bool isMax = instr.cls == OpClass::ReduceMax;
  for (int64_t o = 0; o < outer; ++o) {
    uint64_t *yp = y.p.data() + o * inner;
    uint64_t *yq = q ? y.q.data() + o * inner : nullptr;
    const uint64_t *xp = x.p.data() + o * count * inner;
    const uint64_t *xq = q ? x.q.data() + o * count * inner : nullptr;
    std::copy(xp, xp + inner, yp);
    if (q)
      std::copy(xq, xq + inner, yq);
    for (int64_t c = 1; c < count; ++c) {
      const uint64_t *rp = xp + c * inner;
      const uint64_t *rq = q ? xq + c * inner : nullptr;
      if (isMax) {
        for (int64_t i = 0; i < inner; ++i)
          if (fieldGreater(rp[i], q ? rq[i] : 0, yp[i], q ? yq[i] : 0)) {
            yp[i] = rp[i];
            if (q)
              yq[i] = rq[i];
          }
        continue;
      }
      for (int64_t i = 0; i < inner; ++i)
        yp[i] = PF::add(yp[i], rp[i]);
      if (q)
        for (int64_t i = 0; i < inner; ++i)
          yq[i] = EP::add(yq[i], rq[i]);
    }
  }
}

void FieldEvaluator::Impl::runRmsNorm(Instr &instr) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  int64_t n = x.shape.empty() ? 1 : x.shape[instr.dim];
  int64_t inner = 1;
  for (int64_t d : ArrayRef<int64_t>(x.shape).drop_front(instr.dim + 1))
    inner *= d;
  int64_t outer = n == 0 ? 0 : x.getNumElements() / (n * inner);
  uint64_t inverseN = inverseP(PF::fromInteger(n));
  SmallVector<uint64_t> row(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t first = o * n * inner + i;
      for (int64_t c = 0; c < n; ++c)
        row[c] = x.p[first + c * inner];
      uint64_t meanSquare =
          PF::mul(dot<PrimeField>(row.data(), row.data(), n), inverseN);
      uint64_t shifted = PF::add(meanSquare, instr.scalar.p);
      uint64_t scale = inverseP(fieldSqrt(shifted));
      for (int64_t c = 0; c < n; ++c)
        y.p[first + c * inner] = PF::mul(row[c], scale);
      if (!y.hasExponents())
        continue;
      uint64_t scaleQ = EP::inverse(sqrtExponent(shifted));
      for (int64_t c = 0; c < n; ++c)
        y.q[first + c * inner] = EP::mul(x.q[first + c * inner], scaleQ);
    }
  }
}

void FieldEvaluator::Impl::runConcat(Instr &instr) {
  FieldTensor &y = out(instr.results[0]);
  SmallVector<int64_t, 6> offsets(y.shape.size(), 0);
  for (unsigned operand : instr.operands) {
    const FieldTensor &x = in(operand);
    insertBox(y.p, y.shape, x.p, x.shape, offsets);
    if (y.hasExponents())
      insertBox(y.q, y.shape, x.q, x.shape, offsets);
    offsets[instr.dim] += x.shape[instr.dim];
  }
}

void FieldEvaluator::Impl::runTranspose(Instr &instr) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  Strides own = rowMajorStrides(x.shape);
  Strides strides;
  for (int64_t p : instr.permutation)
    strides.push_back(own[p]);
  Strides zero(strides.size(), 0);
  forEachStrided(y.shape, strides, zero,
                 [&](int64_t i, int64_t at, int64_t) { y.p[i] = x.p[at]; });
  if (y.hasExponents())
    forEachStrided(y.shape, strides, zero,
                   [&](int64_t i, int64_t at, int64_t) { y.q[i] = x.q[at]; });
}

void FieldEvaluator::Impl::runGather(Instr &instr) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  int64_t base = instr.gatherBase;
  Strides zero(instr.gatherStrides.size(), 0);
  forEachStrided(
      y.shape, instr.gatherStrides, zero,
      [&](int64_t i, int64_t at, int64_t) { y.p[i] = x.p[base + at]; });
  if (y.hasExponents())
    forEachStrided(
        y.shape, instr.gatherStrides, zero,
        [&](int64_t i, int64_t at, int64_t) { y.q[i] = x.q[base + at]; });
}

void FieldEvaluator::Impl::broadcastInto(const FieldTensor &x, FieldTensor &y) {
  Strides strides = broadcastStrides(x.shape, y.shape);
  forEachStrided(y.shape, strides, strides,
                 [&](int64_t i, int64_t at, int64_t) { y.p[i] = x.p[at]; });
  if (y.hasExponents())
    forEachStrided(y.shape, strides, strides,
                   [&](int64_t i, int64_t at, int64_t) { y.q[i] = x.q[at]; });
}

SmallVector<int64_t, 6>
FieldEvaluator::Impl::tileOffsets(const Instr &instr, ArrayRef<int64_t> tile,
                                  const BlockPosition &pos) {
  SmallVector<int64_t, 6> offsets(tile.size(), 0);
  for (unsigned g = 0; g < 3; ++g)
    if (std::optional<int64_t> d = instr.gridMap[g])
      offsets[*d] = pos.block[g] *
                    blockSpan(tile[*d], *d, instr.loopDim, instr.iterations);
  if (instr.loopDim)
    offsets[*instr.loopDim] += pos.iteration * tile[*instr.loopDim];
  return offsets;
}

void FieldEvaluator::Impl::runTriangleFill(Instr &instr,
                                           const BlockPosition &pos) {
  const FieldTensor &x = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  ArrayRef<int64_t> shape = y.shape;
  SmallVector<int64_t, 6> offsets = tileOffsets(instr, shape, pos);
  auto [rows, cols] = instr.triangleDims;
  // Row-major strides of the two dims.
  int64_t rowStride = 1, colStride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d > rows; --d)
    rowStride *= shape[d];
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d > cols; --d)
    colStride *= shape[d];
  for (int64_t i = 0, n = y.getNumElements(); i < n; ++i) {
    int64_t row = offsets[rows] + (i / rowStride) % shape[rows];
    int64_t col = offsets[cols] + (i / colStride) % shape[cols];
    bool filled = col - row >= instr.diagonal;
    y.p[i] = filled ? instr.scalar.p : x.p[i];
    if (y.hasExponents())
      y.q[i] = filled ? instr.scalar.q : x.q[i];
  }
}

void FieldEvaluator::Impl::runWhere(Instr &instr) {
  const FieldTensor &m = in(instr.operands[0]);
  FieldTensor &y = out(instr.results[0]);
  FieldElement t = instr.scalar, f = instr.otherScalar;
  uint64_t step = PF::sub(t.p, f.p);
  for (int64_t i = 0, n = y.getNumElements(); i < n; ++i)
    y.p[i] = PF::add(f.p, PF::mul(m.p[i], step));
  if (y.hasExponents()) {
    uint64_t exponentStep = EP::sub(t.q, f.q);
    for (int64_t i = 0, n = y.getNumElements(); i < n; ++i)
      y.q[i] = EP::add(f.q, EP::mul(m.q[i], exponentStep));
  }
}

void FieldEvaluator::Impl::runLoad(Instr &instr, const BlockPosition &pos) {
  const FieldTensor &source = in(instr.operands[0]);
  FieldTensor &tile = out(instr.results[0]);
  SmallVector<int64_t, 6> offsets = tileOffsets(instr, tile.shape, pos);
  for (auto [offset, start] : llvm::zip(offsets, instr.windowOffsets))
    offset += start;
  auto nextResidue = [&] { return padding->nextResidue(); };
  auto nextExponent = [&] { return padding->nextExponent(); };
  using Draw = function_ref<uint64_t()>;
  extractBox(source.p, source.shape, tile.p, tile.shape, offsets, instr.limits,
             padding ? Draw(nextResidue) : nullptr);
  if (tile.hasExponents())
    extractBox(source.q, source.shape, tile.q, tile.shape, offsets,
               instr.limits, padding ? Draw(nextExponent) : nullptr);
}

void FieldEvaluator::Impl::runStore(Instr &instr, const BlockPosition &pos) {
  const FieldTensor &tile = in(instr.operands[0]);
  FieldTensor &dest = (owner ? owner->storage : storage)[instr.operands[1]];
  SmallVector<int64_t, 6> offsets = tileOffsets(instr, tile.shape, pos);
  insertBox(dest.p, dest.shape, tile.p, tile.shape, offsets, instr.limits);
  if (dest.hasExponents())
    insertBox(dest.q, dest.shape, tile.q, tile.shape, offsets, instr.limits);
}

LogicalResult FieldEvaluator::Impl::runCustom(Instr &instr) {
  auto clearResults = [&] {
    for (unsigned r : instr.results) {
      FieldTensor &t = out(r);
      std::fill(t.p.begin(), t.p.end(), 0);
      std::fill(t.q.begin(), t.q.end(), 0);
    }
  };
  clearResults();
  // The verifier has every store map each grid dim of several blocks, so
  // the blocks write disjoint tiles and may run at once. Random padding
  // is drawn in the blocks' order, so it keeps them in it.
  if (pool && !padding && pool->getMaxConcurrency() > 1) {
    if (succeeded(runGridInParallel(instr)))
      return success();
    // A block failed: run them in order, so that the error is the one
    // the first failing block gives without threads.
    clearResults();
  }
  return runSerialGrid(instr);
}

void FieldEvaluator::Impl::collectDefinedSlots(
    const std::vector<Instr> &body, SmallVectorImpl<unsigned> &slots) {
  for (const Instr &op : body) {
    slots.append(op.results.begin(), op.results.end());
    for (auto [operand, arg] : op.broadcasts)
      slots.push_back(arg);
    collectDefinedSlots(op.body, slots);
  }
}

std::unique_ptr<FieldEvaluator::Impl>
FieldEvaluator::Impl::makeGridWorker(ArrayRef<unsigned> bodySlots) {
  auto worker = std::make_unique<Impl>();
  worker->func = func;
  worker->shapes = shapes;
  worker->withQ = withQ;
  worker->functionKeys = functionKeys;
  worker->exponentKeys = exponentKeys;
  worker->functionSeed = functionSeed;
  worker->owner = this;
  worker->storage.resize(storage.size());
  worker->view = view;
  for (unsigned slot : bodySlots)
    worker->view[slot] = &worker->storage[slot];
  return worker;
}

LogicalResult FieldEvaluator::Impl::runGridInParallel(Instr &instr) {
  auto [gx, gy, gz] = instr.grid;
  int64_t blocks = gx * gy * gz;
  int64_t threads = std::min<int64_t>(pool->getMaxConcurrency(), blocks);
  if (threads < 2)
    return runSerialGrid(instr);
  SmallVector<unsigned> bodySlots;
  collectDefinedSlots(instr.body, bodySlots);
  std::vector<std::unique_ptr<Impl>> workers;
  for (int64_t t = 0; t < threads; ++t)
    workers.push_back(makeGridWorker(bodySlots));
  std::vector<char> failedAt(threads, 0);
  {
    // Errors a worker would emit are dropped: the serial rerun emits the
    // first block's.
    ScopedDiagnosticHandler quiet(func.getContext(),
                                  [](Diagnostic &) { return success(); });
    llvm::ThreadPoolTaskGroup group(*pool);
    for (int64_t t = 0; t < threads; ++t)
      group.async([&, t] {
        Impl &worker = *workers[t];
        for (int64_t b = blocks * t / threads, end = blocks * (t + 1) / threads;
             b < end; ++b) {
          BlockPosition pos;
          pos.block = {b / (gy * gz), b / gz % gy, b % gz};
          if (failed(worker.run(instr.body, pos))) {
            failedAt[t] = 1;
            return;
          }
        }
      });
    group.wait();
  }
  for (const auto &worker : workers)
    divisionByZero |= worker->divisionByZero;
  return success(llvm::none_of(failedAt, [](char f) { return f; }));
}

LogicalResult FieldEvaluator::Impl::runSerialGrid(Instr &instr) {
  BlockPosition pos;
  for (pos.block[0] = 0; pos.block[0] < instr.grid[0]; ++pos.block[0])
    for (pos.block[1] = 0; pos.block[1] < instr.grid[1]; ++pos.block[1])
      for (pos.block[2] = 0; pos.block[2] < instr.grid[2]; ++pos.block[2])
        if (failed(run(instr.body, pos)))
          return failure();
  return success();
}

bool FieldEvaluator::Impl::expDifference(const FieldTensor &a,
                                         const FieldTensor &b,
                                         FieldTensor &factor) {
  factor.reshape(a.shape, /*withExponents=*/false);
  for (int64_t i = 0, n = a.getNumElements(); i < n; ++i)
    if (!expOf(EP::sub(a.q[i], b.q[i]), factor.p[i]))
      return false;
  return true;
}

LogicalResult FieldEvaluator::Impl::runForLoop(Instr &instr,
                                               const BlockPosition &outer) {
  BlockPosition pos = outer;
  unsigned numAccs = instr.results.size();
  for (pos.iteration = 0; pos.iteration < instr.iterations; ++pos.iteration) {
    if (failed(run(instr.body, pos)))
      return failure();
    bool first = pos.iteration == 0;
    // Max accumulators first: a rescale needs the old and the new maximum.
    // Only one maximum's old value is kept at a time, so rescales are
    // applied right after the maximum they refer to is updated.
    for (unsigned k = 0; k < numAccs; ++k) {
      if (instr.accumulators[k].getKind() != block::AccumKind::max)
        continue;
      FieldTensor &running = storage[instr.results[k]];
      const FieldTensor &value = in(instr.yields[k]);
      bool rescaled = llvm::any_of(instr.accumulators, [&](auto acc) {
        return acc.getKind() == block::AccumKind::rescale &&
               *acc.getScaleBy() == k;
      });
      if (!first && rescaled)
        oldMax = running;
      if (first) {
        running.reshape(shapes[instr.results[k]], withQ[instr.results[k]]);
        running.p = value.p;
        if (running.hasExponents())
          running.q = value.q;
      } else {
        bool q = running.hasExponents();
        for (int64_t i = 0, n = running.getNumElements(); i < n; ++i)
          if (fieldGreater(value.p[i], q ? value.q[i] : 0, running.p[i],
                           q ? running.q[i] : 0)) {
            running.p[i] = value.p[i];
            if (q)
              running.q[i] = value.q[i];
          }
      }
      for (unsigned j = 0; j < numAccs; ++j) {
        block::AccumulatorAttr acc = instr.accumulators[j];
        if (acc.getKind() == block::AccumKind::rescale &&
            *acc.getScaleBy() == k && failed(updateRescale(instr, j, k, first)))
          return failure();
      }
    }
    for (unsigned j = 0; j < numAccs; ++j) {
      block::AccumKind kind = instr.accumulators[j].getKind();
      if (kind == block::AccumKind::max || kind == block::AccumKind::rescale)
        continue;
      FieldTensor &running = storage[instr.results[j]];
      const FieldTensor &value = in(instr.yields[j]);
      bool rms = kind == block::AccumKind::rms;
      if (first)
        running.reshape(shapes[instr.results[j]], withQ[instr.results[j]]);
      int64_t n = running.getNumElements();
      for (int64_t i = 0; i < n; ++i) {
        uint64_t v = rms ? PF::mul(value.p[i], value.p[i]) : value.p[i];
        running.p[i] = first ? v : PF::add(running.p[i], v);
      }
      // rms gets its q-part from the mean mod p once the loop is done.
      if (running.hasExponents() && !rms)
        for (int64_t i = 0; i < n; ++i)
          running.q[i] = first ? value.q[i] : EP::add(running.q[i], value.q[i]);
    }
  }
  // Finalize: mean and rms divide by the iteration count.
  FieldElement inverseN = {
      inverseP(PF::fromInteger(instr.iterations)),
      EP::inverse(ExponentField::fromInteger(instr.iterations))};
  for (unsigned j = 0; j < numAccs; ++j) {
    block::AccumKind kind = instr.accumulators[j].getKind();
    FieldTensor &running = storage[instr.results[j]];
    int64_t n = running.getNumElements();
    if (kind == block::AccumKind::mean) {
      for (int64_t i = 0; i < n; ++i)
        running.p[i] = PF::mul(running.p[i], inverseN.p);
      if (running.hasExponents())
        for (int64_t i = 0; i < n; ++i)
          running.q[i] = EP::mul(running.q[i], inverseN.q);
    } else if (kind == block::AccumKind::rms) {
      bool q = running.hasExponents();
      for (int64_t i = 0; i < n; ++i) {
        uint64_t mean = PF::mul(running.p[i], inverseN.p);
        running.p[i] = fieldSqrt(mean);
        if (q)
          running.q[i] = sqrtExponent(mean);
      }
    }
  }
  return success();
}

LogicalResult FieldEvaluator::Impl::updateRescale(Instr &instr, unsigned j,
                                                  unsigned k, bool first) {
  const FieldTensor &newMax = storage[instr.results[k]];
  const FieldTensor &m = in(instr.yields[k]);
  const FieldTensor &v = in(instr.yields[j]);
  FieldTensor &running = storage[instr.results[j]];
  if (!expDifference(m, newMax, scratch))
    return notLax(instr.op);
  if (first) {
    running.reshape(shapes[instr.results[j]], /*withExponents=*/false);
    Strides sv = broadcastStrides(v.shape, running.shape);
    Strides sf = broadcastStrides(scratch.shape, running.shape);
    forEachStrided(running.shape, sv, sf,
                   [&](int64_t i, int64_t iv, int64_t f) {
                     running.p[i] = PF::mul(v.p[iv], scratch.p[f]);
                   });
    return success();
  }
  if (!expDifference(oldMax, newMax, scratch2))
    return notLax(instr.op);
  Strides sf = broadcastStrides(scratch.shape, running.shape);
  Strides sv = broadcastStrides(v.shape, running.shape);
  forEachStrided(running.shape, sf, sf, [&](int64_t i, int64_t f, int64_t) {
    running.p[i] = PF::mul(running.p[i], scratch2.p[f]);
  });
  forEachStrided(running.shape, sv, sf, [&](int64_t i, int64_t iv, int64_t f) {
    running.p[i] = PF::add(running.p[i], PF::mul(v.p[iv], scratch.p[f]));
  });
  return success();
}
