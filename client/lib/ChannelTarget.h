// What the client gives gRPC for an address the user wrote: one server
// ("host:port", as gRPC takes it), a list of servers
// ("10.0.0.1:50051,10.0.0.2:50051", IP literals: gRPC's ipv4:/ipv6:
// resolvers), or any gRPC target URI ("dns:///anyshape.internal:50051",
// which may resolve to several). A list or a URI is balanced: gRPC's own
// round_robin over every address, with its client-side health checking
// (grpc.health.v1, which the server answers NOT_SERVING while it
// drains), so a server that drains or dies is skipped.
#pragma once

#include "runtime/support/Status.h"

#include <string>

namespace anyshape::client {

struct ChannelTarget {
  std::string target;
  bool balanced = false; ///< round_robin with health checking
};

StatusOr<ChannelTarget> channelTarget(const std::string &address);

/// The service config of a balanced channel.
const char *balancedServiceConfig();

} // namespace anyshape::client
