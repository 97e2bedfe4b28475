// libFuzzer target: UploadTensor streams as clients send them, assembled
// by the server's own rules (server/TensorUpload.h) into a bounded tensor
// store shared by every upload of the input. Nothing may crash or trip a
// sanitizer, whatever the headers claim; and what the store accepts must
// be exactly what was sent: the header's dtype and shape, the chunks'
// bytes in order, under its content id, within the store's bound.
//
// Input: byte 0 picks the store's and the upload cap's size; then records
// of [u16 little-endian length][a binary v1::UploadTensorChunk]. Length
// 0xffff ends one upload (the client closes its stream) and starts the
// next; the input's end closes the last one.
//
//   build/bin/anyshape-fuzz-upload -max_total_time=600 CORPUS_DIR \
//       tests/fuzz/corpus/upload
#include "server/TensorUpload.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace {

using namespace anyshape;

constexpr uint16_t kEndOfUpload = 0xffff;
constexpr int64_t kMaxElements = 1 << 20;

/// One client's stream: what it sent, and whether the server still reads.
struct Stream {
  Stream(const server::TensorStore &store, int64_t uploadBytes)
      : upload(store, uploadBytes, kMaxElements) {}
  server::TensorUpload upload;
  v1::UploadTensorChunk header;
  std::string sent;
  bool refused = false;
};

void check(bool invariant) {
  if (!invariant)
    __builtin_trap();
}

void close(Stream &stream, server::TensorStore &store) {
  if (stream.refused)
    return;
  int64_t before = store.bytes();
  auto added = stream.upload.finish(store);
  if (!added.isOk()) {
    check(store.bytes() == before);
    return;
  }
  auto stored = store.get(added->id);
  check(stored != nullptr);
  check(stored->data() == stream.sent);
  check(stored->dtype() == stream.header.dtype());
  check(stored->shape_size() == stream.header.shape_size());
  for (int i = 0; i < stored->shape_size(); ++i)
    check(stored->shape(i) == stream.header.shape(i));
  check(server::TensorStore::contentId(*stored) == added->id);
  check(store.bytes() ==
        before + (added->alreadyStored ? 0 : stream.upload.expectedBytes()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const int64_t storeBytes = int64_t(64) << (data[0] % 16);
  const int64_t uploadBytes = storeBytes >> (data[0] / 16 % 4);
  server::TensorStore store(storeBytes, kMaxElements);
  std::optional<Stream> stream(std::in_place, store, uploadBytes);
  bool first = true;
  size_t at = 1;
  while (at + 2 <= size) {
    uint16_t length = uint16_t(data[at] | data[at + 1] << 8);
    at += 2;
    if (length == kEndOfUpload) {
      close(*stream, store);
      stream.emplace(store, uploadBytes);
      first = true;
      continue;
    }
    size_t taken = std::min<size_t>(length, size - at);
    v1::UploadTensorChunk chunk;
    bool parsed = chunk.ParseFromArray(data + at, static_cast<int>(taken));
    at += taken;
    if (stream->refused)
      continue;
    // A message that does not parse fails the call in gRPC, as a
    // refused chunk does here.
    if (!parsed || !stream->upload.take(chunk).isOk()) {
      stream->refused = true;
      continue;
    }
    if (first)
      stream->header = chunk;
    first = false;
    stream->sent += chunk.data();
    check(static_cast<int64_t>(stream->sent.size()) <=
          stream->upload.expectedBytes());
  }
  close(*stream, store);
  check(store.bytes() <= storeBytes);
  return 0;
}
