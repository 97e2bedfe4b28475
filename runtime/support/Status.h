// Status and StatusOr: the project's one error type below the server.
//
// Every layer (runtime, ir, jit) reports failures as values, never by
// aborting: the server maps a Status to a gRPC status at its boundary only.
// Codes mirror the gRPC codes the service will return, so the mapping there
// is one switch. INTERNAL means a bug in anyshape, never a user's mistake.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace anyshape {

enum class StatusCode {
  Ok = 0,
  InvalidArgument = 3,
  DeadlineExceeded = 4,
  NotFound = 5,
  PermissionDenied = 7,
  ResourceExhausted = 8,
  FailedPrecondition = 9,
  Unimplemented = 12,
  Internal = 13,
  Unavailable = 14,
  DataLoss = 15,
  Unauthenticated = 16,
};

const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// Returns a copy whose message is "<context>: <message>".
  Status withContext(const std::string &context) const {
    if (isOk())
      return *this;
    return Status(code_, context + ": " + message_);
  }

  /// "INVALID_ARGUMENT: message" (or "OK").
  std::string toString() const;

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

inline Status invalidArgument(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}
inline Status resourceExhausted(std::string message) {
  return Status(StatusCode::ResourceExhausted, std::move(message));
}
inline Status notFound(std::string message) {
  return Status(StatusCode::NotFound, std::move(message));
}
inline Status internalError(std::string message) {
  return Status(StatusCode::Internal, std::move(message));
}

/// A value or the Status explaining why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.isOk() && "StatusOr built from an OK status");
    if (status_.isOk())
      status_ = internalError("StatusOr built from an OK status");
  }

  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }

  T &operator*() & { return *value_; }
  const T &operator*() const & { return *value_; }
  T &&operator*() && { return std::move(*value_); }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace anyshape

/// Evaluates `expr` (a Status) and returns it from the caller if not OK.
#define ANYSHAPE_RETURN_IF_ERROR(expr)                                         \
  do {                                                                         \
    ::anyshape::Status anyshapeStatus_ = (expr);                               \
    if (!anyshapeStatus_.isOk())                                               \
      return anyshapeStatus_;                                                  \
  } while (0)

#define ANYSHAPE_CONCAT_INNER_(a, b) a##b
#define ANYSHAPE_CONCAT_(a, b) ANYSHAPE_CONCAT_INNER_(a, b)

/// `ANYSHAPE_ASSIGN_OR_RETURN(auto x, f());` unwraps a StatusOr or returns
/// its Status from the caller.
#define ANYSHAPE_ASSIGN_OR_RETURN(lhs, expr)                                   \
  ANYSHAPE_ASSIGN_OR_RETURN_IMPL_(ANYSHAPE_CONCAT_(statusOr_, __LINE__), lhs,  \
                                  expr)
#define ANYSHAPE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)                        \
  auto tmp = (expr);                                                           \
  if (!tmp.isOk())                                                             \
    return tmp.status();                                                       \
  lhs = std::move(*tmp)
