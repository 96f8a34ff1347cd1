//===- GraphToDot.cpp - μGraphs as Graphviz -------------------------------===//
//
// A picture of a μGraph shows what its text hides: which ops share a kernel,
// where the for-loop ends and which chains run in registers. Node names are
// numbered in walk order, so the output is deterministic.
//
//===----------------------------------------------------------------------===//

#include "mlsopt/Target/Dot/GraphToDot.h"
#include "mlsopt/Dialect/Block/IR/BlockOps.h"
#include "mlsopt/Dialect/Kernel/IR/KernelOps.h"
#include "mlsopt/Dialect/Thread/IR/ThreadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlsopt;

namespace {

class DotWriter {
public:
  explicit DotWriter(raw_ostream &os) : os(os) {}

  void writeFunction(func::FuncOp func) {
    os << "subgraph cluster_" << clusterCount++ << " {\n  label=\""
       << escape(func.getSymName()) << "\";\n  style=dashed;\n";
    for (BlockArgument arg : func.getArguments())
      declare(arg, ("arg" + Twine(arg.getArgNumber()) + "\\n" +
                    typeLabel(arg.getType()))
                       .str(),
              "ellipse");
    writeBlock(func.getBody().front());
    os << "}\n";
  }

  void writeEdges() {
    for (auto &[from, to, label] : edges)
      os << from << " -> " << to
         << (label.empty() ? "" : " [label=\"" + label + "\"]") << ";\n";
  }

private:
  void writeBlock(Block &block) {
    for (Operation &op : block) {
      if (auto custom = dyn_cast<kernel::CustomOp>(op))
        writeCustom(custom);
      else if (auto loop = dyn_cast<block::ForLoopOp>(op))
        writeLoop(loop);
      else
        writeOp(op, opLabel(op));
    }
  }

  void writeCustom(kernel::CustomOp custom) {
    kernel::Dim3Attr g = custom.getGrid(), b = custom.getBlock();
    os << "subgraph cluster_" << clusterCount++ << " {\n  label=\"kernel.custom grid <"
       << g.getX() << "," << g.getY() << "," << g.getZ() << "> block <"
       << b.getX() << "," << b.getY() << "," << b.getZ()
       << ">\";\n  style=filled;\n  fillcolor=\"#eef3ff\";\n";
    // Inside the graph, device-memory arguments stand for the kernel's
    // operands; outside, its results feed the ops that use them.
    for (auto [i, input] : llvm::enumerate(custom.getInputs()))
      alias(custom.getInputArgument(i), input);
    for (unsigned i = 0, e = custom.getOutputs().size(); i < e; ++i)
      declare(custom.getOutputArgument(i),
              ("out" + Twine(i) + "\\n" +
               typeLabel(custom.getOutputArgument(i).getType()))
                  .str(),
              "ellipse");
    writeBlock(custom.getBody().front());
    os << "}\n";
    for (unsigned i = 0, e = custom.getOutputs().size(); i < e; ++i)
      alias(custom.getOutputs()[i], custom.getOutputArgument(i));
  }

  void writeLoop(block::ForLoopOp loop) {
    os << "subgraph cluster_" << clusterCount++ << " {\n  label=\"for_loop "
       << loop.getIterations() << " iterations\";\n  style=rounded;\n";
    Block &body = loop.getBody().front();
    writeBlock(body);
    os << "}\n";
    auto yield = cast<block::YieldOp>(body.getTerminator());
    for (auto [i, value] : llvm::enumerate(yield.getValues())) {
      block::AccumulatorAttr acc = loop.getAccumulator(i);
      std::string label = ("accumulate " +
                           block::stringifyAccumKind(acc.getKind()))
                              .str();
      if (acc.getScaleBy())
        label += " by #" + std::to_string(*acc.getScaleBy());
      declare(loop.getResult(i),
              label + "\\n" + typeLabel(loop.getResult(i).getType()), "box");
      edges.push_back({lookup(value), lookup(loop.getResult(i)), ""});
    }
  }

  void writeOp(Operation &op, const std::string &label) {
    // Loop yields are drawn as accumulator nodes by writeLoop; an empty
    // terminator carries no data.
    if (isa<block::YieldOp>(op) ||
        (op.hasTrait<OpTrait::IsTerminator>() && op.getNumOperands() == 0))
      return;
    std::string node = "n" + std::to_string(nodeCount++);
    os << "  " << node << " [label=\"" << label << "\", shape="
       << (isa<thread::GraphOp>(op) ? "note" : "box") << "];\n";
    if (auto store = dyn_cast<block::StoreOp>(op)) {
      // Data flows from the tile through the saver into the output.
      edges.push_back({lookup(store.getTile()), node, ""});
      edges.push_back({node, lookup(store.getDest()), ""});
      return;
    }
    for (Value operand : op.getOperands())
      edges.push_back({lookup(operand), node, ""});
    for (Value result : op.getResults())
      names[result] = node;
  }

  std::string opLabel(Operation &op) {
    std::string label = op.getName().getStringRef().str();
    if (auto load = dyn_cast<block::LoadOp>(op)) {
      if (load.getOffsets())
        label += "\\nwindow " + attrText(load.getOffsetsAttr()) + " " +
                 attrText(load.getSizesAttr());
      label += "\\nimap " + attrText(load.getImap());
      if (load.getFmap())
        label += " fmap " + std::to_string(*load.getFmap());
    } else if (auto store = dyn_cast<block::StoreOp>(op)) {
      label += "\\nomap " + attrText(store.getOmap());
    } else if (auto fill = dyn_cast<kernel::TriangleFillOp>(op)) {
      label += triangleText(fill);
    } else if (auto fill = dyn_cast<block::TriangleFillOp>(op)) {
      label += triangleText(fill) + "\\nimap " + attrText(fill.getImap());
      if (fill.getFmap())
        label += " fmap " + std::to_string(*fill.getFmap());
    } else if (auto graph = dyn_cast<thread::GraphOp>(op)) {
      // List the chain, one thread op per line.
      for (Operation &nested : graph.getBody().front().without_terminator()) {
        label += "\\n" + nested.getName().stripDialect().str();
        if (auto unary = dyn_cast<thread::UnaryOp>(nested))
          label += " " + thread::stringifyUnaryKind(unary.getKind()).str();
        if (auto binary = dyn_cast<thread::BinaryOp>(nested))
          label += " " + thread::stringifyBinaryKind(binary.getKind()).str();
      }
    }
    for (Value result : op.getResults())
      label += "\\n" + typeLabel(result.getType());
    return escape(label);
  }

  void declare(Value value, const std::string &label, StringRef shape) {
    std::string node = "n" + std::to_string(nodeCount++);
    os << "  " << node << " [label=\"" << escape(label) << "\", shape=" << shape
       << "];\n";
    names[value] = node;
  }

  void alias(Value value, Value existing) { names[value] = lookup(existing); }

  std::string lookup(Value value) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    // A value defined outside what we draw (e.g. by an unregistered op).
    declare(value, typeLabel(value.getType()), "plaintext");
    return names[value];
  }

  static std::string typeLabel(Type type) {
    std::string s;
    llvm::raw_string_ostream ts(s);
    type.print(ts);
    return s;
  }

  /// Which elements a mask fills, with what.
  template <typename OpTy> static std::string triangleText(OpTy fill) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "\\n"
       << fill.getValue().convertToDouble() << " where i" << fill.getDims()[1]
       << " - i" << fill.getDims()[0] << " >= " << fill.getDiagonal();
    return s;
  }

  static std::string attrText(Attribute attr) {
    std::string s;
    llvm::raw_string_ostream as(s);
    attr.print(as, /*elideType=*/true);
    // Strip the dialect prefix: `#block.dim_map<x = 1>` -> `<x = 1>`.
    size_t lt = s.find('<');
    return lt == std::string::npos ? s : s.substr(lt);
  }

  // Keeps the `\n` line breaks we insert and escapes quotes for dot.
  static std::string escape(StringRef text) {
    std::string out;
    for (char c : text) {
      if (c == '"')
        out += "\\\"";
      else
        out += c;
    }
    return out;
  }

  raw_ostream &os;
  llvm::DenseMap<Value, std::string> names;
  std::vector<std::tuple<std::string, std::string, std::string>> edges;
  unsigned nodeCount = 0;
  unsigned clusterCount = 0;
};

} // namespace

LogicalResult mlsopt::translateToDot(Operation *op, raw_ostream &os) {
  os << "digraph mugraph {\n  rankdir=TB;\n  node [fontname=\"monospace\", "
        "fontsize=10];\n";
  DotWriter writer(os);
  op->walk([&](func::FuncOp func) {
    if (!func.isExternal())
      writer.writeFunction(func);
  });
  writer.writeEdges();
  os << "}\n";
  return success();
}

void mlsopt::registerToDotTranslation() {
  TranslateFromMLIRRegistration registration(
      "mlsopt-to-dot", "draw every function's μGraph as a Graphviz digraph",
      translateToDot, [](DialectRegistry &registry) {
        // What the import leaves around kernel ops (reshapes, slices, the
        // linalg it does not take, their constants) is drawn as plain
        // nodes; without these dialects the module would not parse.
        registry.insert<
            func::FuncDialect, kernel::KernelDialect, block::BlockDialect,
            thread::ThreadDialect, arith::ArithDialect, linalg::LinalgDialect,
            math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
      });
}
