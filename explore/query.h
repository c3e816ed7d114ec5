// Request targets of the explorer's API: percent-decoding and query strings (RFC 3986 with '+' as
// a space, as HTML forms send it).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "chess/result.h"

namespace tbkit::explore {

// Decodes %XX escapes and '+'. Errors: kInvalidArgument for a '%' not followed by two hex digits
// or a decoded NUL byte.
[[nodiscard]] Result<std::string> percent_decode(std::string_view text);

// "fen=...&book=1" -> {fen: ..., book: "1"}; empty pieces are skipped. Errors: kInvalidArgument,
// naming the parameter, for bad escapes, an empty name or a name given twice.
[[nodiscard]] Result<std::map<std::string, std::string>> parse_query(std::string_view query);

}  // namespace tbkit::explore
