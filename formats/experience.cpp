// The experience store: journal records, learned statistics, appending and folding.
#include "formats/experience.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <limits>

#include "formats/atomic_file.h"
#include "formats/crc32c.h"

namespace tbkit::formats {
namespace {

constexpr char kJournalMagic[8] = {'T', 'B', 'K', 'E', 'X', 'P', 'J', '\x1a'};
constexpr char kLearnedMagic[8] = {'T', 'B', 'K', 'L', 'E', 'A', 'R', 'N'};
constexpr std::uint32_t kRecordMagic = 0x47584254;  // "TBXG" read little-endian
constexpr std::uint32_t kLearnedVersion = 1;
constexpr std::size_t kLearnedHeaderSize = 40;
constexpr std::size_t kLearnedEntrySize = 32;

void put(std::vector<std::byte>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(std::byte((v >> (8 * i)) & 0xff));
}
std::uint64_t get(std::span<const std::byte> in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t(in[at + i]) << (8 * i);
  return v;
}

// A descriptor closed on scope exit (the flock goes with it).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

Status write_all(int fd, std::span<const std::byte> bytes, const std::filesystem::path& path) {
  // One write() for the whole record: O_APPEND places it in one piece; a short write is an error.
  const ssize_t n = ::write(fd, bytes.data(), bytes.size());
  if (n < 0) return io_error(path, "write failed");
  if (std::size_t(n) != bytes.size()) return make_error(ErrorCode::kIo, path.string() + ": short write (disk full?)");
  return {};
}

Result<std::vector<std::byte>> read_fd(int fd, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error(path, "fstat failed");
  std::vector<std::byte> bytes(std::size_t(st.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0) return io_error(path, "read failed");
    if (n == 0) break;
    done += std::size_t(n);
  }
  bytes.resize(done);
  return bytes;
}

Result<std::vector<std::byte>> read_file(const std::filesystem::path& path, bool& exists) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    exists = false;
    if (errno == ENOENT) return std::vector<std::byte>{};
    return io_error(path, "cannot open");
  }
  exists = true;
  const Fd guard(fd);
  return read_fd(fd, path);
}

// Opens BOOK.exp for appending and takes the exclusive lock every appender and folder takes.
Result<int> open_locked_journal(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error(path, "cannot open");
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const Error e = io_error(path, "cannot lock");
    ::close(fd);
    return e;
  }
  return fd;
}

Status fsync_dir(const std::filesystem::path& file) {
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error(dir, "cannot open directory");
  const Fd guard(fd);
  if (::fsync(fd) != 0) return io_error(dir, "fsync failed");
  return {};
}

// BOOK.learn's folded epoch from its header alone (0 if absent). Errors: kIo, kCorrupt.
Result<std::uint64_t> read_folded_epoch(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::uint64_t{0};
    return io_error(path, "cannot open");
  }
  const Fd guard(fd);
  std::byte head[kLearnedHeaderSize];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  if (n < 0) return io_error(path, "read failed");
  if (std::size_t(n) < sizeof head || std::memcmp(head, kLearnedMagic, sizeof kLearnedMagic) != 0)
    return make_error(ErrorCode::kCorrupt, path.string() + ": byte 0: not a tbkit learned-statistics file");
  return get(head, 16, 8);
}

}  // namespace

std::filesystem::path journal_path(const std::filesystem::path& book) { return book.string() + ".exp"; }
std::filesystem::path learned_path(const std::filesystem::path& book) { return book.string() + ".learn"; }

std::vector<std::byte> encode_journal_header(std::uint64_t epoch) {
  std::vector<std::byte> out;
  for (char c : kJournalMagic) out.push_back(std::byte(c));
  put(out, epoch, 8);
  return out;
}

std::vector<std::byte> encode_journal_record(const ExperienceGame& game) {
  assert(game.plies.size() <= kJournalMaxPlies);
  std::vector<std::byte> payload;
  payload.reserve(8 + kJournalPlySize * game.plies.size());
  put(payload, std::uint8_t(game.result), 1);
  put(payload, 0, 3);
  put(payload, game.plies.size(), 4);
  for (const auto& p : game.plies) {
    put(payload, p.key, 8);
    put(payload, p.move, 2);
    put(payload, p.black_to_move ? 1 : 0, 2);
  }
  std::vector<std::byte> out;
  out.reserve(kJournalRecordHeaderSize + payload.size());
  put(out, kRecordMagic, 4);
  put(out, payload.size(), 4);
  // The checksum covers the length too, so a flipped length bit is caught like any other.
  const std::uint32_t crc = crc32c(payload, crc32c(std::span<const std::byte>(out.data() + 4, 4)));
  put(out, crc, 4);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

JournalContents parse_journal(std::span<const std::byte> bytes, const std::string& name) {
  JournalContents c;
  c.file_bytes = bytes.size();
  const auto tear = [&](std::uint64_t at, const std::string& why) -> JournalContents {
    c.torn = true;
    c.tail_problem = name + ": byte " + std::to_string(at) + ": " + why + "; the " + std::to_string(bytes.size() - at) +
                     " bytes from there are left out";
    return c;
  };
  if (bytes.empty()) return c;
  if (bytes.size() < kJournalHeaderSize || std::memcmp(bytes.data(), kJournalMagic, sizeof kJournalMagic) != 0) {
    return tear(0, bytes.size() < kJournalHeaderSize ? "torn journal header" : "bad journal magic");
  }
  // Epochs start at 1; 0 would read as "no journal" to the fold.
  if (get(bytes, 8, 8) == 0) return tear(0, "journal epoch 0");
  c.epoch = get(bytes, 8, 8);
  std::size_t at = kJournalHeaderSize;
  c.valid_bytes = at;
  while (at < bytes.size()) {
    if (bytes.size() - at < kJournalRecordHeaderSize) return tear(at, "torn record header");
    if (get(bytes, at, 4) != kRecordMagic) return tear(at, "bad record magic");
    const std::uint64_t len = get(bytes, at + 4, 4);
    if (len < 8 || len > 8 + std::uint64_t(kJournalPlySize) * kJournalMaxPlies) return tear(at, "bad record length " + std::to_string(len));
    if (bytes.size() - at - kJournalRecordHeaderSize < len) return tear(at, "torn record (" + std::to_string(len) + " payload bytes expected)");
    const auto payload = bytes.subspan(at + kJournalRecordHeaderSize, len);
    const std::uint32_t crc = crc32c(payload, crc32c(bytes.subspan(at + 4, 4)));
    if (crc != get(bytes, at + 8, 4)) return tear(at, "record checksum mismatch");
    const std::uint64_t result = get(payload, 0, 1);
    const std::uint64_t plies = get(payload, 4, 4);
    if (result > 3 || get(payload, 1, 3) != 0 || len != 8 + kJournalPlySize * plies) return tear(at, "inconsistent record fields");
    ExperienceGame g;
    g.result = ExperienceResult(result);
    g.plies.reserve(plies);
    for (std::uint64_t i = 0; i < plies; ++i) {
      const std::size_t p = 8 + kJournalPlySize * i;
      const std::uint64_t flags = get(payload, p + 10, 2);
      if (flags > 1) return tear(at, "bad ply flags");
      g.plies.push_back(ExperiencePly{get(payload, p, 8), std::uint16_t(get(payload, p + 8, 2)), flags == 1});
    }
    c.games.push_back(std::move(g));
    at += kJournalRecordHeaderSize + len;
    c.valid_bytes = at;
  }
  return c;
}

Result<JournalContents> read_journal(const std::filesystem::path& path) {
  bool exists = false;
  auto bytes = read_file(path, exists);
  if (!bytes) return bytes.error();
  return parse_journal(*bytes, path.string());
}

Status append_experience(const std::filesystem::path& book, std::span<const ExperienceGame> games) {
  std::vector<std::byte> out;
  for (const auto& g : games) {
    if (g.plies.size() > kJournalMaxPlies)
      return make_error(ErrorCode::kInvalidArgument, "a game of " + std::to_string(g.plies.size()) + " plies is longer than the journal takes");
    const auto rec = encode_journal_record(g);
    out.insert(out.end(), rec.begin(), rec.end());
  }
  const auto path = journal_path(book);
  auto fd = open_locked_journal(path);
  if (!fd) return fd.error();
  const Fd guard(*fd);
  auto bytes = read_fd(*fd, path);
  if (!bytes) return bytes.error();
  JournalContents c = parse_journal(*bytes, path.string());
  auto folded = read_folded_epoch(learned_path(book));
  if (!folded) return folded.error();
  // A journal BOOK.learn already holds (a fold killed before emptying it) is dropped, not added to:
  // the next fold would skip its new games with the old ones.
  if (c.epoch != 0 && c.epoch <= *folded) c.valid_bytes = 0, c.torn = true;
  // A crash mid-append leaves a torn record; cut it so this game is not hidden behind it.
  if (c.torn && ::ftruncate(*fd, off_t(c.valid_bytes)) != 0) return io_error(path, "cannot cut the journal's tail");
  if (c.valid_bytes == 0) {
    // A new (or just folded) journal takes the epoch after the one BOOK.learn last folded.
    const auto header = encode_journal_header(*folded + 1);
    out.insert(out.begin(), header.begin(), header.end());
  }
  if (out.empty()) return {};
  if (auto s = write_all(*fd, out, path); !s) {
    // Take back a partial write so the journal stays a list of whole records.
    (void)::ftruncate(*fd, off_t(c.valid_bytes));
    return s;
  }
  if (::fsync(*fd) != 0) return io_error(path, "fsync failed");
  return {};
}

std::span<const LearnedEntry> LearnedStats::lookup(std::uint64_t key) const {
  const auto lo = std::lower_bound(entries.begin(), entries.end(), key, [](const LearnedEntry& e, std::uint64_t k) { return e.key < k; });
  auto hi = lo;
  while (hi != entries.end() && hi->key == key) ++hi;
  return {entries.data() + (lo - entries.begin()), std::size_t(hi - lo)};
}

Status add_games(LearnedStats& stats, std::span<const ExperienceGame> games) {
  // One entry per ply, sorted and summed, then merged with the old entries: linear in the output
  // after the sort, where inserting ply by ply into the sorted vector would be quadratic.
  std::vector<LearnedEntry> plies;
  for (const auto& g : games)
    for (const auto& p : g.plies) {
      LearnedEntry e{};
      e.key = p.key;
      e.move = p.move;
      e.flags = p.black_to_move ? 1 : 0;
      e.games = 1;
      const bool white_won = g.result == ExperienceResult::kWhiteWins, black_won = g.result == ExperienceResult::kBlackWins;
      if (g.result == ExperienceResult::kDraw) e.draws = 1;
      else if ((white_won && !p.black_to_move) || (black_won && p.black_to_move)) e.wins = 1;
      else if (white_won || black_won) e.losses = 1;
      plies.push_back(e);
    }
  std::stable_sort(plies.begin(), plies.end());
  std::vector<LearnedEntry> merged;
  merged.reserve(stats.entries.size() + plies.size());
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  const auto add = [&](const LearnedEntry& e) -> bool {
    if (merged.empty() || merged.back().key != e.key || merged.back().move != e.move) {
      merged.push_back(e);
      return true;
    }
    auto& m = merged.back();
    if (std::uint64_t(m.games) + e.games > kMax) return false;
    m.games += e.games;
    m.wins += e.wins;
    m.draws += e.draws;
    m.losses += e.losses;
    return true;
  };
  std::size_t i = 0, j = 0;
  while (i < stats.entries.size() || j < plies.size()) {
    const bool old_first = j == plies.size() || (i < stats.entries.size() && !(plies[j] < stats.entries[i]));
    if (!add(old_first ? stats.entries[i++] : plies[j++]))
      return make_error(ErrorCode::kCorrupt, "learned statistics: a game count would overflow");
  }
  stats.entries = std::move(merged);
  stats.games += games.size();
  return {};
}

Status add_game(LearnedStats& stats, const ExperienceGame& game) { return add_games(stats, std::span(&game, 1)); }

std::vector<std::byte> encode_learned(const LearnedStats& stats) {
  std::vector<std::byte> out;
  out.reserve(kLearnedHeaderSize + kLearnedEntrySize * stats.entries.size() + 4);
  for (char c : kLearnedMagic) out.push_back(std::byte(c));
  put(out, kLearnedVersion, 4);
  put(out, 0, 4);
  put(out, stats.folded_epoch, 8);
  put(out, stats.games, 8);
  // The entry count follows from the size; stored anyway so a truncation is told from a bad size.
  put(out, stats.entries.size(), 8);
  for (const auto& e : stats.entries) {
    put(out, e.key, 8);
    put(out, e.move, 2);
    put(out, e.flags, 2);
    put(out, e.games, 4);
    put(out, e.wins, 4);
    put(out, e.draws, 4);
    put(out, e.losses, 4);
    put(out, 0, 4);
  }
  put(out, crc32c(out), 4);
  return out;
}

Result<LearnedStats> parse_learned(std::span<const std::byte> bytes, const std::string& name) {
  const auto bad = [&](std::size_t at, const std::string& why) {
    return make_error(ErrorCode::kCorrupt, name + ": byte " + std::to_string(at) + ": " + why);
  };
  if (bytes.size() < kLearnedHeaderSize + 4) return bad(0, "too short for a learned-statistics file");
  if (std::memcmp(bytes.data(), kLearnedMagic, sizeof kLearnedMagic) != 0) return bad(0, "bad magic (not a tbkit learned-statistics file)");
  if (get(bytes, 8, 4) != kLearnedVersion)
    return make_error(ErrorCode::kVersion, name + ": byte 8: version " + std::to_string(get(bytes, 8, 4)) + " (this tbkit reads 1)");
  const std::uint64_t count = get(bytes, 32, 8);
  if (count > (bytes.size() - kLearnedHeaderSize - 4) / kLearnedEntrySize || bytes.size() != kLearnedHeaderSize + kLearnedEntrySize * count + 4)
    return bad(32, "entry count " + std::to_string(count) + " does not match the file size " + std::to_string(bytes.size()));
  const std::size_t body = bytes.size() - 4;
  if (crc32c(bytes.first(body)) != get(bytes, body, 4)) return bad(body, "checksum mismatch");
  LearnedStats s;
  s.folded_epoch = get(bytes, 16, 8);
  s.games = get(bytes, 24, 8);
  s.entries.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t at = kLearnedHeaderSize + kLearnedEntrySize * i;
    LearnedEntry e;
    e.key = get(bytes, at, 8);
    e.move = std::uint16_t(get(bytes, at + 8, 2));
    e.flags = std::uint16_t(get(bytes, at + 10, 2));
    e.games = std::uint32_t(get(bytes, at + 12, 4));
    e.wins = std::uint32_t(get(bytes, at + 16, 4));
    e.draws = std::uint32_t(get(bytes, at + 20, 4));
    e.losses = std::uint32_t(get(bytes, at + 24, 4));
    if (e.flags > 1 || get(bytes, at + 28, 4) != 0) return bad(at, "bad entry flags");
    if (std::uint64_t(e.wins) + e.draws + e.losses > e.games) return bad(at, "results exceed the game count");
    if (!s.entries.empty() && !(s.entries.back() < e)) return bad(at, "entries out of order");
    s.entries.push_back(e);
  }
  return s;
}

Result<LearnedStats> read_learned(const std::filesystem::path& path) {
  bool exists = false;
  auto bytes = read_file(path, exists);
  if (!bytes) return bytes.error();
  if (!exists) return LearnedStats{};
  return parse_learned(*bytes, path.string());
}

Result<LearnedStats> read_experience_stats(const std::filesystem::path& book) {
  auto journal = read_journal(journal_path(book));
  if (!journal) return journal.error();
  auto stats = read_learned(learned_path(book));
  if (!stats) return stats.error();
  if (journal->epoch != 0 && journal->epoch > stats->folded_epoch && !journal->games.empty())
    if (Status s = add_games(*stats, journal->games); !s) return s.error();
  return stats;
}

Result<FoldSummary> fold_experience(const std::filesystem::path& book) {
  const auto jpath = journal_path(book), lpath = learned_path(book);
  auto fd = open_locked_journal(jpath);
  if (!fd) return fd.error();
  const Fd guard(*fd);
  auto bytes = read_fd(*fd, jpath);
  if (!bytes) return bytes.error();
  const JournalContents journal = parse_journal(*bytes, jpath.string());
  auto learned = read_learned(lpath);
  if (!learned) return learned.error();
  FoldSummary summary;
  summary.torn_tail = journal.torn;
  summary.tail_problem = journal.tail_problem;
  // BOOK.learn names the last journal epoch it holds: a journal of that epoch was folded by a run
  // killed between the rename and the truncation, and is only emptied now.
  summary.journal_already_folded = journal.epoch != 0 && journal.epoch <= learned->folded_epoch;
  if (!summary.journal_already_folded && journal.epoch != 0) {
    LearnedStats next = *learned;
    if (auto s = add_games(next, journal.games); !s) return s.error();
    next.folded_epoch = journal.epoch;
    summary.games_folded = journal.games.size();
    const auto image = encode_learned(next);
    const std::filesystem::path tmp = lpath.string() + ".tmp";
    {
      const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (out < 0) return io_error(tmp, "cannot create");
      const Fd out_guard(out);
      Status s = write_all(out, image, tmp);
      if (s && ::fsync(out) != 0) s = io_error(tmp, "fsync failed");
      if (!s) {
        std::filesystem::remove(tmp);
        return s.error();
      }
    }
    if (::rename(tmp.c_str(), lpath.c_str()) != 0) {
      const Error e = io_error(lpath, "cannot rename " + tmp.string() + " into place");
      std::filesystem::remove(tmp);
      return e;
    }
    if (auto s = fsync_dir(lpath); !s) return s.error();
    *learned = std::move(next);
  }
  if (journal.file_bytes > 0) {
    if (::ftruncate(*fd, 0) != 0) return io_error(jpath, "cannot empty the folded journal");
    if (::fsync(*fd) != 0) return io_error(jpath, "fsync failed");
  }
  summary.stats = std::move(*learned);
  return summary;
}

}  // namespace tbkit::formats
