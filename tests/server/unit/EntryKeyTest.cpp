// The cache entry key (server/cache/EntryKey.h): created once with 32
// random bytes and mode 0600, read back unchanged, and refused when others
// could read or replace it or when it is too short; the MAC is HMAC-SHA256
// (RFC 4231's first test case).
#include "server/cache/EntryKey.h"

#include "ServiceTestSupport.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <thread>
#include <vector>

using namespace anyshape;
using namespace anyshape::server;
using anyshape::test::ScratchDir;

namespace {

TEST(EntryKey, AMissingKeyIsCreatedPrivateAndThenReadBack) {
  ScratchDir scratch;
  std::string path = scratch / "cache.key";
  auto created = loadOrCreateEntryKey(path);
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  EXPECT_EQ(created->size(), 32u);
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  auto again = loadOrCreateEntryKey(path);
  ASSERT_TRUE(again.isOk()) << again.status().toString();
  EXPECT_EQ(*again, *created);
  // Another key file gets other random bytes.
  auto other = loadOrCreateEntryKey(scratch / "other.key");
  ASSERT_TRUE(other.isOk());
  EXPECT_NE(*other, *created);
}

TEST(EntryKey, KeysOthersCouldReadOrThatAreTooShortAreRefused) {
  ScratchDir scratch;
  std::string open = scratch / "open.key";
  test::writeFile(open, std::string(32, 'x'));
  ASSERT_EQ(::chmod(open.c_str(), 0644), 0);
  auto readable = loadOrCreateEntryKey(open);
  ASSERT_FALSE(readable.isOk());
  EXPECT_EQ(readable.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(readable.status().message().find("chmod 600"), std::string::npos)
      << readable.status().toString();

  std::string shortKey = scratch / "short.key";
  test::writeFile(shortKey, "too short");
  ASSERT_EQ(::chmod(shortKey.c_str(), 0600), 0);
  EXPECT_FALSE(loadOrCreateEntryKey(shortKey).isOk());

  EXPECT_FALSE(loadOrCreateEntryKey(scratch.path()).isOk()) << "a directory";
  EXPECT_FALSE(loadOrCreateEntryKey(scratch / "no/such/dir/key").isOk());
}

TEST(EntryKey, ServersStartingTogetherAgreeOnOneKey) {
  for (int trial = 0; trial < 20; ++trial) {
    ScratchDir scratch;
    std::string path = scratch / "cache.key";
    StatusOr<std::string> keys[4] = {std::string(), std::string(),
                                     std::string(), std::string()};
    std::vector<std::thread> servers;
    for (auto &key : keys)
      servers.emplace_back([&key, &path] { key = loadOrCreateEntryKey(path); });
    for (std::thread &server : servers)
      server.join();
    for (const auto &key : keys) {
      ASSERT_TRUE(key.isOk()) << key.status().toString();
      EXPECT_EQ(*key, *keys[0]) << "trial " << trial;
      EXPECT_EQ(key->size(), 32u);
    }
  }
}

TEST(EntryKey, TheDefaultKeyLivesBesideTheDirectory) {
  EXPECT_EQ(defaultEntryKeyPath("/var/cache/anyshape"),
            "/var/cache/anyshape.key");
  EXPECT_EQ(defaultEntryKeyPath("/var/cache/anyshape//"),
            "/var/cache/anyshape.key");
}

TEST(EntryKey, TheMacIsHmacSha256) {
  // RFC 4231, test case 1: key 20 x 0x0b, data "Hi There".
  std::string mac = entryMac(std::string(20, '\x0b'), "Hi There", 8);
  static const unsigned char expected[32] = {
      0xb0, 0x34, 0x4c, 0x61, 0xd8, 0xdb, 0x38, 0x53, 0x5c, 0xa8, 0xaf,
      0xce, 0xaf, 0x0b, 0xf1, 0x2b, 0x88, 0x1d, 0xc2, 0x00, 0xc9, 0x83,
      0x3d, 0xa7, 0x26, 0xe9, 0x37, 0x6c, 0x2e, 0x32, 0xcf, 0xf7};
  ASSERT_EQ(mac.size(), 32u);
  EXPECT_TRUE(sameMac(mac, reinterpret_cast<const char *>(expected), 32));
  std::string flipped = mac;
  flipped[31] ^= 1;
  EXPECT_FALSE(sameMac(flipped, reinterpret_cast<const char *>(expected), 32));
}

} // namespace
