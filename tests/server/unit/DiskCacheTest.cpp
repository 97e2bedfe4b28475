// The disk tier of the compile cache (server/cache/DiskCache.h): entries
// round-trip byte for byte, and every damaged, foreign or misplaced entry
// is refused with an error other than NOT_FOUND and removed, so the
// server recompiles instead of running code it cannot vouch for.
#include "server/cache/DiskCache.h"

#include "ServiceTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sys/stat.h>

using namespace anyshape;
using namespace anyshape::server;
using anyshape::test::ScratchDir;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";
const std::string kOtherKey = "fedcba9876543210fedcba9876543210";
const std::string kIdentity = "anyshape.v1;build=test;llvm=19;x86_64";
const std::string kEntryKey(32, 'k');

StoredExecutable sampleEntry(const std::string &tag = "a") {
  return test::sampleStoredExecutable(kKey, tag);
}

std::unique_ptr<DiskCache> openCache(const std::string &dir,
                                     const std::string &identity = kIdentity,
                                     const std::string &entryKey = kEntryKey) {
  auto cache = DiskCache::open(dir, identity, entryKey);
  EXPECT_TRUE(cache.isOk()) << cache.status().toString();
  return cache.isOk() ? std::move(*cache) : nullptr;
}

void expectSameEntry(const StoredExecutable &expected,
                     const StoredExecutable &actual) {
  EXPECT_EQ(expected.compiledGraph.SerializeAsString(),
            actual.compiledGraph.SerializeAsString());
  EXPECT_EQ(expected.info.SerializeAsString(), actual.info.SerializeAsString());
  EXPECT_EQ(expected.objectCode, actual.objectCode);
}

/// Loads `key`, expecting a refusal that is not NOT_FOUND and the entry
/// file gone afterwards.
void expectRejectedAndRemoved(DiskCache &cache, const std::string &key,
                              const std::string &what) {
  std::string path = cache.pathOf(key);
  ASSERT_TRUE(test::fileExists(path)) << what;
  auto loaded = cache.load(key);
  EXPECT_FALSE(loaded.isOk()) << what << ": a damaged entry was loaded";
  if (!loaded.isOk())
    EXPECT_NE(loaded.status().code(), StatusCode::NotFound)
        << what << ": " << loaded.status().toString();
  EXPECT_FALSE(test::fileExists(path)) << what << ": the file was kept";
  // Dropped for good: the next load is a plain miss.
  auto again = cache.load(key);
  ASSERT_FALSE(again.isOk()) << what;
  EXPECT_EQ(again.status().code(), StatusCode::NotFound) << what;
}

TEST(DiskCache, OpenCreatesThePrivateDirectory) {
  ScratchDir scratch;
  std::string dir = scratch / "cache";
  ASSERT_FALSE(test::fileExists(dir));
  auto cache = openCache(dir);
  ASSERT_NE(cache, nullptr);
  struct stat info;
  ASSERT_EQ(::stat(dir.c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(info.st_mode & 07777, 0700u);
}

TEST(DiskCache, OpenTightensAnExistingOpenDirectory) {
  ScratchDir scratch;
  std::string dir = scratch / "cache";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_NE(openCache(dir), nullptr);
  struct stat info;
  ASSERT_EQ(::stat(dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
}

TEST(DiskCache, OpenRefusesWhatIsNotADirectory) {
  ScratchDir scratch;
  std::string file = scratch / "file";
  test::writeFile(file, "x");
  auto onFile = DiskCache::open(file, kIdentity, kEntryKey);
  EXPECT_FALSE(onFile.isOk());
  auto empty = DiskCache::open("", kIdentity, kEntryKey);
  ASSERT_FALSE(empty.isOk());
  EXPECT_EQ(empty.status().code(), StatusCode::InvalidArgument);
  auto missingParent =
      DiskCache::open(scratch / "no/such/dir", kIdentity, kEntryKey);
  EXPECT_FALSE(missingParent.isOk());
  auto shortKey = DiskCache::open(scratch / "cache", kIdentity, "short");
  ASSERT_FALSE(shortKey.isOk());
  EXPECT_EQ(shortKey.status().code(), StatusCode::InvalidArgument);
}

TEST(DiskCache, StoreThenLoadRoundTrips) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_NE(cache, nullptr);
  StoredExecutable entry = sampleEntry();
  Status stored = cache->store(kKey, entry);
  ASSERT_TRUE(stored.isOk()) << stored.toString();
  EXPECT_TRUE(test::fileExists(cache->pathOf(kKey)));

  auto loaded = cache->load(kKey);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  expectSameEntry(entry, *loaded);
  // Loading does not consume the entry.
  EXPECT_TRUE(cache->load(kKey).isOk());
}

TEST(DiskCache, EntriesOutliveTheCacheObject) {
  ScratchDir scratch;
  StoredExecutable entry = sampleEntry();
  ASSERT_TRUE(openCache(scratch / "cache")->store(kKey, entry).isOk());
  auto loaded = openCache(scratch / "cache")->load(kKey);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  expectSameEntry(entry, *loaded);
}

TEST(DiskCache, MissingKeyIsNotFound) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  auto loaded = cache->load(kKey);
  ASSERT_FALSE(loaded.isOk());
  EXPECT_EQ(loaded.status().code(), StatusCode::NotFound);
}

TEST(DiskCache, TruncatedEntriesAreDropped) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_TRUE(cache->store(kKey, sampleEntry()).isOk());
  const std::string full = test::readFile(cache->pathOf(kKey));
  ASSERT_GT(full.size(), 1000u);
  for (size_t length : {size_t(0), size_t(4), size_t(8), size_t(16), size_t(23),
                        size_t(24), full.size() / 2, full.size() - 17,
                        full.size() - 16, full.size() - 8, full.size() - 1}) {
    test::writeFile(cache->pathOf(kKey), full.substr(0, length));
    expectRejectedAndRemoved(*cache, kKey,
                             "truncated to " + std::to_string(length));
  }
}

TEST(DiskCache, FlippedBitsAreDropped) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_TRUE(cache->store(kKey, sampleEntry()).isOk());
  const std::string full = test::readFile(cache->pathOf(kKey));
  struct Flip {
    size_t at;
    const char *where;
  };
  for (Flip flip : {Flip{0, "magic"}, Flip{9, "identity length"},
                    Flip{30, "identity"}, Flip{full.size() / 2, "middle"},
                    Flip{full.size() - 20, "object code tail"},
                    Flip{full.size() - 32, "MAC's first byte"},
                    Flip{full.size() - 1, "MAC's last byte"}}) {
    std::string damaged = full;
    damaged[flip.at] = static_cast<char>(damaged[flip.at] ^ 0x10);
    test::writeFile(cache->pathOf(kKey), damaged);
    expectRejectedAndRemoved(*cache, kKey,
                             std::string("bit flipped in the ") + flip.where);
  }
}

TEST(DiskCache, GarbageIsDropped) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  std::string noise;
  for (int k = 0; k < 4096; ++k)
    noise.push_back(static_cast<char>((k * 131 + 7) % 251));
  for (const std::string &garbage :
       {std::string("not a cache entry at all\n"), noise,
        // The right magic, then noise: only the MAC can refuse it.
        std::string("ASHAPE03") + noise,
        // Lengths that claim more bytes than the file holds.
        std::string("ASHAPE03") + std::string(8, '\xff') + noise}) {
    test::writeFile(cache->pathOf(kKey), garbage);
    expectRejectedAndRemoved(
        *cache, kKey, std::to_string(garbage.size()) + " bytes of garbage");
  }
}

TEST(DiskCache, EntriesOfAnotherIdentityAreDropped) {
  ScratchDir scratch;
  auto writer = openCache(scratch / "cache", kIdentity);
  ASSERT_TRUE(writer->store(kKey, sampleEntry()).isOk());
  auto reader = openCache(scratch / "cache", kIdentity + ";other-build");
  expectRejectedAndRemoved(*reader, kKey, "written by another identity");
}

TEST(DiskCache, AnEntryWrittenWithoutTheServersKeyIsRefused) {
  // Someone who can write the directory but does not hold the key: a
  // well-formed entry of theirs (the same format, their own key) is
  // refused before anything in it is parsed, and removed.
  ScratchDir scratch;
  auto forger = openCache(scratch / "cache", kIdentity, std::string(32, 'f'));
  ASSERT_TRUE(forger->store(kKey, sampleEntry("forged")).isOk());
  auto server = openCache(scratch / "cache");
  expectRejectedAndRemoved(*server, kKey, "written under another key");
  // The server's own entries still load.
  ASSERT_TRUE(server->store(kKey, sampleEntry()).isOk());
  auto loaded = server->load(kKey);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  expectSameEntry(sampleEntry(), *loaded);
}

TEST(DiskCache, WhatIsNotARegularFileIsDroppedUnread) {
  // A symlink (to a file, or to /dev/zero) and a FIFO under an entry's
  // name: refused without following, reading or blocking, and removed.
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_TRUE(cache->store(kKey, sampleEntry()).isOk());
  std::string real = scratch / "real.anyshape";
  std::filesystem::rename(cache->pathOf(kKey), real);
  for (const char *target : {real.c_str(), "/dev/zero"}) {
    ASSERT_EQ(::symlink(target, cache->pathOf(kKey).c_str()), 0);
    expectRejectedAndRemoved(*cache, kKey,
                             std::string("a symlink to ") + target);
  }
  ASSERT_EQ(::mkfifo(cache->pathOf(kKey).c_str(), 0600), 0);
  expectRejectedAndRemoved(*cache, kKey, "a FIFO");
  EXPECT_TRUE(test::fileExists(real)) << "the symlink's target was removed";
}

TEST(DiskCache, EntryCopiedUnderAnotherKeyIsDropped) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_TRUE(cache->store(kKey, sampleEntry()).isOk());
  std::filesystem::copy_file(cache->pathOf(kKey), cache->pathOf(kOtherKey));
  expectRejectedAndRemoved(*cache, kOtherKey, "copied under another key");
  // The original is untouched.
  EXPECT_TRUE(cache->load(kKey).isOk());
}

TEST(DiskCache, StoringTwiceReplaces) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_TRUE(cache->store(kKey, sampleEntry("first")).isOk());
  StoredExecutable second = sampleEntry("second, longer than the first");
  ASSERT_TRUE(cache->store(kKey, second).isOk());
  auto loaded = cache->load(kKey);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  expectSameEntry(second, *loaded);
}

TEST(DiskCache, StoreLeavesNoTemporaryFiles) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(cache->store(kKey, sampleEntry(std::to_string(round))).isOk());
    ASSERT_TRUE(cache->store(kOtherKey, sampleEntry()).isOk());
  }
  std::vector<std::string> names;
  for (const auto &file :
       std::filesystem::directory_iterator(scratch / "cache"))
    names.push_back(file.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{kKey + ".anyshape",
                                             kOtherKey + ".anyshape"}));
}

TEST(DiskCache, RemoveDeletesTheEntry) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  ASSERT_TRUE(cache->store(kKey, sampleEntry()).isOk());
  cache->remove(kKey);
  EXPECT_FALSE(test::fileExists(cache->pathOf(kKey)));
  EXPECT_EQ(cache->load(kKey).status().code(), StatusCode::NotFound);
  cache->remove(kKey); // removing a missing entry is harmless
}

// BUG (disabled until fixed): the key is used as a file name unchecked,
// and the service passes a client's executable_id straight to find() and
// so to load(). A key with "../" reads a file outside the cache
// directory, and since it is not a valid entry, load() unlinks it. With
// a NUL byte in the key (legal in a protobuf string) the ".anyshape"
// suffix is cut off by c_str(), so any file the server may delete can be
// deleted by an Execute or GetExecutable request.
TEST(DiskCache, KeysThatAreNotCacheKeysTouchNoFiles) {
  ScratchDir scratch;
  auto cache = openCache(scratch / "cache");
  std::string victim = scratch / "victim.anyshape";
  std::string plainVictim = scratch / "victim.txt";
  test::writeFile(victim, "not yours");
  test::writeFile(plainVictim, "not yours either");
  for (const std::string &key :
       {std::string("../victim"), std::string("../victim.txt\0", 14)}) {
    auto loaded = cache->load(key);
    EXPECT_FALSE(loaded.isOk());
  }
  EXPECT_TRUE(test::fileExists(victim)) << "load() deleted " << victim;
  EXPECT_TRUE(test::fileExists(plainVictim))
      << "load() deleted " << plainVictim;
}

} // namespace
