// Address lists are checked here, before gRPC sees them: gRPC's ipv4:
// and ipv6: resolvers take IP literals only, and a list it cannot parse
// would otherwise only show as a channel that never connects.
#include "ChannelTarget.h"

#include <arpa/inet.h>
#include <vector>

namespace anyshape::client {
namespace {

/// "a.b.c.d:port" or "[v6]:port": the family (4 or 6), or 0.
int familyOf(const std::string &server) {
  size_t colon = server.rfind(':');
  if (colon == std::string::npos || colon + 1 == server.size())
    return 0;
  for (size_t k = colon + 1; k < server.size(); ++k)
    if (server[k] < '0' || server[k] > '9' || k - colon > 5)
      return 0;
  std::string host = server.substr(0, colon);
  unsigned char bytes[16];
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(),
                     bytes) == 1
               ? 6
               : 0;
  return inet_pton(AF_INET, host.c_str(), bytes) == 1 ? 4 : 0;
}

} // namespace

const char *balancedServiceConfig() {
  return R"({"loadBalancingConfig": [{"round_robin": {}}],
             "healthCheckConfig": {"serviceName": ""}})";
}

StatusOr<ChannelTarget> channelTarget(const std::string &address) {
  if (address.empty())
    return invalidArgument("no server address given (host:port)");
  if (address.find("://") != std::string::npos ||
      address.rfind("dns:", 0) == 0 || address.rfind("ipv4:", 0) == 0 ||
      address.rfind("ipv6:", 0) == 0)
    return ChannelTarget{address, true};
  if (address.find(',') == std::string::npos)
    return ChannelTarget{address, false};
  std::vector<std::string> servers;
  for (size_t at = 0; at <= address.size();) {
    size_t comma = address.find(',', at);
    if (comma == std::string::npos)
      comma = address.size();
    servers.push_back(address.substr(at, comma - at));
    at = comma + 1;
  }
  int family = 0;
  for (const std::string &server : servers) {
    int f = familyOf(server);
    if (f == 0)
      return invalidArgument(
          "'" + server.substr(0, 64) +
          "' in the server list is not IP:PORT (a list takes IP "
          "addresses; for a name that resolves to several servers, use "
          "dns:///NAME:PORT)");
    if (family != 0 && f != family)
      return invalidArgument("a server list is all IPv4 or all IPv6");
    family = f;
  }
  return ChannelTarget{(family == 4 ? "ipv4:" : "ipv6:") + address, true};
}

} // namespace anyshape::client
