#include "pgn/book_export.h"

#include <algorithm>
#include <cstdint>

namespace tbkit::pgn {

void append_polyglot_entries(std::span<const formats::BookRecord> position, std::vector<formats::PolyglotEntry>& out) {
  std::uint64_t max_weight = 0;
  for (const auto& r : position) max_weight = std::max(max_weight, 2 * std::uint64_t(r.mover_wins()) + r.draws);
  if (max_weight == 0 || position.front().key == 0) return;  // key 0 is reserved for Polyglot headers
  const std::size_t first = out.size();
  for (const auto& r : position) {
    std::uint64_t w = 2 * std::uint64_t(r.mover_wins()) + r.draws;
    if (w == 0) continue;
    // Scale down only when needed; a move that scored keeps a weight of at least 1.
    if (max_weight > 0xFFFF) w = std::max<std::uint64_t>(1, w * 0xFFFF / max_weight);
    out.push_back(formats::PolyglotEntry{r.key, r.move, std::uint16_t(w), 0});
  }
  std::sort(out.begin() + std::ptrdiff_t(first), out.end(), [](const formats::PolyglotEntry& a, const formats::PolyglotEntry& b) {
    return a.weight != b.weight ? a.weight > b.weight : a.move < b.move;
  });
}

Result<PolyglotExporter> PolyglotExporter::create(const std::filesystem::path& path) {
  auto out = formats::OutputFile::create(path);
  if (!out) return out.error();
  return PolyglotExporter(std::move(*out));
}

Status PolyglotExporter::flush_position() {
  entries_.clear();
  append_polyglot_entries(position_, entries_);
  position_.clear();
  std::byte buf[formats::kPolyglotEntrySize];
  for (const auto& e : entries_) {
    formats::encode_polyglot_entry(e, buf);
    if (auto s = out_.write(buf, sizeof buf); !s) return s;
    ++written_;
  }
  return {};
}

Status PolyglotExporter::add(const formats::BookRecord& r) {
  if (!position_.empty() && position_.back().key != r.key)
    if (auto s = flush_position(); !s) return s;
  position_.push_back(r);
  return {};
}

Result<std::uint64_t> PolyglotExporter::finish() {
  auto n = close();
  if (!n) return n.error();
  if (auto s = out_.commit(); !s) return s.error();
  return n;
}

Result<std::uint64_t> PolyglotExporter::close() {
  if (auto s = flush_position(); !s) return s.error();
  if (auto s = out_.close(); !s) return s.error();
  return written_;
}

}  // namespace tbkit::pgn
