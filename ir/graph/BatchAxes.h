// Which symbol a graph's rows are independent along: the proof that lets
// the server join requests into one run (dynamic batching) without one
// request's data reaching another's results.
//
// Rows along a symbol `b` are independent when every value of the graph is
// either shared (its type does not mention b, and it is computed from no
// value that does) or has rows along exactly one dim whose size is exactly
// b, row r computed only from rows r of the inputs (and shared values).
// Then running requests with n_1, n_2, ... rows concatenated along each
// input's b dim gives each request's outputs as rows n_1.., n_2.., ... of
// the joined run's, exactly as its own run would (up to the floating-point
// order of a library's sums).
//
// Only what an output depends on is checked (an importer leaves reads of
// a size no output uses). The proof is conservative, op by op: an op that
// reads across rows (a reduce, a contraction, a gather, a sort or running
// fold along b), reads b's value (iota or dim_size along it), or reshapes
// b into another dim fails it; so does any op it does not know.
// Invariant: a symbol proved here never joins requests whose results
// would differ from their own runs beyond that summation order.
#pragma once

#include "ir/graph/Validate.h"

#include <optional>
#include <string>
#include <vector>

namespace anyshape {

/// Where the batch symbol sits in each input and output: the dim index, or
/// kShared for a value that does not mention it (identical in every
/// request of a join: an input's bytes must be equal, an output is copied
/// to each).
struct BatchAxes {
  static constexpr int kShared = -1;
  std::string symbol;
  std::vector<int> inputAxes;  ///< indexed like graph.inputs()
  std::vector<int> outputAxes; ///< indexed like graph.outputs()
};

/// The proof for `symbol`; nullopt with `why` (naming the node that fails
/// it) when the rows along it are not shown independent.
std::optional<BatchAxes> batchAxesAlong(const v1::Graph &graph,
                                        const GraphInfo &info,
                                        const std::string &symbol,
                                        std::string *why = nullptr);

/// The first of the graph's named symbols (GraphInfo::symbols' order) that
/// is proved and that every input carries; nullopt if none is (`why`
/// gives the first symbol's reason).
std::optional<BatchAxes> findBatchAxes(const v1::Graph &graph,
                                       const GraphInfo &info,
                                       std::string *why = nullptr);

/// Requests' tensors as one: `parts` (each of the same dtype and shape but
/// along `axis`, with data of its shape's size) joined along `axis`, in
/// order. The caller checks the parts (validateTensor, equal dims).
v1::Tensor joinRows(const std::vector<const v1::Tensor *> &parts, int axis);
/// `joined` cut along `axis` into consecutive parts of `rows[k]` each
/// (their sum is the dim's size); `axis` kShared: a copy per part.
std::vector<v1::Tensor> splitRows(const v1::Tensor &joined, int axis,
                                  const std::vector<int64_t> &rows);

} // namespace anyshape
