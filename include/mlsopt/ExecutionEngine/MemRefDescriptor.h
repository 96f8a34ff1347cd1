//===- MemRefDescriptor.h - Memref arguments for JIT-compiled code -*- C++ -*-===//
//
// Functions compiled with the C interface take each memref as a pointer to
// the descriptor of CRunnerUtils.h. The CPU runner and the field JIT both
// pass dense row-major buffers of any rank, so both build it here.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_EXECUTIONENGINE_MEMREFDESCRIPTOR_H
#define MLSOPT_EXECUTIONENGINE_MEMREFDESCRIPTOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <cstring>

namespace mlsopt {

/// The descriptor of a dense row-major buffer `data` of `shape`: two
/// pointers, the offset, then the sizes and the strides.
struct MemRefDescriptor {
  MemRefDescriptor(void *data, llvm::ArrayRef<int64_t> shape)
      : words(3 + 2 * shape.size()) {
    std::memcpy(&words[0], &data, sizeof(data));
    std::memcpy(&words[1], &data, sizeof(data));
    words[2] = 0;
    int64_t stride = 1;
    for (int64_t i = shape.size() - 1; i >= 0; --i) {
      words[3 + i] = shape[i];
      words[3 + shape.size() + i] = stride;
      stride *= shape[i];
    }
  }
  llvm::SmallVector<int64_t> words;
};

} // namespace mlsopt

#endif // MLSOPT_EXECUTIONENGINE_MEMREFDESCRIPTOR_H
