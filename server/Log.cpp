#include "server/Log.h"

#include <chrono>
#include <cstdio>
#include <mutex>

namespace anyshape::server {
namespace {

void appendEscaped(std::string &out, const std::string &text) {
  out += '"';
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char code[8];
        std::snprintf(code, sizeof(code), "\\u%04x", c);
        out += code;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

} // namespace

void logEvent(const char *level, const std::string &event,
              const LogFields &fields) {
  double seconds = std::chrono::duration<double>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  char ts[32];
  std::snprintf(ts, sizeof(ts), "%.3f", seconds);
  std::string line = std::string("{\"ts\":") + ts + ",\"level\":";
  appendEscaped(line, level);
  line += ",\"event\":";
  appendEscaped(line, event);
  for (const auto &[key, value] : fields) {
    line += ',';
    appendEscaped(line, key);
    line += ':';
    appendEscaped(line, value);
  }
  line += "}\n";
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

} // namespace anyshape::server
