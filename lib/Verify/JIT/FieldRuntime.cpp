//===- FieldRuntime.cpp - Scalar field arithmetic for JIT-compiled programs ===//

#include "mlsopt/Verify/FieldRuntime.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

using namespace mlsopt::verify;

using PF = PrimeField;
using EP = ExponentPart;

static uint64_t inverseP(FieldRuntimeContext *context, uint64_t x) {
  if (LLVM_UNLIKELY(x == 0)) {
    context->divisionByZero = 1;
    return 0;
  }
  return PF::inverse(x);
}

extern "C" {

mlsopt_field_t mlsopt_field_add(mlsopt_field_t a, mlsopt_field_t b) {
  return packFieldElement(PF::add(residueOf(a), residueOf(b)),
                          EP::add(exponentOf(a), exponentOf(b)));
}

mlsopt_field_t mlsopt_field_sub(mlsopt_field_t a, mlsopt_field_t b) {
  return packFieldElement(PF::sub(residueOf(a), residueOf(b)),
                          EP::sub(exponentOf(a), exponentOf(b)));
}

mlsopt_field_t mlsopt_field_mul(mlsopt_field_t a, mlsopt_field_t b) {
  return packFieldElement(PF::mul(residueOf(a), residueOf(b)),
                          EP::mul(exponentOf(a), exponentOf(b)));
}

mlsopt_field_t mlsopt_field_mul_add(mlsopt_field_t acc, mlsopt_field_t a,
                                    mlsopt_field_t b) {
  return mlsopt_field_add(acc, mlsopt_field_mul(a, b));
}

mlsopt_field_t mlsopt_field_reduce_wide(uint64_t top, mlsopt_field_t low) {
  return packFieldElement(PF::reduceWide(top, low), kNotLaxExponent);
}

mlsopt_field_t mlsopt_field_reduce_wide_both(uint64_t topP, mlsopt_field_t lowP,
                                             uint64_t topQ, mlsopt_field_t lowQ,
                                             uint64_t marker) {
  return packFieldElement(PF::reduceWide(topP, lowP),
                          marker ? marker
                                 : ExponentField::reduceWide(topQ, lowQ));
}

mlsopt_field_t mlsopt_field_neg(mlsopt_field_t a) {
  return packFieldElement(PF::neg(residueOf(a)), EP::neg(exponentOf(a)));
}

mlsopt_field_t mlsopt_field_square(mlsopt_field_t a) {
  return mlsopt_field_mul(a, a);
}

mlsopt_field_t mlsopt_field_div(FieldRuntimeContext *context, mlsopt_field_t a,
                                mlsopt_field_t b) {
  // As the evaluator: invert the divisor in both fields, then multiply.
  return mlsopt_field_mul(
      a, packFieldElement(inverseP(context, residueOf(b)),
                          EP::inverse(exponentOf(b))));
}

mlsopt_field_t mlsopt_field_exp(FieldRuntimeContext *context,
                                mlsopt_field_t a) {
  uint64_t e = exponentOf(a);
  if (LLVM_LIKELY(isExponentResidue(e)))
    return packFieldElement(fieldExp(e), kNotLaxExponent);
  if (e == kDivisionByZeroExponent)
    context->divisionByZero = 1;
  else
    context->notLax = 1;
  return packFieldElement(0, kNotLaxExponent);
}

/// sqrt's residue mod q at `a` mod p, as the evaluator's sqrtExponent.
static uint64_t sqrtExponent(FieldRuntimeContext *context, uint64_t a) {
  return applyExponentFunction(context->exponentKeys[static_cast<unsigned>(
                                   mlsopt::thread::UnaryKind::sqrt)],
                               a);
}

mlsopt_field_t mlsopt_field_sqrt(FieldRuntimeContext *context,
                                 mlsopt_field_t a) {
  return packFieldElement(fieldSqrt(residueOf(a)),
                          sqrtExponent(context, residueOf(a)));
}

mlsopt_field_t mlsopt_field_rsqrt(FieldRuntimeContext *context,
                                  mlsopt_field_t a) {
  return packFieldElement(inverseP(context, fieldSqrt(residueOf(a))),
                          EP::inverse(sqrtExponent(context, residueOf(a))));
}

mlsopt_field_t mlsopt_field_random(FieldRuntimeContext *context,
                                   int64_t function, mlsopt_field_t a) {
  return packFieldElement(
      applyRandomFunction(context->functionKeys[function], residueOf(a)),
      applyExponentFunction(context->exponentKeys[function], residueOf(a)));
}

mlsopt_field_t mlsopt_field_max(mlsopt_field_t running,
                                mlsopt_field_t candidate) {
  return fieldGreater(residueOf(candidate), exponentOf(candidate),
                      residueOf(running), exponentOf(running))
             ? candidate
             : running;
}

mlsopt_field_t mlsopt_field_random_pair(FieldRuntimeContext *context,
                                        uint64_t function, mlsopt_field_t a,
                                        mlsopt_field_t b) {
  uint64_t pair = symmetricPairResidue(residueOf(a), residueOf(b));
  return packFieldElement(
      applyRandomFunction(randomFunctionKey(context->functionSeed, function),
                          pair),
      applyExponentFunction(
          exponentFunctionKey(context->functionSeed, function), pair));
}

mlsopt_field_t mlsopt_field_random_scalar(FieldRuntimeContext *context,
                                          uint64_t function, mlsopt_field_t a) {
  return packFieldElement(
      applyRandomFunction(randomFunctionKey(context->functionSeed, function),
                          residueOf(a)),
      applyExponentFunction(
          exponentFunctionKey(context->functionSeed, function), residueOf(a)));
}

} // extern "C"

llvm::ArrayRef<std::pair<const char *, void *>>
mlsopt::verify::getFieldRuntimeSymbols() {
  static const std::pair<const char *, void *> symbols[] = {
#define MLSOPT_FIELD_SYMBOL(name) {#name, reinterpret_cast<void *>(&name)}
      MLSOPT_FIELD_SYMBOL(mlsopt_field_add),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_sub),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_mul),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_mul_add),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_reduce_wide),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_reduce_wide_both),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_neg),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_square),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_div),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_exp),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_sqrt),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_rsqrt),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_random),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_max),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_random_scalar),
      MLSOPT_FIELD_SYMBOL(mlsopt_field_random_pair),
#undef MLSOPT_FIELD_SYMBOL
  };
  return symbols;
}
