// The experience store: journal records, torn tails, concurrent appenders, folding and its crashes.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "formats/experience.h"
#include "tests/formats/book_test_util.h"
#include "tests/support/processes.h"

namespace tbkit::formats {
namespace {

using test::run_processes;
using test::ScratchDir;

ExperienceGame sample_game(std::uint64_t seed, ExperienceResult result, int plies) {
  ExperienceGame g;
  g.result = result;
  for (int i = 0; i < plies; ++i)
    g.plies.push_back(ExperiencePly{0x9e3779b97f4a7c15ULL * (seed * 31 + std::uint64_t(i) % 3), std::uint16_t(0x031c + i % 3), i % 2 == 1});
  return g;
}

std::span<const std::byte> as_span(const std::vector<char>& v) { return std::as_bytes(std::span<const char>(v)); }

// Totals per (key, move) straight from the games, to compare folds against.
std::map<std::pair<std::uint64_t, std::uint16_t>, std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> expected_totals(
    const std::vector<ExperienceGame>& games) {
  std::map<std::pair<std::uint64_t, std::uint16_t>, std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> t;
  for (const auto& g : games)
    for (const auto& p : g.plies) {
      auto& [n, w, d, l] = t[{p.key, p.move}];
      ++n;
      if (g.result == ExperienceResult::kDraw) ++d;
      if (g.result == ExperienceResult::kWhiteWins) ++(p.black_to_move ? l : w);
      if (g.result == ExperienceResult::kBlackWins) ++(p.black_to_move ? w : l);
    }
  return t;
}

void check_totals(const LearnedStats& s, const std::vector<ExperienceGame>& games) {
  const auto t = expected_totals(games);
  REQUIRE(s.entries.size() == t.size());
  REQUIRE(s.games == games.size());
  std::size_t i = 0;
  for (const auto& [k, v] : t) {
    const auto& e = s.entries[i++];
    CHECK(e.key == k.first);
    CHECK(e.move == k.second);
    CHECK(e.games == std::get<0>(v));
    CHECK(e.wins == std::get<1>(v));
    CHECK(e.draws == std::get<2>(v));
    CHECK(e.losses == std::get<3>(v));
  }
}

TEST_CASE("experience: journal records round-trip", "[experience]") {
  ScratchDir dir;
  const auto book = dir / "b.tbb";
  const std::vector<ExperienceGame> games = {sample_game(1, ExperienceResult::kWhiteWins, 7), sample_game(2, ExperienceResult::kUnknown, 1),
                                             sample_game(3, ExperienceResult::kBlackWins, 40), sample_game(4, ExperienceResult::kDraw, 0)};
  REQUIRE(append_experience(book, std::span(games).first(2)).ok());
  REQUIRE(append_experience(book, std::span(games).subspan(2)).ok());
  auto j = read_journal(journal_path(book));
  REQUIRE(j.ok());
  CHECK_FALSE(j->torn);
  CHECK(j->epoch == 1);
  CHECK(j->valid_bytes == j->file_bytes);
  CHECK(j->games == games);
}

TEST_CASE("experience: a journal cut at every byte of its last record keeps the others and reports the tear", "[experience]") {
  ScratchDir dir;
  const auto book = dir / "b.tbb";
  const std::vector<ExperienceGame> games = {sample_game(1, ExperienceResult::kDraw, 5), sample_game(2, ExperienceResult::kWhiteWins, 6),
                                             sample_game(3, ExperienceResult::kBlackWins, 9)};
  REQUIRE(append_experience(book, games).ok());
  const auto bytes = test::read_bytes(journal_path(book));
  const std::size_t last = encode_journal_record(games.back()).size();
  REQUIRE(bytes.size() == kJournalHeaderSize + encode_journal_record(games[0]).size() + encode_journal_record(games[1]).size() + last);
  const std::size_t start = bytes.size() - last;
  for (std::size_t cut = start; cut < bytes.size(); ++cut) {
    const auto c = parse_journal(as_span(bytes).first(cut), "j");
    REQUIRE(c.games.size() == 2);
    CHECK(c.games[0] == games[0]);
    CHECK(c.games[1] == games[1]);
    CHECK(c.valid_bytes == start);
    CHECK(c.torn == (cut > start));
    if (cut > start) CHECK(c.tail_problem.find("byte " + std::to_string(start)) != std::string::npos);
  }
  // An appender after a crash mid-write cuts the torn tail and is read behind the whole records.
  test::write_bytes(journal_path(book), std::vector<char>(bytes.begin(), bytes.end() - 3));
  const ExperienceGame next = sample_game(9, ExperienceResult::kWhiteWins, 4);
  REQUIRE(append_experience(book, std::span(&next, 1)).ok());
  auto j = read_journal(journal_path(book));
  REQUIRE(j.ok());
  CHECK_FALSE(j->torn);
  REQUIRE(j->games.size() == 3);
  CHECK(j->games[2] == next);
}

TEST_CASE("experience: every flipped byte of a record is detected", "[experience]") {
  const ExperienceGame g = sample_game(5, ExperienceResult::kBlackWins, 3);
  std::vector<std::byte> bytes = encode_journal_header(7);
  const auto rec = encode_journal_record(g);
  bytes.insert(bytes.end(), rec.begin(), rec.end());
  REQUIRE(parse_journal(bytes, "j").games.size() == 1);
  for (std::size_t i = kJournalHeaderSize; i < bytes.size(); ++i) {
    for (std::byte mask : {std::byte{0x01}, std::byte{0x80}}) {
      auto bad = bytes;
      bad[i] ^= mask;
      const auto c = parse_journal(bad, "j");
      CHECK(c.games.empty());
      CHECK(c.torn);
      CHECK(c.valid_bytes == kJournalHeaderSize);
    }
  }
}

TEST_CASE("experience: N processes appending M games each leave N*M valid records", "[experience]") {
  ScratchDir dir;
  const auto book = dir / "b.tbb";
  constexpr int kProcs = 6, kGames = 40;
  run_processes(kProcs, [&](int p) {
    for (int i = 0; i < kGames; ++i) {
      const ExperienceGame g = sample_game(std::uint64_t(p * 1000 + i), ExperienceResult(i % 4), 1 + (p * 7 + i) % 60);
      if (!append_experience(book, std::span(&g, 1)).ok()) return 1;
    }
    return 0;
  });
  auto j = read_journal(journal_path(book));
  REQUIRE(j.ok());
  CHECK_FALSE(j->torn);
  REQUIRE(j->games.size() == std::size_t(kProcs * kGames));
  // Every game arrived whole: each process's games in its own order, none twice.
  std::map<std::uint64_t, int> next_of_proc;
  for (const auto& g : j->games) {
    REQUIRE_FALSE(g.plies.empty());
    const std::uint64_t first_key = g.plies[0].key;
    bool found = false;
    for (int p = 0; p < kProcs && !found; ++p) {
      const int i = next_of_proc[std::uint64_t(p)];
      if (i < kGames && g == sample_game(std::uint64_t(p * 1000 + i), ExperienceResult(i % 4), 1 + (p * 7 + i) % 60)) {
        ++next_of_proc[std::uint64_t(p)];
        found = true;
      }
    }
    INFO("first key " << first_key);
    CHECK(found);
  }
  for (int p = 0; p < kProcs; ++p) CHECK(next_of_proc[std::uint64_t(p)] == kGames);
}

TEST_CASE("experience: processes appending and folding at once lose and double-count no game", "[experience]") {
  ScratchDir dir;
  const auto book = dir / "b.tbb";
  constexpr int kProcs = 4, kGames = 30;
  run_processes(kProcs, [&](int p) {
    for (int i = 0; i < kGames; ++i) {
      const ExperienceGame g = sample_game(std::uint64_t(p * 1000 + i), ExperienceResult(i % 4), 1 + i % 9);
      if (!append_experience(book, std::span(&g, 1)).ok()) return 1;
      if (i % 3 == p % 3 && !fold_experience(book).ok()) return 2;
    }
    return 0;
  });
  auto f = fold_experience(book);
  REQUIRE(f.ok());
  CHECK_FALSE(f->torn_tail);
  std::vector<ExperienceGame> all;
  for (int p = 0; p < kProcs; ++p)
    for (int i = 0; i < kGames; ++i) all.push_back(sample_game(std::uint64_t(p * 1000 + i), ExperienceResult(i % 4), 1 + i % 9));
  check_totals(f->stats, all);
}

TEST_CASE("experience: folding twice equals folding once, and folds in steps give the same totals", "[experience]") {
  ScratchDir dir;
  const auto book = dir / "b.tbb";
  std::vector<ExperienceGame> games;
  for (int i = 0; i < 30; ++i) games.push_back(sample_game(std::uint64_t(i % 7), ExperienceResult(i % 4), 3 + i % 5));
  REQUIRE(append_experience(book, std::span(games).first(10)).ok());
  auto f1 = fold_experience(book);
  REQUIRE(f1.ok());
  CHECK(f1->games_folded == 10);
  CHECK(std::filesystem::file_size(journal_path(book)) == 0);
  auto f2 = fold_experience(book);
  REQUIRE(f2.ok());
  CHECK(f2->games_folded == 0);
  CHECK(f2->stats.entries == f1->stats.entries);
  CHECK(f2->stats.games == 10);
  REQUIRE(append_experience(book, std::span(games).subspan(10)).ok());
  auto j = read_journal(journal_path(book));
  REQUIRE(j.ok());
  CHECK(j->epoch == 2);
  auto f3 = fold_experience(book);
  REQUIRE(f3.ok());
  CHECK(f3->games_folded == 20);
  check_totals(f3->stats, games);
  auto onfile = read_learned(learned_path(book));
  REQUIRE(onfile.ok());
  CHECK(onfile->entries == f3->stats.entries);
  CHECK(onfile->folded_epoch == 2);
}

TEST_CASE("experience: a fold killed at any step neither loses nor double-counts a game", "[experience]") {
  ScratchDir dir;
  const auto book = dir / "b.tbb";
  std::vector<ExperienceGame> games;
  for (int i = 0; i < 12; ++i) games.push_back(sample_game(std::uint64_t(i % 5), ExperienceResult(i % 4), 2 + i % 4));

  SECTION("killed before the rename: a leftover BOOK.learn.tmp") {
    REQUIRE(append_experience(book, games).ok());
    test::write_text(learned_path(book).string() + ".tmp", "half a file");
    auto f = fold_experience(book);
    REQUIRE(f.ok());
    check_totals(f->stats, games);
    CHECK_FALSE(std::filesystem::exists(learned_path(book).string() + ".tmp"));
  }
  SECTION("killed after the rename, before the journal was emptied") {
    REQUIRE(append_experience(book, games).ok());
    const auto journal = test::read_bytes(journal_path(book));
    REQUIRE(fold_experience(book).ok());
    test::write_bytes(journal_path(book), journal);  // the journal as the killed fold left it
    SECTION("the next fold skips it") {
      auto f = fold_experience(book);
      REQUIRE(f.ok());
      CHECK(f->journal_already_folded);
      CHECK(f->games_folded == 0);
      check_totals(f->stats, games);
      CHECK(std::filesystem::file_size(journal_path(book)) == 0);
    }
    SECTION("the next append starts a new journal, and its game is folded once") {
      const ExperienceGame extra = sample_game(77, ExperienceResult::kWhiteWins, 3);
      REQUIRE(append_experience(book, std::span(&extra, 1)).ok());
      auto j = read_journal(journal_path(book));
      REQUIRE(j.ok());
      CHECK(j->epoch == 2);
      REQUIRE(j->games.size() == 1);
      auto f = fold_experience(book);
      REQUIRE(f.ok());
      auto all = games;
      all.push_back(extra);
      check_totals(f->stats, all);
    }
  }
}

TEST_CASE("experience: results are counted from the mover's view, unknown counts only as a game", "[experience]") {
  LearnedStats s;
  ExperienceGame g;
  g.result = ExperienceResult::kBlackWins;
  g.plies = {{10, 1, false}, {20, 2, true}};
  REQUIRE(add_game(s, g).ok());
  g.result = ExperienceResult::kUnknown;
  REQUIRE(add_game(s, g).ok());
  REQUIRE(s.entries.size() == 2);
  CHECK(s.entries[0].games == 2);
  CHECK(s.entries[0].losses == 1);
  CHECK(s.entries[0].wins + s.entries[0].draws == 0);
  CHECK(s.entries[1].games == 2);
  CHECK(s.entries[1].wins == 1);
  CHECK(s.entries[1].flags == 1);
  CHECK(s.lookup(20).size() == 1);
  CHECK(s.lookup(15).empty());
}

TEST_CASE("experience: the learned file is validated", "[experience]") {
  LearnedStats s;
  REQUIRE(add_game(s, sample_game(3, ExperienceResult::kDraw, 4)).ok());
  const auto bytes = encode_learned(s);
  auto ok = parse_learned(bytes, "l");
  REQUIRE(ok.ok());
  CHECK(ok->entries == s.entries);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto bad = bytes;
    bad[i] ^= std::byte{0x10};
    auto r = parse_learned(bad, "l");
    REQUIRE_FALSE(r.ok());
    CHECK((r.error().code == ErrorCode::kCorrupt || r.error().code == ErrorCode::kVersion));
  }
  for (std::size_t n = 0; n < bytes.size(); ++n) CHECK_FALSE(parse_learned(std::span(bytes).first(n), "l").ok());
}

}  // namespace
}  // namespace tbkit::formats
