#include "formats/polyglot_book.h"

#include <algorithm>
#include <fstream>

#include "chess/movegen.h"
#include "formats/atomic_file.h"
#include "formats/book_output.h"
#include "formats/byte_order.h"

namespace tbkit::formats {

std::uint16_t to_polyglot_move(chess::Move m) {
  int to = m.to().index();
  if (m.is_castling()) to = m.to().file() == 6 ? to + 1 : to - 2;  // g1 -> h1, c1 -> a1
  int promo = 0;
  if (m.is_promotion()) promo = int(m.promotion());  // knight 1 .. queen 4
  return std::uint16_t(to | (m.from().index() << 6) | (promo << 12));
}

std::string polyglot_move_text(std::uint16_t move) {
  const chess::Square to(move & 63), from((move >> 6) & 63);
  std::string s = from.name() + to.name();
  const int promo = (move >> 12) & 7;
  if (promo >= 1 && promo <= 4) s += "nbrq"[promo - 1];
  return s;
}

Result<chess::Move> from_polyglot_move(const chess::Position& pos, std::uint16_t move) {
  for (chess::Move m : chess::legal_moves(pos)) {
    const std::uint16_t pm = to_polyglot_move(m);
    // Some writers store castling as the king's own move (e1g1): accept both forms.
    const bool king_form = m.is_castling() && (pm & 0x0FC0) == (move & 0x0FC0) && (move & 63) == m.to().index();
    if (pm == move || king_form) return m;
  }
  return make_error(ErrorCode::kIllegal, "Polyglot move " + polyglot_move_text(move) + " is not legal in the position");
}

std::span<const PolyglotEntry> PolyglotBook::lookup(std::uint64_t key) const {
  auto range = std::equal_range(entries.begin(), entries.end(), PolyglotEntry{key, 0, 0, 0},
                                [](const PolyglotEntry& a, const PolyglotEntry& b) { return a.key < b.key; });
  return {entries.data() + (range.first - entries.begin()), std::size_t(range.second - range.first)};
}

PolyglotBook parse_polyglot_book(std::span<const std::byte> bytes, const std::string& name) {
  PolyglotBook book;
  const std::size_t count = bytes.size() / kPolyglotEntrySize;
  book.entries.reserve(count);
  bool sorted = true;
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* p = bytes.data() + i * kPolyglotEntrySize;
    PolyglotEntry e{load_be<std::uint64_t>(p), load_be<std::uint16_t>(p + 8), load_be<std::uint16_t>(p + 10), load_be<std::uint32_t>(p + 12)};
    if (!book.entries.empty() && e.key < book.entries.back().key) sorted = false;
    book.entries.push_back(e);
  }
  book.partial_entry = bytes.size() % kPolyglotEntrySize != 0;
  book.unsorted = !sorted;
  if (book.partial_entry)
    book.warnings.push_back(name + ": offset " + std::to_string(count * kPolyglotEntrySize) + ": trailing partial entry of " +
                            std::to_string(bytes.size() % kPolyglotEntrySize) + " bytes ignored");
  if (!sorted) {
    book.warnings.push_back(name + ": entries are not sorted by key; sorted in memory");
    std::stable_sort(book.entries.begin(), book.entries.end(), [](const PolyglotEntry& a, const PolyglotEntry& b) { return a.key < b.key; });
  }
  return book;
}

Result<PolyglotBook> read_polyglot_book(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(ErrorCode::kIo, path.string() + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path, "cannot open");
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error(ErrorCode::kIo, path.string() + ": read failed");
  return parse_polyglot_book(std::as_bytes(std::span<const char>(data)), path.string());
}

void encode_polyglot_entry(const PolyglotEntry& e, std::byte* out) {
  store_be(out, e.key);
  store_be(out + 8, e.move);
  store_be(out + 10, e.weight);
  store_be(out + 12, e.learn);
}

Status write_polyglot_book(const std::filesystem::path& path, std::span<const PolyglotEntry> entries) {
  auto out = OutputFile::create(path);
  if (!out) return out.error();
  return write_polyglot_book(std::move(*out), entries);
}

Status write_polyglot_book(OutputFile out, std::span<const PolyglotEntry> entries) {
  std::vector<std::byte> buf;
  buf.reserve(1 << 16);
  for (const auto& e : entries) {
    buf.resize(buf.size() + kPolyglotEntrySize);
    encode_polyglot_entry(e, buf.data() + buf.size() - kPolyglotEntrySize);
    if (buf.size() >= (1 << 16)) {
      if (auto s = out.write(buf.data(), buf.size()); !s) return s;
      buf.clear();
    }
  }
  if (auto s = out.write(buf.data(), buf.size()); !s) return s;
  return out.commit();
}

}  // namespace tbkit::formats
