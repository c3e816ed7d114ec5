#include "explore/query.h"

namespace tbkit::explore {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return make_error(ErrorCode::kInvalidArgument, "a '%' not followed by two hex digits");
      const int a = hex_digit(text[i + 1]), b = hex_digit(text[i + 2]);
      if (a < 0 || b < 0) return make_error(ErrorCode::kInvalidArgument, "a '%' not followed by two hex digits");
      const char decoded = char(a * 16 + b);
      if (decoded == '\0') return make_error(ErrorCode::kInvalidArgument, "a NUL byte (%00)");
      out += decoded;
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

Query parse_query(std::string_view query) {
  Query out;
  const auto fail = [&](std::string field, std::string problem) {
    out.params.clear();
    out.field = std::move(field);
    out.problem = std::move(problem);
    return out;
  };
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view piece = query.substr(start, end - start);
    start = end + 1;
    if (piece.empty()) continue;
    const std::size_t eq = piece.find('=');
    auto name = percent_decode(piece.substr(0, eq));
    if (!name) return fail("query", "query: a parameter's name has " + name.error().message);
    if (name->empty()) return fail("query", "query: a parameter without a name");
    auto value = percent_decode(eq == std::string_view::npos ? std::string_view() : piece.substr(eq + 1));
    if (!value) return fail(*name, *name + ": the value has " + value.error().message);
    if (!out.params.emplace(*name, std::move(*value)).second) return fail(*name, *name + ": given twice");
  }
  return out;
}

}  // namespace tbkit::explore
