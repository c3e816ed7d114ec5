#include "formats/book_file.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace tbkit::formats {
namespace {

// Header field offsets (docs/formats/book.md).
constexpr std::size_t kOffVersion = 8, kOffHeaderSize = 12, kOffEntrySize = 16, kOffFlags = 20, kOffEntries = 24,
                      kOffPositions = 32, kOffGames = 40, kOffMaxPly = 48, kOffMinGames = 52, kOffMinElo = 56,
                      kOffEloOf = 60, kOffColour = 61, kOffSince = 64, kOffUntil = 68, kOffChecksum = 120;
constexpr std::uint32_t kFlagVariations = 1, kFlagMerged = 2;

template <class T>
void put(std::array<std::byte, kBookHeaderSize>& h, std::size_t off, T v) { std::memcpy(h.data() + off, &v, sizeof v); }
template <class T>
T get(const std::byte* h, std::size_t off) {
  T v;
  std::memcpy(&v, h + off, sizeof v);
  return v;
}

std::array<std::byte, kBookHeaderSize> encode_header(const BookInfo& info) {
  std::array<std::byte, kBookHeaderSize> h{};
  std::memcpy(h.data(), kBookMagic, 8);
  put<std::uint32_t>(h, kOffVersion, kBookVersion);
  put<std::uint32_t>(h, kOffHeaderSize, kBookHeaderSize);
  put<std::uint32_t>(h, kOffEntrySize, sizeof(BookRecord));
  put<std::uint32_t>(h, kOffFlags, (info.params.variations ? kFlagVariations : 0) | (info.params.merged ? kFlagMerged : 0));
  put<std::uint64_t>(h, kOffEntries, info.entry_count);
  put<std::uint64_t>(h, kOffPositions, info.position_count);
  put<std::uint64_t>(h, kOffGames, info.games);
  put<std::uint32_t>(h, kOffMaxPly, info.params.max_ply);
  put<std::uint32_t>(h, kOffMinGames, info.params.min_games);
  put<std::uint32_t>(h, kOffMinElo, info.params.min_elo);
  put<std::uint8_t>(h, kOffEloOf, std::uint8_t(info.params.elo_of));
  put<std::uint8_t>(h, kOffColour, std::uint8_t(info.params.colour));
  put<std::uint32_t>(h, kOffSince, info.params.since);
  put<std::uint32_t>(h, kOffUntil, info.params.until);
  put<std::uint64_t>(h, kOffChecksum, info.checksum);
  return h;
}

std::uint64_t final_checksum(std::uint64_t entries_hash, const std::byte* header) {
  BookChecksum c(entries_hash);
  c.add(header, kOffChecksum);
  return c.value();
}

Error corrupt(const std::string& name, std::uint64_t offset, const std::string& what) {
  return make_error(ErrorCode::kCorrupt, name + ": offset " + std::to_string(offset) + ": " + what);
}

constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

}  // namespace

bool BookRecord::add(const BookRecord& o) {
  constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();
  if (std::uint64_t(games) + o.games > kMax32 || std::uint64_t(white_wins) + o.white_wins > kMax32 ||
      std::uint64_t(draws) + o.draws > kMax32 || std::uint64_t(black_wins) + o.black_wins > kMax32 ||
      std::uint64_t(rated_games) + o.rated_games > kMax32 || elo_sum + o.elo_sum < elo_sum)
    return false;
  games += o.games;
  white_wins += o.white_wins;
  draws += o.draws;
  black_wins += o.black_wins;
  rated_games += o.rated_games;
  elo_sum += o.elo_sum;
  return true;
}

void BookChecksum::add(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i + 8 <= size; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h_ = rotl(h_ ^ (w * 0x87c37b91114253d5ULL), 31) * 0x4cf5ad432745937fULL;
    ++words_;
  }
}

std::uint64_t BookChecksum::value() const {
  std::uint64_t h = h_ ^ words_;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

Result<BookWriter> BookWriter::create(const std::filesystem::path& path, const BookParams& params) {
  auto out = OutputFile::create(path);
  if (!out) return out.error();
  BookWriter w(std::move(*out), params);
  const std::array<std::byte, kBookHeaderSize> placeholder{};
  if (auto s = w.out_.write(placeholder.data(), placeholder.size()); !s) return s.error();
  return w;
}

Status BookWriter::add(const BookRecord& r) {
  if (entries_ > 0 && !(last_ < r))
    return make_error(ErrorCode::kInvalidArgument, "book writer: records out of order at entry " + std::to_string(entries_));
  if (entries_ == 0 || r.key != last_.key) ++positions_;
  checksum_.add(&r, sizeof r);
  if (auto s = out_.write(&r, sizeof r); !s) return s;
  last_ = r;
  ++entries_;
  return {};
}

Result<BookInfo> BookWriter::finish() {
  auto info = close();
  if (!info) return info.error();
  if (auto s = out_.commit(); !s) return s.error();
  return info;
}

Result<BookInfo> BookWriter::close() {
  BookInfo info;
  info.version = kBookVersion;
  info.entry_count = entries_;
  info.position_count = positions_;
  info.games = games_;
  info.params = params_;
  auto header = encode_header(info);
  info.checksum = final_checksum(checksum_.value(), header.data());
  put<std::uint64_t>(header, kOffChecksum, info.checksum);
  if (auto s = out_.write_at(0, header.data(), header.size()); !s) return s.error();
  if (auto s = out_.close(); !s) return s.error();
  return info;
}

bool has_book_magic(std::span<const std::byte> head) {
  return head.size() >= 8 && std::memcmp(head.data(), kBookMagic, 8) == 0;
}

Result<BookFile> BookFile::from_bytes(std::span<const std::byte> bytes, const std::string& name) {
  const std::byte* p = bytes.data();
  if (bytes.size() < kBookHeaderSize)
    return corrupt(name, bytes.size(), "header: truncated (file has " + std::to_string(bytes.size()) + " bytes, header needs 128)");
  if (!has_book_magic(bytes)) return corrupt(name, 0, "magic: not a tbkit book (.tbb)");
  const auto version = get<std::uint32_t>(p, kOffVersion);
  if (version != kBookVersion)
    return make_error(ErrorCode::kVersion, name + ": offset 8: version: " + std::to_string(version) +
                                               " is not supported (this build reads version 1)");
  if (get<std::uint32_t>(p, kOffHeaderSize) != kBookHeaderSize) return corrupt(name, kOffHeaderSize, "header_size: not 128");
  if (get<std::uint32_t>(p, kOffEntrySize) != sizeof(BookRecord)) return corrupt(name, kOffEntrySize, "entry_size: not 40");
  const auto flags = get<std::uint32_t>(p, kOffFlags);
  if (flags & ~(kFlagVariations | kFlagMerged)) return corrupt(name, kOffFlags, "flags: unknown bits set");
  BookInfo info;
  info.version = version;
  info.entry_count = get<std::uint64_t>(p, kOffEntries);
  info.position_count = get<std::uint64_t>(p, kOffPositions);
  info.games = get<std::uint64_t>(p, kOffGames);
  info.params.max_ply = get<std::uint32_t>(p, kOffMaxPly);
  info.params.min_games = get<std::uint32_t>(p, kOffMinGames);
  info.params.min_elo = get<std::uint32_t>(p, kOffMinElo);
  const auto elo_of = get<std::uint8_t>(p, kOffEloOf);
  const auto colour = get<std::uint8_t>(p, kOffColour);
  if (elo_of > 2) return corrupt(name, kOffEloOf, "elo_of: " + std::to_string(elo_of) + " out of range");
  if (colour > 2) return corrupt(name, kOffColour, "colour: " + std::to_string(colour) + " out of range");
  info.params.elo_of = EloOf(elo_of);
  info.params.colour = ColourFilter(colour);
  info.params.since = get<std::uint32_t>(p, kOffSince);
  info.params.until = get<std::uint32_t>(p, kOffUntil);
  info.params.variations = flags & kFlagVariations;
  info.params.merged = flags & kFlagMerged;
  info.checksum = get<std::uint64_t>(p, kOffChecksum);

  const std::uint64_t body = bytes.size() - kBookHeaderSize;
  if (info.entry_count > body / sizeof(BookRecord))
    return corrupt(name, bytes.size(), "entries: truncated (header says " + std::to_string(info.entry_count) + " entries, file holds " +
                                           std::to_string(body / sizeof(BookRecord)) + ")");
  if (body != info.entry_count * sizeof(BookRecord))
    return corrupt(name, kBookHeaderSize + info.entry_count * sizeof(BookRecord), "trailing bytes after the last entry");
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(BookRecord) != 0)
    return make_error(ErrorCode::kInvalidArgument, name + ": image not 8-byte aligned");

  std::span<const BookRecord> records(reinterpret_cast<const BookRecord*>(p + kBookHeaderSize), std::size_t(info.entry_count));
  BookChecksum sum;
  std::uint64_t positions = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const BookRecord& r = records[i];
    const std::uint64_t off = kBookHeaderSize + i * sizeof(BookRecord);
    if (i > 0 && !(records[i - 1] < r)) return corrupt(name, off, "entry " + std::to_string(i) + ": key/move out of order");
    if (i == 0 || records[i - 1].key != r.key) ++positions;
    if (r.move == 0) return corrupt(name, off + 8, "entry " + std::to_string(i) + ": move: zero");
    if (r.flags & ~kBookBlackToMove) return corrupt(name, off + 10, "entry " + std::to_string(i) + ": flags: unknown bits set");
    if (std::uint64_t(r.white_wins) + r.draws + r.black_wins > r.games || r.rated_games > r.games)
      return corrupt(name, off + 12, "entry " + std::to_string(i) + ": games: less than its results or rated games");
    sum.add(&r, sizeof r);
  }
  if (positions != info.position_count)
    return corrupt(name, kOffPositions, "position_count: header says " + std::to_string(info.position_count) + ", entries hold " +
                                             std::to_string(positions));
  if (final_checksum(sum.value(), p) != info.checksum) return corrupt(name, kOffChecksum, "checksum: mismatch");

  BookFile book;
  book.info_ = info;
  book.records_ = records;
  book.build_index();
  return book;
}

Result<BookFile> BookFile::open(const std::filesystem::path& path) {
  auto file = MappedFile::map(path);
  if (!file) return file.error();
  auto book = from_bytes(file->bytes(), path.string());
  if (!book) return book.error();
  // The records point into the mapping; moving a MappedFile keeps its bytes where they are.
  book->file_.emplace(std::move(*file));
  return book;
}

std::size_t lower_bound_key(std::span<const BookRecord> records, std::uint64_t key) {
  const std::size_t n = records.size();
  if (n == 0 || records[0].key >= key) return 0;
  if (records[n - 1].key < key) return n;
  // Invariant: records[lo].key < key <= records[hi].key. Interpolation search: uniform keys need
  // two or three probes; every third step bisects so skewed keys cannot make it linear.
  std::size_t lo = 0, hi = n - 1;
  for (int step = 0; hi - lo > 8; ++step) {
    std::size_t mid;
    if (step % 3 == 2) {
      mid = lo + (hi - lo) / 2;
    } else {
      const double fraction = double(key - records[lo].key) / double(records[hi].key - records[lo].key);
      mid = lo + std::size_t(fraction * double(hi - lo));
      mid = std::clamp(mid, lo + 1, hi - 1);
    }
    if (records[mid].key < key) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  while (records[lo + 1].key < key) ++lo;
  return lo + 1;
}

void BookFile::build_index() {
  const std::size_t n = records_.size();
  index_.clear();
  index_bits_ = 0;
  if (n < 64 || n > std::numeric_limits<std::uint32_t>::max()) return;  // tiny books, or too big for 32-bit slots
  // About four records per bucket.
  index_bits_ = std::max(1, int(std::bit_width(n)) - 3);
  const std::size_t buckets = std::size_t{1} << index_bits_;
  index_.resize(buckets + 1);
  std::size_t r = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    while (r < n && (records_[r].key >> (64 - index_bits_)) < b) ++r;
    index_[b] = std::uint32_t(r);
  }
  index_[buckets] = std::uint32_t(n);
}

std::span<const BookRecord> BookFile::lookup(std::uint64_t key) const {
  std::size_t first;
  if (index_bits_ > 0) {
    const std::size_t b = std::size_t(key >> (64 - index_bits_));
    first = index_[b];
    const std::size_t end = index_[b + 1];
    if (end - first > 16) {
      first += lower_bound_key(records_.subspan(first, end - first), key);  // a crowded bucket: keys are not uniform
    } else {
      while (first < end && records_[first].key < key) ++first;
    }
  } else {
    first = lower_bound_key(records_, key);
  }
  std::size_t last = first;
  while (last < records_.size() && records_[last].key == key) ++last;
  return records_.subspan(first, last - first);
}

}  // namespace tbkit::formats
