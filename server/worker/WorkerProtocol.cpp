// What the server and its compile workers exchange (WorkerProtocol.h).
#include "server/worker/WorkerProtocol.h"

#include <cerrno>
#include <cstring>
#include <set>
#include <unistd.h>

namespace anyshape::server {

std::vector<std::string> storedTensorIds(const v1::Graph &graph) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const v1::Node &node : graph.nodes())
    if (node.has_constant() && !node.constant().tensor_id().empty() &&
        seen.insert(node.constant().tensor_id()).second)
      ids.push_back(node.constant().tensor_id());
  return ids;
}

void appendFramed(const google::protobuf::Message &message, std::string &out) {
  uint64_t size = message.ByteSizeLong();
  out.append(reinterpret_cast<const char *>(&size), sizeof(size));
  message.AppendToString(&out);
}

namespace {

Status readExactly(int fd, char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return internalError(std::string("read: ") + std::strerror(errno));
    if (n == 0)
      return internalError("the input ended early");
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::ok();
}

} // namespace

Status readFramed(int fd, google::protobuf::Message &message,
                  uint64_t maxBytes) {
  uint64_t size = 0;
  ANYSHAPE_RETURN_IF_ERROR(
      readExactly(fd, reinterpret_cast<char *>(&size), sizeof(size)));
  if (size > maxBytes)
    return internalError("a framed message of " + std::to_string(size) +
                         " bytes is over the limit of " +
                         std::to_string(maxBytes));
  std::string bytes(size, '\0');
  ANYSHAPE_RETURN_IF_ERROR(readExactly(fd, bytes.data(), size));
  if (!message.ParseFromString(bytes))
    return internalError("a framed message does not parse");
  return Status::ok();
}

} // namespace anyshape::server
