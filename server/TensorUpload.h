// One UploadTensor stream's assembly, apart from the gRPC reactor that
// reads it, so that every rule a client's chunks meet is in one place and
// can be driven without a server (the unit tests and the upload fuzz
// target do): the first chunk's header (dtype and shape) fixes the size,
// which is overflow-checked against the element cap, the upload cap and
// the store's room before any data is kept; later chunks carry only data
// and may never bring more bytes than the shape needs; the end of the
// stream validates the whole tensor and adds it to the store.
#pragma once

#include "server/TensorStore.h"

#include "anyshape/v1/service.pb.h"

namespace anyshape::server {

class TensorUpload {
public:
  /// `maxUploadBytes` and `maxElements` bound one tensor; `store` is the
  /// one the tensor will go into (its room is checked at the header).
  TensorUpload(const TensorStore &store, int64_t maxUploadBytes,
               int64_t maxElements)
      : store_(store), maxUploadBytes_(maxUploadBytes),
        maxElements_(maxElements) {}

  /// Takes the next chunk. After an error the upload is over: the caller
  /// finishes the call with it.
  Status take(const v1::UploadTensorChunk &chunk);

  /// The client finished sending: the tensor, whole and valid, goes into
  /// `store` (which must be the one given at construction).
  StatusOr<TensorStore::Added> finish(TensorStore &store);

  /// The bytes the header announced (0 before the first chunk).
  int64_t expectedBytes() const { return expectedBytes_; }

private:
  Status takeHeader(const v1::UploadTensorChunk &chunk);

  const TensorStore &store_;
  const int64_t maxUploadBytes_;
  const int64_t maxElements_;
  v1::Tensor tensor_;
  int64_t expectedBytes_ = 0;
  bool sawHeader_ = false;
};

} // namespace anyshape::server
