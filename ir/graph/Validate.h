// Graph validation: the single gate every graph passes before anything
// allocates for it or compiles it (CLI, compiler, server, evaluator).
//
// A graph that passes is a DAG of known ops whose operands resolve, whose
// dtypes, ranks, axes and static sizes obey docs/ops.md, and whose sizes
// stay within GraphLimits. Each error names the input, node or output at
// fault. Checks that depend on concrete sizes (a symbolic dim that must be
// 1 or equal another) are left to run time, where the evaluator and the
// executables report them with the same shape rules (GraphInfo::shapeChecks
// lists them).
#pragma once

#include "Limits.h"
#include "OpRegistry.h"
#include "TensorType.h"

#include <map>
#include <string>
#include <vector>

namespace anyshape {

/// A value of the graph: graph input `index` or node `index`.
struct ValueRef {
  bool isInput = false;
  int index = 0;
};

/// What validation learned about a graph; valid while the graph lives.
struct GraphInfo {
  std::vector<SymTensorType> inputTypes;
  std::vector<SymTensorType> nodeTypes; // indexed like graph.nodes()
  std::vector<int> topologicalOrder;    // node indices, operands first
  /// Each node's operands, resolved (indexed like graph.nodes()).
  std::vector<std::vector<ValueRef>> operandRefs;
  /// Each node's op (indexed like graph.nodes()): the run-time shape walk
  /// (Bindings.h) looks none up by name.
  std::vector<const OpInfo *> ops;
  std::map<std::string, ValueRef> values;
  /// Named symbols in order of first appearance in the inputs.
  std::vector<std::string> symbols;
  /// Per node (indexed like graph.nodes()): the nonzero nodes whose count
  /// its attributes name, which it comes after in topologicalOrder.
  std::vector<std::vector<int>> countsRead;
  /// What must be checked on every call's concrete input shapes, in order
  /// (ShapeChecks.h): input dims, then each node's undecided rules.
  std::vector<ShapeCheck> shapeChecks;
  /// The rules on sizes known only mid-run (a nonzero's count) that no
  /// bound decides, each checked where the run reaches its node, once the
  /// counts it reads are known (dhlo.check_sizes): conditions only, each
  /// with its node.
  std::vector<ShapeCheck> countChecks;
  int64_t constantBytes = 0;
  int64_t embeddedConstantBytes = 0; ///< ConstantData.h

  const SymTensorType &typeOf(ValueRef v) const {
    return v.isInput ? inputTypes[v.index] : nodeTypes[v.index];
  }
};

/// "node 'name' (op)": how every error names a node.
std::string nodeLabel(const v1::Node &node);

/// A string from the request as an error may quote it: control bytes
/// escaped (\xNN), cut at 1024 bytes. Names that passed validation
/// have no control bytes; ops, operand and output references may not be
/// valid names, and errors go into logs and JSON.
std::string quoted(const std::string &text);

StatusOr<GraphInfo> validateGraph(const v1::Graph &graph,
                                  const GraphLimits &limits = {});

/// Graphs validateGraph has checked in this process (tests assert that a
/// compile validates once).
int64_t validationCount();

/// The symbolic type of a graph input as declared (anonymous dims become
/// fresh symbols from `ctx`).
StatusOr<SymTensorType> inputType(const v1::Input &input, ShapeContext &ctx);

} // namespace anyshape
