// The explorer page's files (explore/assets/), embedded in the binary at build time by
// explore/embed_assets.cmake: the server reads no file to serve them.
#pragma once

#include <span>
#include <string_view>

namespace tbkit::explore {

struct Asset {
  std::string_view path;          // "/app.js"; "/" is index.html
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
};

// Every embedded file, in a fixed order. Immutable data: thread-safe.
[[nodiscard]] std::span<const Asset> embedded_assets();

}  // namespace tbkit::explore
