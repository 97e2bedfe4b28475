// See Auth.h. Digests and the constant-time comparison come from OpenSSL's
// libcrypto.
#include "server/Auth.h"

#include "server/Io.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <sstream>

namespace anyshape::server {
namespace {

constexpr size_t kShortestToken = 16;
constexpr size_t kLongestToken = 512;
constexpr int64_t kLargestTokenFile = 1 << 20;

std::string digestOf(const char *bytes, size_t size) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char *>(bytes), size, digest);
  return std::string(reinterpret_cast<const char *>(digest), sizeof digest);
}

bool isTokenCharacter(char c) { return c > ' ' && c < 0x7f; }

/// The roles named in `list` ("compile,execute"), or 0 if one is unknown.
unsigned parseRoles(const std::string &list) {
  unsigned roles = 0;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name == "compile")
      roles |= kRoleCompile;
    else if (name == "execute")
      roles |= kRoleExecute;
    else if (name == "admin")
      roles |= kRoleAdmin;
    else if (name == "all")
      roles |= kRoleCompile | kRoleExecute | kRoleAdmin;
    else
      return 0;
  }
  return roles;
}

std::string roleNames(unsigned roles) {
  std::string names;
  for (auto [role, name] :
       {std::pair{kRoleCompile, "compile"}, std::pair{kRoleExecute, "execute"},
        std::pair{kRoleAdmin, "admin"}})
    if (roles & role)
      names += std::string(names.empty() ? "" : " and ") + name;
  return names;
}

} // namespace

StatusOr<TokenAuth> TokenAuth::parse(const std::string &text) {
  TokenAuth auth;
  std::stringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::stringstream fields(line);
    std::string token, roles, extra;
    fields >> token;
    if (token.empty() || token[0] == '#')
      continue;
    fields >> roles >> extra;
    std::string where = "token file line " + std::to_string(number) + ": ";
    if (roles.empty() || !extra.empty())
      return invalidArgument(where + "expected `TOKEN ROLE[,ROLE...]`");
    if (token.size() < kShortestToken || token.size() > kLongestToken ||
        !std::all_of(token.begin(), token.end(), isTokenCharacter))
      return invalidArgument(where + "a token has 16 to 512 printable "
                                     "characters");
    std::string digest = digestOf(token.data(), token.size());
    for (const Token &known : auth.tokens_)
      if (known.digest == digest)
        return invalidArgument(where + "this token is on an earlier line "
                                       "too (a token has one line of roles)");
    unsigned parsed = parseRoles(roles);
    if (parsed == 0)
      return invalidArgument(where + "roles are compile, execute, admin or "
                                     "all, separated by commas");
    auth.tokens_.push_back({std::move(digest), parsed});
  }
  if (auth.tokens_.empty())
    return invalidArgument("the token file has no tokens");
  return auth;
}

StatusOr<TokenAuth> TokenAuth::fromFile(const std::string &path) {
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::string text, readFileChecked(path, "token file", kLargestTokenFile,
                                        /*ownerOnly=*/true));
  return parse(text);
}

Status TokenAuth::authorize(const grpc::ServerContextBase &context,
                            unsigned roles) const {
  const auto &metadata = context.client_metadata();
  auto found = metadata.find("authorization");
  static const std::string kBearer = "Bearer ";
  if (found == metadata.end() || found->second.size() <= kBearer.size() ||
      !found->second.starts_with(kBearer))
    return Status(StatusCode::Unauthenticated,
                  "this server needs a token: `authorization: Bearer TOKEN` "
                  "metadata (the client's token option)");
  std::string digest = digestOf(found->second.data() + kBearer.size(),
                                found->second.size() - kBearer.size());
  // Every token is compared, so the time taken does not say which matched.
  const Token *match = nullptr;
  for (const Token &token : tokens_)
    if (CRYPTO_memcmp(token.digest.data(), digest.data(), digest.size()) == 0)
      match = &token;
  if (!match)
    return Status(StatusCode::Unauthenticated, "the token is not known");
  if ((match->roles & roles) != roles)
    return Status(StatusCode::PermissionDenied,
                  "the token lacks the " + roleNames(roles & ~match->roles) +
                      " role this call needs");
  return Status::ok();
}

} // namespace anyshape::server
