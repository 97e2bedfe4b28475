// Canonical graph fingerprint (see Fingerprint.h for what it covers).
#include "Fingerprint.h"

#include "DimText.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <xxhash.h>

#include <cstring>
#include <map>

namespace anyshape {
namespace {

constexpr char kSchema[] = "anyshape.graph-fingerprint.v1";

/// A streaming XXH3-128 with typed, tagged writes: every field is preceded
/// by a tag so that distinct structures can never serialise alike.
class Hasher {
public:
  Hasher() {
    state_ = XXH3_createState();
    XXH3_128bits_reset(state_);
  }
  ~Hasher() { XXH3_freeState(state_); }
  Hasher(const Hasher &) = delete;
  Hasher &operator=(const Hasher &) = delete;

  void tag(char t) { bytes(&t, 1); }
  void u64(uint64_t v) {
    unsigned char le[8];
    for (int i = 0; i < 8; ++i)
      le[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(le, 8);
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    u64(bits);
  }
  void str(const std::string &s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  void bytes(const void *data, size_t size) {
    XXH3_128bits_update(state_, data, size);
  }
  void fingerprint(const Fingerprint &f) {
    u64(f.high);
    u64(f.low);
  }
  Fingerprint digest() const {
    XXH128_hash_t h = XXH3_128bits_digest(state_);
    return Fingerprint{h.high64, h.low64};
  }

private:
  XXH3_state_t *state_;
};

/// Symbols renamed by order of first use in the inputs: "s0", "s1", ...
class SymbolNumbering {
public:
  explicit SymbolNumbering(const v1::Graph &graph) {
    for (const v1::Input &input : graph.inputs())
      for (const v1::Dim &dim : input.type().dims()) {
        if (dim.kind_case() == v1::Dim::kSymbol)
          number(dim.symbol());
        if (dim.kind_case() == v1::Dim::kExpr)
          numberAll(dim.expr(), 0);
      }
  }

  std::string rename(const std::string &name) const {
    auto it = numbers_.find(name);
    return it == numbers_.end() ? "unbound:" + name
                                : "s" + std::to_string(it->second);
  }

  /// `expr` with renamed symbols, in SymExpr's canonical term order.
  std::string canonical(const v1::DimExpr &expr) const {
    auto e = symExprOf(
        expr, [this](const std::string &name) { return rename(name); });
    return e ? e->toString() : "overflow";
  }

  void hashDim(Hasher &h, const v1::Dim &dim) const {
    switch (dim.kind_case()) {
    case v1::Dim::kSize:
      h.tag('z');
      h.i64(dim.size());
      return;
    case v1::Dim::kSymbol:
      h.tag('s');
      h.str(rename(dim.symbol()));
      return;
    case v1::Dim::kExpr:
      h.tag('e');
      h.str(canonical(dim.expr()));
      return;
    default:
      h.tag('?'); // anonymous: unequal to everything, like a fresh symbol
      return;
    }
  }

private:
  /// In order of appearance, through quotients and extrema (nested as deep
  /// as reading one allows).
  void numberAll(const v1::DimExpr &expr, int depth) {
    for (const auto &term : expr.terms()) {
      for (const std::string &name : term.symbols())
        number(name);
      for (const auto &quotient : term.quotients())
        if (depth < 32)
          numberAll(quotient.dividend(), depth + 1);
      for (const auto &extreme : term.extrema())
        if (depth < 32) {
          numberAll(extreme.a(), depth + 1);
          numberAll(extreme.b(), depth + 1);
        }
    }
  }
  void number(const std::string &name) {
    numbers_.emplace(name, static_cast<int64_t>(numbers_.size()));
  }
  std::map<std::string, int64_t> numbers_;
};

void hashConstant(Hasher &h, const v1::ConstantAttrs &c) {
  h.tag('C');
  h.i64(c.dtype());
  h.u64(c.shape_size());
  for (int64_t d : c.shape())
    h.i64(d);
  switch (c.value_case()) {
  case v1::ConstantAttrs::kData:
    h.tag('d');
    h.u64(c.data().size());
    h.bytes(c.data().data(), c.data().size()); // in place: no copy
    return;
  case v1::ConstantAttrs::kSplat:
    h.tag('p');
    h.f64(c.splat());
    return;
  case v1::ConstantAttrs::kTensorId:
    h.tag('t'); // a content id: equal ids are equal bytes
    h.str(c.tensor_id());
    return;
  case v1::ConstantAttrs::kSeededUniform:
    h.tag('u');
    h.u64(c.seeded_uniform().seed());
    h.f64(c.seeded_uniform().low());
    h.f64(c.seeded_uniform().high());
    return;
  default:
    h.tag('-');
  }
}

/// Every attribute except constants': a copy with symbols renamed,
/// serialised deterministically. Attribute messages are small.
void hashAttributes(Hasher &h, const v1::Node &node,
                    const SymbolNumbering &symbols) {
  if (node.attrs_case() == v1::Node::kConstant)
    return hashConstant(h, node.constant());
  auto renameDims = [&](google::protobuf::RepeatedPtrField<v1::Dim> *dims) {
    for (v1::Dim &dim : *dims) {
      if (dim.kind_case() == v1::Dim::kSymbol)
        dim.set_symbol(symbols.rename(dim.symbol()));
      else if (dim.kind_case() == v1::Dim::kExpr)
        dim.set_symbol("expr:" + symbols.canonical(dim.expr()));
    }
  };
  auto renameExprs =
      [&](google::protobuf::RepeatedPtrField<v1::DimExpr> *exprs) {
        for (v1::DimExpr &expr : *exprs) {
          std::string canonical = symbols.canonical(expr);
          expr.Clear();
          expr.add_terms()->add_symbols("expr:" + canonical);
        }
      };
  // Only the attrs oneof is hashed here; name, op and operands are not.
  v1::Node kept;
  switch (node.attrs_case()) {
  case v1::Node::kBroadcastInDim:
    *kept.mutable_broadcast_in_dim() = node.broadcast_in_dim();
    renameDims(kept.mutable_broadcast_in_dim()->mutable_shape());
    break;
  case v1::Node::kReshape:
    *kept.mutable_reshape() = node.reshape();
    renameDims(kept.mutable_reshape()->mutable_shape());
    break;
  case v1::Node::kIota:
    *kept.mutable_iota() = node.iota();
    renameDims(kept.mutable_iota()->mutable_shape());
    break;
  case v1::Node::kSlice:
    *kept.mutable_slice() = node.slice();
    renameExprs(kept.mutable_slice()->mutable_start_indices());
    renameExprs(kept.mutable_slice()->mutable_limit_indices());
    break;
  default:
    kept = node;
    kept.clear_name();
    kept.clear_op();
    kept.clear_operands();
    break;
  }
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    kept.SerializeToCodedStream(&coded);
  }
  h.tag('A');
  h.str(bytes);
}

} // namespace

std::string Fingerprint::hex() const {
  char out[33];
  std::snprintf(out, sizeof out, "%016llx%016llx",
                static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return out;
}

Fingerprint fingerprintGraph(const v1::Graph &graph, const GraphInfo &info) {
  SymbolNumbering symbols(graph);
  std::vector<Fingerprint> inputHashes, nodeHashes(graph.nodes_size());
  for (int k = 0; k < graph.inputs_size(); ++k) {
    Hasher h;
    h.tag('I');
    h.u64(k);
    const v1::TensorType &type = graph.inputs(k).type();
    h.i64(type.dtype());
    h.u64(type.dims_size());
    for (const v1::Dim &dim : type.dims())
      symbols.hashDim(h, dim);
    inputHashes.push_back(h.digest());
  }
  auto hashOf = [&](const std::string &name) {
    ValueRef ref = info.values.at(name);
    return ref.isInput ? inputHashes[ref.index] : nodeHashes[ref.index];
  };
  for (int i : info.topologicalOrder) {
    const v1::Node &node = graph.nodes(i);
    Hasher h;
    h.tag('N');
    h.str(node.op());
    hashAttributes(h, node, symbols);
    h.u64(node.operands_size());
    for (const std::string &operand : node.operands())
      h.fingerprint(hashOf(operand));
    nodeHashes[i] = h.digest();
  }
  Hasher h;
  h.str(kSchema);
  h.u64(inputHashes.size());
  for (const Fingerprint &f : inputHashes)
    h.fingerprint(f);
  h.u64(graph.outputs_size());
  for (const std::string &name : graph.outputs())
    h.fingerprint(hashOf(name));
  return h.digest();
}

StatusOr<Fingerprint> fingerprintGraph(const v1::Graph &graph,
                                       const GraphLimits &limits) {
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info, validateGraph(graph, limits));
  return fingerprintGraph(graph, info);
}

} // namespace anyshape
