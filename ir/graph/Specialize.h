// Static specialisation ("static fallback"): a graph with some or all of
// its symbols bound to sizes. Every dim and attribute that mentions a
// bound symbol is rewritten, so the compiler sees static sizes there and
// folds the shape arithmetic; the result accepts only inputs with those
// sizes (anything else is INVALID_ARGUMENT at run time, like any other
// shape mismatch).
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <map>
#include <string>

namespace anyshape {

/// `graph` with `bindings` substituted. Errors if a binding names no symbol
/// of the graph's inputs, is negative, or makes an expression overflow.
StatusOr<v1::Graph>
specializeGraph(const v1::Graph &graph,
                const std::map<std::string, int64_t> &bindings);

} // namespace anyshape
