// KeptTensors, the server's outputs kept between requests: ids are fresh
// and never reused, a keep that would pass a limit stores nothing and
// names the limit, idle tensors are dropped, and freeing is idempotent.
#include "server/KeptTensors.h"

#include <gtest/gtest.h>

#include <set>

namespace anyshape::server {
namespace {

v1::Tensor bytes(size_t n) {
  v1::Tensor t;
  t.set_dtype(v1::DTYPE_BOOL);
  t.add_shape(static_cast<int64_t>(n));
  t.set_data(std::string(n, '\1'));
  return t;
}

TEST(KeptTensors, KeepGetAndFree) {
  KeptTensors kept({/*maxBytes=*/100, /*maxCount=*/4, /*idleSeconds=*/60});
  auto ids = kept.keep({bytes(10), bytes(20)});
  ASSERT_TRUE(ids.isOk()) << ids.status().toString();
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_NE((*ids)[0], (*ids)[1]);
  EXPECT_TRUE(KeptTensors::isKeptId((*ids)[0]));
  EXPECT_EQ((*ids)[0].size(), 5u + 32u);
  EXPECT_EQ(kept.count(), 2);
  EXPECT_EQ(kept.bytes(), 30);
  auto held = kept.get((*ids)[1]);
  ASSERT_TRUE(held.isOk());
  EXPECT_EQ((*held)->data().size(), 20u);

  KeptTensors::Freed freed = kept.free({(*ids)[0], "kept-unknown"});
  EXPECT_EQ(freed.count, 1);
  EXPECT_EQ(freed.bytes, 10);
  EXPECT_EQ(kept.free({(*ids)[0]}).count, 0); // a retried free is harmless
  auto gone = kept.get((*ids)[0]);
  EXPECT_EQ(gone.status().code(), StatusCode::NotFound);
  EXPECT_NE(gone.status().message().find("freed, never kept, or dropped"),
            std::string::npos);
  // A tensor held by a run outlives its free.
  kept.free({(*ids)[1]});
  EXPECT_EQ((*held)->data().size(), 20u);
  EXPECT_EQ(kept.count(), 0);
  EXPECT_EQ(kept.bytes(), 0);
}

TEST(KeptTensors, AKeepOverALimitStoresNothing) {
  KeptTensors kept({100, 3, 60});
  ASSERT_TRUE(kept.keep({bytes(60)}).isOk());
  auto over = kept.keep({bytes(10), bytes(50)});
  EXPECT_EQ(over.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(over.status().message().find("--max-kept-bytes"),
            std::string::npos);
  EXPECT_EQ(kept.count(), 1); // neither of the two
  EXPECT_EQ(kept.bytes(), 60);
  ASSERT_TRUE(kept.keep({bytes(1), bytes(1)}).isOk());
  auto many = kept.keep({bytes(1)});
  EXPECT_EQ(many.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(many.status().message().find("--max-kept-tensors"),
            std::string::npos);
}

TEST(KeptTensors, IdleTensorsAreDroppedAndUseKeepsThemAlive) {
  KeptTensors kept({1000, 10, /*idleSeconds=*/5});
  auto ids = kept.keep({bytes(1), bytes(2)});
  ASSERT_TRUE(ids.isOk());
  auto start = KeptTensors::Clock::now();
  using std::chrono::seconds;
  kept.expire(start + seconds(3));
  EXPECT_EQ(kept.count(), 2);
  // Named by a request at 4 s, the second's clock starts again.
  ASSERT_TRUE(kept.get((*ids)[1], start + seconds(4)).isOk());
  kept.expire(start + seconds(8));
  EXPECT_EQ(kept.count(), 1); // the first idled 8 s, the second 4
  EXPECT_EQ(kept.expired(), 1);
  EXPECT_EQ(kept.get((*ids)[0], start + seconds(8)).status().code(),
            StatusCode::NotFound);
  EXPECT_EQ(kept.bytes(), 2);
}

TEST(KeptTensors, IdsAreNotReused) {
  KeptTensors kept({1 << 20, 1 << 16, 60});
  std::set<std::string> seen;
  for (int k = 0; k < 1000; ++k) {
    auto ids = kept.keep({bytes(1)});
    ASSERT_TRUE(ids.isOk());
    EXPECT_TRUE(seen.insert((*ids)[0]).second);
    kept.free(*ids);
  }
}

} // namespace
} // namespace anyshape::server
