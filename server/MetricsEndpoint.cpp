// The metrics endpoint (MetricsEndpoint.h): one thread accepting one
// connection at a time, each bounded by a deadline (Connection below),
// plain HTTP or OpenSSL's TLS over a non-blocking socket. SIGPIPE from a
// vanished peer is ignored process-wide (server/main.cpp): OpenSSL's
// socket BIO writes without MSG_NOSIGNAL.
#include "server/MetricsEndpoint.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace anyshape::server {
namespace {

using Clock = std::chrono::steady_clock;

/// One accepted connection, plain or TLS, every operation bounded by one
/// deadline: a slow or silent client holds the endpoint for at most that
/// long, handshake included. The socket is non-blocking; each operation
/// polls for what it (or OpenSSL) waits for.
class Connection {
public:
  Connection(int fd, SSL_CTX *tls, Clock::time_point deadline)
      : fd_(fd), deadline_(deadline) {
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
    if (tls && (ssl_ = SSL_new(tls)) && SSL_set_fd(ssl_, fd_) != 1) {
      SSL_free(ssl_);
      ssl_ = nullptr; // open() then refuses the connection
    }
  }
  ~Connection() {
    if (ssl_)
      SSL_free(ssl_);
    ::close(fd_);
  }

  /// Plain HTTP (`tls` null): nothing to do. TLS: the handshake, with
  /// the client's certificate verified when the endpoint requires one.
  bool open(SSL_CTX *tls) {
    if (!tls)
      return true;
    return ssl_ && retry([&] { return SSL_accept(ssl_); }) > 0;
  }

  /// Bytes read (> 0), or 0 at the end, on an error or past the deadline.
  size_t read(char *buffer, size_t size) {
    if (ssl_) {
      int n = retry([&] { return SSL_read(ssl_, buffer, int(size)); });
      return n > 0 ? size_t(n) : 0;
    }
    while (true) {
      ssize_t n = ::recv(fd_, buffer, size, 0);
      if (n > 0)
        return size_t(n);
      if (n == 0 || (errno != EAGAIN && errno != EINTR) || !wait(POLLIN))
        return 0;
    }
  }

  void writeAll(const std::string &bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      const char *at = bytes.data() + done;
      size_t left = bytes.size() - done;
      ssize_t n;
      if (ssl_) {
        n = retry([&] { return SSL_write(ssl_, at, int(left)); });
      } else {
        n = ::send(fd_, at, left, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
          if (!wait(POLLOUT))
            return;
          continue;
        }
      }
      if (n <= 0)
        return;
      done += size_t(n);
    }
  }

private:
  /// Until `events` or the deadline.
  bool wait(short events) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline_ - Clock::now())
                    .count();
    pollfd ready{fd_, events, 0};
    return left > 0 && ::poll(&ready, 1, int(left)) > 0;
  }

  /// An OpenSSL call repeated while it wants the socket readable or
  /// writable, within the deadline: its result, <= 0 on failure.
  template <typename Call> int retry(Call call) {
    while (true) {
      ERR_clear_error();
      int result = call();
      if (result > 0)
        return result;
      int error = SSL_get_error(ssl_, result);
      if (error == SSL_ERROR_WANT_READ    ? !wait(POLLIN)
          : error == SSL_ERROR_WANT_WRITE ? !wait(POLLOUT)
                                          : true)
        return result;
    }
  }

  int fd_;
  SSL *ssl_ = nullptr;
  Clock::time_point deadline_;
};

/// OpenSSL's last error, for a startup message.
std::string sslError() {
  char text[256] = "unknown error";
  if (unsigned long code = ERR_get_error())
    ERR_error_string_n(code, text, sizeof(text));
  return text;
}

/// A TLS server context from PEM text: the certificate chain (leaf
/// first), its key, and for mutual TLS the CA that signs clients.
StatusOr<SSL_CTX *> serverContext(const MetricsTls &tls) {
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX *)> ctx(
      SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx || !SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION))
    return invalidArgument("metrics TLS: " + sslError());
  // No session resumption: with client verification on, a resumed TLS 1.2
  // session needs a session id context, and one scrape per connection
  // gains nothing from resuming.
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  static const unsigned char kContext[] = "anyshape-metrics";
  SSL_CTX_set_session_id_context(ctx.get(), kContext, sizeof(kContext) - 1);
  // An encrypted key fails here instead of prompting on a terminal.
  auto noPassphrase = [](char *, int, int, void *) { return 0; };
  auto bio = [](const std::string &pem) {
    return std::unique_ptr<BIO, int (*)(BIO *)>(
        BIO_new_mem_buf(pem.data(), int(pem.size())), BIO_free);
  };
  auto chain = bio(tls.certChain);
  X509 *leaf = PEM_read_bio_X509_AUX(chain.get(), nullptr, nullptr, nullptr);
  bool used = leaf && SSL_CTX_use_certificate(ctx.get(), leaf) == 1;
  X509_free(leaf);
  if (!used)
    return invalidArgument("metrics TLS: the certificate: " + sslError());
  while (X509 *next = PEM_read_bio_X509(chain.get(), nullptr, nullptr, nullptr))
    if (SSL_CTX_add_extra_chain_cert(ctx.get(), next) != 1) { // takes it
      X509_free(next);
      return invalidArgument("metrics TLS: the chain: " + sslError());
    }
  ERR_clear_error(); // the chain's end reads as an error
  auto keyText = bio(tls.privateKey);
  EVP_PKEY *key =
      PEM_read_bio_PrivateKey(keyText.get(), nullptr, noPassphrase, nullptr);
  used = key && SSL_CTX_use_PrivateKey(ctx.get(), key) == 1 &&
         SSL_CTX_check_private_key(ctx.get()) == 1;
  EVP_PKEY_free(key);
  if (!used)
    return invalidArgument("metrics TLS: the private key: " + sslError());
  if (!tls.clientCa.empty()) {
    auto caText = bio(tls.clientCa);
    X509_STORE *store = SSL_CTX_get_cert_store(ctx.get());
    int added = 0;
    while (X509 *ca =
               PEM_read_bio_X509(caText.get(), nullptr, nullptr, nullptr)) {
      added += X509_STORE_add_cert(store, ca) == 1;
      X509_free(ca);
    }
    ERR_clear_error();
    if (added == 0)
      return invalidArgument("metrics TLS: no certificate in the client CA");
    SSL_CTX_set_verify(
        ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return ctx.release();
}

} // namespace

StatusOr<std::unique_ptr<MetricsEndpoint>>
MetricsEndpoint::start(const std::string &address,
                       std::function<std::string()> render,
                       const MetricsTls &tls) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos)
    return invalidArgument("--metrics-listen wants host:port, got '" + address +
                           "'");
  std::string host = address.substr(0, colon);
  std::string portText = address.substr(colon + 1);
  int port = -1;
  if (!portText.empty() && portText.size() <= 5 &&
      std::all_of(portText.begin(), portText.end(),
                  [](char c) { return c >= '0' && c <= '9'; }))
    port = std::stoi(portText);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (host == "localhost")
    host = "127.0.0.1";
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1 || port < 0 ||
      port > 65535)
    return invalidArgument("--metrics-listen: bad IPv4 address '" + address +
                           "'");
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint);
  if (!tls.certChain.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(endpoint->tls_, serverContext(tls));
  }
  endpoint->socket_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(endpoint->socket_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (endpoint->socket_ < 0 ||
      ::bind(endpoint->socket_, reinterpret_cast<sockaddr *>(&addr),
             sizeof(addr)) != 0 ||
      ::listen(endpoint->socket_, 16) != 0)
    return Status(StatusCode::Unavailable,
                  "cannot listen on " + address + ": " + std::strerror(errno));
  socklen_t length = sizeof(addr);
  ::getsockname(endpoint->socket_, reinterpret_cast<sockaddr *>(&addr),
                &length);
  endpoint->address_ = host + ":" + std::to_string(ntohs(addr.sin_port));
  endpoint->render_ = std::move(render);
  endpoint->thread_ = std::thread([e = endpoint.get()] { e->serve(); });
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
  if (socket_ >= 0)
    ::close(socket_);
  if (tls_)
    SSL_CTX_free(tls_);
}

void MetricsEndpoint::serve() {
  while (!stop_) {
    pollfd listening{socket_, POLLIN, 0};
    if (::poll(&listening, 1, 200) <= 0)
      continue;
    int client = ::accept4(socket_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0)
      continue;
    // The handshake and the request head, bounded to 4 KiB and 2 s in
    // all: one slow client must not stall scrapes for long.
    Connection connection(client, tls_, Clock::now() + std::chrono::seconds(2));
    if (!connection.open(tls_))
      continue;
    std::string request;
    char buffer[1024];
    while (request.size() < 4096 &&
           request.find("\r\n\r\n") == std::string::npos) {
      size_t n = connection.read(buffer, sizeof(buffer));
      if (n == 0)
        break;
      request.append(buffer, n);
    }
    std::string status = "404 Not Found", body = "try /metrics\n";
    if (request.rfind("GET /metrics ", 0) == 0 ||
        request.rfind("GET /metrics?", 0) == 0) {
      status = "200 OK";
      body = render_();
    }
    connection.writeAll("HTTP/1.0 " + status +
                        "\r\nContent-Type: text/plain; version=0.0.4\r\n"
                        "Content-Length: " +
                        std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n" + body);
  }
}

} // namespace anyshape::server
