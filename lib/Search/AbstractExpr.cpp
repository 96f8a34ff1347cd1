//===- AbstractExpr.cpp - Hash-consed symbolic tensor expressions ---------===//

#include "mlsopt/Search/AbstractExpr.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#include <cstring>
#include <mutex>

using namespace mlsopt;
using namespace mlsopt::search;

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static llvm::StringRef getKindName(ExprKind kind) {
  switch (kind) {
  case ExprKind::Input:
    return "in";
  case ExprKind::Constant:
    return "const";
  case ExprKind::Add:
    return "add";
  case ExprKind::Sub:
    return "sub";
  case ExprKind::Mul:
    return "mul";
  case ExprKind::Div:
    return "div";
  case ExprKind::Neg:
    return "neg";
  case ExprKind::Exp:
    return "exp";
  case ExprKind::Sqrt:
    return "sqrt";
  case ExprKind::Rsqrt:
    return "rsqrt";
  case ExprKind::Square:
    return "square";
  case ExprKind::Sum:
    return "sum";
  case ExprKind::Max:
    return "max";
  case ExprKind::Opaque:
    return "opaque";
  }
  llvm_unreachable("unknown expression kind");
}

void AbstractExpr::print(llvm::raw_ostream &os) const {
  switch (kind) {
  case ExprKind::Input:
    os << "in" << size;
    return;
  case ExprKind::Constant:
    // %.17g round-trips a double: two constants that print alike are equal.
    os << llvm::format("%.17g", value);
    return;
  case ExprKind::Opaque:
    os << name;
    break;
  default:
    os << getKindName(kind);
    break;
  }
  os << '(';
  if (kind == ExprKind::Sum || kind == ExprKind::Max)
    os << size << ", ";
  llvm::interleaveComma(getOperands(), os,
                        [&](ExprRef operand) { operand->print(os); });
  os << ')';
}

void AbstractExpr::dump() const {
  print(llvm::errs());
  llvm::errs() << '\n';
}

//===----------------------------------------------------------------------===//
// ExprContext
//===----------------------------------------------------------------------===//

namespace {
/// The fields that identify an expression.
struct ExprKey {
  ExprKind kind;
  llvm::ArrayRef<ExprRef> operands;
  int64_t size;
  uint64_t valueBits;
  llvm::StringRef name;

  llvm::hash_code hash() const {
    return llvm::hash_combine(
        static_cast<uint8_t>(kind),
        llvm::hash_combine_range(operands.begin(), operands.end()), size,
        valueBits, name);
  }
  bool operator==(const ExprKey &other) const {
    return kind == other.kind && operands == other.operands &&
           size == other.size && valueBits == other.valueBits &&
           name == other.name;
  }
};

uint64_t bitsOf(double value) {
  // -0.0 and 0.0 are the same scalar.
  if (value == 0)
    value = 0;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

ExprKey keyOf(ExprRef e) {
  return {e->getKind(), e->getOperands(), e->getSize(), bitsOf(e->getValue()),
          e->getOpName()};
}

struct ExprInfo {
  static ExprRef getEmptyKey() {
    return llvm::DenseMapInfo<ExprRef>::getEmptyKey();
  }
  static ExprRef getTombstoneKey() {
    return llvm::DenseMapInfo<ExprRef>::getTombstoneKey();
  }
  static unsigned getHashValue(ExprRef e) { return keyOf(e).hash(); }
  static unsigned getHashValue(const ExprKey &key) { return key.hash(); }
  static bool isSpecial(ExprRef e) {
    return e == getEmptyKey() || e == getTombstoneKey();
  }
  static bool isEqual(ExprRef a, ExprRef b) { return a == b; }
  static bool isEqual(const ExprKey &key, ExprRef e) {
    return !isSpecial(e) && key == keyOf(e);
  }
};
} // namespace

struct ExprContext::Impl {
  std::mutex mutex;
  llvm::BumpPtrAllocator allocator;
  llvm::DenseSet<ExprRef, ExprInfo> exprs;
};

ExprContext::ExprContext() : impl(std::make_unique<Impl>()) {}
ExprContext::~ExprContext() = default;

size_t ExprContext::size() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->exprs.size();
}

/// SplitMix64's finalizer: a fixed mixing function, so unordered hashes do
/// not depend on a per-process seed.
static uint64_t mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

static uint64_t getUnorderedHash(ExprKind kind,
                                 llvm::ArrayRef<ExprRef> operands, int64_t size,
                                 uint64_t valueBits, llvm::StringRef name) {
  uint64_t h = mix(static_cast<uint64_t>(kind) + 1);
  h = mix(h ^ static_cast<uint64_t>(size));
  h = mix(h ^ valueBits);
  for (char c : name)
    h = mix(h ^ static_cast<unsigned char>(c));
  llvm::SmallVector<uint64_t, 4> hashes;
  for (ExprRef operand : operands)
    hashes.push_back(operand->getUnorderedHash());
  if (kind == ExprKind::Add || kind == ExprKind::Mul)
    llvm::sort(hashes);
  for (uint64_t operandHash : hashes)
    h = mix(h ^ operandHash);
  return h;
}

bool AbstractExpr::isScaled() const {
  const AbstractExpr *e = this;
  while (e->getKind() == ExprKind::Sum)
    e = e->getOperand(0);
  return e->getKind() == ExprKind::Mul &&
         llvm::any_of(e->getOperands(), [](ExprRef operand) {
           return operand->getKind() == ExprKind::Constant;
         });
}

/// The value a maximum is taken over, past the maxima of maxima that a
/// loop or a combine kernel takes of it: max(c, max(n, x)) is over x.
static ExprRef getMaxCore(ExprRef e) {
  while (e->getKind() == ExprKind::Max)
    e = e->getOperand(0);
  return e;
}

/// Adds the indices of the inputs `e` reads to `inputs`.
static void collectInputs(ExprRef e, llvm::DenseSet<ExprRef> &seen,
                          llvm::SmallVectorImpl<int64_t> &inputs) {
  if (!seen.insert(e).second)
    return;
  if (e->getKind() == ExprKind::Input) {
    inputs.push_back(e->getSize());
    return;
  }
  for (ExprRef operand : e->getOperands())
    collectInputs(operand, seen, inputs);
}

/// The sorted indices of the inputs `e` reads.
static llvm::SmallVector<int64_t> getInputs(ExprRef e) {
  llvm::DenseSet<ExprRef> seen;
  llvm::SmallVector<int64_t> inputs;
  collectInputs(e, seen, inputs);
  llvm::sort(inputs);
  return inputs;
}

/// Whether `bound` holds a maximum taken over the values of `x`, so that
/// x - bound stays at or below 0 (up to the scale both may carry): the
/// maximum of x itself (of its chunks, then of theirs), or of a value
/// computed from the same inputs (a scale applied after the maximum,
/// c * max(s) against c * s). A maximum of other values is no bound on x:
/// exp(s - max(sum(q))) cancels over the field as a softmax's shift does,
/// and the search had taken it for a stabilizer, which then overflowed (or
/// underflowed to 0 / 0) in f32 where the program is finite.
static bool boundsAbove(ExprRef x, ExprRef bound) {
  if (!bound->holdsMax())
    return false;
  ExprRef core = getMaxCore(x);
  llvm::SmallVector<int64_t> inputs;
  bool inputsKnown = false;
  llvm::DenseSet<ExprRef> seen;
  llvm::SmallVector<ExprRef> worklist{bound};
  while (!worklist.empty()) {
    ExprRef e = worklist.pop_back_val();
    if (!e->holdsMax() || !seen.insert(e).second)
      continue;
    if (e->getKind() != ExprKind::Max) {
      llvm::append_range(worklist, e->getOperands());
      continue;
    }
    ExprRef taken = getMaxCore(e);
    if (taken == core)
      return true;
    if (!inputsKnown) {
      inputs = getInputs(core);
      inputsKnown = true;
    }
    if (getInputs(taken) == inputs)
      return true;
  }
  return false;
}

/// AbstractExpr::subtractsMax of a new expression, from its operands'.
static bool subtractsMax(ExprKind kind, llvm::ArrayRef<ExprRef> operands) {
  switch (kind) {
  case ExprKind::Sub:
    return boundsAbove(operands[0], operands[1]) || operands[0]->subtractsMax();
  case ExprKind::Add:
    // x + (-m), the same as x - m.
    if (operands.size() == 2)
      for (unsigned i : {0u, 1u})
        if (operands[i]->getKind() == ExprKind::Neg &&
            boundsAbove(operands[1 - i], operands[i]->getOperand(0)))
          return true;
    return llvm::any_of(operands, [](ExprRef e) { return e->subtractsMax(); });
  case ExprKind::Mul:
  case ExprKind::Div:
  case ExprKind::Square:
  case ExprKind::Sum:
  case ExprKind::Max:
    return llvm::any_of(operands, [](ExprRef e) { return e->subtractsMax(); });
  default:
    // exp, square roots and opaque functions take a value out of the
    // range the subtraction bounded; so does a negated maximum on its own.
    return false;
  }
}

ExprRef ExprContext::get(ExprKind kind, llvm::ArrayRef<ExprRef> operands,
                         int64_t size, double value, llvm::StringRef name) {
  if (value == 0)
    value = 0;
  ExprKey key{kind, operands, size, bitsOf(value), name};
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->exprs.find_as(key);
  if (it != impl->exprs.end())
    return *it;
  // The operands and the name live as long as the context.
  auto *storedOperands = impl->allocator.Allocate<ExprRef>(operands.size());
  std::uninitialized_copy(operands.begin(), operands.end(), storedOperands);
  llvm::StringRef storedName;
  if (!name.empty()) {
    char *chars = impl->allocator.Allocate<char>(name.size());
    std::memcpy(chars, name.data(), name.size());
    storedName = llvm::StringRef(chars, name.size());
  }
  auto *expr = new (impl->allocator.Allocate<AbstractExpr>()) AbstractExpr(
      kind, storedOperands, operands.size(), size, value, storedName,
      getUnorderedHash(kind, operands, size, bitsOf(value), name),
      kind == ExprKind::Max ||
          llvm::any_of(operands, [](ExprRef e) { return e->holdsMax(); }),
      subtractsMax(kind, operands));
  impl->exprs.insert(expr);
  return expr;
}

ExprRef ExprContext::getInput(unsigned index) {
  return get(ExprKind::Input, {}, index);
}
ExprRef ExprContext::getConstant(double value) {
  return get(ExprKind::Constant, {}, 0, value);
}
ExprRef ExprContext::getAdd(ExprRef lhs, ExprRef rhs) {
  return get(ExprKind::Add, {lhs, rhs});
}
ExprRef ExprContext::getSub(ExprRef lhs, ExprRef rhs) {
  return get(ExprKind::Sub, {lhs, rhs});
}
ExprRef ExprContext::getMul(ExprRef lhs, ExprRef rhs) {
  return get(ExprKind::Mul, {lhs, rhs});
}
ExprRef ExprContext::getDiv(ExprRef lhs, ExprRef rhs) {
  return get(ExprKind::Div, {lhs, rhs});
}
ExprRef ExprContext::getNeg(ExprRef operand) {
  return get(ExprKind::Neg, {operand});
}
ExprRef ExprContext::getExp(ExprRef operand) {
  return get(ExprKind::Exp, {operand});
}
ExprRef ExprContext::getSqrt(ExprRef operand) {
  return get(ExprKind::Sqrt, {operand});
}
ExprRef ExprContext::getRsqrt(ExprRef operand) {
  return get(ExprKind::Rsqrt, {operand});
}
ExprRef ExprContext::getSquare(ExprRef operand) {
  return get(ExprKind::Square, {operand});
}
ExprRef ExprContext::getSum(int64_t size, ExprRef operand) {
  return get(ExprKind::Sum, {operand}, size);
}
ExprRef ExprContext::getMax(int64_t size, ExprRef operand) {
  return get(ExprKind::Max, {operand}, size);
}
ExprRef ExprContext::getOpaque(llvm::StringRef fn,
                               llvm::ArrayRef<ExprRef> operands) {
  return get(ExprKind::Opaque, operands, 0, 0, fn);
}

ExprRef ExprContext::getMatmul(ExprRef a, ExprRef b, int64_t k) {
  return getSum(k, getMul(a, b));
}

ExprRef ExprContext::getRmsNorm(ExprRef x, int64_t n, double eps) {
  ExprRef meanSquare = getMul(getSum(n, getMul(x, x)),
                              getConstant(1.0 / static_cast<double>(n)));
  if (eps != 0)
    meanSquare = getAdd(meanSquare, getConstant(eps));
  return getDiv(x, getSqrt(meanSquare));
}

ExprRef ExprContext::getAccumulated(block::AccumKind kind, int64_t iterations,
                                    ExprRef value, ExprRef maxValue) {
  ExprRef inverse = getConstant(1.0 / static_cast<double>(iterations));
  switch (kind) {
  case block::AccumKind::sum:
    return getSum(iterations, value);
  case block::AccumKind::max:
    return getMax(iterations, value);
  case block::AccumKind::mean:
    return getMul(getSum(iterations, value), inverse);
  case block::AccumKind::rms:
    return getSqrt(getMul(getSum(iterations, getMul(value, value)), inverse));
  case block::AccumKind::rescale:
    if (maxValue)
      value = substitute(value, maxValue, getMax(iterations, maxValue));
    return getSum(iterations, value);
  }
  llvm_unreachable("unknown accumulator kind");
}

ExprRef ExprContext::substitute(ExprRef expr, ExprRef from, ExprRef to) {
  llvm::DenseMap<ExprRef, ExprRef> memo;
  auto rewrite = [&](auto &self, ExprRef e) -> ExprRef {
    if (e == from)
      return to;
    if (e->getOperands().empty())
      return e;
    if (auto it = memo.find(e); it != memo.end())
      return it->second;
    llvm::SmallVector<ExprRef, 4> operands;
    bool changed = false;
    for (ExprRef operand : e->getOperands()) {
      operands.push_back(self(self, operand));
      changed |= operands.back() != operand;
    }
    ExprRef result = changed ? get(e->getKind(), operands, e->getSize(),
                                   e->getValue(), e->getOpName())
                             : e;
    memo[e] = result;
    return result;
  };
  return rewrite(rewrite, expr);
}
