// Experience store beside a book (docs/formats/experience.md): an append-only journal of finished
// games (BOOK.exp, checksummed records) and the learned statistics folded from it (BOOK.learn),
// keyed like the book by (Polyglot key, Polyglot move), results from the mover's view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "chess/result.h"

namespace tbkit::formats {

// A game's result from White's view, as the journal stores it.
enum class ExperienceResult : std::uint8_t { kWhiteWins = 0, kDraw = 1, kBlackWins = 2, kUnknown = 3 };

struct ExperiencePly {
  std::uint64_t key = 0;    // Polyglot key of the position before the move
  std::uint16_t move = 0;   // Polyglot move encoding
  bool black_to_move = false;
  friend bool operator==(const ExperiencePly&, const ExperiencePly&) = default;
};

// One finished game: every recorded ply of both sides and the result.
struct ExperienceGame {
  ExperienceResult result = ExperienceResult::kUnknown;
  std::vector<ExperiencePly> plies;
  friend bool operator==(const ExperienceGame&, const ExperienceGame&) = default;
};

inline constexpr std::size_t kJournalHeaderSize = 16;
inline constexpr std::size_t kJournalRecordHeaderSize = 12;
inline constexpr std::size_t kJournalPlySize = 12;
inline constexpr std::uint32_t kJournalMaxPlies = 1u << 16;

// The journal and learned-file paths of a book: BOOK.exp and BOOK.learn.
[[nodiscard]] std::filesystem::path journal_path(const std::filesystem::path& book);
[[nodiscard]] std::filesystem::path learned_path(const std::filesystem::path& book);

// The bytes of one journal record (record header + payload). Asserts plies <= kJournalMaxPlies.
[[nodiscard]] std::vector<std::byte> encode_journal_record(const ExperienceGame& game);
// The bytes of a journal header for `epoch`.
[[nodiscard]] std::vector<std::byte> encode_journal_header(std::uint64_t epoch);

// What a journal holds: its epoch, the valid records in order, and where validity ended.
struct JournalContents {
  std::uint64_t epoch = 0;            // 0 if the file is empty or its header is torn
  std::vector<ExperienceGame> games;  // every valid record before the first bad byte
  std::uint64_t valid_bytes = 0;      // header + valid records
  std::uint64_t file_bytes = 0;
  bool torn = false;                  // bytes after valid_bytes could not be read as records
  std::string tail_problem;           // why, naming the byte offset (empty if !torn)
};

// Parses journal bytes. Never fails: a torn or corrupt tail is reported in the value. Thread-safe.
[[nodiscard]] JournalContents parse_journal(std::span<const std::byte> bytes, const std::string& name);
// Reads a journal file (absent = empty). Takes no lock. Errors: kIo.
[[nodiscard]] Result<JournalContents> read_journal(const std::filesystem::path& path);

// Appends games to BOOK.exp as one write() on an O_APPEND descriptor under flock(LOCK_EX), so
// concurrent appenders (threads or processes) never mix records. A torn tail left by a crash is cut
// off first. Errors: kIo. Thread-safe and process-safe.
[[nodiscard]] Status append_experience(const std::filesystem::path& book, std::span<const ExperienceGame> games);

// Learned statistics of one move from one position, from the mover's view.
struct LearnedEntry {
  std::uint64_t key = 0;
  std::uint16_t move = 0;
  std::uint16_t flags = 0;  // bit 0: Black to move
  std::uint32_t games = 0;  // all results, including unknown
  std::uint32_t wins = 0;
  std::uint32_t draws = 0;
  std::uint32_t losses = 0;
  [[nodiscard]] friend bool operator<(const LearnedEntry& a, const LearnedEntry& b) {
    return a.key != b.key ? a.key < b.key : a.move < b.move;
  }
  friend bool operator==(const LearnedEntry&, const LearnedEntry&) = default;
};

struct LearnedStats {
  std::uint64_t folded_epoch = 0;     // the last journal epoch folded in (0 = none)
  std::uint64_t games = 0;            // games folded in, all epochs
  std::vector<LearnedEntry> entries;  // sorted by (key, move), unique
  // The entries of one position (empty if absent).
  [[nodiscard]] std::span<const LearnedEntry> lookup(std::uint64_t key) const;
};

// Adds the games' plies to the statistics (entries stay sorted and unique). Errors: kCorrupt on a
// count overflow, leaving stats unchanged.
[[nodiscard]] Status add_games(LearnedStats& stats, std::span<const ExperienceGame> games);
[[nodiscard]] Status add_game(LearnedStats& stats, const ExperienceGame& game);

[[nodiscard]] std::vector<std::byte> encode_learned(const LearnedStats& stats);
// Validates everything: magic, version, sizes, order, checksum. Errors: kCorrupt, kVersion.
[[nodiscard]] Result<LearnedStats> parse_learned(std::span<const std::byte> bytes, const std::string& name);
// Reads BOOK.learn; an absent file is empty statistics. Errors: kIo, kCorrupt, kVersion.
[[nodiscard]] Result<LearnedStats> read_learned(const std::filesystem::path& path);

// The store's statistics as of now: BOOK.learn plus the journal's records not folded yet (games
// counts both). Takes no lock: the journal is read first, so a fold running meanwhile is seen
// either before (its journal's epoch is not yet in BOOK.learn) or after (BOOK.learn holds it).
// Absent files are an empty store. Errors: kIo, kCorrupt, kVersion (BOOK.learn).
[[nodiscard]] Result<LearnedStats> read_experience_stats(const std::filesystem::path& book);

struct FoldSummary {
  std::uint64_t games_folded = 0;   // journal records added by this fold
  bool journal_already_folded = false;  // the journal's epoch was in BOOK.learn already (an interrupted fold)
  bool torn_tail = false;           // the journal ended in a torn or corrupt record, left out
  std::string tail_problem;
  LearnedStats stats;               // after the fold
};

// Folds BOOK.exp into BOOK.learn under the appenders' lock: writes BOOK.learn.tmp, fsyncs, renames
// it into place, then empties the journal. A crash at any step neither loses nor double-counts a
// game (the epoch test). Errors: kIo, kCorrupt (BOOK.learn invalid or a count overflow).
// Process-safe.
[[nodiscard]] Result<FoldSummary> fold_experience(const std::filesystem::path& book);

}  // namespace tbkit::formats
