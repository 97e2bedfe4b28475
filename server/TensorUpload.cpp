// The UploadTensor stream's rules (server/TensorUpload.h). Every size is
// computed with overflow checks before anything is reserved, so a header
// that claims a huge shape costs nothing.
#include "server/TensorUpload.h"

#include "ir/graph/DType.h"

#include <string>

namespace anyshape::server {

Status TensorUpload::takeHeader(const v1::UploadTensorChunk &chunk) {
  if (!isKnownDType(chunk.dtype()) || chunk.dtype() == v1::DTYPE_UNSPECIFIED)
    return invalidArgument("the first chunk must carry a valid dtype");
  tensor_.set_dtype(chunk.dtype());
  int64_t count = 1;
  for (int64_t d : chunk.shape()) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count) ||
        count > maxElements_)
      return invalidArgument("the uploaded tensor's shape is negative "
                             "or too large");
    tensor_.add_shape(d);
  }
  if (__builtin_mul_overflow(count, dtypeByteSize(chunk.dtype()),
                             &expectedBytes_) ||
      expectedBytes_ > maxUploadBytes_)
    return resourceExhausted(
        "the tensor has " + std::to_string(expectedBytes_) +
        " bytes, over the upload limit of " + std::to_string(maxUploadBytes_));
  if (expectedBytes_ > store_.bytesLeft())
    return resourceExhausted("the tensor store has no room for " +
                             std::to_string(expectedBytes_) + " bytes");
  tensor_.mutable_data()->reserve(static_cast<size_t>(expectedBytes_));
  return Status::ok();
}

Status TensorUpload::take(const v1::UploadTensorChunk &chunk) {
  if (!sawHeader_) {
    sawHeader_ = true;
    if (Status status = takeHeader(chunk); !status.isOk())
      return status;
  } else if (chunk.dtype() != v1::DTYPE_UNSPECIFIED || chunk.shape_size() > 0) {
    return invalidArgument("only the first chunk may carry dtype and shape");
  }
  if (static_cast<int64_t>(chunk.data().size()) >
      expectedBytes_ - static_cast<int64_t>(tensor_.data().size()))
    return invalidArgument("more bytes than the shape needs (" +
                           std::to_string(expectedBytes_) + ")");
  tensor_.mutable_data()->append(chunk.data());
  return Status::ok();
}

StatusOr<TensorStore::Added> TensorUpload::finish(TensorStore &store) {
  if (!sawHeader_)
    return invalidArgument("no chunks were sent");
  if (Status status =
          validateTensor(tensor_, "the uploaded tensor", maxElements_);
      !status.isOk())
    return status;
  return store.add(std::move(tensor_));
}

} // namespace anyshape::server
