//===- CheckedAllocation.cpp - JIT allocations that report failure --------===//
//
// A failed malloc longjmps back to callWithCheckedAllocations. That is safe
// because only JIT-compiled code and the allocator lie between the two: the
// lowered code has no destructors to skip, and the allocator jumps before it
// makes any object.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/ExecutionEngine/CheckedAllocation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

#include <csetjmp>
#include <cstdlib>

using namespace mlir;
using namespace mlsopt;

namespace {
/// The allocations of one call in progress on this thread, and where a
/// failed one returns to.
struct AllocationScope {
  std::jmp_buf returnPoint;
  size_t failedBytes = 0;
  llvm::DenseSet<void *> live;
};
} // namespace

static thread_local AllocationScope *currentScope = nullptr;

static constexpr llvm::StringLiteral kCheckedMalloc = "__mlsopt_checked_malloc";
static constexpr llvm::StringLiteral kCheckedFree = "__mlsopt_checked_free";

static void *checkedMalloc(size_t bytes) {
  void *pointer = std::malloc(bytes);
  AllocationScope *scope = currentScope;
  if (!scope)
    return pointer;
  if (!pointer && bytes != 0) {
    scope->failedBytes = bytes;
    std::longjmp(scope->returnPoint, 1);
  }
  scope->live.insert(pointer);
  return pointer;
}

static void checkedFree(void *pointer) {
  if (AllocationScope *scope = currentScope)
    scope->live.erase(pointer);
  std::free(pointer);
}

void mlsopt::redirectAllocations(ModuleOp module) {
  for (auto [name, checked] : {std::pair(StringRef("malloc"), kCheckedMalloc),
                               std::pair(StringRef("free"), kCheckedFree)}) {
    auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!function)
      continue;
    StringAttr newName = StringAttr::get(module.getContext(), checked);
    if (failed(SymbolTable::replaceAllSymbolUses(function, newName, module)))
      continue;
    SymbolTable::setSymbolName(function, newName);
  }
}

void mlsopt::registerCheckedAllocations(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner(kCheckedMalloc)] = {
        llvm::orc::ExecutorAddr::fromPtr(&checkedMalloc),
        llvm::JITSymbolFlags::Exported};
    symbols[interner(kCheckedFree)] = {
        llvm::orc::ExecutorAddr::fromPtr(&checkedFree),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

/// Calls `entry` under a scope of its own. Returns false, with the size
/// that failed in `failedBytes`, where an allocation failed. Nothing in this
/// frame needs destroying when the allocator jumps back to it.
static bool callInScope(void (*entry)(void **), void **args,
                        size_t &failedBytes) {
  AllocationScope scope;
  AllocationScope *outer = currentScope;
  currentScope = &scope;
  if (setjmp(scope.returnPoint)) {
    currentScope = outer;
    for (void *pointer : scope.live)
      std::free(pointer);
    failedBytes = scope.failedBytes;
    return false;
  }
  entry(args);
  currentScope = outer;
  return true;
}

llvm::Error
mlsopt::invokePackedCheckingAllocations(ExecutionEngine &engine, StringRef name,
                                        MutableArrayRef<void *> args) {
  auto entry = engine.lookupPacked(name);
  if (!entry)
    return entry.takeError();
  size_t failedBytes = 0;
  if (!callInScope(*entry, args.data(), failedBytes))
    return llvm::createStringError("the host could not allocate " +
                                   llvm::Twine(failedBytes) + " bytes");
  return llvm::Error::success();
}
