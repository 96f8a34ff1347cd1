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

/// The smallest tile along a dim of `size` that a grid dim of `parts`
/// blocks splits: size / parts rounded up.
int64_t gridTileSize(int64_t size, int64_t parts);

/// Whether `parts` blocks with tiles of `tile` elements split a dim of
/// `size`: the tiles cover it and each block gets at least one element.
/// Where tile * parts exceeds `size` the split is ragged: the last block's
/// tile runs past the end of the dim, where loads read zeros and stores
/// write nothing. A prime vocabulary of 50257 columns then takes 393 tiles
/// of 128, and 197 tokens 4 tiles of 64, instead of tiles of one element.
inline bool isGridTile(int64_t tile, int64_t size, int64_t parts) {
  return tile >= gridTileSize(size, parts) && tile <= size &&
         tile * (parts - 1) < size;
}

/// Whether `parts` blocks with tiles of `tile` elements split a dim of
/// `size` raggedly (see isGridTile).
inline bool isRaggedTile(int64_t tile, int64_t size, int64_t parts) {
  return tile * parts != size;
}

/// Shape of the smallest tile one block loads in one for-loop iteration:
/// `tensor` divided by the grid size along every mapped grid dim, rounded up
/// (see gridTileSize), and by `iterations` along `forLoopDim`, rounded up
/// too: the last iteration's tile may run past the end of the dim, as the
/// last block's does. A grid dim and the for-loop may split the same dim:
/// the grid cuts it into one chunk per block and the loop walks the
/// block's chunk, both exactly (a split-K, as Mirage's attention graphs
/// split the keys). Fails when a dim is out of range or split by two grid
/// dims, when no tile gives each block or iteration an element, or when a
/// chunk is not cut exactly.
ShapeOrError inputTileShape(llvm::ArrayRef<int64_t> tensor,
                            const GridToTensorDims &imap,
                            std::array<int64_t, 3> grid,
                            std::optional<int64_t> forLoopDim,
                            int64_t iterations);

/// Whether `tile` is a tile a block may load of `tensor`, whose smallest
/// tile is `smallest` (inputTileShape): along a dim one grid dim or the
/// for-loop (of `iterations`) splits, any size isGridTile accepts for it;
/// elsewhere, and along a dim both split, the same size.
bool isInputTileShape(llvm::ArrayRef<int64_t> tile,
                      llvm::ArrayRef<int64_t> smallest,
                      llvm::ArrayRef<int64_t> tensor,
                      const GridToTensorDims &imap, std::array<int64_t, 3> grid,
                      std::optional<int64_t> forLoopDim, int64_t iterations);

/// The elements of dim `dim` that one block's tiles span: the tile, or,
/// where the for-loop walks that dim too (`forLoopDim`), the tile times the
/// iterations. Neighbouring blocks along a grid dim that splits `dim` start
/// this far apart, and the split is ragged where the span times the grid
/// size passes the end.
inline int64_t blockSpan(int64_t tile, int64_t dim,
                         std::optional<int64_t> forLoopDim,
                         int64_t iterations) {
  return forLoopDim == dim ? tile * iterations : tile;
}

/// Checks that tiles of shape `tile`, one per block, placed by `omap`, cover
/// the `output` tensor exactly once: no grid dim larger than 1 is replicated
/// and the tile is the output divided by the grid along every dim, rounded
/// up where the grid splits it raggedly (see gridTileSize).
std::string checkOutputCoverage(llvm::ArrayRef<int64_t> tile,
                                llvm::ArrayRef<int64_t> output,
                                const GridToTensorDims &omap,
                                std::array<int64_t, 3> grid);

/// Bytes of a tile of `shape` with elements of `elementBits` bits, saturated
/// at the largest int64_t.
int64_t tileBytes(llvm::ArrayRef<int64_t> shape, unsigned elementBits);

} // namespace mlsopt

#endif // MLSOPT_SUPPORT_TILESHAPES_H
