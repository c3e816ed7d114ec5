// The explorer's requests and answers, without sockets: (method, path, query) -> (status,
// content type, body). cli/explore_command.cpp serves it over HTTP; tests and the fuzz target call
// it directly. API and page: docs/explore.md.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chess/result.h"
#include "explore/book_report.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"

namespace tbkit::explore {

struct HttpRequest {
  std::string_view method;  // "GET"
  std::string_view path;    // "/api/book", as sent (not decoded)
  std::string_view query;   // "fen=...&book=0", without the '?', not decoded
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
};

class Explorer {
 public:
  // Opens the books and the tables of `table_dirs` (DTM .dtm and Syzygy .rtbw/.rtbz; none: no
  // tables). Errors: the first book's or directory's (kIo naming the path, kCorrupt, kVersion).
  [[nodiscard]] static Result<Explorer> open(const std::vector<std::filesystem::path>& books,
                                             const std::vector<std::filesystem::path>& table_dirs);

  // Answers one request. Never throws on any input: bad requests get a 4xx with a JSON body
  // {"error": ..., "field": ...}. Thread-safe: any number of threads may call it at once.
  [[nodiscard]] HttpResponse handle(const HttpRequest& request) const;

  // Warnings of the books opened (Polyglot oddities), for the caller to show.
  [[nodiscard]] std::vector<std::string> warnings() const;

 private:
  std::vector<OpenBook> books_;
  std::unique_ptr<probe::Tablebase> tables_;
  std::unique_ptr<probe::SyzygyTablebase> syzygy_;
};

}  // namespace tbkit::explore
