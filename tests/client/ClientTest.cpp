// The client SDK's policies, checked without a server: gRPC statuses map to
// anyshape::Status code for code, backoff grows and is capped and jittered,
// offloadConstants uploads exactly the inline constants big enough,
// connecting to nothing fails with UNAVAILABLE within the timeout, and
// server lists become balanced gRPC targets or clear errors.
#include "anyshape/client/Client.h"
#include "client/lib/ChannelTarget.h"
#include "client/lib/GrpcSupport.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

namespace anyshape::client {
namespace {

using std::chrono::milliseconds;

TEST(StatusMapping, KeepsCodeAndMessage) {
  EXPECT_TRUE(fromGrpcStatus(grpc::Status::OK).isOk());
  const std::pair<grpc::StatusCode, StatusCode> codes[] = {
      {grpc::StatusCode::INVALID_ARGUMENT, StatusCode::InvalidArgument},
      {grpc::StatusCode::DEADLINE_EXCEEDED, StatusCode::DeadlineExceeded},
      {grpc::StatusCode::NOT_FOUND, StatusCode::NotFound},
      {grpc::StatusCode::RESOURCE_EXHAUSTED, StatusCode::ResourceExhausted},
      {grpc::StatusCode::FAILED_PRECONDITION, StatusCode::FailedPrecondition},
      {grpc::StatusCode::UNIMPLEMENTED, StatusCode::Unimplemented},
      {grpc::StatusCode::INTERNAL, StatusCode::Internal},
      {grpc::StatusCode::UNAVAILABLE, StatusCode::Unavailable},
      {grpc::StatusCode::DATA_LOSS, StatusCode::DataLoss},
      {grpc::StatusCode::PERMISSION_DENIED, StatusCode::PermissionDenied},
      {grpc::StatusCode::UNAUTHENTICATED, StatusCode::Unauthenticated}};
  for (const auto &[grpcCode, code] : codes) {
    Status status = fromGrpcStatus(grpc::Status(grpcCode, "input 'x' dim 1"));
    EXPECT_EQ(status.code(), code);
    EXPECT_EQ(status.message(), "input 'x' dim 1");
  }
}

TEST(StatusMapping, CodesWithoutANameKeepTheirNumberAndName) {
  Status status =
      fromGrpcStatus(grpc::Status(grpc::StatusCode::CANCELLED, "gone"));
  EXPECT_FALSE(status.isOk());
  EXPECT_EQ(static_cast<int>(status.code()), 1);
  EXPECT_EQ(status.message(), "CANCELLED: gone");
  EXPECT_EQ(
      fromGrpcStatus(grpc::Status(grpc::StatusCode::ABORTED, "x")).message(),
      "ABORTED: x");
}

TEST(Backoff, DoublesUpToTheCap) {
  ClientOptions options;
  options.initialBackoff = milliseconds(50);
  options.maxBackoff = milliseconds(2000);
  EXPECT_EQ(backoffDelay(options, 1, 1.0), milliseconds(50));
  EXPECT_EQ(backoffDelay(options, 2, 1.0), milliseconds(100));
  EXPECT_EQ(backoffDelay(options, 3, 1.0), milliseconds(200));
  EXPECT_EQ(backoffDelay(options, 7, 1.0), milliseconds(2000)); // 3200 capped
  EXPECT_EQ(backoffDelay(options, 1000, 1.0), milliseconds(2000));
}

TEST(Backoff, JitterScalesWithinHalfToOne) {
  ClientOptions options;
  options.initialBackoff = milliseconds(100);
  EXPECT_EQ(backoffDelay(options, 1, 0.5), milliseconds(50));
  EXPECT_EQ(backoffDelay(options, 1, 0.75), milliseconds(75));
  EXPECT_EQ(backoffDelay(options, 1, 0.0), milliseconds(50)); // clamped
  EXPECT_EQ(backoffDelay(options, 1, 3.0), milliseconds(100));
}

v1::Graph graphFromText(const char *text) {
  v1::Graph graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  return graph;
}

// Four constants, only `big` (16 bytes of inline data) worth uploading at
// minBytes 16: `small` is inline but 4 bytes; the others carry no bytes.
const char *kConstants = R"pb(
  name: "g"
  nodes {
    name: "big"
    op: "constant"
    constant { dtype: DTYPE_F32 shape: 2 shape: 2 data: "0123456789abcdef" }
  }
  nodes {
    name: "small"
    op: "constant"
    constant { dtype: DTYPE_F32 data: "wxyz" }
  }
  nodes {
    name: "splat"
    op: "constant"
    constant { dtype: DTYPE_F32 shape: 1000 splat: 1.5 }
  }
  nodes {
    name: "seeded"
    op: "constant"
    constant {
      dtype: DTYPE_F32
      shape: 1000
      seeded_uniform { seed: 1 low: 0 high: 1 }
    }
  }
  nodes {
    name: "stored"
    op: "constant"
    constant { dtype: DTYPE_F32 shape: 4 tensor_id: "already" }
  }
  nodes { name: "sum" op: "add" operands: "big" operands: "big" }
  outputs: "sum"
)pb";

TEST(OffloadConstants, UploadsInlineConstantsOfAtLeastMinBytes) {
  v1::Graph graph = graphFromText(kConstants);
  std::vector<v1::Tensor> uploaded;
  auto offloaded = offloadConstants(graph, 16, [&](const v1::Tensor &tensor) {
    uploaded.push_back(tensor);
    return StatusOr<std::string>("id" + std::to_string(uploaded.size()));
  });
  ASSERT_TRUE(offloaded.isOk()) << offloaded.status().toString();
  ASSERT_EQ(uploaded.size(), 1u);
  EXPECT_EQ(uploaded[0].dtype(), v1::DTYPE_F32);
  EXPECT_EQ(std::vector<int64_t>(uploaded[0].shape().begin(),
                                 uploaded[0].shape().end()),
            (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(uploaded[0].data(), "0123456789abcdef");

  const v1::ConstantAttrs &big = offloaded->nodes(0).constant();
  EXPECT_EQ(big.tensor_id(), "id1");
  EXPECT_EQ(big.dtype(), v1::DTYPE_F32);
  EXPECT_EQ(big.shape_size(), 2);
  // Everything else is as it was, and the caller's graph is untouched.
  for (int k = 1; k < graph.nodes_size(); ++k)
    EXPECT_EQ(offloaded->nodes(k).SerializeAsString(),
              graph.nodes(k).SerializeAsString())
        << graph.nodes(k).name();
  EXPECT_EQ(graph.nodes(0).constant().data(), "0123456789abcdef");
  EXPECT_EQ(offloaded->outputs(0), "sum");
}

TEST(OffloadConstants, MinBytesZeroTakesEveryInlineConstant) {
  int uploads = 0;
  auto offloaded =
      offloadConstants(graphFromText(kConstants), 0, [&](const v1::Tensor &) {
        return StatusOr<std::string>("id" + std::to_string(++uploads));
      });
  ASSERT_TRUE(offloaded.isOk());
  EXPECT_EQ(uploads, 2);
  EXPECT_EQ(offloaded->nodes(1).constant().tensor_id(), "id2");
  EXPECT_TRUE(offloaded->nodes(2).constant().has_splat());
}

TEST(OffloadConstants, AFailedUploadNamesTheConstant) {
  auto offloaded =
      offloadConstants(graphFromText(kConstants), 1, [](const v1::Tensor &) {
        return StatusOr<std::string>(resourceExhausted("tensor store full"));
      });
  ASSERT_FALSE(offloaded.isOk());
  EXPECT_EQ(offloaded.status().code(), StatusCode::ResourceExhausted);
  EXPECT_EQ(offloaded.status().message(),
            "uploading constant 'big': tensor store full");
}

TEST(Connect, NoServerIsUnavailableWithinTheTimeout) {
  ClientOptions options;
  options.connectTimeout = milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  // Port 1 on loopback: privileged, nothing listens there.
  auto client = Client::connect("127.0.0.1:1", options);
  ASSERT_FALSE(client.isOk());
  EXPECT_EQ(client.status().code(), StatusCode::Unavailable);
  EXPECT_NE(client.status().message().find("127.0.0.1:1"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Connect, AnEmptyAddressIsInvalid) {
  auto client = Client::connect("");
  ASSERT_FALSE(client.isOk());
  EXPECT_EQ(client.status().code(), StatusCode::InvalidArgument);
}

TEST(Connect, ATokenGrpcCannotSendIsInvalidNotAnAbort) {
  // gRPC aborts the process on a metadata value with a newline or a
  // control byte; connect refuses it first, without a server.
  for (const std::string token :
       {std::string("two\nlines-0123456789"), std::string("tab\there-0123456"),
        std::string("caf\xc3\xa9-token-0123456")}) {
    ClientOptions options;
    options.token = token;
    auto client = Client::connect("127.0.0.1:1", options);
    ASSERT_FALSE(client.isOk());
    EXPECT_EQ(client.status().code(), StatusCode::InvalidArgument);
  }
}

} // namespace
} // namespace anyshape::client

namespace anyshape::client {
namespace {

TEST(ChannelTarget, OneServerListsAndUrisBecomeGrpcTargets) {
  auto one = channelTarget("10.0.0.1:50051");
  ASSERT_TRUE(one.isOk());
  EXPECT_EQ(one->target, "10.0.0.1:50051");
  EXPECT_FALSE(one->balanced);
  auto named = channelTarget("anyshape.internal:50051");
  ASSERT_TRUE(named.isOk());
  EXPECT_FALSE(named->balanced);

  auto list = channelTarget("127.0.0.1:1,127.0.0.2:2,10.1.2.3:50051");
  ASSERT_TRUE(list.isOk());
  EXPECT_EQ(list->target, "ipv4:127.0.0.1:1,127.0.0.2:2,10.1.2.3:50051");
  EXPECT_TRUE(list->balanced);
  auto six = channelTarget("[::1]:1,[fe80::2]:2");
  ASSERT_TRUE(six.isOk());
  EXPECT_EQ(six->target, "ipv6:[::1]:1,[fe80::2]:2");

  auto dns = channelTarget("dns:///anyshape.internal:50051");
  ASSERT_TRUE(dns.isOk());
  EXPECT_EQ(dns->target, "dns:///anyshape.internal:50051");
  EXPECT_TRUE(dns->balanced);
}

TEST(ChannelTarget, AListItCannotUseIsAClearError) {
  for (const char *bad :
       {"", "127.0.0.1:1,host:2", "127.0.0.1:1,", ",127.0.0.1:1",
        "127.0.0.1:1,[::1]:2", "127.0.0.1,127.0.0.2", "127.0.0.1:1,1.2.3.4:x",
        "127.0.0.1:1,1.2.3.4:1234567"}) {
    auto target = channelTarget(bad);
    EXPECT_EQ(target.status().code(), StatusCode::InvalidArgument) << bad;
  }
  EXPECT_NE(channelTarget("10.0.0.1:1,backend:2")
                .status()
                .message()
                .find("dns:///NAME:PORT"),
            std::string::npos);
}

} // namespace
} // namespace anyshape::client
