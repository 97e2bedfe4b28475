// The builder's primitive ops: one node each (plus broadcasts for numpy
// broadcasting), typed on the spot with the validator's shape rules.
#include "BuilderState.h"

#include "ir/graph/DimText.h"
#include "ir/graph/Validate.h"

#include <algorithm>

namespace anyshape::client {
namespace {

template <typename Field, typename Vec>
void assign(Field *field, const Vec &values) {
  field->Clear();
  for (const auto &v : values)
    field->Add(v);
}

} // namespace

Value GraphBuilder::State::addNode(v1::Node node,
                                   const std::vector<Value> &operands) {
  if (!error.isOk())
    return Value();
  std::vector<const SymTensorType *> operandTypes;
  for (Value v : operands) {
    if (!usable({v}))
      return Value();
    node.add_operands(names[v.id()]);
    operandTypes.push_back(&type(v));
  }
  do
    node.set_name(nodeNamePrefix + node.op() + "_" +
                  std::to_string(nextNodeNumber++));
  while (userNames.count(node.name()));
  auto result = inferNodeType(node, operandTypes, shapes);
  if (!result) {
    fail(result.status().withContext("node '" + node.name() + "' (" +
                                     node.op() + ")"));
    return Value();
  }
  names.push_back(node.name());
  types.push_back(std::move(*result));
  *graph.add_nodes() = std::move(node);
  return valueAt(static_cast<int>(types.size()) - 1);
}

Value GraphBuilder::State::broadcastTo(Value x,
                                       const std::vector<SymExpr> &dims,
                                       std::vector<int64_t> mapping) {
  if (!usable({x}))
    return Value();
  const SymTensorType &t = type(x);
  if (t.dims == dims && mapping.empty())
    return x;
  int64_t offset = static_cast<int64_t>(dims.size()) - t.rank();
  if (offset < 0) {
    fail(invalidArgument("cannot broadcast " + t.toString() + " to rank " +
                         std::to_string(dims.size())));
    return Value();
  }
  if (mapping.empty())
    for (int64_t i = 0; i < t.rank(); ++i)
      mapping.push_back(i + offset);
  v1::Node node;
  node.set_op("broadcast_in_dim");
  auto *attrs = node.mutable_broadcast_in_dim();
  for (size_t r = 0; r < dims.size(); ++r) {
    auto wire = toWireDim(dims[r]);
    auto source = std::find(mapping.begin(), mapping.end(), int64_t(r));
    bool copiesOperand =
        source != mapping.end() && t.dims[source - mapping.begin()] == dims[r];
    if (wire)
      *attrs->add_shape() = *wire;
    else if (copiesOperand)
      attrs->add_shape()->set_dynamic(true);
    else {
      fail(invalidArgument("cannot broadcast " + t.toString() +
                           " to an anonymous dim; name the dim with a symbol"));
      return Value();
    }
  }
  for (int64_t m : mapping)
    attrs->add_broadcast_dimensions(m);
  return addNode(std::move(node), {x});
}

bool GraphBuilder::State::reshapeDims(
    const std::vector<SymExpr> &dims,
    google::protobuf::RepeatedPtrField<v1::Dim> *out) {
  bool inferred = false;
  for (const SymExpr &dim : dims) {
    auto wire = toWireDim(dim);
    if (!wire) {
      if (inferred)
        return fail(invalidArgument(
            "reshape needs two anonymous dims; name them with symbols"));
      inferred = true;
      wire = v1::Dim();
      wire->set_size(-1);
    }
    *out->Add() = std::move(*wire);
  }
  return true;
}

GraphBuilder::GraphBuilder(std::string graphName)
    : state_(std::make_unique<State>()) {
  state_->graph.set_name(std::move(graphName));
}

GraphBuilder::~GraphBuilder() = default;

static bool parseDims(const std::vector<Dim> &dims,
                      google::protobuf::RepeatedPtrField<v1::Dim> *out,
                      GraphBuilder::State &s) {
  for (const Dim &dim : dims) {
    auto parsed = parseDim(dim.text());
    if (!parsed)
      return s.fail(parsed.status());
    *out->Add() = std::move(*parsed);
  }
  return true;
}

Value GraphBuilder::parameter(const std::string &name, DType dtype,
                              std::vector<Dim> dims) {
  State &s = *state_;
  if (!s.usable({}))
    return Value();
  v1::Input input;
  input.set_name(name);
  input.mutable_type()->set_dtype(dtype);
  if (!parseDims(dims, input.mutable_type()->mutable_dims(), s))
    return Value();
  for (const v1::Dim &dim : input.type().dims())
    if (dim.kind_case() == v1::Dim::kSymbol) {
      s.shapes.bindSymbol(dim.symbol());
      s.symbols.insert(dim.symbol());
    }
  if (name.empty() ||
      std::find(s.names.begin(), s.names.end(), name) != s.names.end()) {
    s.fail(invalidArgument("parameter '" + name +
                           "': names must be unique and non-empty"));
    return Value();
  }
  auto type = inputType(input, s.shapes);
  if (!type) {
    s.fail(type.status().withContext("parameter '" + name + "'"));
    return Value();
  }
  *s.graph.add_inputs() = std::move(input);
  s.types.push_back(std::move(*type));
  s.names.push_back(name);
  s.userNames.insert(name);
  return Value(static_cast<int>(s.types.size()) - 1);
}

static v1::Node constantNode(DType dtype, const std::vector<int64_t> &shape,
                             v1::ConstantAttrs **attrs) {
  v1::Node node;
  node.set_op("constant");
  *attrs = node.mutable_constant();
  (*attrs)->set_dtype(dtype);
  assign((*attrs)->mutable_shape(), shape);
  return node;
}

Value GraphBuilder::constant(DType dtype, std::vector<int64_t> shape,
                             std::string bytes) {
  v1::ConstantAttrs *attrs;
  v1::Node node = constantNode(dtype, shape, &attrs);
  attrs->set_data(std::move(bytes));
  return state_->addNode(std::move(node), {});
}

Value GraphBuilder::scalar(double value, DType dtype) {
  return splat(value, dtype, {});
}

Value GraphBuilder::splat(double value, DType dtype,
                          std::vector<int64_t> shape) {
  v1::ConstantAttrs *attrs;
  v1::Node node = constantNode(dtype, shape, &attrs);
  attrs->set_splat(value);
  return state_->addNode(std::move(node), {});
}

Value GraphBuilder::seededUniform(DType dtype, std::vector<int64_t> shape,
                                  uint64_t seed, double low, double high) {
  v1::ConstantAttrs *attrs;
  v1::Node node = constantNode(dtype, shape, &attrs);
  attrs->mutable_seeded_uniform()->set_seed(seed);
  attrs->mutable_seeded_uniform()->set_low(low);
  attrs->mutable_seeded_uniform()->set_high(high);
  return state_->addNode(std::move(node), {});
}

Value GraphBuilder::storedTensor(DType dtype, std::vector<int64_t> shape,
                                 const std::string &tensorId) {
  v1::ConstantAttrs *attrs;
  v1::Node node = constantNode(dtype, shape, &attrs);
  attrs->set_tensor_id(tensorId);
  return state_->addNode(std::move(node), {});
}

Value GraphBuilder::iota(DType dtype, std::vector<Dim> dims,
                         int64_t dimension) {
  v1::Node node;
  node.set_op("iota");
  node.mutable_iota()->set_dtype(dtype);
  node.mutable_iota()->set_iota_dimension(dimension);
  if (!parseDims(dims, node.mutable_iota()->mutable_shape(), *state_))
    return Value();
  return state_->addNode(std::move(node), {});
}

Value GraphBuilder::unary(const std::string &op, Value x) {
  v1::Node node;
  node.set_op(op);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::convert(Value x, DType dtype) {
  v1::Node node;
  node.set_op("convert");
  node.mutable_convert()->set_dtype(dtype);
  return state_->addNode(std::move(node), {x});
}

/// Broadcasts a and b to their numpy-broadcast shape and applies `node`.
static Value broadcastBinary(GraphBuilder::State &s, v1::Node node, Value a,
                             Value b) {
  if (!s.usable({a, b}))
    return Value();
  const SymTensorType &ta = s.type(a), &tb = s.type(b);
  int64_t rank = std::max(ta.rank(), tb.rank());
  std::vector<SymExpr> dims(rank);
  const SymExpr one = SymExpr::constant(1);
  for (int64_t r = 0; r < rank; ++r) {
    int64_t ia = r - (rank - ta.rank()), ib = r - (rank - tb.rank());
    if (ia < 0 || (ib >= 0 && ta.dims[ia] == one)) {
      dims[r] = tb.dims[ib];
      continue;
    }
    if (ib < 0 || tb.dims[ib] == one) {
      dims[r] = ta.dims[ia];
      continue;
    }
    auto unified = unifyDims(ta.dims[ia], tb.dims[ib]);
    if (!unified) {
      s.fail(invalidArgument(node.op() + ": cannot broadcast " + ta.toString() +
                             " with " + tb.toString()));
      return Value();
    }
    dims[r] = *unified;
  }
  Value ba = s.broadcastTo(a, dims), bb = s.broadcastTo(b, dims);
  return s.addNode(std::move(node), {ba, bb});
}

Value GraphBuilder::binary(const std::string &op, Value a, Value b) {
  v1::Node node;
  node.set_op(op);
  return broadcastBinary(*state_, std::move(node), a, b);
}

Value GraphBuilder::compare(Value a, Value b, Comparison direction) {
  v1::Node node;
  node.set_op("compare");
  node.mutable_compare()->set_direction(
      static_cast<v1::CompareDirection>(static_cast<int>(direction) + 1));
  return broadcastBinary(*state_, std::move(node), a, b);
}

Value GraphBuilder::select(Value pred, Value onTrue, Value onFalse) {
  v1::Node node;
  node.set_op("select");
  return state_->addNode(std::move(node), {pred, onTrue, onFalse});
}

Value GraphBuilder::broadcastInDim(Value x, std::vector<Dim> shape,
                                   std::vector<int64_t> broadcastDimensions) {
  v1::Node node;
  node.set_op("broadcast_in_dim");
  auto *attrs = node.mutable_broadcast_in_dim();
  if (!parseDims(shape, attrs->mutable_shape(), *state_))
    return Value();
  assign(attrs->mutable_broadcast_dimensions(), broadcastDimensions);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::reshape(Value x, std::vector<Dim> shape) {
  v1::Node node;
  node.set_op("reshape");
  if (!parseDims(shape, node.mutable_reshape()->mutable_shape(), *state_))
    return Value();
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::transpose(Value x, std::vector<int64_t> permutation) {
  v1::Node node;
  node.set_op("transpose");
  assign(node.mutable_transpose()->mutable_permutation(), permutation);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::slice(Value x, std::vector<Dim> starts,
                          std::vector<Dim> limits,
                          std::vector<int64_t> strides) {
  v1::Node node;
  node.set_op("slice");
  auto *attrs = node.mutable_slice();
  for (auto [list, field] :
       {std::pair{&starts, attrs->mutable_start_indices()},
        std::pair{&limits, attrs->mutable_limit_indices()}})
    for (const Dim &dim : *list) {
      auto expr = parseDimExpr(dim.text());
      if (!expr) {
        state_->fail(expr.status().withContext("slice bound"));
        return Value();
      }
      *field->Add() = std::move(*expr);
    }
  assign(attrs->mutable_strides(), strides);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::concatenate(const std::vector<Value> &xs,
                                int64_t dimension) {
  v1::Node node;
  node.set_op("concatenate");
  node.mutable_concatenate()->set_dimension(dimension);
  return state_->addNode(std::move(node), xs);
}

Value GraphBuilder::pad(Value x, Value paddingValue, std::vector<int64_t> low,
                        std::vector<int64_t> high,
                        std::vector<int64_t> interior) {
  v1::Node node;
  node.set_op("pad");
  assign(node.mutable_pad()->mutable_edge_padding_low(), low);
  assign(node.mutable_pad()->mutable_edge_padding_high(), high);
  assign(node.mutable_pad()->mutable_interior_padding(), interior);
  return state_->addNode(std::move(node), {x, paddingValue});
}

Value GraphBuilder::gather(Value x, Value indices, int64_t axis) {
  v1::Node node;
  node.set_op("gather");
  node.mutable_gather()->set_axis(axis);
  return state_->addNode(std::move(node), {x, indices});
}

Value GraphBuilder::scatter(Value x, Value indices, Value updates,
                            ScatterMode mode) {
  v1::Node node;
  node.set_op("scatter");
  node.mutable_scatter()->set_reduction(
      static_cast<v1::ScatterReduction>(static_cast<int>(mode) + 1));
  return state_->addNode(std::move(node), {x, indices, updates});
}

Value GraphBuilder::argsort(Value x, int64_t axis, bool descending) {
  v1::Node node;
  node.set_op("argsort");
  node.mutable_argsort()->set_axis(axis);
  node.mutable_argsort()->set_descending(descending);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::cumulative(Value x, int64_t axis, Reduction kind,
                               bool exclusive, bool reverse) {
  v1::Node node;
  node.set_op("cumulative");
  auto *a = node.mutable_cumulative();
  a->set_axis(axis);
  a->set_kind(static_cast<v1::ReduceKind>(static_cast<int>(kind) + 1));
  a->set_exclusive(exclusive);
  a->set_reverse(reverse);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::checkIndex(Value indices, Value x, int64_t axis,
                               bool allowNegative, const std::string &what) {
  v1::Node node;
  node.set_op("check_index");
  node.mutable_check_index()->set_axis(axis);
  node.mutable_check_index()->set_allow_negative(allowNegative);
  node.mutable_check_index()->set_what(what);
  return state_->addNode(std::move(node), {indices, x});
}

Value GraphBuilder::reduce(Value x, std::vector<int64_t> dimensions,
                           Reduction kind) {
  v1::Node node;
  node.set_op("reduce");
  node.mutable_reduce()->set_kind(
      static_cast<v1::ReduceKind>(static_cast<int>(kind) + 1));
  assign(node.mutable_reduce()->mutable_dimensions(), dimensions);
  return state_->addNode(std::move(node), {x});
}

Value GraphBuilder::dotGeneral(Value lhs, Value rhs,
                               std::vector<int64_t> lhsBatch,
                               std::vector<int64_t> rhsBatch,
                               std::vector<int64_t> lhsContracting,
                               std::vector<int64_t> rhsContracting) {
  v1::Node node;
  node.set_op("dot_general");
  auto *attrs = node.mutable_dot_general();
  assign(attrs->mutable_lhs_batch_dimensions(), lhsBatch);
  assign(attrs->mutable_rhs_batch_dimensions(), rhsBatch);
  assign(attrs->mutable_lhs_contracting_dimensions(), lhsContracting);
  assign(attrs->mutable_rhs_contracting_dimensions(), rhsContracting);
  return state_->addNode(std::move(node), {lhs, rhs});
}

Value GraphBuilder::convolution(Value input, Value weights,
                                std::vector<int64_t> strides,
                                std::vector<int64_t> dilations,
                                std::vector<int64_t> paddingLow,
                                std::vector<int64_t> paddingHigh,
                                int64_t groups) {
  v1::Node node;
  node.set_op("convolution");
  auto *attrs = node.mutable_convolution();
  assign(attrs->mutable_strides(), strides);
  assign(attrs->mutable_dilations(), dilations);
  assign(attrs->mutable_padding_low(), paddingLow);
  assign(attrs->mutable_padding_high(), paddingHigh);
  attrs->set_groups(groups);
  return state_->addNode(std::move(node), {input, weights});
}

Value GraphBuilder::nonzero(Value x, std::string countSymbol) {
  State &s = *state_;
  for (int k = 0; countSymbol.empty(); ++k) {
    std::string name = k == 0 ? "count" : "count_" + std::to_string(k);
    if (!s.symbols.count(name))
      countSymbol = name;
  }
  s.symbols.insert(countSymbol);
  v1::Node node;
  node.set_op("nonzero");
  node.mutable_nonzero()->set_count_symbol(countSymbol);
  return s.addNode(std::move(node), {x});
}

Value GraphBuilder::dimSize(Value x, int64_t dimension) {
  v1::Node node;
  node.set_op("dim_size");
  node.mutable_dim_size()->set_dimension(dimension);
  return state_->addNode(std::move(node), {x});
}

void GraphBuilder::setNodeNamePrefix(std::string prefix) {
  constexpr size_t kKept = 256; // names stay well inside the name limit
  if (prefix.size() > kKept)
    prefix = prefix.substr(prefix.size() - kKept);
  state_->nodeNamePrefix = prefix.empty() ? "" : prefix + "/";
}

void GraphBuilder::output(Value x, const std::string &name) {
  State &s = *state_;
  if (!s.usable({x}))
    return;
  std::string &current = s.names[x.id()];
  bool isInput = x.id() < s.graph.inputs_size() &&
                 s.graph.inputs(x.id()).name() == current;
  if (!name.empty() && name != current) {
    for (const std::string &out : s.graph.outputs())
      if (out == current) {
        s.fail(invalidArgument("output '" + name +
                               "': the value is already "
                               "the output '" +
                               current + "'"));
        return;
      }
    if (isInput) {
      s.fail(invalidArgument("output '" + name +
                             "': cannot rename parameter '" + current + "'"));
      return;
    }
    if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) {
      s.fail(invalidArgument("output '" + name + "': duplicate name"));
      return;
    }
    for (v1::Node &node : *s.graph.mutable_nodes()) {
      if (node.name() == current)
        node.set_name(name);
      for (std::string &operand : *node.mutable_operands())
        if (operand == current)
          operand = name;
    }
    for (std::string &out : *s.graph.mutable_outputs())
      if (out == current)
        out = name;
    current = name;
    s.userNames.insert(name);
  }
  s.graph.add_outputs(current);
}

const Status &GraphBuilder::status() const { return state_->error; }

int64_t GraphBuilder::rank(Value x) const {
  return state_->usable({x}) ? state_->type(x).rank() : -1;
}

std::vector<Dim> GraphBuilder::dims(Value x) const {
  std::vector<Dim> result;
  if (!state_->usable({x}))
    return result;
  for (const SymExpr &dim : state_->type(x).dims) {
    std::vector<std::string> symbols = dim.leafSymbols();
    bool fresh = std::any_of(symbols.begin(), symbols.end(), isFreshSymbolName);
    result.push_back(fresh ? Dim("?") : Dim(dim.toString()));
  }
  return result;
}

DType GraphBuilder::dtype(Value x) const {
  return state_->usable({x}) ? state_->type(x).dtype : v1::DTYPE_UNSPECIFIED;
}

std::string GraphBuilder::typeString(Value x) const {
  return state_->usable({x}) ? state_->type(x).toString() : "<invalid>";
}

StatusOr<v1::Graph> GraphBuilder::build() const {
  if (!state_->error.isOk())
    return state_->error;
  ANYSHAPE_RETURN_IF_ERROR(validateGraph(state_->graph).status());
  return state_->graph;
}

} // namespace anyshape::client
