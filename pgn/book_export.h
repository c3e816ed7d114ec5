// Polyglot export of native book records: weight = 2 * wins + draws from the mover's view, scaled
// per position so the largest weight fits 16 bits (never wrapped). Moves that never scored are left
// out, as Polyglot does. Entries: by key, weight descending, then move ascending; learn = 0.
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include "chess/result.h"
#include "formats/book_file.h"
#include "formats/book_output.h"
#include "formats/polyglot_book.h"

namespace tbkit::pgn {

// Appends the entries of one position (records all share one key) to out.
void append_polyglot_entries(std::span<const formats::BookRecord> position, std::vector<formats::PolyglotEntry>& out);

// Streams records (in (key, move) order) into a Polyglot .bin written as PATH.tmp and renamed by finish().
class PolyglotExporter {
 public:
  [[nodiscard]] static Result<PolyglotExporter> create(const std::filesystem::path& path);
  [[nodiscard]] Status add(const formats::BookRecord& record);
  // Errors: kIo. Returns the number of entries written.
  [[nodiscard]] Result<std::uint64_t> finish();
  // finish() in two steps: complete and close PATH.tmp, then rename it into place.
  [[nodiscard]] Result<std::uint64_t> close();
  [[nodiscard]] Status commit() { return out_.commit(); }

 private:
  explicit PolyglotExporter(formats::OutputFile out) : out_(std::move(out)) {}
  [[nodiscard]] Status flush_position();
  formats::OutputFile out_;
  std::vector<formats::BookRecord> position_;
  std::vector<formats::PolyglotEntry> entries_;
  std::uint64_t written_ = 0;
};

}  // namespace tbkit::pgn
