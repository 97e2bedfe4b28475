// The error of a failed check_index (IndexCheck.h).
#include "IndexCheck.h"

#include <string>

namespace anyshape {

Status indexOutOfRange(const v1::CheckIndexAttrs &attrs, int64_t index,
                       int64_t extent) {
  std::string low = attrs.allow_negative() ? std::to_string(-extent) : "0";
  std::string what = attrs.what().empty() ? "check_index" : attrs.what();
  return invalidArgument(
      what + ": index " + std::to_string(index) + " is out of range [" + low +
      ", " + std::to_string(extent) + ") for axis " +
      std::to_string(attrs.axis()) + " of size " + std::to_string(extent));
}

} // namespace anyshape
