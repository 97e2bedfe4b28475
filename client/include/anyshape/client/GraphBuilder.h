// GraphBuilder: a numpy-like C++ API that emits wire-format graphs.
//
// Each op method appends one node and returns a Value handle. Elementwise
// ops broadcast numpy-style, inserting explicit broadcast_in_dim nodes; the
// composite layers (linear, softmax, layer_norm, gelu, attention) emit
// primitives only, and the compiler's fusion recovers their speed. Errors
// follow XLA's builder: the first one is recorded, later calls return
// invalid Values, and build() reports it. Shapes are tracked with the same
// shape rules validation uses, so a graph that builds also validates.
//
// No gRPC or MLIR types appear here; the result is an anyshape.v1.Graph.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace anyshape::client {

using v1::DType;

/// A dim as written by the user: 768, -1 (reshape: inferred), "seq",
/// "batch*seq", "seq + 1", or "?" (anonymous).
class Dim {
public:
  Dim(int64_t size) : text_(std::to_string(size)) {}
  Dim(int size) : text_(std::to_string(size)) {}
  Dim(const char *text) : text_(text) {}
  Dim(std::string text) : text_(std::move(text)) {}
  const std::string &text() const { return text_; }

private:
  std::string text_;
};

/// A handle to a value (graph input or node result) of one GraphBuilder.
class Value {
public:
  Value() = default;
  bool isValid() const { return id_ >= 0; }
  int id() const { return id_; }

private:
  friend class GraphBuilder;
  explicit Value(int id) : id_(id) {}
  int id_ = -1;
};

enum class Reduction { Sum, Max, Min, Prod };
enum class Comparison { Eq, Ne, Lt, Le, Gt, Ge };
/// How scatter combines an update with the row it lands on.
enum class ScatterMode { Replace, Add, Mul, Max, Min };

class GraphBuilder {
public:
  explicit GraphBuilder(std::string graphName = "graph");
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder &) = delete;
  GraphBuilder &operator=(const GraphBuilder &) = delete;

  // ---- sources --------------------------------------------------------
  Value parameter(const std::string &name, DType dtype, std::vector<Dim> dims);
  Value constant(DType dtype, std::vector<int64_t> shape, std::string bytes);
  Value scalar(double value, DType dtype = v1::DTYPE_F32);
  Value splat(double value, DType dtype, std::vector<int64_t> shape);
  /// Deterministic pseudo-random weights (SeededUniform in graph.proto).
  Value seededUniform(DType dtype, std::vector<int64_t> shape, uint64_t seed,
                      double low, double high);
  Value storedTensor(DType dtype, std::vector<int64_t> shape,
                     const std::string &tensorId);
  Value iota(DType dtype, std::vector<Dim> dims, int64_t dimension);

  // ---- elementwise ----------------------------------------------------
  Value unary(const std::string &op, Value x);
  Value abs(Value x) { return unary("abs", x); }
  Value neg(Value x) { return unary("neg", x); }
  Value exp(Value x) { return unary("exp", x); }
  Value log(Value x) { return unary("log", x); }
  Value tanh(Value x) { return unary("tanh", x); }
  Value logistic(Value x) { return unary("logistic", x); }
  Value sqrt(Value x) { return unary("sqrt", x); }
  Value rsqrt(Value x) { return unary("rsqrt", x); }
  Value erf(Value x) { return unary("erf", x); }
  Value sin(Value x) { return unary("sin", x); }
  Value cos(Value x) { return unary("cos", x); }
  Value floor(Value x) { return unary("floor", x); }
  Value ceil(Value x) { return unary("ceil", x); }
  Value logicalNot(Value x) { return unary("not", x); }
  Value convert(Value x, DType dtype);

  /// Binary op with numpy broadcasting (ranks aligned on the right; a
  /// statically-1 dim stretches; otherwise the first operand's dim wins and
  /// the other must equal it or be 1 at run time).
  Value binary(const std::string &op, Value a, Value b);
  Value add(Value a, Value b) { return binary("add", a, b); }
  Value sub(Value a, Value b) { return binary("sub", a, b); }
  Value mul(Value a, Value b) { return binary("mul", a, b); }
  Value div(Value a, Value b) { return binary("div", a, b); }
  Value pow(Value a, Value b) { return binary("pow", a, b); }
  Value max(Value a, Value b) { return binary("max", a, b); }
  Value min(Value a, Value b) { return binary("min", a, b); }
  Value logicalAnd(Value a, Value b) { return binary("and", a, b); }
  Value logicalOr(Value a, Value b) { return binary("or", a, b); }
  Value compare(Value a, Value b, Comparison direction);
  Value select(Value pred, Value onTrue, Value onFalse);

  // ---- shape-changing ---------------------------------------------------
  Value broadcastInDim(Value x, std::vector<Dim> shape,
                       std::vector<int64_t> broadcastDimensions);
  Value reshape(Value x, std::vector<Dim> shape);
  Value transpose(Value x, std::vector<int64_t> permutation);
  Value slice(Value x, std::vector<Dim> starts, std::vector<Dim> limits,
              std::vector<int64_t> strides = {});
  Value concatenate(const std::vector<Value> &xs, int64_t dimension);
  Value pad(Value x, Value paddingValue, std::vector<int64_t> low,
            std::vector<int64_t> high, std::vector<int64_t> interior = {});
  /// numpy take(x, indices, axis) with out-of-range indices clamped.
  Value gather(Value x, Value indices, int64_t axis);
  /// x [N, R...] with row m of updates [M, R...] combined into row
  /// indices[m] ([M], clamped into [0, N)), m in order: replaced (the last
  /// of several wins) or folded in by `mode`; x's type.
  Value scatter(Value x, Value indices, Value updates,
                ScatterMode mode = ScatterMode::Replace);
  /// The positions (i64, x's shape) of x's elements along `axis` in
  /// ascending order, or descending: stable (equal elements keep their
  /// order), NaN above every number. TopK is a gather at its first k.
  Value argsort(Value x, int64_t axis, bool descending = false);
  /// Running folds of x along `axis`: element i the fold of those at or
  /// before i (strictly before with `exclusive`; at or after with
  /// `reverse`); x's type, numeric (cumsum: Reduction::Sum).
  Value cumulative(Value x, int64_t axis, Reduction kind = Reduction::Sum,
                   bool exclusive = false, bool reverse = false);
  /// `indices`, once each is in range for dim `axis` of `x` ([-n, n) with
  /// `allowNegative`, else [0, n)); otherwise the run fails with
  /// INVALID_ARGUMENT naming `what`, the index and the range. Put before a
  /// gather whose clamping would otherwise hide a caller's mistake.
  Value checkIndex(Value indices, Value x, int64_t axis, bool allowNegative,
                   const std::string &what);
  /// The coordinates of x's nonzero elements in row-major order, i64
  /// [rank, count] (numpy's nonzero stacked; ONNX NonZero). count is known
  /// only once it runs: a size of its own, at most x's element count,
  /// named `countSymbol` (or "count", "count_1", ... when empty: the
  /// first no parameter or other count uses), which later shapes may use.
  Value nonzero(Value x, std::string countSymbol = "");
  Value reduce(Value x, std::vector<int64_t> dimensions, Reduction kind);
  Value dotGeneral(Value lhs, Value rhs, std::vector<int64_t> lhsBatch,
                   std::vector<int64_t> rhsBatch,
                   std::vector<int64_t> lhsContracting,
                   std::vector<int64_t> rhsContracting);
  Value dimSize(Value x, int64_t dimension);
  /// input [N, C, S...] (1-3 spatial dims) cross-correlated with weights
  /// [O, C / groups, K...]: [N, O, out...], out = (S + low + high -
  /// (K - 1) * dilation - 1) floordiv stride + 1 (graph.proto,
  /// ConvolutionAttrs). One entry per spatial dim in each vector.
  Value convolution(Value input, Value weights, std::vector<int64_t> strides,
                    std::vector<int64_t> dilations,
                    std::vector<int64_t> paddingLow,
                    std::vector<int64_t> paddingHigh, int64_t groups = 1);

  // ---- composites (primitives only) -------------------------------------
  /// x[..., K] @ w[K, N] (rank-2 w), or batched when both have rank >= 3.
  Value matmul(Value x, Value w);
  /// matmul(x, w) + bias.
  Value linear(Value x, Value w, Value bias);
  Value softmax(Value x, int64_t axis = -1);
  /// Normalises over the last dim, then scales by gamma and adds beta.
  Value layerNorm(Value x, Value gamma, Value beta, double epsilon = 1e-12);
  /// Exact (erf) GELU: 0.5 * x * (1 + erf(x / sqrt(2))).
  Value gelu(Value x);
  /// Multi-head scaled dot-product attention on [batch, seq, hidden]
  /// projections q, k, v; `additiveMask` broadcasts to [batch, heads, seq,
  /// seq] scores (e.g. [batch, 1, 1, seq]); pass an invalid Value for none.
  Value attention(Value q, Value k, Value v, Value additiveMask, int64_t heads);

  // ---- results ----------------------------------------------------------
  /// Nodes added from now on are named `prefix` + "/" + op + "_" + a
  /// number (op + "_" + a number while it is empty): a front end that
  /// builds one source op from several names them after it, so a run-time
  /// error names what its user wrote. At most 256 bytes of it are kept
  /// (the end).
  void setNodeNamePrefix(std::string prefix);

  /// Marks `x` as a graph output; a non-empty name renames its node.
  void output(Value x, const std::string &name = "");
  /// The first error so far (OK if none).
  const Status &status() const;
  int64_t rank(Value x) const;
  /// `x`'s dims as they would be written ("seq", "batch*seq", 768), "?"
  /// where no name is known (empty for an invalid value).
  std::vector<Dim> dims(Value x) const;
  DType dtype(Value x) const;
  /// "f32[batch, seq, 768]" (for messages and tests).
  std::string typeString(Value x) const;
  /// The graph, validated; or the first error.
  StatusOr<v1::Graph> build() const;

  /// Opaque implementation state (client/lib/BuilderState.h).
  struct State;

private:
  std::unique_ptr<State> state_;
};

} // namespace anyshape::client
