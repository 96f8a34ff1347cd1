//===- TileShapes.h - How grid and for-loop split a tensor into tiles -*- C++ -*-===//
//
// An input iterator splits a device tensor across the grid (imap) and across
// the iterations of the for-loop (fmap); an output saver assembles the output
// from the tiles of all blocks (omap). The verifiers, the CPU and GPU
// lowerings and the search all need the same arithmetic, so it lives here.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SUPPORT_TILESHAPES_H
#define MLSOPT_SUPPORT_TILESHAPES_H

#include "mlsopt/Support/ShapeInference.h"

#include <array>
#include <optional>

namespace mlsopt {

/// The names of the grid (and thread block) dims, as the IR spells them.
inline constexpr llvm::StringLiteral kGridDimNames[3] = {"x", "y", "z"};

/// For each grid dim (x, y, z): the tensor dim it splits, or none when every
/// block along that grid dim sees the whole tensor dim (replicated).
using GridToTensorDims = std::array<std::optional<int64_t>, 3>;

/// Shape of the tile one block loads in one for-loop iteration: `tensor`
/// divided by the grid size along every mapped grid dim and by `iterations`
/// along `forLoopDim`. Fails when a dim is out of range, split twice, or not
/// divisible.
ShapeOrError inputTileShape(llvm::ArrayRef<int64_t> tensor,
                            const GridToTensorDims &imap,
                            std::array<int64_t, 3> grid,
                            std::optional<int64_t> forLoopDim,
                            int64_t iterations);

/// Checks that tiles of shape `tile`, one per block, placed by `omap`, cover
/// the `output` tensor exactly once: no grid dim larger than 1 is replicated
/// and tile * grid equals the output along every dim.
std::string checkOutputCoverage(llvm::ArrayRef<int64_t> tile,
                                llvm::ArrayRef<int64_t> output,
                                const GridToTensorDims &omap,
                                std::array<int64_t, 3> grid);

/// Bytes of a tile of `shape` with elements of `elementBits` bits, saturated
/// at the largest int64_t.
int64_t tileBytes(llvm::ArrayRef<int64_t> shape, unsigned elementBits);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_TILESHAPES_H
