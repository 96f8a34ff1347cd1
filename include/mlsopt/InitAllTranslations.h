//===- InitAllTranslations.h - Register mlsopt's translations ---*- C++ -*-===//

#ifndef MLSOPT_INITALLTRANSLATIONS_H
#define MLSOPT_INITALLTRANSLATIONS_H

namespace mlsopt {

/// Registers mlsopt's translations with mlir-translate.
void registerAllTranslations();

} // namespace mlsopt

#endif // MLSOPT_INITALLTRANSLATIONS_H
