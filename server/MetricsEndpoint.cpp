#include "server/MetricsEndpoint.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace anyshape::server {
namespace {

void sendAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    done += static_cast<size_t>(n);
  }
}

} // namespace

StatusOr<std::unique_ptr<MetricsEndpoint>>
MetricsEndpoint::start(const std::string &address,
                       std::function<std::string()> render) {
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
}

void MetricsEndpoint::serve() {
  while (!stop_) {
    pollfd listening{socket_, POLLIN, 0};
    if (::poll(&listening, 1, 200) <= 0)
      continue;
    int client = ::accept4(socket_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0)
      continue;
    // Read the request head, bounded to 4 KiB and 2 s in all: one slow
    // client must not stall scrapes for long.
    std::string request;
    char buffer[1024];
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (request.size() < 4096 &&
           request.find("\r\n\r\n") == std::string::npos) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      pollfd readable{client, POLLIN, 0};
      if (left <= 0 || ::poll(&readable, 1, static_cast<int>(left)) <= 0)
        break;
      ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0)
        break;
      request.append(buffer, static_cast<size_t>(n));
    }
    std::string status = "404 Not Found", body = "try /metrics\n";
    if (request.rfind("GET /metrics ", 0) == 0 ||
        request.rfind("GET /metrics?", 0) == 0) {
      status = "200 OK";
      body = render_();
    }
    sendAll(client, "HTTP/1.0 " + status +
                        "\r\nContent-Type: text/plain; version=0.0.4\r\n"
                        "Content-Length: " +
                        std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n" + body);
    ::close(client);
  }
}

} // namespace anyshape::server
