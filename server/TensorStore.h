// The tensor store: tensors uploaded once (weights) and referenced by
// content id from graphs (Constant.tensor_id) and Execute requests, so
// requests carry only activations.
//
// The id is the xxh3-128 of dtype, shape and bytes (32 hex digits), so an
// upload of identical content returns the same id and stores nothing new.
// The store is bounded in bytes: an upload that does not fit is
// RESOURCE_EXHAUSTED (stored tensors are never evicted behind a client's
// back: a graph referencing one would fail later, far from the cause).
#pragma once

#include "ir/graph/ConstantData.h"
#include "ir/graph/Limits.h"
#include "runtime/support/Status.h"

#include <map>
#include <memory>
#include <mutex>

namespace anyshape::server {

class TensorStore : public TensorLookup {
public:
  explicit TensorStore(int64_t maxBytes,
                       int64_t maxElements = GraphLimits().maxElementsPerTensor)
      : maxBytes_(maxBytes), maxElements_(maxElements) {}

  static std::string contentId(const v1::Tensor &tensor);

  struct Added {
    std::string id;
    bool alreadyStored = false;
  };
  /// Validates (dtype, overflow-checked size against the bytes) and stores.
  StatusOr<Added> add(v1::Tensor tensor);

  /// The stored tensor; it stays valid while the caller holds it.
  std::shared_ptr<const v1::Tensor> get(const std::string &id) const;
  /// TensorLookup for constants (valid while the store lives: no
  /// removal).
  const v1::Tensor *find(const std::string &id) const override;

  int64_t count() const;
  int64_t bytes() const;
  /// The bytes a new upload may still take.
  int64_t bytesLeft() const;

private:
  const int64_t maxBytes_;
  const int64_t maxElements_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const v1::Tensor>> tensors_;
  int64_t bytes_ = 0;
};

/// Checks a wire tensor: a known dtype, dims >= 0, an element count that
/// does not overflow and stays within `maxElements`, and exactly the
/// bytes the shape needs. `what` names it in the message.
Status validateTensor(const v1::Tensor &tensor, const std::string &what,
                      int64_t maxElements);

} // namespace anyshape::server
