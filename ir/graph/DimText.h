// Dims as text and back: "batch*seq", "2*seq + 1", "768", "?",
// "(time + 1) floordiv 2", "seq mod 8", "max(0, past - 4095)".
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

/// Parses a sum of terms, each a product of integers, symbols and
/// parenthesised expressions, where "floordiv k" and "mod k" (k >= 1, an
/// integer) may follow any product, and max(a, b) and min(a, b) are
/// factors ("2*seq + 1", "batch*seq", "seq - 1", "(seq + 1) floordiv 2",
/// "past + seq - max(0, past - 4095)").
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
/// As parseSymExpr, any name a compiler stage gave its symbols accepted
/// ("$0.1", "#3"): for reading quotient atoms back (SymExpr::quotientOf).
std::optional<SymExpr> parseSymExprOfAnyNames(std::string_view text);

/// The wire form of a dim, or nullopt when it involves a fresh symbol
/// ("?3") that has no name on the wire.
std::optional<v1::Dim> toWireDim(const SymExpr &dim);
/// The wire form of an expression, quotients included; nullopt as for
/// toWireDim.
std::optional<v1::DimExpr> toWireExpr(const SymExpr &expr);

} // namespace anyshape
