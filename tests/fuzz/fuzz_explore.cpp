// libFuzzer target: input bytes as an explorer request, "METHOD\nPATH\nQUERY" (missing parts are
// empty), to explore::Explorer::handle over no books and no tables (the target reads no file).
// Every answer must be a known status; API answers and errors are one JSON object; a 4xx names its
// field; a 200 for a path other than the API's is one of the page's embedded files.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "explore/assets.h"
#include "explore/explorer.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

const tbkit::explore::Explorer& bare_explorer() {
  static const tbkit::explore::Explorer explorer = [] {
    auto e = tbkit::explore::Explorer::open({}, {});
    TBKIT_FUZZ_CHECK(e.ok());
    return std::move(*e);
  }();
  return explorer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t a = input.find('\n');
  const std::size_t b = a == std::string_view::npos ? a : input.find('\n', a + 1);
  const std::string_view method = input.substr(0, a);
  const std::string_view path = a == std::string_view::npos ? std::string_view() : input.substr(a + 1, b == std::string_view::npos ? b : b - a - 1);
  const std::string_view query = b == std::string_view::npos ? std::string_view() : input.substr(b + 1);
  const auto r = bare_explorer().handle({method, path, query});
  TBKIT_FUZZ_CHECK(r.status == 200 || r.status == 400 || r.status == 404 || r.status == 405);
  const bool json = r.content_type == "application/json; charset=utf-8";
  if (r.status != 200) {
    TBKIT_FUZZ_CHECK(json);
    TBKIT_FUZZ_CHECK(r.body.starts_with("{\"error\": \"") && r.body.ends_with("}"));
    TBKIT_FUZZ_CHECK(r.body.find("\"field\": \"") != std::string::npos);
  } else if (path.starts_with("/api/")) {
    TBKIT_FUZZ_CHECK(json && r.body.starts_with("{") && r.body.ends_with("}"));
  } else {
    bool asset = false;
    for (const auto& f : tbkit::explore::embedded_assets()) asset = asset || (f.path == path && f.body == r.body);
    TBKIT_FUZZ_CHECK(asset);
  }
  return 0;
}
