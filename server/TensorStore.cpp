// Content ids hash the dtype and shape with explicit lengths before the
// bytes, so tensors of equal bytes and different shapes differ.
#include "server/TensorStore.h"

#include "ir/graph/DType.h"
#include "ir/graph/Fingerprint.h"

#include <xxhash.h>

namespace anyshape::server {

Status validateTensor(const v1::Tensor &tensor, const std::string &what,
                      int64_t maxElements) {
  if (!isKnownDType(tensor.dtype()) || tensor.dtype() == v1::DTYPE_UNSPECIFIED)
    return invalidArgument(what + " has no valid dtype");
  int64_t count = 1;
  for (int d = 0; d < tensor.shape_size(); ++d) {
    int64_t size = tensor.shape(d);
    if (size < 0)
      return invalidArgument(what + " has a negative size in dim " +
                             std::to_string(d));
    if (__builtin_mul_overflow(count, size, &count) || count > maxElements)
      return invalidArgument(what + " has more than " +
                             std::to_string(maxElements) + " elements");
  }
  int64_t expected;
  if (__builtin_mul_overflow(count, dtypeByteSize(tensor.dtype()), &expected))
    return invalidArgument(what + " is too large");
  if (static_cast<int64_t>(tensor.data().size()) != expected)
    return invalidArgument(
        what + " has " + std::to_string(tensor.data().size()) +
        " bytes, its dtype and shape need " + std::to_string(expected));
  return Status::ok();
}

std::string TensorStore::contentId(const v1::Tensor &tensor) {
  XXH3_state_t *state = XXH3_createState();
  XXH3_128bits_reset(state);
  int64_t header[2] = {tensor.dtype(), tensor.shape_size()};
  XXH3_128bits_update(state, header, sizeof(header));
  for (int64_t d : tensor.shape())
    XXH3_128bits_update(state, &d, sizeof(d));
  XXH3_128bits_update(state, tensor.data().data(), tensor.data().size());
  XXH128_hash_t hash = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return Fingerprint{hash.high64, hash.low64}.hex();
}

StatusOr<TensorStore::Added> TensorStore::add(v1::Tensor tensor) {
  ANYSHAPE_RETURN_IF_ERROR(validateTensor(tensor, "the tensor", maxElements_));
  std::string id = contentId(tensor);
  auto bytes = static_cast<int64_t>(tensor.data().size());
  std::lock_guard<std::mutex> lock(mutex_);
  if (tensors_.count(id))
    return Added{id, true};
  if (bytes > maxBytes_ - bytes_)
    return resourceExhausted(
        "the tensor store is full (" + std::to_string(bytes_) + " of " +
        std::to_string(maxBytes_) + " bytes used; this tensor needs " +
        std::to_string(bytes) + ")");
  tensors_.emplace(id, std::make_shared<const v1::Tensor>(std::move(tensor)));
  bytes_ += bytes;
  return Added{id, false};
}

std::shared_ptr<const v1::Tensor>
TensorStore::get(const std::string &id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = tensors_.find(id);
  return found == tensors_.end() ? nullptr : found->second;
}

const v1::Tensor *TensorStore::find(const std::string &id) const {
  return get(id).get();
}

int64_t TensorStore::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(tensors_.size());
}

int64_t TensorStore::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

int64_t TensorStore::bytesLeft() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return maxBytes_ - bytes_;
}

} // namespace anyshape::server
