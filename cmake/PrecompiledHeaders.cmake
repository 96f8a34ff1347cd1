# One precompiled header of the upstream MLIR and LLVM headers most of
# mlsopt's sources include, shared by every C++ target whose compile options
# are a plain library's. Parsing those headers was most of each file's
# compile time (a GPU lowering file: 36 s, 8 s with the header
# precompiled). Only upstream headers are in it, so editing the project's
# own ODS or headers does not rebuild it. Targets with other options (the
# nanobind extension, built with exceptions; the search's Z3 oracle file)
# parse their headers as before.
option(MLSOPT_PRECOMPILED_HEADERS
  "Share one precompiled header of the MLIR headers across targets" ON)

# ccache caches a compile that uses a precompiled header (and the header
# itself) only with these sloppiness flags; without them every such compile
# is a miss. The header stays part of the hash.
if(MLSOPT_PRECOMPILED_HEADERS AND CMAKE_CXX_COMPILER_LAUNCHER MATCHES "(^|/)ccache$")
  set(CMAKE_CXX_COMPILER_LAUNCHER
    env CCACHE_SLOPPINESS=pch_defines,time_macros ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()

set(MLSOPT_PCH_HEADERS
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/GPU/IR/GPUDialect.h>
  <mlir/Dialect/LLVMIR/LLVMDialect.h>
  <mlir/Dialect/LLVMIR/NVVMDialect.h>
  <mlir/Dialect/Linalg/IR/Linalg.h>
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/MemRef/IR/MemRef.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/Dialect/Tensor/IR/Tensor.h>
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/IRMapping.h>
  <mlir/IR/Matchers.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Pass/Pass.h>
  <mlir/Pass/PassManager.h>
  <mlir/Transforms/GreedyPatternRewriteDriver.h>
  <llvm/ADT/DenseMap.h>
  <llvm/ADT/STLExtras.h>
  <llvm/ADT/SetVector.h>
  <llvm/ADT/SmallVector.h>
  <llvm/Support/raw_ostream.h>
)

# Gives every C++ target under `dir` whose compile options are those LLVM's
# flag helper gives a library (no exceptions) the shared header.
function(mlsopt_use_precompiled_headers dir)
  if(NOT MLSOPT_PRECOMPILED_HEADERS)
    return()
  endif()
  if(NOT TARGET mlsopt-pch)
    add_library(mlsopt-pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
    llvm_update_compile_flags(mlsopt-pch)
    target_precompile_headers(mlsopt-pch PRIVATE ${MLSOPT_PCH_HEADERS})
  endif()
  get_target_property(pch_options mlsopt-pch COMPILE_OPTIONS)
  # LLVM's tool helpers add the same options twice.
  list(REMOVE_DUPLICATES pch_options)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(sources ${target} SOURCES)
    get_target_property(options ${target} COMPILE_OPTIONS)
    if(NOT type MATCHES "^(OBJECT_LIBRARY|EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY)$"
       OR NOT "${sources}" MATCHES "\\.cpp"
       OR target STREQUAL "mlsopt-pch")
      continue()
    endif()
    if(options)
      list(REMOVE_DUPLICATES options)
    endif()
    if("${options}" STREQUAL "${pch_options}")
      target_precompile_headers(${target} REUSE_FROM mlsopt-pch)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    mlsopt_use_precompiled_headers(${subdir})
  endforeach()
endfunction()
