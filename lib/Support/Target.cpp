//===- Target.cpp - GPU targets mlsopt generates code for -----------------===//

#include "mlsopt/Support/Target.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

using namespace llvm;

namespace mlsopt {

// Figures for the reference part of each chip: A100 (sm_80), RTX 3090
// (sm_86), RTX 4090 / L40S (sm_89), H100/H200 SXM (sm_90). Shared memory is the
// per-block opt-in maximum from the CUDA programming guide's compute
// capability table; the cost model reads the throughput figures. Shared memory
// per SM, resident threads and resident blocks per SM are from the same table
// (A100: 164 KiB, 2048, 32; GA10x: 100 KiB, 1536, 16; AD10x: 100 KiB, 1536,
// 24; H100: 228 KiB, 2048, 32). The clock is the boost clock of each
// part's spec sheet. The launch overhead is not a spec-sheet figure: 2 us
// is the usual back-to-back launch cost, including the drain and ramp of
// the GPU between two kernels; inside a CUDA graph an H200 measured less
// (docs/cost-model.md, "Latency").
static const TargetInfo kTargets[] = {
    {"sm_80", "7.0", 108, 166912, 1024, 65536, 1555.0, 312.0, 19.5, 167936,
     2048, 32, 2.0, 1.41},
    {"sm_86", "7.1", 82, 101376, 1024, 65536, 936.0, 71.0, 35.6, 102400, 1536,
     16, 2.0, 1.695},
    {"sm_89", "7.8", 128, 101376, 1024, 65536, 1008.0, 165.0, 82.6, 102400,
     1536, 24, 2.0, 2.52},
    {"sm_90", "7.8", 132, 232448, 1024, 65536, 4800.0, 989.0, 67.0, 233472,
     2048, 32, 2.0, 1.98},
};

ArrayRef<TargetInfo> getSupportedTargets() { return kTargets; }

std::optional<TargetInfo> lookupTarget(StringRef chip) {
  for (const TargetInfo &t : kTargets)
    if (t.chip == chip)
      return t;
  return std::nullopt;
}

const TargetInfo &getDefaultTarget() { return kTargets[3]; }

std::string supportedTargetNames() {
  std::string s;
  raw_string_ostream os(s);
  interleaveComma(map_range(kTargets, [](const TargetInfo &t) { return t.chip; }),
                  os);
  return s;
}

FailureOr<TargetInfo> getEnclosingTarget(mlir::Operation *op) {
  for (mlir::Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    auto name = p->getAttrOfType<mlir::StringAttr>(kTargetAttrName);
    if (!name)
      continue;
    if (std::optional<TargetInfo> target = lookupTarget(name.getValue()))
      return *target;
    return op->emitOpError("is inside ")
           << kTargetAttrName << " = " << name
           << ", which is not a supported target; use one of "
           << supportedTargetNames();
  }
  return getDefaultTarget();
}

} // namespace mlsopt
