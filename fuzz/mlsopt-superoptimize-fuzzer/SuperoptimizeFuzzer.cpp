//===- SuperoptimizeFuzzer.cpp - Differential fuzzing of --superoptimize --===//
//
// libFuzzer target, structure-aware: the input bytes choose a small, valid
// kernel-dialect program (shapes, ops, operands, outputs; see
// ProgramGenerator), which then goes through
//
//   --superoptimize{keep-reference=... latency-model=...}
//   [--verify-equivalence]
//
// and both the result and the original run on the CPU pipeline
// (mlsopt::CPURunner) on the same inputs. A crash, a pass that fails on a
// valid program, an equivalence error, or results that differ beyond f32
// rounding abort with the program printed, so that libFuzzer keeps the input.
//
// Set MLSOPT_FUZZ_VERBOSE=1 to print every generated program (to triage a
// corpus or a crash input).
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Dialect/MLSOpt/IR/MLSOptDialect.h"
#include "mlsopt/ExecutionEngine/CPURunner.h"
#include "mlsopt/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// Reads the fuzzer's bytes as a stream of small choices; past the end every
/// choice is 0, so every input, even an empty one, gives a program.
class ByteStream {
public:
  ByteStream(const uint8_t *data, size_t size) : data(data), size(size) {}
  /// A number in [0, n).
  unsigned pick(unsigned n) { return n == 0 ? 0 : next() % n; }
  template <typename T> const T &pickFrom(ArrayRef<T> choices) {
    return choices[pick(choices.size())];
  }

private:
  uint8_t next() { return pos < size ? data[pos++] : 0; }
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

/// A value of the generated program: its SSA name, 2-D shape, and whether
/// it is known to be at least about 0.1 on the inputs the differential check
/// draws (in [0.5, 1.5]), so that log, sqrt, rsqrt and division only see
/// operands far from zero and f32 rounding stays small next to the results.
struct Value2D {
  std::string name;
  int64_t rows, cols;
  bool positive;
  std::string type() const {
    return llvm::formatv("tensor<{0}x{1}xf32>", rows, cols).str();
  }
};

/// Turns bytes into the text of `func.func @f`, a kernel-dialect program of
/// one to four ops over one to three inputs. Every program it writes
/// verifies: operand shapes are chosen to fit each op.
class ProgramGenerator {
public:
  explicit ProgramGenerator(ByteStream &bytes) : bytes(bytes) {}

  std::string generate() {
    static const int64_t kExtents[] = {1, 2, 4, 8, 16, 32, 64};
    int64_t extents[3];
    for (int64_t &e : extents)
      e = bytes.pickFrom(ArrayRef(kExtents));
    unsigned numInputs = 1 + bytes.pick(3);
    for (unsigned i = 0; i < numInputs; ++i) {
      int64_t rows = extents[bytes.pick(3)], cols = extents[bytes.pick(3)];
      values.push_back({"%arg" + std::to_string(i), rows, cols, true});
    }
    unsigned numOps = 1 + bytes.pick(4);
    for (unsigned i = 0; i < numOps; ++i)
      addOp();
    if (values.size() == numInputs)
      addUnary("exp", values.front());

    // The last value, and sometimes an earlier result as a second output.
    SmallVector<const Value2D *> outputs = {&values.back()};
    if (values.size() > numInputs + 1 && bytes.pick(2)) {
      const Value2D &other =
          values[numInputs + bytes.pick(values.size() - numInputs - 1)];
      outputs.push_back(&other);
    }

    std::string text;
    llvm::raw_string_ostream os(text);
    os << "func.func @f(";
    llvm::interleaveComma(llvm::seq(0u, numInputs), os, [&](unsigned i) {
      os << values[i].name << ": " << values[i].type();
    });
    os << ") -> (";
    llvm::interleaveComma(outputs, os,
                          [&](const Value2D *v) { os << v->type(); });
    os << ") {\n" << body << "  return ";
    llvm::interleaveComma(outputs, os,
                          [&](const Value2D *v) { os << v->name; });
    os << " : ";
    llvm::interleaveComma(outputs, os,
                          [&](const Value2D *v) { os << v->type(); });
    os << "\n}\n";
    return text;
  }

private:
  const Value2D &anyValue() { return values[bytes.pick(values.size())]; }

  const Value2D *positiveValue() {
    SmallVector<const Value2D *> candidates;
    for (const Value2D &v : values)
      if (v.positive)
        candidates.push_back(&v);
    if (candidates.empty())
      return nullptr;
    return candidates[bytes.pick(candidates.size())];
  }

  std::string fresh() { return "%v" + std::to_string(counter++); }

  void addUnary(StringRef op, const Value2D &x, bool positive = false) {
    std::string name = fresh();
    body += llvm::formatv("  {0} = kernel.{1} {2} : {3}\n", name, op, x.name,
                          x.type());
    values.push_back({name, x.rows, x.cols, positive});
  }

  void addOp() {
    switch (bytes.pick(9)) {
    case 0: { // Unary ops defined everywhere.
      static const StringLiteral kOps[] = {"exp",     "square", "silu",
                                           "sigmoid", "gelu",   "relu",
                                           "tanh",    "erf",    "neg"};
      StringRef op = bytes.pickFrom(ArrayRef(kOps));
      const Value2D &x = anyValue();
      // exp and sigmoid are positive anywhere; the rest on positive input.
      bool positive = op == "exp" || op == "sigmoid" ||
                      (x.positive && op != "neg");
      addUnary(op, x, positive);
      return;
    }
    case 1: { // Unary ops that need a positive operand.
      static const StringLiteral kOps[] = {"sqrt", "rsqrt", "log"};
      StringRef op = bytes.pickFrom(ArrayRef(kOps));
      if (const Value2D *x = positiveValue())
        addUnary(op, *x, /*positive=*/op != "log");
      return;
    }
    case 2: { // Elementwise binary ops, broadcasting size-1 dims.
      static const StringLiteral kOps[] = {"add", "sub", "mul", "div"};
      StringRef op = bytes.pickFrom(ArrayRef(kOps));
      const Value2D &lhs = anyValue();
      SmallVector<const Value2D *> rhsCandidates;
      for (const Value2D &v : values) {
        bool rowsFit = v.rows == lhs.rows || v.rows == 1;
        bool colsFit = v.cols == lhs.cols || v.cols == 1;
        if (rowsFit && colsFit && (op != "div" || v.positive))
          rhsCandidates.push_back(&v);
      }
      if (rhsCandidates.empty())
        return;
      const Value2D &rhs = *rhsCandidates[bytes.pick(rhsCandidates.size())];
      std::string name = fresh();
      body += llvm::formatv("  {0} = kernel.{1} {2}, {3} : {4}, {5}\n", name,
                            op, lhs.name, rhs.name, lhs.type(), rhs.type());
      bool positive = lhs.positive && rhs.positive && op != "sub";
      values.push_back({name, lhs.rows, lhs.cols, positive});
      return;
    }
    case 3: { // Matmul of any two values whose inner dims agree.
      const Value2D &lhs = anyValue();
      SmallVector<const Value2D *> rhsCandidates;
      for (const Value2D &v : values)
        if (v.rows == lhs.cols)
          rhsCandidates.push_back(&v);
      if (rhsCandidates.empty())
        return;
      const Value2D &rhs = *rhsCandidates[bytes.pick(rhsCandidates.size())];
      std::string name = fresh();
      body += llvm::formatv("  {0} = kernel.matmul {1}, {2} : {3}, {4}\n",
                            name, lhs.name, rhs.name, lhs.type(),
                            rhs.type());
      values.push_back(
          {name, lhs.rows, rhs.cols, lhs.positive && rhs.positive});
      return;
    }
    case 4: { // Reductions over one dim, which stays with size 1.
      const Value2D &x = anyValue();
      unsigned dim = bytes.pick(2);
      StringRef op = bytes.pick(2) ? "reduce_max" : "reduce_sum";
      std::string name = fresh();
      body += llvm::formatv("  {0} = kernel.{1} {2} dim {3} : {4}\n", name,
                            op, x.name, dim, x.type());
      values.push_back({name, dim == 0 ? 1 : x.rows, dim == 1 ? 1 : x.cols,
                        x.positive});
      return;
    }
    case 5: { // RMS normalization over the last dim.
      const Value2D *x = positiveValue();
      if (!x)
        return;
      std::string name = fresh();
      body += llvm::formatv(
          "  {0} = kernel.rms_norm {1} {{epsilon = 1.0e-06 : f64} : {2}\n",
          name, x->name, x->type());
      values.push_back({name, x->rows, x->cols, true});
      return;
    }
    case 6: { // Scaling by a constant.
      static const StringLiteral kScalars[] = {"0.5", "2.0", "-1.0",
                                               "0.125"};
      StringRef scalar = bytes.pickFrom(ArrayRef(kScalars));
      const Value2D &x = anyValue();
      std::string name = fresh();
      body += llvm::formatv("  {0} = kernel.mul_scalar {1}, {2} : {3}\n",
                            name, x.name, scalar, x.type());
      values.push_back({name, x.rows, x.cols,
                        x.positive && !scalar.starts_with("-")});
      return;
    }
    case 7: { // A clamp: max_scalar, then min_scalar.
      static const StringLiteral kBounds[][2] = {
          {"-1.0", "1.0"}, {"0.75", "1.25"}, {"-4.0", "0.5"}};
      ArrayRef<StringLiteral> bounds = bytes.pickFrom(ArrayRef(kBounds));
      const Value2D &x = anyValue();
      std::string low = fresh(), name = fresh();
      body += llvm::formatv("  {0} = kernel.max_scalar {1}, {2} : {3}\n", low,
                            x.name, bounds[0], x.type());
      body += llvm::formatv("  {0} = kernel.min_scalar {1}, {2} : {3}\n", name,
                            low, bounds[1], x.type());
      // Positive when the lower bound is.
      values.push_back({name, x.rows, x.cols, !bounds[0].starts_with("-")});
      return;
    }
    case 8: { // A transpose (a weight stored [n, k], a transposed result).
      const Value2D &x = anyValue();
      std::string name = fresh();
      body += llvm::formatv("  {0} = kernel.transpose {1} [1, 0] : {2}\n", name,
                            x.name, x.type());
      values.push_back({name, x.cols, x.rows, x.positive});
      return;
    }
    }
  }

  ByteStream &bytes;
  SmallVector<Value2D> values;
  std::string body;
  unsigned counter = 0;
};

[[noreturn]] void fail(StringRef what, StringRef program,
                       StringRef diagnostics, ModuleOp module = nullptr) {
  llvm::errs() << "mlsopt-superoptimize-fuzzer: " << what
               << "\n--- program ---\n"
               << program << "--- diagnostics ---\n"
               << diagnostics;
  if (module) {
    llvm::errs() << "--- after the passes ---\n";
    module->print(llvm::errs());
    llvm::errs() << "\n";
  }
  std::abort();
}

/// Inputs in [0.5, 1.5]: what ProgramGenerator's `positive` assumes.
mlsopt::HostTensor randomInput(ArrayRef<int64_t> shape, uint64_t &state) {
  mlsopt::HostTensor t = mlsopt::HostTensor::zeros(shape);
  for (float &x : t.data) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = 0.5f + float(state >> 40) / float(1 << 24);
  }
  return t;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  mlsopt::registerAllPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    mlsopt::registerAllDialects(*r);
    r->insert<func::FuncDialect>();
    return r;
  }();
  ByteStream bytes(data, size);
  // Two knobs before the program: how the pass checks its answer, and the
  // search's seed.
  bool keepReference = bytes.pick(2);
  unsigned seed = 1 + bytes.pick(4);
  std::string program = ProgramGenerator(bytes).generate();
  // Drawn after the program, so that the inputs found before the option
  // existed still make the same programs.
  bool latencyModel = bytes.pick(2);
  static bool verbose = std::getenv("MLSOPT_FUZZ_VERBOSE");
  if (verbose)
    llvm::errs() << "// keep-reference=" << keepReference << " seed=" << seed
                 << " latency-model=" << latencyModel << "\n"
                 << program;

  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  bool hadError = false;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      hadError = true;
    if (verbose)
      llvm::errs() << diag.str() << "\n";
    if (diag.getSeverity() != DiagnosticSeverity::Remark)
      diagnostics += diag.str() + "\n";
    return success();
  });

  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(program,
                                                               &context);
  if (!original)
    fail("the generated program does not parse or verify", program,
         diagnostics);
  OwningOpRef<ModuleOp> optimized = original->clone();

  // A short search: the fuzzer wants many programs, not the best one.
  auto pm = PassManager::on<ModuleOp>(&context);
  std::string pipeline = llvm::formatv(
      "superoptimize{{timeout=1 threads=1 seed={0} keep-reference={1} "
      "latency-model={3}}{2}",
      seed, keepReference ? "true" : "false",
      keepReference ? ",verify-equivalence{f32-check=false}" : "",
      latencyModel ? "true" : "false");
  if (failed(parsePassPipeline(pipeline, pm)))
    fail("bad pipeline " + pipeline, program, diagnostics);
  if (failed(pm.run(*optimized)) || hadError)
    fail("the passes failed on a valid program", program, diagnostics,
         *optimized);

  // Run the original and the result side by side in one module.
  auto rewritten = optimized->lookupSymbol<func::FuncOp>("f");
  auto candidate = cast<func::FuncOp>(rewritten->clone());
  candidate.setName("f_optimized");
  // Its reference stays behind in `optimized`.
  candidate->removeAttr(mlsopt::MLSOptDialect::kEquivalentToAttrName);
  SymbolTable(*original).insert(candidate);
  FailureOr<std::unique_ptr<mlsopt::CPURunner>> runner =
      mlsopt::CPURunner::create(*original, {"f", "f_optimized"});
  if (failed(runner))
    fail("the CPU pipeline cannot run the result", program, diagnostics,
         *optimized);

  uint64_t state = 0x9e3779b97f4a7c15ULL ^ size;
  SmallVector<mlsopt::HostTensor> inputs;
  for (Type type : candidate.getArgumentTypes())
    inputs.push_back(
        randomInput(cast<RankedTensorType>(type).getShape(), state));
  auto want = (*runner)->run("f", inputs);
  auto got = (*runner)->run("f_optimized", inputs);
  if (failed(want) || failed(got))
    fail("a CPU run failed", program, diagnostics, *optimized);
  for (auto [w, g] : llvm::zip_equal(*want, *got)) {
    // f32 rounding differs with the order of a fused reduction: compare
    // against the output's magnitude. Where the original overflows there is
    // nothing to compare.
    double scale = 1;
    bool finite = true;
    for (float x : w.data) {
      finite &= std::isfinite(x);
      scale = std::max(scale, double(std::fabs(x)));
    }
    if (!finite)
      continue;
    for (auto [x, y] : llvm::zip_equal(w.data, g.data))
      if (!(std::fabs(double(x) - double(y)) <= 1e-3 * scale))
        fail(llvm::formatv("the result computes {0} where the original "
                           "computes {1}",
                           y, x)
                 .str(),
             program, diagnostics, *optimized);
  }
  return 0;
}
