// Prometheus text scraping for anyshape-load (Metrics.h).
#include "Metrics.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace anyshape::load {

std::optional<double> findMetric(std::string_view text,
                                 std::string_view metric) {
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view()
                                             : text.substr(newline + 1);
    if (line.size() <= metric.size() || line.substr(0, metric.size()) != metric)
      continue;
    std::string_view rest = line.substr(metric.size());
    if (rest.front() == '{') { // labels; values may not contain '}' unquoted
      size_t close = rest.find('}');
      if (close == std::string_view::npos)
        continue;
      rest = rest.substr(close + 1);
    }
    if (rest.empty() || (rest.front() != ' ' && rest.front() != '\t'))
      continue; // a longer metric name that starts with this one
    std::string value(rest);
    char *end = nullptr;
    double parsed = std::strtod(value.c_str(), &end);
    if (end != value.c_str())
      return parsed;
  }
  return std::nullopt;
}

StatusOr<std::string> fetchMetrics(const std::string &address,
                                   std::chrono::milliseconds timeout) {
  std::string hostPort = address;
  if (hostPort.rfind("http://", 0) == 0)
    hostPort = hostPort.substr(7);
  hostPort = hostPort.substr(0, hostPort.find('/'));
  size_t colon = hostPort.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return invalidArgument("metrics address '" + address +
                           "' is not host:port");
  std::string host = hostPort.substr(0, colon),
              port = hostPort.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (int error = getaddrinfo(host.c_str(), port.c_str(), &hints, &found))
    return Status(StatusCode::Unavailable,
                  "metrics address " + address + ": " + gai_strerror(error));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found,
                                                               freeaddrinfo);
  int fd = -1;
  timeval tv{};
  tv.tv_sec = timeout.count() / 1000;
  tv.tv_usec = (timeout.count() % 1000) * 1000;
  for (addrinfo *a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0)
      continue;
    // SO_SNDTIMEO also bounds connect() on Linux.
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0)
    return Status(StatusCode::Unavailable,
                  "cannot connect to the metrics endpoint " + address + ": " +
                      std::strerror(errno));
  std::string request = "GET /metrics HTTP/1.0\r\nHost: " + hostPort +
                        "\r\nConnection: close\r\n\r\n";
  std::string response;
  bool ok = send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size());
  char buffer[16384];
  for (ssize_t n; ok && (n = recv(fd, buffer, sizeof buffer, 0)) != 0;) {
    if (n < 0) {
      ok = errno == EINTR;
      continue;
    }
    response.append(buffer, n);
  }
  close(fd);
  if (!ok)
    return Status(StatusCode::Unavailable,
                  "reading " + address + "/metrics failed");
  size_t bodyStart = response.find("\r\n\r\n");
  std::string statusLine = response.substr(0, response.find("\r\n"));
  if (bodyStart == std::string::npos ||
      statusLine.find(" 200") == std::string::npos)
    return Status(StatusCode::FailedPrecondition,
                  address + "/metrics answered '" + statusLine + "'");
  return response.substr(bodyStart + 4);
}

} // namespace anyshape::load
