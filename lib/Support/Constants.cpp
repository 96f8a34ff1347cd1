//===- Constants.cpp - What float constants stand for ---------------------===//

#include "mlsopt/Support/Constants.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlsopt;

std::optional<int64_t> mlsopt::getRoundedReciprocal(double value) {
  if (!(value > 0 && value <= 0.5))
    return std::nullopt;
  double n = std::round(1.0 / value);
  if (n < 2 || n > static_cast<double>(kMaxReciprocalDenominator))
    return std::nullopt;
  double reciprocal = 1.0 / n;
  if (reciprocal == value)
    return static_cast<int64_t>(n);
  for (const llvm::fltSemantics *semantics :
       {&llvm::APFloat::IEEEsingle(), &llvm::APFloat::IEEEhalf(),
        &llvm::APFloat::BFloat()}) {
    llvm::APFloat rounded(reciprocal);
    bool losesInfo = false;
    rounded.convert(*semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    rounded.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    if (rounded.convertToDouble() == value)
      return static_cast<int64_t>(n);
  }
  return std::nullopt;
}
