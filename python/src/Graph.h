//===- Graph.h - The kernel graph behind the Python package -----*- C++ -*-===//
//
// What `mlsopt.KernelGraph` holds: an MLIR module with one function whose
// body is the kernel graph. Python builds it op by op (Mirage's API), or
// parses it from text; everything else (printing, the cost model, Graphviz,
// pass pipelines, CPU execution) works on the module with the project's C++
// libraries. This layer knows nothing about Python: errors are thrown as
// MLIRError carrying the diagnostics MLIR emitted, and the bindings turn them
// into Python exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef MLSOPT_PYTHON_GRAPH_H
#define MLSOPT_PYTHON_GRAPH_H

#include "mlsopt/ExecutionEngine/CPURunner.h"
#include "mlsopt/Search/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlsopt::python {

/// A failure MLIR reported through diagnostics; what() is their text, one
/// "location: severity: message" line each, notes included.
class MLIRError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A request for something this build of mlsopt does not have (a pass that
/// is not registered, a translation that is not linked in).
class UnavailableError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Where a graph-building call came from in the user's script, so that a
/// shape error points at their line.
struct SourceLocation {
  std::string file;
  unsigned line = 0;
};

/// The element types a graph can hold, as Python names them.
enum class ElementType { F16, BF16, F32, I1, I8, I16, I32, I64 };

/// Unary elementwise ops of the kernel dialect, by mnemonic ("exp", "silu").
/// Returns false if `name` is not one.
bool isUnaryOpName(llvm::StringRef name);
/// Binary elementwise ops with broadcasting ("add", "sub", "mul", "div",
/// "max", "min").
bool isBinaryOpName(llvm::StringRef name);

/// True if this build has the GPU target (PTX and launch plans).
bool hasGPUTarget();

/// True if `name` is a pass or pass pipeline registered in this process.
bool isPassRegistered(llvm::StringRef name);

/// Applies the shape rule `rule` ("matmul", "broadcast", "same", "last_dim",
/// "reduce", "concat"; see Support/ShapeInference.h) to `shapes`, with `dim`
/// for the rules that take one. Python's threadblock graphs type their tiles
/// with it, by the rules the block dialect will check. Throws MLIRError with
/// the rule's sentence, located at `loc`, when there is no shape.
std::vector<int64_t> inferShape(llvm::StringRef rule,
                                const std::vector<std::vector<int64_t>> &shapes,
                                int64_t dim, const SourceLocation &loc);

/// MLIR's op handles have no const methods, so neither does Graph.
class Graph {
public:
  /// An empty graph: a function `@main` with no inputs and no outputs.
  static std::unique_ptr<Graph> create();

  /// Parses `text`, converts what it can from linalg to the kernel dialect
  /// and verifies the result. The graph is the function named `function`,
  /// or when it is empty the first public function with a body (the first
  /// private one if none is public); the module keeps only it and the
  /// functions it calls.
  static std::unique_ptr<Graph> parse(llvm::StringRef text,
                                      llvm::StringRef function);

  /// A deep copy, for transformations that must leave this graph alone.
  std::unique_ptr<Graph> clone();
  /// A deep copy whose results are `tensors` (ids of this graph) instead of
  /// the marked outputs: Mirage's `graph(inputs=..., outputs=[...])`.
  std::unique_ptr<Graph> cloneWithOutputs(llvm::ArrayRef<unsigned> tensors);

  // Building. Each returns the id of the new tensor; ids index tensors().
  unsigned addInput(llvm::ArrayRef<int64_t> shape, ElementType type,
                    const SourceLocation &loc);
  unsigned addUnary(llvm::StringRef name, unsigned input,
                    const SourceLocation &loc);
  unsigned addBinary(llvm::StringRef name, unsigned lhs, unsigned rhs,
                     const SourceLocation &loc);
  unsigned addMatmul(unsigned lhs, unsigned rhs, const SourceLocation &loc);
  unsigned addReduceSum(unsigned input, int64_t dim, const SourceLocation &loc);
  unsigned addRmsNorm(unsigned input, double epsilon,
                      const SourceLocation &loc);
  /// The op of an element and a constant named `name` (mul_scalar,
  /// add_scalar, max_scalar, min_scalar).
  unsigned addScalarOp(llvm::StringRef name, unsigned input, double scalar,
                       const SourceLocation &loc);
  /// Result dim i is dim permutation[i] of `input`.
  unsigned addTranspose(unsigned input, const std::vector<int64_t> &permutation,
                        const SourceLocation &loc);
  /// Adds the `kernel.custom` op of the function `@__mlsopt_custom` in
  /// `text` (a module Python generates from a threadblock graph), with the
  /// function's arguments standing for `inputs`. The op is verified with all
  /// of the block dialect's μGraph rules first. Returns the ids of its
  /// results.
  std::vector<unsigned> addCustomKernel(llvm::StringRef text,
                                        llvm::ArrayRef<unsigned> inputs);
  /// Appends `tensor` to the function's results.
  void markOutput(unsigned tensor);

  // Inspection.
  llvm::SmallVector<int64_t> getShape(unsigned tensor);
  ElementType getElementType(unsigned tensor);
  /// Ids of the function's arguments and results, in order.
  std::vector<unsigned> getInputs();
  std::vector<unsigned> getOutputs();
  /// Ids of the tensors ops compute that nothing reads, in id order.
  std::vector<unsigned> getUnreadTensors();
  std::string getFunctionName();

  /// The module as MLIR text (generic form if `generic`).
  std::string print(bool generic = false);
  /// Graphviz text of the module (mlsopt-translate --mlsopt-to-dot).
  std::string toDot();
  /// The cost model's estimate of the function on `target` (an "sm_XX"
  /// name), or on the module's `mlsopt.target` when `target` is empty.
  /// `latency`: search::CostModelOptions::latency.
  search::KernelCost estimateCost(llvm::StringRef target, bool latency);
  /// The same, per kernel launch in program order.
  std::vector<search::KernelCost> estimateKernelCosts(llvm::StringRef target,
                                                      bool latency);

  /// Names of the ops of the function that the cost model does not cost:
  /// computations left outside the kernel dialect (linalg that
  /// --convert-linalg-to-kernel could not express, calls).
  std::vector<std::string> getUncostedOps();

  /// Runs the textual pass pipeline `pipeline` (as after
  /// `--pass-pipeline=builtin.module(...)`) on this graph's module; returns
  /// the warnings it emitted (a corrupt cache entry the search ignored, a
  /// cache it could not write), each with its notes.
  std::vector<std::string> runPipeline(llvm::StringRef pipeline);

  /// Sets the module's `mlsopt.target` (the default of estimateCost and of
  /// the GPU lowering) to `chip`.
  void setTarget(llvm::StringRef chip);
  /// The module's `mlsopt.target`, or "" when it names none.
  std::string getTarget();

  /// Lowers a copy of the module with --mlsopt-gpu-pipeline for `chip` and
  /// returns its PTX (mlsopt-translate --emit-ptx) or its launch plan JSON
  /// (--emit-launch-plan). Throws UnavailableError in a build without the
  /// GPU target.
  std::string emitPTX(llvm::StringRef chip);
  std::string emitLaunchPlan(llvm::StringRef chip);

  /// JIT-compiles the function for the CPU unless it is already compiled.
  void compileForCPU();

  /// A run of the compiled function that holds what it needs: it touches
  /// neither the graph nor its module, so it runs without the GIL while
  /// another thread adds ops to the graph (which compiles anew, and leaves
  /// this runner to the runs that hold it).
  struct CPURun {
    std::shared_ptr<CPURunner> runner;
    std::string function;
    /// The bytes of the f32 results, for the error when they cannot be
    /// allocated.
    uint64_t resultBytes = 0;
    /// Runs the function on the CPU through the ExecutionEngine. Inputs and
    /// results are f32 on the host; f16 and bf16 graphs round their inputs
    /// on the way in (CPURunner does this).
    std::vector<HostTensor> operator()(std::vector<HostTensor> inputs) const;
  };
  /// Checks `inputs` against the function's arguments and compiles the
  /// function if needed.
  CPURun prepareCPURun(const std::vector<HostTensor> &inputs);

private:
  Graph() = default;
  /// Finds the function and its tensors after the module changed wholesale
  /// (parsing, passes).
  void attach(mlir::func::FuncOp func);
  unsigned track(mlir::Value value);
  /// The module lowered for `chip` by --mlsopt-gpu-pipeline.
  mlir::OwningOpRef<mlir::ModuleOp> lowerForGPU(llvm::StringRef chip);
  mlir::Value lookup(unsigned tensor);
  template <typename OpTy>
  unsigned addOp(const SourceLocation &loc, mlir::ValueRange operands,
                 llvm::ArrayRef<mlir::NamedAttribute> attributes = {});
  /// The graph changed: a compiled runner is stale.
  void invalidate() { runner.reset(); }

  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  /// Every tensor handed to Python, by id. Values are never erased while
  /// the graph is built; passes rebuild the list.
  std::vector<mlir::Value> tensors;
  std::shared_ptr<CPURunner> runner;
};

} // namespace mlsopt::python

#endif // MLSOPT_PYTHON_GRAPH_H
