// Substituting symbol sizes into a graph's dims and shape attributes.
#include "Specialize.h"

#include "DimText.h"

#include <set>

namespace anyshape {
namespace {

class Substitution {
public:
  explicit Substitution(const std::map<std::string, int64_t> &bindings)
      : bindings_(bindings) {}

  /// Bound symbols become sizes (a quotient of sizes, its value); others
  /// stay.
  Status apply(v1::DimExpr &expr) const {
    std::optional<SymExpr> e = symExprOf(expr);
    if (e)
      e = e->substitute(bindings_);
    std::optional<v1::DimExpr> wire = e ? toWireExpr(*e) : std::nullopt;
    if (!wire)
      return invalidArgument("specialising overflows int64");
    expr = std::move(*wire);
    return Status::ok();
  }

  Status apply(v1::Dim &dim) const {
    if (dim.kind_case() == v1::Dim::kSymbol) {
      auto it = bindings_.find(dim.symbol());
      if (it != bindings_.end())
        dim.set_size(it->second);
      return Status::ok();
    }
    if (dim.kind_case() != v1::Dim::kExpr)
      return Status::ok();
    ANYSHAPE_RETURN_IF_ERROR(apply(*dim.mutable_expr()));
    if (dim.expr().terms_size() == 0)
      dim.set_size(dim.expr().constant());
    return Status::ok();
  }

private:
  const std::map<std::string, int64_t> &bindings_;
};

} // namespace

StatusOr<v1::Graph>
specializeGraph(const v1::Graph &graph,
                const std::map<std::string, int64_t> &bindings) {
  std::set<std::string> symbols;
  for (const v1::Input &input : graph.inputs())
    for (const v1::Dim &dim : input.type().dims())
      if (dim.kind_case() == v1::Dim::kSymbol)
        symbols.insert(dim.symbol());
  for (const auto &[name, size] : bindings) {
    if (!symbols.count(name))
      return invalidArgument("cannot specialise '" + name +
                             "': no input dim is that symbol");
    if (size < 0)
      return invalidArgument("cannot specialise '" + name + "' to " +
                             std::to_string(size));
  }
  v1::Graph out = graph;
  Substitution s(bindings);
  for (v1::Input &input : *out.mutable_inputs())
    for (v1::Dim &dim : *input.mutable_type()->mutable_dims())
      ANYSHAPE_RETURN_IF_ERROR(s.apply(dim));
  for (v1::Node &node : *out.mutable_nodes()) {
    google::protobuf::RepeatedPtrField<v1::Dim> *dims = nullptr;
    if (node.has_broadcast_in_dim())
      dims = node.mutable_broadcast_in_dim()->mutable_shape();
    else if (node.has_reshape())
      dims = node.mutable_reshape()->mutable_shape();
    else if (node.has_iota())
      dims = node.mutable_iota()->mutable_shape();
    for (int i = 0; dims && i < dims->size(); ++i)
      ANYSHAPE_RETURN_IF_ERROR(s.apply(*dims->Mutable(i)));
    if (node.has_slice()) {
      for (v1::DimExpr &e : *node.mutable_slice()->mutable_start_indices())
        ANYSHAPE_RETURN_IF_ERROR(s.apply(e));
      for (v1::DimExpr &e : *node.mutable_slice()->mutable_limit_indices())
        ANYSHAPE_RETURN_IF_ERROR(s.apply(e));
    }
  }
  return out;
}

} // namespace anyshape
