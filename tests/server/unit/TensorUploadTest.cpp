// The UploadTensor stream's rules (server/TensorUpload.h), without a
// server: chunks assemble into exactly the tensor sent; the header is
// checked against every cap before data is kept; a second header, extra
// bytes, missing bytes or no chunk at all are clear errors.
#include "server/TensorUpload.h"

#include <gtest/gtest.h>

#include <limits>

using namespace anyshape;
using namespace anyshape::server;

namespace {

v1::UploadTensorChunk header(v1::DType dtype, std::vector<int64_t> shape,
                             std::string data = {}) {
  v1::UploadTensorChunk chunk;
  chunk.set_dtype(dtype);
  for (int64_t d : shape)
    chunk.add_shape(d);
  chunk.set_data(std::move(data));
  return chunk;
}

v1::UploadTensorChunk dataChunk(std::string data) {
  v1::UploadTensorChunk chunk;
  chunk.set_data(std::move(data));
  return chunk;
}

bool mentions(const Status &status, const std::string &text) {
  return status.message().find(text) != std::string::npos;
}

constexpr int64_t kMaxElements = 1 << 20;

TEST(TensorUpload, ChunksAssembleIntoTheTensorSent) {
  TensorStore store(1 << 20);
  TensorUpload upload(store, 1 << 20, kMaxElements);
  ASSERT_TRUE(upload.take(header(v1::DTYPE_I32, {2, 3}, "abcd")).isOk());
  EXPECT_EQ(upload.expectedBytes(), 24);
  ASSERT_TRUE(upload.take(dataChunk("efghijkl")).isOk());
  ASSERT_TRUE(upload.take(dataChunk("")).isOk());
  ASSERT_TRUE(upload.take(dataChunk("mnopqrstuvwx")).isOk());
  auto added = upload.finish(store);
  ASSERT_TRUE(added.isOk()) << added.status().message();
  EXPECT_FALSE(added->alreadyStored);
  auto stored = store.get(added->id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->data(), "abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(stored->dtype(), v1::DTYPE_I32);
  ASSERT_EQ(stored->shape_size(), 2);
  EXPECT_EQ(stored->shape(1), 3);

  // The same content again: the same id, nothing new stored.
  TensorUpload again(store, 1 << 20, kMaxElements);
  ASSERT_TRUE(again.take(header(v1::DTYPE_I32, {2, 3}, stored->data())).isOk());
  auto repeated = again.finish(store);
  ASSERT_TRUE(repeated.isOk());
  EXPECT_EQ(repeated->id, added->id);
  EXPECT_TRUE(repeated->alreadyStored);
  EXPECT_EQ(store.bytes(), 24);
}

TEST(TensorUpload, TheHeaderIsCheckedBeforeAnyDataIsKept) {
  TensorStore store(1000);
  auto refusal = [&](v1::UploadTensorChunk chunk, int64_t maxBytes) {
    TensorUpload upload(store, maxBytes, kMaxElements);
    return upload.take(chunk);
  };
  Status noDtype = refusal(header(v1::DTYPE_UNSPECIFIED, {2}), 1000);
  EXPECT_EQ(noDtype.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(mentions(noDtype, "valid dtype"));
  EXPECT_EQ(refusal(header(static_cast<v1::DType>(77), {2}), 1000).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(refusal(header(v1::DTYPE_F32, {-1}), 1000).code(),
            StatusCode::InvalidArgument);
  // Dims whose product overflows int64 are refused, not wrapped.
  int64_t big = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_EQ(refusal(header(v1::DTYPE_F32, {big, 4}), 1000).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(refusal(header(v1::DTYPE_F32, {kMaxElements + 1}), 1 << 30).code(),
            StatusCode::InvalidArgument);
  Status overCap = refusal(header(v1::DTYPE_F32, {100}), 399);
  EXPECT_EQ(overCap.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(mentions(overCap, "upload limit of 399"));
  // Within the upload cap, beyond the store's room.
  Status noRoom = refusal(header(v1::DTYPE_F32, {300}), 1 << 20);
  EXPECT_EQ(noRoom.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(mentions(noRoom, "no room"));
  EXPECT_TRUE(refusal(header(v1::DTYPE_F32, {250}), 1000).isOk());
}

TEST(TensorUpload, MalformedStreamsAreClearErrors) {
  TensorStore store(1 << 20);
  {
    TensorUpload upload(store, 1 << 20, kMaxElements);
    ASSERT_TRUE(upload.take(header(v1::DTYPE_F32, {2})).isOk());
    Status second = upload.take(header(v1::DTYPE_F32, {2}));
    EXPECT_EQ(second.code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(mentions(second, "only the first chunk"));
  }
  {
    TensorUpload upload(store, 1 << 20, kMaxElements);
    ASSERT_TRUE(upload.take(header(v1::DTYPE_F32, {2}, "1234")).isOk());
    Status extra = upload.take(dataChunk("123456789"));
    EXPECT_EQ(extra.code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(mentions(extra, "more bytes than the shape needs (8)"));
  }
  {
    TensorUpload upload(store, 1 << 20, kMaxElements);
    ASSERT_TRUE(upload.take(header(v1::DTYPE_F32, {2}, "1234")).isOk());
    auto shortTensor = upload.finish(store);
    EXPECT_EQ(shortTensor.status().code(), StatusCode::InvalidArgument);
  }
  {
    TensorUpload upload(store, 1 << 20, kMaxElements);
    auto nothing = upload.finish(store);
    EXPECT_EQ(nothing.status().code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(mentions(nothing.status(), "no chunks"));
  }
  EXPECT_EQ(store.count(), 0);
}

} // namespace
