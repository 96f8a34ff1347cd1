//===- ResultCache.h - Search results on disk -------------------*- C++ -*-===//
//
// A search can take a minute; its answer for a subprogram does not change
// while the subprogram, the options and the search itself stay the same. The
// cache stores each answer as the MLIR text of a function, in a file named
// by a hash of everything the answer depends on, including a format version
// that changes whenever the search does. The pass verifies an entry again
// when it loads it, so a stale or tampered entry cannot produce a wrong
// program.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_SEARCH_RESULTCACHE_H
#define MLSOPT_SEARCH_RESULTCACHE_H

#include "mlsopt/Search/SearchProblem.h"
#include "mlsopt/Search/Superoptimizer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlsopt::search {

/// Bumped whenever the search, its cost model or the entry format changes.
constexpr unsigned kResultCacheVersion = 13;

/// The key of `problem` searched with `options`: a hex digest.
std::string getResultCacheKey(const SearchProblem &problem,
                              const SearchOptions &options);

/// What a lookup found.
struct CacheEntry {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp function;
};

enum class CacheLookup { Miss, Hit, Corrupt };

/// Reads the entry `key` of `directory`: Miss if there is none, Corrupt if
/// it does not parse into a module holding one function.
CacheLookup lookupResult(llvm::StringRef directory, llvm::StringRef key,
                         mlir::MLIRContext *context, CacheEntry &entry);

/// Writes `function` as entry `key` of `directory` (atomically: a reader
/// never sees half an entry). Fails with a message if it cannot.
mlir::LogicalResult storeResult(llvm::StringRef directory, llvm::StringRef key,
                                mlir::func::FuncOp function,
                                std::string &error);

} // namespace mlsopt::search

#endif // MLSOPT_SEARCH_RESULTCACHE_H
