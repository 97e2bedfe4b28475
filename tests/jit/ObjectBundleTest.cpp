// The bundle that carries a module emitted in parts (jit/ObjectBundle.h):
// one object is stored as itself, several round-trip in order, and every
// way of damaging a bundle is INVALID_ARGUMENT, never a read past its end.
#include "jit/ObjectBundle.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using namespace anyshape;

namespace {

TEST(ObjectBundle, OneObjectIsStoredAsItself) {
  std::string object = "\x7f"
                       "ELF and the rest";
  EXPECT_EQ(jit::bundleObjects({object}), object);
  auto objects = jit::objectsIn(object);
  ASSERT_TRUE(objects.isOk());
  ASSERT_EQ(objects->size(), 1u);
  EXPECT_EQ(objects->front(), object);
}

TEST(ObjectBundle, SeveralRoundTripInOrder) {
  std::vector<std::string> parts = {"first", "", std::string(1000, 'x'),
                                    std::string("with\0nul", 8)};
  std::string bundle = jit::bundleObjects(parts);
  auto objects = jit::objectsIn(bundle);
  ASSERT_TRUE(objects.isOk()) << objects.status().toString();
  ASSERT_EQ(objects->size(), parts.size());
  for (size_t k = 0; k < parts.size(); ++k)
    EXPECT_EQ((*objects)[k], parts[k]);
}

TEST(ObjectBundle, DamagedBundlesAreErrors) {
  std::string bundle = jit::bundleObjects({"aaaa", "bbbbbb"});
  auto withCount = [&](uint32_t count) {
    std::string b = bundle;
    std::memcpy(b.data() + 16, &count, sizeof count);
    return b;
  };
  std::string sizeTooLarge = bundle;
  uint64_t huge = ~uint64_t{0};
  std::memcpy(sizeTooLarge.data() + 20, &huge, sizeof huge);
  for (const std::string &bad :
       {bundle.substr(0, 16), bundle.substr(0, 19), bundle.substr(0, 30),
        bundle.substr(0, bundle.size() - 1), bundle + "!", withCount(0),
        withCount(1), withCount(3), withCount(65), sizeTooLarge}) {
    auto objects = jit::objectsIn(bad);
    ASSERT_FALSE(objects.isOk()) << bad.size() << " bytes";
    EXPECT_EQ(objects.status().code(), StatusCode::InvalidArgument);
  }
}

} // namespace
