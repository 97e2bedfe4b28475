// Structured logs: one JSON object per line on stderr, with a timestamp,
// a level and an event name, so operators can filter and ship them.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace anyshape::server {

using LogFields = std::vector<std::pair<std::string, std::string>>;

/// Writes {"ts":...,"level":level,"event":event, fields...} (values are
/// JSON-escaped strings) as one line, atomically with respect to other
/// log lines.
void logEvent(const char *level, const std::string &event,
              const LogFields &fields = {});

} // namespace anyshape::server
