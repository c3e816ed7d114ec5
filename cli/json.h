// Minimal JSON output helpers for --json modes (no parsing).
#pragma once

#include <string>
#include <string_view>

namespace tbkit::cli {

// A JSON string literal with quotes, escaping control characters, quotes and backslashes; bytes
// that are not well-formed UTF-8 become U+FFFD, so the output is always valid JSON.
[[nodiscard]] std::string json_string(std::string_view s);

}  // namespace tbkit::cli
