//===- TileShapes.cpp - How grid and for-loop split a tensor into tiles ---===//

#include "mlsopt/Support/TileShapes.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace llvm;

namespace mlsopt {

int64_t gridTileSize(int64_t size, int64_t parts) {
  return parts > 0 ? llvm::divideCeil(size, parts) : size;
}

/// Why `parts` blocks (or iterations, `who`) cannot split a dim of `size`,
/// or "": no tile gives each an element (5 elements on 4 blocks: tiles of 1
/// leave one out, tiles of 2 leave the last block none).
static std::string checkGridParts(int64_t size, int64_t parts,
                                  const Twine &what,
                                  StringRef who = "a block") {
  if (parts < 1 || isGridTile(gridTileSize(size, parts), size, parts))
    return "";
  return (what + " of size " + Twine(size) + " into " + Twine(parts) +
          " tiles, which leaves " + who + " no element")
      .str();
}

ShapeOrError inputTileShape(ArrayRef<int64_t> tensor,
                            const GridToTensorDims &imap,
                            std::array<int64_t, 3> grid,
                            std::optional<int64_t> forLoopDim,
                            int64_t iterations) {
  ShapeOrError r;
  r.shape.assign(tensor.begin(), tensor.end());
  int64_t rank = tensor.size();
  // The grid dim that splits each tensor dim, if any.
  SmallVector<std::optional<unsigned>> splitBy(rank);
  auto inRange = [&](int64_t dim, const Twine &by) {
    if (dim >= 0 && dim < rank)
      return true;
    r.error = (by + " maps to dim " + Twine(dim) +
               ", which is out of range for a tensor of rank " + Twine(rank))
                  .str();
    return false;
  };
  for (unsigned g = 0; g < 3; ++g) {
    if (!imap[g])
      continue;
    int64_t dim = *imap[g];
    std::string by =
        ("grid dim " + kGridDimNames[g] + " (size " + Twine(grid[g]) + ")")
            .str();
    if (!inRange(dim, by))
      return r;
    if (splitBy[dim]) {
      r.error = (by + " splits dim " + Twine(dim) + ", which grid dim " +
                 kGridDimNames[*splitBy[dim]] +
                 " already splits; each dim is split by one grid dim at most")
                    .str();
      return r;
    }
    splitBy[dim] = g;
    r.error =
        checkGridParts(r.shape[dim], grid[g], by + " splits dim " + Twine(dim));
    if (!r.error.empty())
      return r;
    r.shape[dim] = gridTileSize(r.shape[dim], grid[g]);
  }
  if (!forLoopDim)
    return r;
  int64_t dim = *forLoopDim;
  std::string by =
      ("the for-loop (" + Twine(iterations) + " iterations)").str();
  if (!inRange(dim, by))
    return r;
  // Alone, the loop may cut its dim raggedly, as the grid does: the last
  // iteration's tile runs past the end.
  if (!splitBy[dim]) {
    r.error = checkGridParts(r.shape[dim], iterations,
                             by + " splits dim " + Twine(dim), "an iteration");
    r.shape[dim] = gridTileSize(r.shape[dim], iterations);
    return r;
  }
  // The loop walks each block's chunk of a dim the grid also splits (a
  // split-K): both cuts must then be exact, so that no tile but the last
  // block's last would run past the end of a chunk.
  int64_t parts = grid[*splitBy[dim]];
  if (tensor[dim] % parts != 0) {
    r.error = (by + " splits dim " + Twine(dim) + ", which grid dim " +
               kGridDimNames[*splitBy[dim]] + " (size " + Twine(parts) +
               ") splits raggedly (" + Twine(tensor[dim]) +
               " elements); a dim both split must be divided exactly by the "
               "grid")
                  .str();
    return r;
  }
  if (r.shape[dim] % iterations != 0) {
    r.error = (by + " splits each block's chunk of dim " + Twine(dim) +
               " of size " + Twine(r.shape[dim]) + " into " +
               Twine(iterations) + " parts, which does not divide it")
                  .str();
    return r;
  }
  r.shape[dim] /= iterations;
  return r;
}

std::string checkOutputCoverage(ArrayRef<int64_t> tile,
                                ArrayRef<int64_t> output,
                                const GridToTensorDims &omap,
                                std::array<int64_t, 3> grid) {
  int64_t rank = output.size();
  if (static_cast<int64_t>(tile.size()) != rank)
    return ("tile of rank " + Twine(tile.size()) +
            " cannot be saved to an output of rank " + Twine(rank))
        .str();
  SmallVector<int64_t> parts(rank, 1);
  for (unsigned g = 0; g < 3; ++g) {
    if (!omap[g]) {
      if (grid[g] > 1)
        return (Twine("grid dim ") + kGridDimNames[g] + " has " +
                Twine(grid[g]) +
                " blocks but the omap does not map it to an output dim; "
                "blocks would overwrite each other's results")
            .str();
      continue;
    }
    int64_t dim = *omap[g];
    if (dim < 0 || dim >= rank)
      return (Twine("omap maps grid dim ") + kGridDimNames[g] + " to dim " +
              Twine(dim) + ", which is out of range for an output of rank " +
              Twine(rank))
          .str();
    if (parts[dim] != 1)
      return (Twine("omap maps two grid dims to output dim ") + Twine(dim))
          .str();
    parts[dim] = grid[g];
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!isGridTile(tile[d], output[d], parts[d]))
      return ("tiles of shape " + formatShape(tile) + " on the grid cover " +
              Twine(tile[d] * parts[d]) + " elements of output dim " +
              Twine(d) + ", which has " + Twine(output[d]) +
              "; the tiles must cover the output exactly once, each block's "
              "with at least one element")
          .str();
  return "";
}

bool isInputTileShape(ArrayRef<int64_t> tile, ArrayRef<int64_t> smallest,
                      ArrayRef<int64_t> tensor, const GridToTensorDims &imap,
                      std::array<int64_t, 3> grid,
                      std::optional<int64_t> forLoopDim, int64_t iterations) {
  if (tile.size() != smallest.size())
    return false;
  for (int64_t d = 0, rank = tile.size(); d < rank; ++d) {
    if (tile[d] == smallest[d])
      continue;
    // The loop alone may cut raggedly; a block's chunk it cuts exactly.
    if (forLoopDim == d) {
      if (llvm::is_contained(imap, std::optional<int64_t>(d)) ||
          !isGridTile(tile[d], tensor[d], iterations))
        return false;
      continue;
    }
    auto g = llvm::find(imap, std::optional<int64_t>(d));
    if (g == imap.end() ||
        !isGridTile(tile[d], tensor[d], grid[std::distance(imap.begin(), g)]))
      return false;
  }
  return true;
}

int64_t tileBytes(ArrayRef<int64_t> shape, unsigned elementBits) {
  // Tensor dims can be as large as int64_t allows; saturate instead of
  // wrapping so an absurd tile never looks small.
  std::optional<int64_t> bits = elementBits;
  for (int64_t s : shape)
    bits = bits ? llvm::checkedMul(*bits, s) : std::nullopt;
  return bits ? *bits / 8 : std::numeric_limits<int64_t>::max();
}

} // namespace mlsopt
