// Token authentication with per-method roles (--auth-tokens FILE).
//
// A client sends `authorization: Bearer TOKEN` metadata (the C++ and
// Python clients' `token` option). Each token in the server's file has
// roles: `compile` (Compile, UploadTensor), `execute` (Execute,
// GetExecutable, FreeTensors), `admin` (Stats, Unload); CompileAndExecute needs
// both compile and execute. A call without a known token is UNAUTHENTICATED;
// one whose token lacks the method's role is PERMISSION_DENIED. The
// health service stays open (load balancers probe it). Tokens are kept
// only as SHA-256 digests, compared in constant time, and never appear in
// logs or errors.
#pragma once

#include "runtime/support/Status.h"

#include <grpcpp/server_context.h>

#include <string>
#include <vector>

namespace anyshape::server {

enum Role : unsigned {
  kRoleCompile = 1u << 0,
  kRoleExecute = 1u << 1,
  kRoleAdmin = 1u << 2,
};

class TokenAuth {
public:
  /// The token file's text: one `TOKEN ROLE[,ROLE...]` per line (roles
  /// compile, execute, admin, or all); blank lines and lines starting
  /// with `#` are ignored. A token has 16 to 512 printable characters
  /// without spaces. Errors name the line, never the token.
  static StatusOr<TokenAuth> parse(const std::string &text);
  /// Reads and parses `path`, which others may not read (mode 0600 or
  /// 0400, like an ssh key).
  static StatusOr<TokenAuth> fromFile(const std::string &path);

  /// OK if `context` carries a known token that has every role in `roles`.
  Status authorize(const grpc::ServerContextBase &context,
                   unsigned roles) const;

  size_t size() const { return tokens_.size(); }

private:
  struct Token {
    std::string digest; // SHA-256 of the token
    unsigned roles = 0;
  };
  std::vector<Token> tokens_;
};

} // namespace anyshape::server
