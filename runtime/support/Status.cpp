// Names for status codes, spelled as gRPC spells them so logs and client
// errors read the same on both sides of the wire.
#include "Status.h"

namespace anyshape {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "OK";
  case StatusCode::InvalidArgument:
    return "INVALID_ARGUMENT";
  case StatusCode::DeadlineExceeded:
    return "DEADLINE_EXCEEDED";
  case StatusCode::NotFound:
    return "NOT_FOUND";
  case StatusCode::PermissionDenied:
    return "PERMISSION_DENIED";
  case StatusCode::ResourceExhausted:
    return "RESOURCE_EXHAUSTED";
  case StatusCode::FailedPrecondition:
    return "FAILED_PRECONDITION";
  case StatusCode::Unimplemented:
    return "UNIMPLEMENTED";
  case StatusCode::Internal:
    return "INTERNAL";
  case StatusCode::Unavailable:
    return "UNAVAILABLE";
  case StatusCode::Unauthenticated:
    return "UNAUTHENTICATED";
  case StatusCode::DataLoss:
    return "DATA_LOSS";
  }
  return "UNKNOWN";
}

std::string Status::toString() const {
  if (isOk())
    return "OK";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

} // namespace anyshape
