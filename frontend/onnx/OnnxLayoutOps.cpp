// The ops that move elements without computing new ones: Split, Tile, Pad
// (constant, edge, reflect and wrap), Trilu, Einsum, DepthToSpace and
// SpaceToDepth. Each becomes the
// op set's slices, broadcasts, gathers and dot_generals; the sizes stay
// dim expressions ("seq + 2" after a pad, "3*seq" after a tile), so a
// model that uses them still compiles once for every shape.
//
// The modes of Pad other than constant read the input at computed
// positions: for each padded axis an index vector over the result's
// extent says which input element lands where (clamped for edge, folded
// for reflect, taken modulo the size for wrap), and a gather takes it.
#include "frontend/onnx/OnnxNode.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace anyshape::onnx {
namespace {

using client::Comparison;

/// Split into outputs along `axis`: by the sizes of input 1 (or the
/// `split` attribute before opset 13), else into equal parts (the last
/// smaller, from opset 18, when the size does not divide).
Status split(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis,
                            n.axis(n.attrInt("axis", 0), n.rank(x)));
  const std::string size = dims[axis].text();
  auto outputs = static_cast<int64_t>(n.proto.output_size());
  std::vector<Dim> parts;
  if (n.proto.input_size() > 1 && !n.proto.input(1).empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(parts, n.knownDimsInput(1));
  } else if (std::optional<std::vector<int64_t>> given = n.attrInts("split")) {
    parts.assign(given->begin(), given->end());
  } else {
    int64_t count = n.attrInt("num_outputs", outputs);
    if (count < 1)
      return n.error("num_outputs is " + std::to_string(count));
    if (std::optional<int64_t> s = dimNumber(size)) {
      int64_t chunk = *s / count + (*s % count != 0);
      if (*s % count != 0 && n.state.opset < 18)
        return n.error("cannot split a dim of " + size + " into " +
                       std::to_string(count) + " equal parts");
      for (int64_t k = 0; k < count; ++k)
        parts.emplace_back(std::clamp<int64_t>(*s - k * chunk, 0, chunk));
    } else {
      // Whole parts, or (opset 18: the last part smaller) halves of
      // ceil(size / 2) and the rest; more uneven parts would need a clamp.
      std::optional<SymExpr> total = symExpr(size);
      std::optional<SymExpr> chunk =
          total ? total->divideExact(SymExpr::constant(count)) : std::nullopt;
      std::optional<SymExpr> bumped =
          total ? SymExpr::add(*total, SymExpr::constant(1)) : std::nullopt;
      std::optional<SymExpr> first =
          bumped ? SymExpr::floorDiv(*bumped, 2) : std::nullopt;
      std::optional<SymExpr> rest =
          first ? SymExpr::sub(*total, *first) : std::nullopt;
      if (chunk)
        parts.assign(static_cast<size_t>(count), Dim(chunk->toString()));
      else if (count == 2 && n.state.opset >= 18 && rest)
        parts = {Dim(first->toString()), Dim(rest->toString())};
      else
        return n.error("cannot split the dim " + size + " into " +
                       std::to_string(count) +
                       " equal parts (not a whole dim expression)");
    }
  }
  if (static_cast<int64_t>(parts.size()) != outputs)
    return n.error("splits into " + std::to_string(parts.size()) +
                   " parts but has " + std::to_string(outputs) + " outputs");
  std::optional<std::string> sum = "0";
  for (size_t k = 0; k < parts.size(); ++k) {
    std::optional<int64_t> number = dimNumber(parts[k].text());
    if (number && *number < 0)
      return n.error("part " + std::to_string(k) + " has negative size " +
                     parts[k].text());
    if (!(sum = arithmetic("Add", *sum, parts[k].text())))
      return n.error("cannot place part " + std::to_string(k));
  }
  // A part that ended short of the dim would drop elements silently. A
  // dim the parts may or may not cover (a count of the experts a batch
  // routes to, split into as many as the exporter's trace saw) is
  // reshaped to their sum, which the reshape checks when the run knows
  // the dim, as ONNX Runtime checks the split.
  if (std::optional<std::string> rest = arithmetic("Sub", size, *sum);
      !rest || *rest != "0") {
    if (dimNumber(size) && dimNumber(*sum))
      return n.error("the parts add up to " + *sum + ", but the dim is " +
                     size);
    dims[axis] = Dim(*sum);
    x = n.b.reshape(x, dims);
  }
  std::string offset = "0";
  std::vector<Dim> starts(dims.size(), Dim(0)), limits = dims;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::string end = *arithmetic("Add", offset, parts[k].text());
    starts[axis] = Dim(offset);
    limits[axis] = Dim(end);
    ANYSHAPE_RETURN_IF_ERROR(n.define(n.b.slice(x, starts, limits), k));
    offset = end;
  }
  return Status::ok();
}

/// Tile: x broadcast to [r0, d0, r1, d1, ...] (dim i of x at 2i + 1), then
/// each pair merged: element order is exactly numpy's tile.
/// `x` tiled along `axis` to `product` (= repeat * its size) by a gather
/// of position i mod size: rank-neutral, for a tensor of the largest rank.
Value tileByGather(Node &n, Value x, int64_t axis, const Dim &product) {
  client::GraphBuilder &b = n.b;
  Value position = b.iota(v1::DTYPE_I64, {product}, 0);
  Value size = b.broadcastInDim(b.dimSize(x, axis), {product}, {});
  Value index = b.sub(position, b.mul(b.div(position, size), size));
  return b.gather(x, index, axis);
}

/// Tile: each repeated dim d becomes [repeat, d] merged into one. All at
/// once (one broadcast and a reshape) when the spread rank fits the
/// limit; else one dim at a time (a GPT-J export tiles a 5-D tensor).
Status tile(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> repeats, n.knownDimsInput(1));
  std::vector<Dim> dims = n.dims(x);
  if (repeats.size() != dims.size())
    return n.error("has " + std::to_string(repeats.size()) +
                   " repeats for rank " + std::to_string(dims.size()));
  std::vector<Dim> merged;
  std::vector<size_t> tiled;
  for (size_t d = 0; d < dims.size(); ++d) {
    std::optional<int64_t> r = dimNumber(repeats[d].text());
    if (r && *r < 0)
      return n.error("repeat " + repeats[d].text() + " is negative");
    std::optional<std::string> product =
        arithmetic("Mul", repeats[d].text(), dims[d].text());
    if (!product)
      return n.error("cannot multiply " + dims[d].text() + " by " +
                     repeats[d].text());
    merged.emplace_back(*product);
    if (!r || *r != 1)
      tiled.push_back(d);
  }
  if (tiled.empty())
    return n.define(x);
  auto spreadAlong = [&](Value v, const std::vector<Dim> &shape,
                         const std::vector<size_t> &axes) {
    std::vector<Dim> spread;
    std::vector<int64_t> mapping;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (std::find(axes.begin(), axes.end(), d) != axes.end())
        spread.push_back(repeats[d]);
      mapping.push_back(static_cast<int64_t>(spread.size()));
      spread.push_back(shape[d]);
    }
    return n.b.broadcastInDim(v, spread, mapping);
  };
  const size_t maxRank = static_cast<size_t>(GraphLimits{}.maxRank);
  if (dims.size() + tiled.size() <= maxRank)
    return n.define(n.b.reshape(spreadAlong(x, dims, tiled), merged));
  std::vector<Dim> shape = dims;
  for (size_t d : tiled) {
    if (dims.size() + 1 <= maxRank) {
      std::vector<Dim> next = shape;
      next[d] = merged[d];
      x = n.b.reshape(spreadAlong(x, shape, {d}), next);
    } else {
      x = tileByGather(n, x, static_cast<int64_t>(d), merged[d]);
    }
    shape[d] = merged[d];
  }
  return n.define(x);
}

/// Trilu: the upper (j - i >= k) or lower (j - i <= k) triangle of the
/// last two dims, zeros elsewhere; k may be a run-time value.
Status trilu(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  if (dims.size() < 2)
    return n.error("needs rank 2 or more");
  Value k = n.b.scalar(0.0, v1::DTYPE_I64);
  if (n.inputs.size() > 1 && n.inputs[1].isValid())
    k = n.b.reshape(n.b.convert(n.inputs[1], v1::DTYPE_I64), {});
  std::vector<Dim> square = {dims[dims.size() - 2], dims.back()};
  Value diagonal = n.b.sub(indexAlong(n, square, 1), indexAlong(n, square, 0));
  bool upper = n.attrInt("upper", 1) != 0;
  Value keep =
      n.b.compare(diagonal, k, upper ? Comparison::Ge : Comparison::Le);
  ANYSHAPE_ASSIGN_OR_RETURN(keep, broadcastTo(n, keep, dims));
  Value zeros = n.b.broadcastInDim(n.b.scalar(0.0, n.b.dtype(x)), dims, {});
  return n.define(n.b.select(keep, x, zeros));
}

/// The input positions (i64[extent + low + high]) that Pad's `mode` reads
/// for each result position along an axis of run-time size `extent`.
Value padSource(Node &n, const std::string &mode, const Dim &length,
                int64_t low, Value extent) {
  auto i64 = [&](double v) { return n.b.scalar(v, v1::DTYPE_I64); };
  Value position = n.b.sub(indexAlong(n, {length}, 0), i64(low));
  // a - (a / m) * m: the remainder of a truncating division.
  auto remainder = [&](Value a, Value m) {
    return n.b.sub(a, n.b.mul(n.b.div(a, m), m));
  };
  if (mode == "edge")
    return n.b.min(n.b.max(position, i64(0)), n.b.sub(extent, i64(1)));
  if (mode == "wrap") {
    Value r = remainder(position, extent);
    return remainder(n.b.add(r, extent), extent);
  }
  // reflect: periodic with period 2 (extent - 1), mirrored in each period.
  Value period = n.b.max(n.b.mul(n.b.sub(extent, i64(1)), i64(2)), i64(1));
  Value folded = remainder(n.b.abs(position), period);
  Value inside = n.b.compare(folded, extent, Comparison::Lt);
  return n.b.select(inside, folded, n.b.sub(period, folded));
}

Status pad(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  auto r = static_cast<int64_t>(dims.size());
  std::string mode = n.attrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" &&
      mode != "wrap")
    return n.error("mode '" + mode +
                   "' is not constant, edge, reflect or wrap");
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> amounts, n.knownDimsInput(1));
  std::vector<int64_t> axes;
  if (n.proto.input_size() > 3 && !n.proto.input(3).empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> given, n.knownInput(3));
    for (int64_t a : given) {
      ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis, n.axis(a, r));
      axes.push_back(axis);
    }
  } else {
    for (int64_t a = 0; a < r; ++a)
      axes.push_back(a);
  }
  if (amounts.size() != 2 * axes.size())
    return n.error("has " + std::to_string(amounts.size()) + " pads for " +
                   std::to_string(axes.size()) + " axes");
  // Pads known as numbers are the pad op's; pads known only as sizes (a
  // window's remainder, `(window - h mod window) mod window`) are blocks
  // of the fill concatenated on, not negative at run time.
  std::vector<int64_t> low(r, 0), high(r, 0);
  std::vector<Dim> lowBlock(r, Dim(0)), highBlock(r, Dim(0));
  bool blocks = false;
  for (size_t k = 0; k < axes.size(); ++k)
    for (bool first : {true, false}) {
      const Dim &amount = amounts[first ? k : k + axes.size()];
      std::optional<int64_t> number = dimNumber(amount.text());
      (first ? low : high)[axes[k]] = number.value_or(0);
      if (!number) {
        (first ? lowBlock : highBlock)[axes[k]] = amount;
        blocks = true;
      }
    }
  if (blocks && mode != "constant")
    return n.error("mode '" + mode + "' pads by amounts that depend on the " +
                   "input's sizes; only the constant mode takes them");
  if (mode == "constant") {
    Value fill = n.b.scalar(0.0, n.b.dtype(x));
    if (n.inputs.size() > 2 && n.inputs[2].isValid())
      fill = n.b.reshape(n.inputs[2], {});
    x = n.b.pad(x, fill, low, high);
    auto block = [&](int64_t a, const Dim &amount) {
      std::vector<Dim> shape = n.dims(x);
      shape[a] = amount;
      return n.b.broadcastInDim(fill, shape, {});
    };
    for (int64_t a = 0; a < r && blocks; ++a) {
      bool before = lowBlock[a].text() != "0",
           after = highBlock[a].text() != "0";
      if (!before && !after)
        continue;
      std::vector<Value> parts;
      if (before)
        parts.push_back(block(a, lowBlock[a]));
      parts.push_back(x);
      if (after)
        parts.push_back(block(a, highBlock[a]));
      x = n.b.concatenate(parts, a);
    }
    return n.define(x);
  }
  for (int64_t a = 0; a < r; ++a) {
    if (low[a] == 0 && high[a] == 0)
      continue;
    if (mode == "wrap" && (low[a] < 0 || high[a] < 0)) {
      // A negative wrap pad crops first, and what is left wraps (ONNX
      // Runtime, and torch's circular pad): [0, 1, 2, 3] by [-1, 1] is
      // [1, 2, 3, 1]. Edge and reflect read the same either way.
      std::vector<Dim> starts(r, Dim(0)), limits = n.dims(x);
      std::optional<std::string> limit =
          high[a] < 0
              ? arithmetic("Add", dims[a].text(), std::to_string(high[a]))
              : std::optional<std::string>(dims[a].text());
      if (!limit)
        return n.error("cannot crop the dim " + dims[a].text());
      // The slice's own check fails the run where nothing would be left.
      starts[a] = Dim(std::max<int64_t>(-low[a], 0));
      limits[a] = Dim(*limit);
      x = n.b.slice(x, starts, limits);
      dims[a] = n.dims(x)[a];
      low[a] = std::max<int64_t>(low[a], 0);
      high[a] = std::max<int64_t>(high[a], 0);
      if (low[a] == 0 && high[a] == 0)
        continue;
    }
    // Added one at a time: low + high alone may overflow (SymExpr checks).
    std::optional<std::string> grown =
        arithmetic("Add", dims[a].text(), std::to_string(low[a]));
    std::optional<std::string> length =
        grown ? arithmetic("Add", *grown, std::to_string(high[a]))
              : std::nullopt;
    if (!length)
      return n.error("cannot pad the dim " + dims[a].text());
    Value extent = n.b.dimSize(x, a);
    Value source = padSource(n, mode, Dim(*length), low[a], extent);
    x = n.b.gather(x, source, a);
  }
  return n.define(x);
}

/// One operand of an einsum and the subscript letter of each of its dims.
struct Term {
  Value value;
  std::string labels;
};

/// `t` with the labels not in `keep` summed out.
Term sumOut(Node &n, Term t, const std::string &keep) {
  std::vector<int64_t> gone;
  std::string left;
  for (size_t d = 0; d < t.labels.size(); ++d) {
    if (keep.find(t.labels[d]) == std::string::npos)
      gone.push_back(static_cast<int64_t>(d));
    else
      left += t.labels[d];
  }
  if (gone.empty())
    return t;
  return {n.b.reduce(t.value, gone, client::Reduction::Sum), left};
}

/// The subscripts of one operand of rank `rank`, with "..." spelled out as
/// the characters '0'.. (right-aligned, as numpy broadcasts).
StatusOr<std::string> expandEllipsis(Node &n, std::string subscripts,
                                     int64_t rank, size_t &ellipsisRank) {
  size_t at = subscripts.find("...");
  if (at == std::string::npos)
    return subscripts;
  auto named = static_cast<int64_t>(subscripts.size() - 3);
  if (named > rank)
    return n.error("subscripts '" + subscripts + "' name more dims than " +
                   std::to_string(rank));
  std::string spelled;
  for (int64_t k = 0; k < rank - named; ++k)
    spelled += static_cast<char>('0' + k);
  ellipsisRank = std::max(ellipsisRank, spelled.size());
  return subscripts.substr(0, at) + spelled + subscripts.substr(at + 3);
}

Status einsum(Node &n) {
  const ::onnx::AttributeProto *eq = n.attribute("equation");
  if (!eq)
    return n.error("has no equation");
  std::string equation;
  for (char c : eq->s())
    if (c != ' ')
      equation += c;
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> subscripts(1);
  for (char c : lhs) {
    if (c == ',')
      subscripts.emplace_back();
    else
      subscripts.back() += c;
  }
  if (subscripts.size() != n.inputs.size())
    return n.error("equation has " + std::to_string(subscripts.size()) +
                   " operands but the node has " +
                   std::to_string(n.inputs.size()) + " inputs");
  std::vector<Term> terms;
  size_t ellipsisRank = 0;
  for (size_t k = 0; k < subscripts.size(); ++k) {
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(k));
    ANYSHAPE_ASSIGN_OR_RETURN(
        std::string labels,
        expandEllipsis(n, subscripts[k], n.rank(x), ellipsisRank));
    if (static_cast<int64_t>(labels.size()) != n.rank(x))
      return n.error("subscripts '" + subscripts[k] + "' do not match rank " +
                     std::to_string(n.rank(x)));
    for (char c : labels) {
      if (!std::isalnum(static_cast<unsigned char>(c)))
        return n.error("equation '" + eq->s() + "' is malformed");
      if (std::count(labels.begin(), labels.end(), c) > 1)
        return n.error("a subscript repeated within an operand (a diagonal) "
                       "is not supported");
    }
    terms.push_back({x, labels});
  }
  // The output: as written, or numpy's implicit one (the ellipsis, then
  // the letters that appear once, in alphabetical order).
  std::string output;
  if (arrow != std::string::npos) {
    std::string written = equation.substr(arrow + 2);
    size_t at = written.find("...");
    std::string spelled;
    for (size_t k = 0; k < ellipsisRank; ++k)
      spelled += static_cast<char>('0' + k);
    output = at == std::string::npos
                 ? written
                 : written.substr(0, at) + spelled + written.substr(at + 3);
  } else {
    std::map<char, int> uses;
    for (const Term &t : terms)
      for (char c : t.labels)
        ++uses[c];
    for (const auto &[c, count] : uses)
      if (count == 1 || std::isdigit(static_cast<unsigned char>(c)))
        output += c;
  }
  // The size of each label, which every operand naming it must agree on
  // (no broadcasting: numpy's einsum, which ONNX follows). Sizes that
  // differ only in their symbols (an exporter names each input's dims)
  // meet in a dot_general, as a batch or contracting dim, whose shape
  // check requires them equal when the graph runs.
  std::map<char, std::string> sizes;
  for (const Term &t : terms)
    for (size_t d = 0; d < t.labels.size(); ++d) {
      std::string size = n.dims(t.value)[d].text();
      auto [it, fresh] = sizes.emplace(t.labels[d], size);
      if (!fresh && it->second != size && dimNumber(it->second) &&
          dimNumber(size))
        return n.error(std::string("subscript '") + t.labels[d] +
                       "' has sizes " + it->second + " and " + size +
                       " (broadcasting is not supported)");
    }
  for (char c : output)
    if (!sizes.count(c) || std::count(output.begin(), output.end(), c) > 1)
      return n.error("output subscripts '" + output + "' are malformed");
  // A label wanted later: by the output or by an operand not yet taken.
  auto wanted = [&](size_t from) {
    std::string labels = output;
    for (size_t k = from; k < terms.size(); ++k)
      labels += terms[k].labels;
    return labels;
  };
  Term acc = sumOut(n, terms[0], wanted(1));
  for (size_t k = 1; k < terms.size(); ++k) {
    std::string later = wanted(k + 1);
    Term next = sumOut(n, terms[k], later + acc.labels);
    std::vector<int64_t> lhsBatch, rhsBatch, lhsContract, rhsContract;
    std::string batch, lhsFree, rhsFree;
    for (size_t d = 0; d < acc.labels.size(); ++d) {
      char c = acc.labels[d];
      size_t in = next.labels.find(c);
      if (in == std::string::npos) {
        lhsFree += c;
      } else if (later.find(c) != std::string::npos) {
        lhsBatch.push_back(static_cast<int64_t>(d));
        rhsBatch.push_back(static_cast<int64_t>(in));
        batch += c;
      } else {
        lhsContract.push_back(static_cast<int64_t>(d));
        rhsContract.push_back(static_cast<int64_t>(in));
      }
    }
    for (char c : next.labels)
      if (acc.labels.find(c) == std::string::npos)
        rhsFree += c;
    acc = sumOut(n,
                 {n.b.dotGeneral(acc.value, next.value, lhsBatch, rhsBatch,
                                 lhsContract, rhsContract),
                  batch + lhsFree + rhsFree},
                 later);
  }
  acc = sumOut(n, acc, output);
  std::vector<int64_t> permutation;
  for (char c : output)
    permutation.push_back(static_cast<int64_t>(acc.labels.find(c)));
  bool identity = true;
  for (size_t d = 0; d < permutation.size(); ++d)
    identity = identity && permutation[d] == static_cast<int64_t>(d);
  return n.define(identity ? acc.value : n.b.transpose(acc.value, permutation));
}

/// DepthToSpace and SpaceToDepth on [N, C, H, W] with block b: a reshape
/// that splits the channels (or H and W) by b, a transpose, and a reshape
/// that merges them back. DepthToSpace's DCR mode takes the block from the
/// channels' outer part, CRD from their inner part (PixelShuffle's).
Status blocksAndSpace(Node &n, bool toSpace) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  int64_t b = n.attrInt("blocksize", 0);
  if (n.rank(x) != 4)
    return n.error("needs an input [N, C, H, W]");
  if (b < 1 || b > 4096)
    return n.error("blocksize " + std::to_string(b) + " is not in [1, 4096]");
  std::vector<Dim> d = n.dims(x);
  std::optional<int64_t> channels = dimNumber(d[1].text());
  if (!channels)
    return n.error("needs a static channel count");
  auto times = [&](const Dim &dim, int64_t k) -> StatusOr<Dim> {
    std::optional<std::string> product =
        arithmetic("Mul", dim.text(), std::to_string(k));
    if (!product)
      return n.error("cannot multiply " + dim.text() + " by the block");
    return Dim(*product);
  };
  if (toSpace) {
    if (*channels % (b * b))
      return n.error(
          "channels " + std::to_string(*channels) +
          " are not a multiple of blocksize^2 = " + std::to_string(b * b));
    int64_t c = *channels / (b * b);
    bool crd = n.attrString("mode", "DCR") == "CRD";
    if (!crd && n.attrString("mode", "DCR") != "DCR")
      return n.error("mode '" + n.attrString("mode", "DCR") +
                     "' is not DCR or CRD");
    std::vector<Dim> split =
        crd ? std::vector<Dim>{d[0], Dim(c), Dim(b), Dim(b), d[2], d[3]}
            : std::vector<Dim>{d[0], Dim(b), Dim(b), Dim(c), d[2], d[3]};
    std::vector<int64_t> order = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3}
                                     : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
    ANYSHAPE_ASSIGN_OR_RETURN(Dim h, times(d[2], b));
    ANYSHAPE_ASSIGN_OR_RETURN(Dim w, times(d[3], b));
    return n.define(n.b.reshape(n.b.transpose(n.b.reshape(x, split), order),
                                {d[0], Dim(c), h, w}));
  }
  // SpaceToDepth: [N, C, H/b, b, W/b, b] -> [N, b, b, C, H/b, W/b].
  std::optional<int64_t> height = dimNumber(d[2].text());
  std::optional<int64_t> width = dimNumber(d[3].text());
  if ((height && *height % b) || (width && *width % b))
    return n.error("height and width must be multiples of the block " +
                   std::to_string(b));
  // A symbolic side is its floor quotient: the reshape checks at run time
  // that the block divides it.
  auto blocks = [&](const Dim &side) {
    std::optional<std::string> exact =
        arithmetic("Div", side.text(), std::to_string(b));
    return exact ? *exact
                 : "(" + side.text() + ") floordiv " + std::to_string(b);
  };
  std::optional<std::string> h = blocks(d[2]), w = blocks(d[3]);
  std::vector<Dim> split = {d[0], d[1], Dim(*h), Dim(b), Dim(*w), Dim(b)};
  return n.define(
      n.b.reshape(n.b.transpose(n.b.reshape(x, split), {0, 3, 5, 1, 2, 4}),
                  {d[0], Dim(*channels * b * b), Dim(*h), Dim(*w)}));
}

} // namespace

void addLayoutRules(std::map<std::string, OpRule> &rules) {
  rules["Split"] = {{"axis", "split", "num_outputs"}, split};
  rules["Tile"] = {{}, tile};
  rules["Trilu"] = {{"upper"}, trilu};
  rules["Pad"] = {{"mode"}, pad};
  rules["Einsum"] = {{"equation"}, einsum};
  rules["DepthToSpace"] = {{"blocksize", "mode"},
                           [](Node &n) { return blocksAndSpace(n, true); }};
  rules["SpaceToDepth"] = {{"blocksize"},
                           [](Node &n) { return blocksAndSpace(n, false); }};
}

} // namespace anyshape::onnx
