// TLS, mutual TLS and token roles end to end: real anyshape-server
// processes, real gRPC over loopback, certificates made by the test with
// the openssl command (a CA, a server certificate for localhost and
// 127.0.0.1, a client certificate from that CA and one from another), and
// the client SDK's options; the metrics port under the same TLS, fetched
// with OpenSSL as a scraper would. A call without a valid token is
// UNAUTHENTICATED, one whose token lacks the method's role
// PERMISSION_DENIED; the health check stays open.
#include "../support/ServerProcess.h"
#include "anyshape/client/Client.h"
#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace anyshape;
using anyshape::test::ServerProcess;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A scratch directory with the certificates the tests use.
class Certificates {
public:
  Certificates() {
    char pattern[] = "/tmp/anyshape-tls-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    // One shell script: a CA, a server certificate, a client certificate
    // from the CA and one from a CA the server does not trust.
    std::string script = "set -e; cd " + dir_ + R"(
      key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1"; }
      ca() {
        key "$1.key"
        openssl req -x509 -new -key "$1.key" -days 2 -subj "/CN=$1" -out "$1.pem"
      }
      signed() { # name, CA, extensions
        key "$1.key"
        openssl req -new -key "$1.key" -subj "/CN=$1" -out "$1.csr"
        printf '%s\n' "$3" > "$1.ext"
        openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" \
          -CAcreateserial -days 2 -extfile "$1.ext" -out "$1.pem"
      }
      ca ca; ca rogue
      signed server ca "subjectAltName=DNS:localhost,IP:127.0.0.1"
      signed client ca "extendedKeyUsage=clientAuth"
      signed stranger rogue "extendedKeyUsage=clientAuth"
    )";
    std::string command =
        "sh -c '" + escapeQuotes(script) + "' >" + dir_ + "/openssl.log 2>&1";
    ok_ = std::system(command.c_str()) == 0;
  }
  ~Certificates() { std::filesystem::remove_all(dir_); }

  bool ok() const { return ok_; }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }
  std::string pem(const std::string &name) const {
    return readFile(path(name));
  }
  std::string log() const { return readFile(path("openssl.log")); }

private:
  static std::string escapeQuotes(const std::string &text) {
    std::string out;
    for (char c : text)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out;
  }
  std::string dir_;
  bool ok_ = false;
};

const Certificates &certificates() {
  static Certificates made;
  return made;
}

/// y = x + x on f32[n]: small, and checked exactly.
v1::Graph doubling() {
  client::GraphBuilder b("doubling");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  b.output(b.add(x, x), "y");
  return *b.build();
}

v1::Tensor floats(std::vector<float> values) {
  v1::Tensor t;
  t.set_dtype(v1::DTYPE_F32);
  t.add_shape(static_cast<int64_t>(values.size()));
  t.set_data(std::string(reinterpret_cast<const char *>(values.data()),
                         values.size() * sizeof(float)));
  return t;
}

/// Compiles and runs the doubling graph through `client`; the first error.
Status compileAndRun(client::Client &client) {
  auto compiled = client.compile(doubling());
  if (!compiled.isOk())
    return compiled.status();
  auto outputs = client.run(*compiled, {floats({1, 2.5})});
  if (!outputs.isOk())
    return outputs.status();
  const std::string &data = (*outputs)[0].data();
  float y[2];
  if (data.size() != sizeof y)
    return internalError("wrong output size");
  std::memcpy(y, data.data(), sizeof y);
  if (y[0] != 2 || y[1] != 5)
    return internalError("wrong output values");
  return Status::ok();
}

client::ClientOptions quick() {
  client::ClientOptions options;
  options.connectTimeout = std::chrono::milliseconds(2000);
  options.maxAttempts = 1;
  return options;
}

client::ClientOptions tlsClient() {
  client::ClientOptions options = quick();
  options.tlsRootCerts = certificates().pem("ca.pem");
  options.tlsServerName = "localhost";
  return options;
}

/// A socket connected to 127.0.0.1:`port`, reads timing out after 5 s;
/// -1 when nothing accepts.
int connectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// What the metrics port at 127.0.0.1:`port` answers to GET /metrics over
/// TLS, trusting `caPem`, presenting `certPem`/`keyPem` if given; "" when
/// the connection or the handshake fails.
std::string httpsGetMetrics(int port, const std::string &caPem,
                            const std::string &certPem = "",
                            const std::string &keyPem = "") {
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX *)> ctx(
      SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  auto bio = [](const std::string &pem) {
    return std::unique_ptr<BIO, int (*)(BIO *)>(
        BIO_new_mem_buf(pem.data(), int(pem.size())), BIO_free);
  };
  auto ca = bio(caPem);
  X509 *root = PEM_read_bio_X509(ca.get(), nullptr, nullptr, nullptr);
  X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx.get()), root);
  X509_free(root);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (!certPem.empty()) {
    auto cert = bio(certPem), key = bio(keyPem);
    X509 *x = PEM_read_bio_X509(cert.get(), nullptr, nullptr, nullptr);
    EVP_PKEY *k = PEM_read_bio_PrivateKey(key.get(), nullptr, nullptr, nullptr);
    SSL_CTX_use_certificate(ctx.get(), x);
    SSL_CTX_use_PrivateKey(ctx.get(), k);
    X509_free(x);
    EVP_PKEY_free(k);
  }
  int fd = connectLoopback(port);
  if (fd < 0)
    return "";
  std::string reply;
  SSL *ssl = SSL_new(ctx.get());
  SSL_set_fd(ssl, fd);
  SSL_set_tlsext_host_name(ssl, "localhost");
  SSL_set1_host(ssl, "localhost"); // the certificate must name it
  if (SSL_connect(ssl) == 1) {
    std::string request = "GET /metrics HTTP/1.0\r\n\r\n";
    SSL_write(ssl, request.data(), int(request.size()));
    char buffer[4096];
    int n;
    while ((n = SSL_read(ssl, buffer, sizeof buffer)) > 0)
      reply.append(buffer, size_t(n));
  }
  SSL_free(ssl);
  ::close(fd);
  ERR_clear_error();
  return reply;
}

/// A plaintext GET /metrics to 127.0.0.1:`port`: what a scraper that was
/// not told about TLS gets.
std::string plainGetMetrics(int port) {
  int fd = connectLoopback(port);
  if (fd < 0)
    return "";
  std::string reply, request = "GET /metrics HTTP/1.0\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0)
    reply.append(buffer, size_t(n));
  ::close(fd);
  return reply;
}

class Security : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(certificates().ok())
        << "openssl could not make the test certificates:\n"
        << certificates().log();
  }
};

TEST_F(Security, TlsServesTlsClientsOnly) {
  const Certificates &c = certificates();
  // Through symlinks, as renewed certificates are usually installed.
  std::filesystem::remove(c.path("live.pem"));
  std::filesystem::remove(c.path("live.key"));
  std::filesystem::create_symlink(c.path("server.pem"), c.path("live.pem"));
  std::filesystem::create_symlink(c.path("server.key"), c.path("live.key"));
  ServerProcess server(
      {"--tls-cert", c.path("live.pem"), "--tls-key", c.path("live.key")});
  ASSERT_FALSE(server.address().empty()) << "the TLS server did not start";

  auto secure = client::Client::connect(server.address(), tlsClient());
  ASSERT_TRUE(secure.isOk()) << secure.status().toString();
  Status ran = compileAndRun(**secure);
  EXPECT_TRUE(ran.isOk()) << ran.toString();

  // A plaintext client never gets a channel.
  auto plain = client::Client::connect(server.address(), quick());
  EXPECT_FALSE(plain.isOk());
  // Nor does one that trusts another CA.
  client::ClientOptions wrongCa = tlsClient();
  wrongCa.tlsRootCerts = c.pem("rogue.pem");
  EXPECT_FALSE(client::Client::connect(server.address(), wrongCa).isOk());
}

TEST_F(Security, MutualTlsNeedsAClientCertificateFromTheCa) {
  const Certificates &c = certificates();
  ServerProcess server({"--tls-cert", c.path("server.pem"), "--tls-key",
                        c.path("server.key"), "--tls-client-ca",
                        c.path("ca.pem")});
  ASSERT_FALSE(server.address().empty()) << "the mTLS server did not start";

  client::ClientOptions good = tlsClient();
  good.tlsCertChain = c.pem("client.pem");
  good.tlsPrivateKey = c.pem("client.key");
  auto trusted = client::Client::connect(server.address(), good);
  ASSERT_TRUE(trusted.isOk()) << trusted.status().toString();
  Status ran = compileAndRun(**trusted);
  EXPECT_TRUE(ran.isOk()) << ran.toString();

  // Without a certificate, or with one from a CA the server does not
  // trust, the handshake fails: no call reaches the service.
  EXPECT_FALSE(client::Client::connect(server.address(), tlsClient()).isOk());
  client::ClientOptions stranger = tlsClient();
  stranger.tlsCertChain = c.pem("stranger.pem");
  stranger.tlsPrivateKey = c.pem("stranger.key");
  EXPECT_FALSE(client::Client::connect(server.address(), stranger).isOk());
}

TEST_F(Security, TheMetricsPortServesTheSameTls) {
  const Certificates &c = certificates();
  int port = 20000 + (::getpid() + 7) % 20000;
  ServerProcess server({"--tls-cert", c.path("server.pem"), "--tls-key",
                        c.path("server.key"), "--tls-client-ca",
                        c.path("ca.pem"), "--metrics-listen",
                        "127.0.0.1:" + std::to_string(port)});
  ASSERT_FALSE(server.address().empty()) << "the mTLS server did not start";
  // A client certificate from the CA: the metrics, over TLS.
  std::string reply = httpsGetMetrics(port, c.pem("ca.pem"),
                                      c.pem("client.pem"), c.pem("client.key"));
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("anyshape_compiles_total 0"), std::string::npos);
  // No certificate, one from another CA, or plain HTTP: nothing.
  EXPECT_EQ(httpsGetMetrics(port, c.pem("ca.pem")), "");
  EXPECT_EQ(httpsGetMetrics(port, c.pem("ca.pem"), c.pem("stranger.pem"),
                            c.pem("stranger.key")),
            "");
  EXPECT_EQ(plainGetMetrics(port).find("anyshape_"), std::string::npos);
  // The server still answers after the refused handshakes.
  EXPECT_NE(httpsGetMetrics(port, c.pem("ca.pem"), c.pem("client.pem"),
                            c.pem("client.key"))
                .find("200 OK"),
            std::string::npos);
}

TEST_F(Security, BrokenTlsFilesStopTheServerWithAReason) {
  const Certificates &c = certificates();
  ServerProcess keyless({"--tls-cert", c.path("server.pem")});
  EXPECT_TRUE(keyless.address().empty());
  EXPECT_EQ(keyless.wait(), 1);
  ServerProcess notPem(
      {"--tls-cert", c.path("server.ext"), "--tls-key", c.path("server.key")});
  EXPECT_TRUE(notPem.address().empty());
  EXPECT_EQ(notPem.wait(), 1);
}

/// A token file with one token per role, mode 0600.
std::string writeTokens(const std::string &dir) {
  std::string path = dir + "/tokens";
  std::ofstream(path) << "# token roles\n"
                         "compile-token-0123456789 compile\n"
                         "execute-token-0123456789 execute\n"
                         "admin-token-01234567890 admin\n"
                         "\n"
                         "both-token-012345678901 compile,execute\n";
  ::chmod(path.c_str(), 0600);
  return path;
}

client::ClientOptions withToken(const std::string &token) {
  client::ClientOptions options = quick();
  options.token = token;
  return options;
}

TEST_F(Security, TokensCarryRolesPerMethod) {
  const Certificates &c = certificates();
  ServerProcess server({"--auth-tokens", writeTokens(c.path(""))});
  ASSERT_FALSE(server.address().empty()) << "the server did not start";
  auto connect = [&](const std::string &token) {
    auto made = client::Client::connect(server.address(), withToken(token));
    EXPECT_TRUE(made.isOk()) << made.status().toString();
    return made.isOk() ? std::move(*made) : nullptr;
  };

  // No token, or an unknown one: UNAUTHENTICATED, the token not echoed.
  for (const std::string token : {"", "not-a-token-0123456789"}) {
    auto anonymous = connect(token);
    ASSERT_NE(anonymous, nullptr);
    auto compiled = anonymous->compile(doubling());
    ASSERT_FALSE(compiled.isOk()) << "token '" << token << "'";
    EXPECT_EQ(compiled.status().code(), StatusCode::Unauthenticated)
        << compiled.status().toString();
    if (!token.empty())
      EXPECT_EQ(compiled.status().message().find(token), std::string::npos);
    auto stats = anonymous->stats();
    EXPECT_EQ(stats.status().code(), StatusCode::Unauthenticated);
  }

  // compile: compiles, may not execute or read the stats.
  auto compiler = connect("compile-token-0123456789");
  auto compiled = compiler->compile(doubling());
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto refused = compiler->run(*compiled, {floats({1, 2})});
  ASSERT_FALSE(refused.isOk());
  EXPECT_EQ(refused.status().code(), StatusCode::PermissionDenied)
      << refused.status().toString();
  EXPECT_NE(refused.status().message().find("execute"), std::string::npos);
  EXPECT_EQ(compiler->stats().status().code(), StatusCode::PermissionDenied);

  // execute: runs what was compiled, may not compile.
  auto executor = connect("execute-token-0123456789");
  auto outputs = executor->run(*compiled, {floats({1, 2})});
  EXPECT_TRUE(outputs.isOk()) << outputs.status().toString();
  EXPECT_EQ(executor->compile(doubling()).status().code(),
            StatusCode::PermissionDenied);
  EXPECT_EQ(executor->unload(compiled->id).status().code(),
            StatusCode::PermissionDenied);

  // compile,execute: both; admin: the stats and unload.
  auto both = connect("both-token-012345678901");
  Status ran = compileAndRun(*both);
  EXPECT_TRUE(ran.isOk()) << ran.toString();
  auto admin = connect("admin-token-01234567890");
  auto stats = admin->stats();
  ASSERT_TRUE(stats.isOk()) << stats.status().toString();
  EXPECT_EQ(stats->compiles(), 1);
  EXPECT_TRUE(admin->unload(compiled->id).isOk());
  EXPECT_EQ(admin->compile(doubling()).status().code(),
            StatusCode::PermissionDenied);

  // The health check needs no token (1: SERVING).
  EXPECT_EQ(test::healthStatus(server.channel()), 1);
}

TEST_F(Security, TheCommandLineTakesTlsAndTheTokenFromTheEnvironment) {
  const Certificates &c = certificates();
  ServerProcess server({"--tls-cert", c.path("server.pem"), "--tls-key",
                        c.path("server.key"), "--auth-tokens",
                        writeTokens(c.path(""))});
  ASSERT_FALSE(server.address().empty());
  std::ofstream(c.path("admin.token")) << "admin-token-01234567890\n";
  std::string tls = "ANYSHAPE_TLS_CA=" + c.path("ca.pem") +
                    " ANYSHAPE_TLS_SERVER_NAME=localhost ";
  std::string stats = std::string(ANYSHAPE_CLI_BINARY) + " --server " +
                      server.address() + " stats > " + c.path("stats.out") +
                      " 2>&1";
  auto exitCode = [](const std::string &command) {
    int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(exitCode(tls + "ANYSHAPE_TOKEN_FILE=" + c.path("admin.token") +
                     " " + stats),
            0)
      << readFile(c.path("stats.out"));
  EXPECT_NE(readFile(c.path("stats.out")).find("\"compiles\""),
            std::string::npos)
      << readFile(c.path("stats.out"));
  // Without the token: refused, and the CLI says so.
  EXPECT_EQ(exitCode(tls + stats), 1);
  EXPECT_NE(readFile(c.path("stats.out")).find("needs a token"),
            std::string::npos)
      << readFile(c.path("stats.out"));
}

TEST_F(Security, ATokenFileOthersCanReadStopsTheServer) {
  const Certificates &c = certificates();
  std::string path = writeTokens(c.path(""));
  ::chmod(path.c_str(), 0644);
  ServerProcess server({"--auth-tokens", path});
  EXPECT_TRUE(server.address().empty());
  EXPECT_EQ(server.wait(), 1);
}

} // namespace
