// JSON text helpers shared by the command line's --json output and the explorer's API (no parsing).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tbkit::explore {

// A JSON string literal with quotes, escaping control characters, quotes and backslashes; bytes
// that are not well-formed UTF-8 become U+FFFD, so the output is always valid JSON. Thread-safe.
[[nodiscard]] std::string json_string(std::string_view s);

// "12.5": 100 * part / whole with one decimal, "0.0" when whole is 0.
[[nodiscard]] std::string percent_text(double part, double whole);

// A 64-bit key as 16 lowercase hex digits (Polyglot keys).
[[nodiscard]] std::string key_text(std::uint64_t key);

}  // namespace tbkit::explore
