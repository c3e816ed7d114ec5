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

// A parsed query string, or what is wrong with it.
struct Query {
  std::map<std::string, std::string> params;
  std::string field;    // the parameter a problem is with ("query" for one without a name)
  std::string problem;  // empty when the query is fine
  [[nodiscard]] bool ok() const { return problem.empty(); }
};

// "fen=...&book=1" -> {fen: ..., book: "1"}; empty pieces are skipped. A bad escape, an empty name
// or a name given twice is a problem naming the parameter.
[[nodiscard]] Query parse_query(std::string_view query);

}  // namespace tbkit::explore
