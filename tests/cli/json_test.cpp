// cli::json_string: every input gives one valid JSON string literal.
#include <catch2/catch.hpp>

#include "cli/json.h"

using tbkit::cli::json_string;

TEST_CASE("json_string escapes what JSON needs and keeps well-formed UTF-8", "[cli][json]") {
  CHECK(json_string("Kb1 \"best\"\\") == "\"Kb1 \\\"best\\\"\\\\\"");
  CHECK(json_string("a\nb\tc\r\x01\x7f") == "\"a\\nb\\tc\\r\\u0001\\u007f\"");
  CHECK(json_string("Caf\xc3\xa9 \xe2\x99\x94 \xf0\x9f\x98\x80") == "\"Caf\xc3\xa9 \xe2\x99\x94 \xf0\x9f\x98\x80\"");  // é ♔ 😀
}

TEST_CASE("json_string replaces bytes that are not UTF-8 with U+FFFD", "[cli][json]") {
  // `probe - --json` once copied such bytes from its input into its output, which was then not JSON.
  CHECK(json_string("a\xff" "b") == "\"a\\ufffdb\"");                      // never in UTF-8
  CHECK(json_string("\x80") == "\"\\ufffd\"");                             // a stray continuation byte
  CHECK(json_string("\xc3") == "\"\\ufffd\"");                             // truncated at the end
  CHECK(json_string("\xc3(") == "\"\\ufffd(\"");                           // truncated before ASCII
  CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");                  // overlong '/'
  CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");       // a UTF-16 surrogate
  CHECK(json_string("\xf4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // beyond U+10FFFF
}
