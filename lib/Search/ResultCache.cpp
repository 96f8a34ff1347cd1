//===- ResultCache.cpp - Search results on disk ---------------------------===//

#include "mlsopt/Search/ResultCache.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlsopt;
using namespace mlsopt::search;

std::string search::getResultCacheKey(const SearchProblem &problem,
                                      const SearchOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "mlsopt-search-cache v" << kResultCacheVersion << "\n";
  print(problem.reference, os);
  os << "type " << problem.shapes.elementType << "\ninput types";
  for (Type type : problem.shapes.inputTypes)
    os << " " << type;
  // Only when set, so that the keys of programs read without conversions
  // stay as they were.
  if (!problem.shapes.readTypes.empty()) {
    os << "\nread types";
    for (Type type : problem.shapes.readTypes)
      os << " " << type;
  }
  if (problem.shapes.matmulType)
    os << "\nmatmul type " << problem.shapes.matmulType;
  os << "\nresult types";
  for (Type type : problem.shapes.resultTypes)
    os << " " << type;
  os << "\nextents";
  for (int64_t e : problem.shapes.extents)
    os << " " << e;
  os << "\ninputs";
  for (const Dims &dims : problem.shapes.inputDims) {
    os << " [";
    for (Dim d : dims)
      os << " " << d.cls;
    os << " ]";
  }
  os << "\ntarget " << options.target.chip << " max-kernel-ops "
     << options.maxKernelOps << " max-block-ops " << options.maxBlockOps
     << " seed " << options.seed << " abstract " << options.abstractPruning
     << " cost " << options.costPruning;
  // Only when set, so that entries made before the option existed, which
  // ranked by the roofline, keep their keys.
  if (options.cost.latency)
    os << " latency-model";
  else if (options.cost.latencyVeto)
    os << " latency-veto";
  os << "\n";
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()),
                        text.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

static std::string entryPath(StringRef directory, StringRef key) {
  SmallString<256> path(directory);
  llvm::sys::path::append(path, key + ".mlir");
  return std::string(path);
}

CacheLookup search::lookupResult(StringRef directory, StringRef key,
                                 MLIRContext *context, CacheEntry &entry) {
  std::string path = entryPath(directory, key);
  if (!llvm::sys::fs::exists(path))
    return CacheLookup::Miss;
  // A corrupt entry is reported by the caller as one warning; the parser's
  // own diagnostics would only repeat it.
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
  llvm::SourceMgr sourceMgr;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return CacheLookup::Corrupt;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  entry.module = parseSourceFile<ModuleOp>(sourceMgr, context);
  if (!entry.module)
    return CacheLookup::Corrupt;
  auto functions = entry.module->getOps<func::FuncOp>();
  if (std::distance(functions.begin(), functions.end()) != 1 ||
      (*functions.begin()).isExternal())
    return CacheLookup::Corrupt;
  entry.function = *functions.begin();
  return CacheLookup::Hit;
}

LogicalResult search::storeResult(StringRef directory, StringRef key,
                                  func::FuncOp function, std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
    error = "cannot create '" + directory.str() + "': " + ec.message();
    return failure();
  }
  std::string path = entryPath(directory, key);
  SmallString<256> temp;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%", fd, temp)) {
    error = "cannot write to '" + directory.str() + "': " + ec.message();
    return failure();
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    function->print(os, OpPrintingFlags().printGenericOpForm(false));
    os << "\n";
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    error = "cannot write '" + path + "': " + ec.message();
    return failure();
  }
  return success();
}
