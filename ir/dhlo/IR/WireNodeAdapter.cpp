//===- WireNodeAdapter.cpp - dhlo op attributes as a wire node --*- C++ -*-===//
//
// Reads a dhlo op's attribute dictionary into a v1::Node, the input of the
// wire format's shape rules (ir/graph/ShapeInference.h). This is how the
// dialect infers and verifies types with exactly the rules that validation
// and the reference evaluator use, instead of a second copy of them.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

#include "ir/graph/DimText.h"
#include "ir/graph/OpRegistry.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

class AttrReader {
public:
  AttrReader(DictionaryAttr attrs, std::string &error)
      : attrs_(attrs), error_(error) {}

  bool ints(StringRef name, google::protobuf::RepeatedField<int64_t> *out) {
    auto array = attrs_ ? attrs_.getAs<DenseI64ArrayAttr>(name) : nullptr;
    if (!array)
      return missing(name, "an i64 array");
    for (int64_t v : array.asArrayRef())
      out->Add(v);
    return true;
  }

  bool integer(StringRef name, int64_t &out) {
    auto value = attrs_ ? attrs_.getAs<IntegerAttr>(name) : nullptr;
    if (!value)
      return missing(name, "an integer");
    out = value.getInt();
    return true;
  }

  bool boolean(StringRef name, bool &out) {
    auto value = attrs_ ? attrs_.getAs<BoolAttr>(name) : nullptr;
    if (!value)
      return missing(name, "a bool");
    out = value.getValue();
    return true;
  }

  bool string(StringRef name, std::string &out) {
    auto value = attrs_ ? attrs_.getAs<StringAttr>(name) : nullptr;
    if (!value)
      return missing(name, "a string");
    out = value.getValue().str();
    return true;
  }

  bool dims(StringRef name, google::protobuf::RepeatedPtrField<v1::Dim> *out) {
    ShapeAttr shape = this->shape(name);
    if (!shape)
      return false;
    for (Attribute entry : shape.getDims()) {
      v1::Dim *dim = out->Add();
      if (auto size = llvm::dyn_cast<IntegerAttr>(entry)) {
        dim->set_size(size.getInt());
      } else if (auto text = llvm::dyn_cast<StringAttr>(entry)) {
        auto parsed = parseDim(text.getValue().str());
        if (!parsed)
          return fail("'" + name.str() + "': " + parsed.status().message());
        *dim = std::move(*parsed);
      } else {
        dim->set_dynamic(true);
      }
    }
    return true;
  }

  bool exprs(StringRef name,
             google::protobuf::RepeatedPtrField<v1::DimExpr> *out) {
    ShapeAttr shape = this->shape(name);
    if (!shape)
      return false;
    for (Attribute entry : shape.getDims()) {
      v1::DimExpr *expr = out->Add();
      if (auto size = llvm::dyn_cast<IntegerAttr>(entry)) {
        expr->set_constant(size.getInt());
      } else if (auto text = llvm::dyn_cast<StringAttr>(entry)) {
        auto parsed = parseDimExpr(text.getValue().str());
        if (!parsed)
          return fail("'" + name.str() + "': " + parsed.status().message());
        *expr = std::move(*parsed);
      } else {
        return fail("'" + name.str() + "' entries cannot be unknown (?)");
      }
    }
    return true;
  }

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

private:
  ShapeAttr shape(StringRef name) {
    auto shape = attrs_ ? attrs_.getAs<ShapeAttr>(name) : nullptr;
    if (!shape)
      missing(name, "a #dhlo.shape");
    return shape;
  }

  bool missing(StringRef name, const char *what) {
    return fail("needs attribute '" + name.str() + "' (" + what + ")");
  }

  DictionaryAttr attrs_;
  std::string &error_;
};

bool readCompare(AttrReader &r, v1::Node &node) {
  std::string direction;
  if (!r.string("direction", direction))
    return false;
  static const char *names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  for (int i = 0; i < 6; ++i)
    if (direction == names[i]) {
      node.mutable_compare()->set_direction(
          static_cast<v1::CompareDirection>(v1::COMPARE_EQ + i));
      return true;
    }
  return r.fail("direction '" + direction +
                "' is not one of EQ, NE, LT, LE, GT, GE");
}

/// The "kind" attribute (sum, max, min, prod) into `out`.
bool readReduceKind(AttrReader &r, v1::ReduceKind &out) {
  std::string kind;
  if (!r.string("kind", kind))
    return false;
  for (int k = v1::REDUCE_SUM; k <= v1::REDUCE_PROD; ++k)
    if (kind == reduceKindName(v1::ReduceKind(k))) {
      out = v1::ReduceKind(k);
      return true;
    }
  return r.fail("kind '" + kind + "' is not one of sum, max, min, prod");
}

bool readReduce(AttrReader &r, v1::Node &node) {
  v1::ReduceKind kind;
  if (!readReduceKind(r, kind) ||
      !r.ints("dimensions", node.mutable_reduce()->mutable_dimensions()))
    return false;
  node.mutable_reduce()->set_kind(kind);
  return true;
}

bool readCumulative(AttrReader &r, v1::Node &node) {
  v1::ReduceKind kind;
  int64_t axis = 0;
  bool exclusive = false, reverse = false;
  if (!readReduceKind(r, kind) || !r.integer("axis", axis) ||
      !r.boolean("exclusive", exclusive) || !r.boolean("reverse", reverse))
    return false;
  auto *a = node.mutable_cumulative();
  a->set_kind(kind);
  a->set_axis(axis);
  a->set_exclusive(exclusive);
  a->set_reverse(reverse);
  return true;
}

bool readScatter(AttrReader &r, v1::Node &node) {
  std::string reduction;
  if (!r.string("reduction", reduction))
    return false;
  for (int k = v1::SCATTER_REPLACE; k <= v1::SCATTER_MIN; ++k)
    if (reduction == scatterReductionName(v1::ScatterReduction(k))) {
      node.mutable_scatter()->set_reduction(v1::ScatterReduction(k));
      return true;
    }
  return r.fail("reduction '" + reduction +
                "' is not one of replace, add, mul, max, min");
}

} // namespace

FailureOr<v1::Node> toWireNode(StringRef opName, DictionaryAttr attributes,
                               std::string &error) {
  v1::Node node;
  StringRef op = opName;
  op.consume_front("dhlo.");
  node.set_op(op.str());
  AttrReader r(attributes, error);
  bool ok = true;
  if (op == "compare") {
    ok = readCompare(r, node);
  } else if (op == "reduce") {
    ok = readReduce(r, node);
  } else if (op == "scatter") {
    ok = readScatter(r, node);
  } else if (op == "cumulative") {
    ok = readCumulative(r, node);
  } else if (op == "argsort") {
    int64_t axis = 0;
    bool descending = false;
    ok = r.integer("axis", axis) && r.boolean("descending", descending);
    node.mutable_argsort()->set_axis(axis);
    node.mutable_argsort()->set_descending(descending);
  } else if (op == "convolution") {
    auto *a = node.mutable_convolution();
    int64_t groups = 0;
    ok = r.ints("strides", a->mutable_strides()) &&
         r.ints("dilations", a->mutable_dilations()) &&
         r.ints("padding_low", a->mutable_padding_low()) &&
         r.ints("padding_high", a->mutable_padding_high()) &&
         r.integer("groups", groups);
    a->set_groups(groups);
  } else if (op == "broadcast_in_dim") {
    auto *a = node.mutable_broadcast_in_dim();
    ok = r.dims("shape", a->mutable_shape()) &&
         r.ints("broadcast_dimensions", a->mutable_broadcast_dimensions());
  } else if (op == "reshape") {
    ok = r.dims("shape", node.mutable_reshape()->mutable_shape());
  } else if (op == "transpose") {
    ok = r.ints("permutation", node.mutable_transpose()->mutable_permutation());
  } else if (op == "slice") {
    auto *a = node.mutable_slice();
    ok = r.exprs("start_indices", a->mutable_start_indices()) &&
         r.exprs("limit_indices", a->mutable_limit_indices()) &&
         r.ints("strides", a->mutable_strides());
  } else if (op == "concatenate") {
    int64_t dimension = 0;
    ok = r.integer("dimension", dimension);
    node.mutable_concatenate()->set_dimension(dimension);
  } else if (op == "pad") {
    auto *a = node.mutable_pad();
    ok = r.ints("edge_padding_low", a->mutable_edge_padding_low()) &&
         r.ints("edge_padding_high", a->mutable_edge_padding_high()) &&
         r.ints("interior_padding", a->mutable_interior_padding());
  } else if (op == "gather") {
    int64_t axis = 0;
    ok = r.integer("axis", axis);
    node.mutable_gather()->set_axis(axis);
  } else if (op == "dot_general") {
    auto *a = node.mutable_dot_general();
    ok = r.ints("lhs_batch_dimensions", a->mutable_lhs_batch_dimensions()) &&
         r.ints("rhs_batch_dimensions", a->mutable_rhs_batch_dimensions()) &&
         r.ints("lhs_contracting_dimensions",
                a->mutable_lhs_contracting_dimensions()) &&
         r.ints("rhs_contracting_dimensions",
                a->mutable_rhs_contracting_dimensions());
  } else if (op == "dim_size") {
    int64_t dimension = 0;
    ok = r.integer("dimension", dimension);
    node.mutable_dim_size()->set_dimension(dimension);
  }
  if (!ok)
    return failure();
  return node;
}

} // namespace anyshape::dhlo
