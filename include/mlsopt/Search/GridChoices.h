//===- GridChoices.h - Grid and loop sizes the search tries -----*- C++ -*-===//
//
// A custom kernel is enumerated with a layout skeleton: which classes its
// grid dims and its for-loop walk, not how many blocks or iterations. The
// sizes are chosen afterwards from the candidates below, by the cost model.
// What a skeleton's kernels must move through memory at any of those sizes
// bounds their cost before one of them is enumerated.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_GRIDCHOICES_H
#define MLSOPT_SEARCH_GRIDCHOICES_H

#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Support/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>

namespace mlsopt::search {

/// Candidate sizes of each grid dim of `layout`: 1 for a dim with no class,
/// the chunk count for a class of chunks (one chunk per block), otherwise
/// the cuts of the class's extent in a power of two and its cofactor, from
/// 2 up to what CUDA allows along that dim; for an extent 16 does not
/// divide, also the grid sizes that cut it raggedly into tiles of about 16
/// to 128 (isGridTile).
std::array<llvm::SmallVector<int64_t>, 3>
getGridSizeChoices(const SearchProblem &problem, const Layout &layout);

/// Candidate iteration counts of the for-loop of `layout`: 1 without a
/// loop, the chunk count over a class of chunks, otherwise the cuts above
/// that leave tiles of at least 8 and, for an extent 16 does not divide,
/// the cuts into its largest divisor tile between each two powers of two
/// from 64 to 4096; one iteration per element only of an extent of up to
/// 64.
llvm::SmallVector<int64_t> getIterationChoices(const SearchProblem &problem,
                                               const Layout &layout);

/// The iteration count that stands for any for-loop over a class of
/// `extent` (or any split of it into that many chunks) in abstract
/// expressions: sum splitting makes every count that divides the extent
/// equivalent, and the sizes of sums must divide the reference's. So the
/// smallest count above 1 that divides it: 2 for an even extent, 29 for a
/// vocabulary of 50257 = 29 x 1733, the extent itself where no divisor up
/// to 1024 does (a prime).
int64_t getRepresentativeIterations(int64_t extent);

/// The bytes of a tensor of `dims` in the problem's element type.
double getTensorBytes(const SearchProblem &problem, const Dims &dims);

/// A lower bound of the cost of every custom kernel with the grid of
/// `skeleton` that loads `inputs` and stores at least `outputs`, at any
/// grid size of getGridSizeChoices: one launch plus the memory time of
/// those tensors, each input loaded once per block along every grid dim it
/// does not have (as the imaps the layout implies load it).
double getCustomKernelLowerBoundUs(const SearchProblem &problem,
                                   const TargetInfo &target,
                                   const Layout &skeleton,
                                   llvm::ArrayRef<const Dims *> inputs,
                                   llvm::ArrayRef<const Dims *> outputs);

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_GRIDCHOICES_H
