// The token file's grammar (server/Auth.h): roles per token, and every
// malformed line refused naming its line but never the token. Authorizing
// calls is tested end to end (tests/client/SecurityTest.cpp).
#include "server/Auth.h"

#include "ServiceTestSupport.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

using namespace anyshape;
using namespace anyshape::server;

namespace {

TEST(TokenFile, TokensWithRolesParse) {
  auto auth =
      TokenAuth::parse("# comment\n"
                       "\n"
                       "compile-token-0123456789 compile\n"
                       "   both-token-012345678901   compile,execute  \n"
                       "all-token-01234567890123 all\n");
  ASSERT_TRUE(auth.isOk()) << auth.status().toString();
  EXPECT_EQ(auth->size(), 3u);
}

TEST(TokenFile, MalformedLinesAreRefusedByLine) {
  const std::string token = "secret-token-0123456789";
  struct Case {
    std::string text;
    std::string says;
  } cases[] = {
      {"", "no tokens"},
      {"# only a comment\n", "no tokens"},
      {token + "\n", "line 1: expected"},
      {token + " compile extra\n", "line 1: expected"},
      {"short compile\n", "line 1: a token has 16 to 512"},
      {std::string(513, 'x') + " compile\n", "a token has 16 to 512"},
      {token + " compile,root\n", "line 1: roles are"},
      {"\n" + token + " compile\n" + token + " admin\n", "line 3: this token"},
  };
  for (const Case &c : cases) {
    auto auth = TokenAuth::parse(c.text);
    ASSERT_FALSE(auth.isOk()) << c.says;
    EXPECT_EQ(auth.status().code(), StatusCode::InvalidArgument);
    EXPECT_NE(auth.status().message().find(c.says), std::string::npos)
        << auth.status().toString();
    EXPECT_EQ(auth.status().message().find(token), std::string::npos)
        << "the error shows the token: " << auth.status().toString();
  }
}

TEST(TokenFile, OnlyAPrivateRegularFileIsRead) {
  test::ScratchDir scratch;
  std::string path = scratch / "tokens";
  test::writeFile(path, "private-token-012345678 all\n");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  EXPECT_TRUE(TokenAuth::fromFile(path).isOk());
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  auto readable = TokenAuth::fromFile(path);
  ASSERT_FALSE(readable.isOk());
  EXPECT_EQ(readable.status().code(), StatusCode::FailedPrecondition);
  std::string link = scratch / "link";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  EXPECT_FALSE(TokenAuth::fromFile(link).isOk()) << "a symlink was followed";
  EXPECT_FALSE(TokenAuth::fromFile(scratch / "missing").isOk());
}

} // namespace
