// Dims as text and back: "batch*seq", "2*seq + 1", "768", "?".
//
// The builder, the CLI and error messages share this one spelling, the same
// one SymExpr::toString prints.
#pragma once

#include "SymExpr.h"
#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <functional>
#include <optional>
#include <string_view>

namespace anyshape {

/// Parses a sum of terms, each an integer, a product of symbols, or an
/// integer times a product of symbols ("2*seq + 1", "batch*seq", "seq - 1").
StatusOr<v1::DimExpr> parseDimExpr(std::string_view text);

/// Parses one wire dim: an integer (size; -1 allowed), "?" (anonymous), a
/// symbol, or an expression.
StatusOr<v1::Dim> parseDim(std::string_view text);

/// A wire expression as a polynomial, each symbol renamed by `rename`
/// (identity by default); nullopt on int64 overflow.
std::optional<SymExpr>
symExprOf(const v1::DimExpr &expr,
          const std::function<std::string(const std::string &)> &rename = {});

/// Reads SymExpr::toString's output back, fresh symbols ("?3") included;
/// nullopt if `text` is not such an expression.
std::optional<SymExpr> parseSymExpr(std::string_view text);

/// The wire form of a dim, or nullopt when it involves a fresh symbol
/// ("?3") that has no name on the wire.
std::optional<v1::Dim> toWireDim(const SymExpr &dim);

} // namespace anyshape
