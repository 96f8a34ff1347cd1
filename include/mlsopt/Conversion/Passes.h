//===- Passes.h - Conversions into and out of mlsopt's dialects -*- C++ -*-===//

#ifndef MLSOPT_CONVERSION_PASSES_H
#define MLSOPT_CONVERSION_PASSES_H

#include "mlsopt/Dialect/Block/IR/BlockDialect.h"
#include "mlsopt/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlsopt {

#define GEN_PASS_DECL
#include "mlsopt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlsopt/Conversion/Passes.h.inc"

} // namespace mlsopt

#endif // MLSOPT_CONVERSION_PASSES_H
