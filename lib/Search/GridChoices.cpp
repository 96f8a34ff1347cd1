//===- GridChoices.cpp - Grid and loop sizes the search tries -------------===//

#include "mlsopt/Search/GridChoices.h"
#include "mlsopt/Search/CostModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

/// The ways to cut `extent` in two factors of which one is a power of two:
/// the powers of two that divide it and their cofactors, ascending. An
/// extent of 13824 = 2^9 * 27 is then cut in 108 tiles of 128 as well as in
/// 128 tiles of 108; powers of two alone would leave tiles of 27 or more
/// than shared memory holds.
static SmallVector<int64_t> getPowerOfTwoCuts(int64_t extent) {
  SmallVector<int64_t> cuts;
  for (int64_t p = 1; p <= extent && extent % p == 0; p *= 2) {
    cuts.push_back(p);
    cuts.push_back(extent / p);
  }
  llvm::sort(cuts);
  cuts.erase(llvm::unique(cuts), cuts.end());
  return cuts;
}

/// The tiles a ragged cut aims at.
static ArrayRef<int64_t> getRaggedTiles() {
  static const int64_t tiles[] = {16, 32, 64, 128};
  return tiles;
}

std::array<SmallVector<int64_t>, 3>
search::getGridSizeChoices(const SearchProblem &problem, const Layout &layout) {
  std::array<SmallVector<int64_t>, 3> choices;
  for (auto [d, cls] : llvm::enumerate(layout.gridClass)) {
    if (cls == Dim::kOne) {
      choices[d] = {1};
      continue;
    }
    int64_t extent = problem.shapes.extents[cls];
    // A split reduction and the kernel that combines its chunks agree on
    // where each partial result lies: one chunk per block.
    if (problem.isChunkClass(cls)) {
      choices[d] = {extent};
      continue;
    }
    for (int64_t s : getPowerOfTwoCuts(extent))
      if (s >= 2 && s <= kMaxGridSize[d])
        choices[d].push_back(s);
    // An extent that 16 does not divide (197 tokens, a vocabulary of 50257)
    // has no power-of-two cut into tiles of 16 or more but the whole: it is
    // also cut raggedly, into tiles of about 16 to 128, the last block's
    // running past the end.
    if (extent % 16 != 0)
      for (int64_t tile : getRaggedTiles())
        if (int64_t s = llvm::divideCeil(extent, tile);
            s >= 2 && s <= kMaxGridSize[d])
          choices[d].push_back(s);
    llvm::sort(choices[d]);
    choices[d].erase(llvm::unique(choices[d]), choices[d].end());
  }
  return choices;
}

SmallVector<int64_t> search::getIterationChoices(const SearchProblem &problem,
                                                 const Layout &layout) {
  int cls = layout.loopClass;
  if (cls == Dim::kOne)
    return {1};
  int64_t extent = problem.shapes.extents[cls];
  if (problem.isChunkClass(cls))
    return {extent};
  SmallVector<int64_t> counts;
  for (int64_t n : getPowerOfTwoCuts(extent))
    if (n >= 2 && extent / n >= 8)
      counts.push_back(n);
  // An extent that 16 does not divide has few power-of-two cuts: a
  // vocabulary of 50257 = 29 x 1733 would take 50257 iterations of one
  // element. Its other divisors cut it exactly too (29 tiles of 1733), which
  // a loop needs where a max or an online softmax walks it: a ragged last
  // tile would feed them zeros. Of the tiles between two powers of two from
  // 64 to 4096, the largest is tried: a few sizes, not every divisor. Not
  // smaller ones: the roofline that ranks candidates does not see what each
  // iteration costs, and would take 241 iterations of 17 keys (a latency of
  // 476 us by the latency model) over 17 of 241 for fewer waves.
  if (extent % 16 != 0) {
    std::map<unsigned, int64_t> largestTile;
    auto addTile = [&](int64_t tile) {
      if (tile >= 64 && tile <= 4096 && tile < extent) {
        int64_t &t = largestTile[llvm::Log2_64(tile)];
        t = std::max(t, tile);
      }
    };
    for (int64_t d = 2; d <= 4096 && d * d <= extent; ++d)
      if (extent % d == 0) {
        addTile(d);
        addTile(extent / d);
      }
    for (auto [bits, tile] : largestTile)
      counts.push_back(extent / tile);
  }
  llvm::sort(counts);
  counts.erase(llvm::unique(counts), counts.end());
  // One element per iteration only over a short extent: every iteration
  // costs a copy and a barrier whatever its size, which the roofline that
  // ranks candidates does not see; a loop of 131071 one-element iterations
  // (a prime) would take milliseconds.
  constexpr int64_t kMaxElementIterations = 64;
  if (counts.empty() && extent > 1 && extent <= kMaxElementIterations)
    counts.push_back(extent);
  return counts;
}

int64_t search::getRepresentativeIterations(int64_t extent) {
  if (extent % 2 == 0)
    return 2;
  // Odd extents are rare and few: remember each one's answer per thread.
  thread_local llvm::DenseMap<int64_t, int64_t> known;
  auto [it, fresh] = known.try_emplace(extent, extent);
  if (fresh)
    for (int64_t d = 3; d <= 1024 && d * d <= extent; d += 2)
      if (extent % d == 0) {
        it->second = d;
        break;
      }
  return it->second;
}

double search::getTensorBytes(const SearchProblem &problem, const Dims &dims) {
  // Inputs and outputs of a program that mixes element types may be
  // narrower than the tensors between its kernels; a lower bound assumes
  // the narrowest.
  double bytes = problem.shapes.getMinElementBytes();
  for (Dim d : dims)
    bytes *= getExtent(d, problem.shapes.extents);
  return bytes;
}

double search::getCustomKernelLowerBoundUs(const SearchProblem &problem,
                                           const TargetInfo &target,
                                           const Layout &skeleton,
                                           ArrayRef<const Dims *> inputs,
                                           ArrayRef<const Dims *> outputs) {
  // Device memory sees every input and output at least once. Each input is
  // cut by the grid dims its imap names, the ones that grid a class it has
  // (SearchGraph's materialize builds the imaps by the same rule); every
  // block along any other grid dim loads it again through the L2.
  double deviceBytes = 0;
  SmallVector<std::pair<double, std::array<bool, 3>>> loads;
  for (const Dims *dims : inputs) {
    std::array<bool, 3> cut = {false, false, false};
    for (Dim d : *dims)
      if (std::optional<unsigned> g = skeleton.getGridDimOf(d.cls);
          g && !d.isChunked())
        cut[*g] = true;
    double bytes = getTensorBytes(problem, *dims);
    deviceBytes += bytes;
    loads.push_back({bytes, cut});
  }
  for (const Dims *dims : outputs)
    deviceBytes += getTensorBytes(problem, *dims);

  std::array<SmallVector<int64_t>, 3> choices =
      getGridSizeChoices(problem, skeleton);
  double memoryUs = std::numeric_limits<double>::infinity();
  for (int64_t x : choices[0])
    for (int64_t y : choices[1])
      for (int64_t z : choices[2]) {
        std::array<double, 3> size = {double(x), double(y), double(z)};
        double loadedBytes = 0;
        for (const auto &[bytes, cut] : loads) {
          double times = 1;
          for (unsigned g = 0; g < 3; ++g)
            if (!cut[g])
              times *= size[g];
          loadedBytes += bytes * times;
        }
        memoryUs =
            std::min(memoryUs,
                     estimateGridMemoryUs(deviceBytes, loadedBytes,
                                          size[0] * size[1] * size[2], target));
      }
  return target.launchOverheadUs + memoryUs;
}
