#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "chess/notation.h"
#include "formats/book_file.h"
#include "formats/polyglot_book.h"
#include "pgn/book_aggregator.h"
#include "pgn/book_builder.h"
#include "pgn/book_export.h"
#include "pgn/book_merge.h"
#include "tests/formats/book_test_util.h"

using namespace tbkit;
using namespace tbkit::pgn;

namespace {

formats::BookInfo build(const std::vector<std::string>& inputs, BookBuildOptions o, const std::filesystem::path& out) {
  o.output = out;
  auto s = build_book(inputs, o, {});
  if (!s.ok()) FAIL(s.error().message);
  return s->info;
}

const formats::BookRecord* find(const formats::BookFile& book, const chess::Position& pos, const char* san) {
  auto m = chess::parse_san(pos, san);
  REQUIRE(m.ok());
  for (const auto& r : book.lookup(pos.key()))
    if (r.move == formats::to_polyglot_move(*m)) return &r;
  return nullptr;
}

chess::Position after(std::initializer_list<const char*> moves) {
  chess::Position pos;
  for (const char* m : moves) pos.do_move(*chess::parse_san(pos, m));
  return pos;
}

// Records equal field by field (headers may differ, e.g. the merged flag).
bool same_records(const formats::BookFile& a, const formats::BookFile& b) {
  return a.records().size() == b.records().size() &&
         std::equal(a.records().begin(), a.records().end(), b.records().begin(), [](auto& x, auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

}  // namespace

TEST_CASE("Book build: counts, results, ratings and transpositions", "[pgn][book]") {
  test::ScratchDir dir;
  build({test::data_path("books/crafted.pgn").string()}, {}, dir / "c.tbb");
  auto book = formats::BookFile::open(dir / "c.tbb");
  REQUIRE(book.ok());
  CHECK(book->info().games == 6);

  // 1.e4 in games 1 (1-0, White 2400), 3 (1/2), 4 (*): three games, one win, one draw, '*' not a draw.
  const auto* e4 = find(*book, chess::Position(), "e4");
  REQUIRE(e4);
  CHECK(e4->games == 3);
  CHECK(e4->white_wins == 1);
  CHECK(e4->draws == 1);
  CHECK(e4->black_wins == 0);
  CHECK(e4->rated_games == 1);
  CHECK(e4->elo_sum == 2400);
  CHECK_FALSE(e4->black_to_move());

  // Black's reply e5 after 1.e4: games 1 (Black 2200) and 4; the mover's rating is Black's.
  const auto* e5 = find(*book, after({"e4"}), "e5");
  REQUIRE(e5);
  CHECK(e5->games == 2);
  CHECK(e5->rated_games == 1);
  CHECK(e5->elo_sum == 2200);
  CHECK(e5->black_to_move());
  CHECK(e5->mover_losses() == 1);

  // 1.Nf3 d5 2.d4 and 1.d4 d5 2.Nf3 reach one position: Nc6 from it has both games.
  const auto* nc6 = find(*book, after({"d4", "d5", "Nf3"}), "Nc6");
  REQUIRE(nc6);
  CHECK(nc6->games == 2);
  CHECK(nc6->white_wins == 1);
  CHECK(nc6->black_wins == 1);

  // Variations are skipped by default and recorded with --variations.
  CHECK(find(*book, after({"e4", "e5"}), "Nf3") != nullptr);
  CHECK(find(*book, after({"e4", "e5"}), "Bc4") == nullptr);  // only in game 4's variation
  BookBuildOptions with_var;
  with_var.filter.variations = true;
  build({test::data_path("books/crafted.pgn").string()}, with_var, dir / "v.tbb");
  auto vbook = formats::BookFile::open(dir / "v.tbb");
  REQUIRE(vbook.ok());
  const auto* bc4 = find(*vbook, after({"e4", "e5"}), "Bc4");
  REQUIRE(bc4);
  CHECK(bc4->games == 1);
  const auto* nf6 = find(*vbook, after({"e4", "e5", "Bc4"}), "Nf6");
  REQUIRE(nf6);
  CHECK(nf6->games == 1);
  // The main line after the variation is still counted once.
  CHECK(find(*vbook, after({"e4", "e5"}), "Nf3")->games == find(*book, after({"e4", "e5"}), "Nf3")->games);
  CHECK(vbook->info().params.variations);

  // Games from a FEN start record their own positions.
  build({test::data_path("books/fen-start.pgn").string()}, {}, dir / "f.tbb");
  auto fbook = formats::BookFile::open(dir / "f.tbb");
  REQUIRE(fbook.ok());
  CHECK(fbook->info().entry_count == 4);
}

TEST_CASE("Book build: filters", "[pgn][book]") {
  test::ScratchDir dir;
  const std::vector<std::string> in = {test::data_path("books/crafted.pgn").string()};
  auto open = [&](const char* name) {
    auto b = formats::BookFile::open(dir / name);
    REQUIRE(b.ok());
    return std::move(*b);
  };
  BookBuildOptions ply;
  ply.filter.max_ply = 1;
  build(in, ply, dir / "ply.tbb");
  auto p = open("ply.tbb");
  CHECK(p.info().position_count == 1);  // only the start position
  CHECK(p.info().entry_count == 3);     // e4, d4, Nf3

  BookBuildOptions white;
  white.filter.colour = formats::ColourFilter::kWhiteOnly;
  build(in, white, dir / "w.tbb");
  const auto w = open("w.tbb");
  CHECK(w.info().entry_count > 0);
  for (const auto& r : w.records()) CHECK_FALSE(r.black_to_move());

  BookBuildOptions elo;
  elo.filter.min_elo = 2300;  // mover: only White's moves of game 1 (2400) and game 2 (2500)
  build(in, elo, dir / "elo.tbb");
  auto e = open("elo.tbb");
  CHECK(e.info().entry_count == 11);
  for (const auto& r : e.records()) CHECK((!r.black_to_move() && r.rated_games == 1));
  elo.filter.elo_of = formats::EloOf::kBoth;  // game 1 has Black at 2200: nothing passes
  auto none = build_book(in, [&] { auto o = elo; o.output = dir / "none.tbb"; return o; }(), {});
  REQUIRE(none.ok());
  CHECK(none->info.entry_count == 0);
  CHECK(none->games_filtered == 6);

  BookBuildOptions dates;
  dates.filter.since = 20210101;  // game 2 only (2021.??.??); undated games fail any bound
  build(in, dates, dir / "d.tbb");
  CHECK(open("d.tbb").info().games == 1);

  BookBuildOptions min_games;
  min_games.min_games = 2;
  build(in, min_games, dir / "m.tbb");
  const auto m = open("m.tbb");
  for (const auto& r : m.records()) CHECK(r.games >= 2);
  CHECK(m.info().entry_count > 0);
}

TEST_CASE("Book build: spilling, threads and merge give identical books", "[pgn][book][slow]") {
  test::ScratchDir dir;
  const std::vector<std::string> in = {test::data_path("books/gnuchess-500.pgn").string()};
  BookBuildOptions base;
  base.threads = 1;
  base.chunk_size = 16 << 10;  // many chunks, so two threads really split the work
  base.polyglot_output = dir / "mem.bin";
  build(in, base, dir / "mem.tbb");

  BookBuildOptions spill = base;
  spill.memory_bytes = 256 << 10;  // far below the ~1.5 MB the table needs
  spill.polyglot_output = dir / "spill.bin";
  spill.temp_dir = dir.path();
  auto s = build_book(in, [&] { auto o = spill; o.output = dir / "spill.tbb"; return o; }(), {});
  REQUIRE(s.ok());
  CHECK(s->spill_runs >= 3);
  // 256 KiB leaves room for 2 open runs (pgn::merge_fan_in), so the runs are merged in pairs first.
  CHECK(pgn::merge_fan_in(spill.memory_bytes) == 2);
  CHECK(s->merge_passes >= 2);
  CHECK(test::read_bytes(dir / "spill.tbb") == test::read_bytes(dir / "mem.tbb"));
  CHECK(test::read_bytes(dir / "spill.bin") == test::read_bytes(dir / "mem.bin"));
  // Two threads sharing the spilling table.
  auto s2 = build_book(in, [&] { auto o = spill; o.threads = 2; o.output = dir / "spill2.tbb"; o.polyglot_output = dir / "spill2.bin"; return o; }(), {});
  REQUIRE(s2.ok());
  CHECK(s2->spill_runs >= 2);
  CHECK(test::read_bytes(dir / "spill2.tbb") == test::read_bytes(dir / "mem.tbb"));
  CHECK(test::read_bytes(dir / "spill2.bin") == test::read_bytes(dir / "mem.bin"));
  // Spill runs are gone afterwards.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) CHECK(entry.path().extension() != ".run");

  BookBuildOptions two = base;
  two.threads = 2;
  two.polyglot_output = dir / "two.bin";
  build(in, two, dir / "two.tbb");
  CHECK(test::read_bytes(dir / "two.tbb") == test::read_bytes(dir / "mem.tbb"));
  CHECK(test::read_bytes(dir / "two.bin") == test::read_bytes(dir / "mem.bin"));

  // Split the games in two files; merging the two books equals the book of all games.
  const std::string text(test::read_bytes(in[0]).data(), test::read_bytes(in[0]).size());
  const std::size_t cut = text.find("[Event ", text.size() / 2);
  REQUIRE(cut != std::string::npos);
  test::write_text(dir / "a.pgn", text.substr(0, cut));
  test::write_text(dir / "b.pgn", text.substr(cut));
  BookBuildOptions part;
  build({(dir / "a.pgn").string()}, part, dir / "a.tbb");
  build({(dir / "b.pgn").string()}, part, dir / "b.tbb");
  auto merged = merge_book_files({dir / "a.tbb", dir / "b.tbb"}, dir / "ab.tbb");
  REQUIRE(merged.ok());
  CHECK(merged->params.merged);
  auto all = formats::BookFile::open(dir / "mem.tbb");
  auto ab = formats::BookFile::open(dir / "ab.tbb");
  auto a = formats::BookFile::open(dir / "a.tbb");
  REQUIRE((all.ok() && ab.ok() && a.ok()));
  CHECK(same_records(*all, *ab));
  CHECK(ab->info().games == all->info().games);
  CHECK(a->info().entry_count < all->info().entry_count);

  // The Polyglot export is sorted by key, then weight descending, with no zero weights.
  auto bin = formats::read_polyglot_book(dir / "mem.bin");
  REQUIRE(bin.ok());
  for (std::size_t i = 1; i < bin->entries.size(); ++i) {
    const auto& p = bin->entries[i - 1];
    const auto& q = bin->entries[i];
    CHECK((p.key < q.key || (p.key == q.key && p.weight >= q.weight)));
    CHECK(q.weight > 0);
  }
}

TEST_CASE("Book build: weights are scaled, never wrapped", "[pgn][book]") {
  // 70000 wins for one move would wrap a 16-bit weight: the export scales the position instead.
  formats::BookRecord big{5, 100, 0, 70000, 70000, 0, 0, 0, 0};
  formats::BookRecord small{5, 200, 0, 10, 0, 10, 0, 0, 0};
  formats::BookRecord lost{5, 300, 0, 10, 0, 0, 10, 0, 0};
  std::vector<formats::PolyglotEntry> out;
  append_polyglot_entries(std::vector<formats::BookRecord>{big, small, lost}, out);
  REQUIRE(out.size() == 2);  // the move that never scored is left out
  CHECK(out[0].move == 100);
  CHECK(out[0].weight == 0xFFFF);
  CHECK(out[1].weight == std::max<std::uint64_t>(1, 10ULL * 0xFFFF / 140000));
}

TEST_CASE("Book build: bad inputs", "[pgn][book]") {
  test::ScratchDir dir;
  BookBuildOptions o;
  CHECK(build_book({(dir / "x.pgn").string()}, o, {}).error().code == ErrorCode::kInvalidArgument);  // no output
  o.output = dir / "x.tbb";
  auto missing = build_book({(dir / "missing.pgn").string()}, o, {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kIo);
  CHECK_FALSE(std::filesystem::exists(dir / "x.tbb"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.tbb.tmp"));
}

TEST_CASE("PlyStore: buckets from several stores sum in key order, and cleared stores are reused", "[pgn][book]") {
  // Two stores (as two threads) of 16 buckets each, sharing keys; one common key in a bucket of its
  // own outgrows the summing table's initial capacity.
  PlyStore a(4, 4096), b(4, 4096);
  std::vector<formats::BookRecord> all;
  const GameResult results[] = {GameResult::kWhiteWins, GameResult::kDraw, GameResult::kBlackWins, GameResult::kUnknown};
  for (std::uint64_t i = 0; i < 40000; ++i) {
    const std::uint64_t key = i < 26000 ? (i % 7000) * 0x9E3779B97F4A7C15ULL : 0x0123456789ABCDEFULL;
    const auto move = std::uint16_t(i < 26000 ? i % 3 : i % 14000);
    const bool black = move % 2;
    const std::uint32_t elo = i % 4 == 0 ? 0 : PlyStore::kMaxElo - std::uint32_t(i % 900);
    const GameResult result = results[i % 4];
    (i % 2 ? a : b).add(key, move, black, elo, result);
    formats::BookRecord r{key, move, std::uint16_t(black ? formats::kBookBlackToMove : 0), 1};
    r.white_wins = result == GameResult::kWhiteWins;
    r.draws = result == GameResult::kDraw;
    r.black_wins = result == GameResult::kBlackWins;
    r.rated_games = elo != 0;
    r.elo_sum = elo;
    all.push_back(r);
  }
  CHECK(a.records() + b.records() == all.size());
  std::vector<formats::BookRecord> expected;
  std::sort(all.begin(), all.end());
  bool summed = true;
  for (const auto& r : all) {
    if (!expected.empty() && expected.back().key == r.key && expected.back().move == r.move) summed &= expected.back().add(r);
    else expected.push_back(r);
  }
  REQUIRE(summed);
  std::erase_if(expected, [](const auto& r) { return r.games < 2; });

  tbb::task_arena arena(2);
  std::vector<formats::BookRecord> out;
  const PlyStore* stores[] = {&a, &b};
  auto s = drain_ply_stores(stores, 2, [&](const formats::BookRecord& r) -> Status {
    out.push_back(r);
    return {};
  }, arena);
  REQUIRE(s.ok());
  REQUIRE(out.size() == expected.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < out.size(); ++i) mismatches += std::memcmp(&out[i], &expected[i], sizeof out[i]) != 0;
  CHECK(mismatches == 0);

  // A sink that fails (a full disk) stops the drain: its error is returned, and the sink is not
  // called again, while the buckets still in flight are summed and dropped. 1024 buckets, so that
  // both threads are still taking buckets when the sink fails.
  PlyStore wide(10, 1 << 16);
  for (std::uint64_t i = 0; i < 200000; ++i) wide.add(i * 0x9E3779B97F4A7C15ULL, std::uint16_t(i % 5), false, 0, GameResult::kDraw);
  const PlyStore* wide_stores[] = {&wide};
  std::vector<formats::BookRecord> partial;
  int calls = 0;
  auto failed = drain_ply_stores(wide_stores, 1, [&](const formats::BookRecord& r) -> Status {
    ++calls;
    if (partial.size() == 5000) return make_error(ErrorCode::kIo, "disk full");
    partial.push_back(r);
    return {};
  }, arena);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ErrorCode::kIo);
  CHECK(failed.error().message == "disk full");
  CHECK(calls == 5001);
  REQUIRE(partial.size() == 5000);
  CHECK(std::is_sorted(partial.begin(), partial.end()));
  CHECK(partial.front().key == 0);

  // Cleared, a store takes records again and has forgotten the old ones.
  const std::size_t used = a.bytes();
  a.clear();
  CHECK(a.records() == 0);
  CHECK(a.bytes() < used);
  a.add(42, 7, true, 2000, GameResult::kDraw);
  const PlyStore* one[] = {&a};
  std::vector<formats::BookRecord> table, sums;
  REQUIRE(sum_bucket(one, 0, 1, table, sums).ok());
  REQUIRE(sums.size() == 1);
  CHECK((sums[0].key == 42 && sums[0].games == 1 && sums[0].draws == 1 && sums[0].elo_sum == 2000 && sums[0].rated_games == 1 &&
         sums[0].black_to_move()));
}

TEST_CASE("Spill runs merged through intermediate runs give the one-pass result", "[pgn][book]") {
  // Seven sorted runs. Key 5 move 1 is in every run with 1 game: only the sum (7) reaches
  // min_games 4, so the threshold must apply after all the summing, not in the group merges.
  test::ScratchDir dir;
  std::vector<std::filesystem::path> runs;
  for (int r = 0; r < 7; ++r) {
    std::vector<formats::BookRecord> recs;
    for (std::uint64_t key = 1; key <= 9; ++key) {
      if (key % 7 != std::uint64_t(r) && key != 5) continue;
      formats::BookRecord x;
      x.key = key;
      x.move = 1;
      x.games = key == 5 ? 1 : 4 + r;
      x.white_wins = x.games;
      recs.push_back(x);
    }
    runs.push_back(dir / ("r" + std::to_string(r) + ".run"));
    std::FILE* f = std::fopen(runs.back().c_str(), "wb");
    REQUIRE(f);
    REQUIRE(std::fwrite(recs.data(), sizeof(formats::BookRecord), recs.size(), f) == recs.size());
    std::fclose(f);
  }
  auto merge = [&](std::size_t fan_in, std::uint32_t& passes) {
    std::vector<formats::BookRecord> out;
    auto p = merge_run_files(runs, 4, [&](const formats::BookRecord& r) -> Status { out.push_back(r); return {}; }, fan_in);
    REQUIRE(p.ok());
    passes = *p;
    return out;
  };
  std::uint32_t one = 0, many = 0;
  const auto all_at_once = merge(64, one);
  CHECK(one == 1);
  for (const auto& path : runs) CHECK(std::filesystem::exists(path));  // a single pass removes nothing
  const auto in_pairs = merge(2, many);
  CHECK(many == 3);  // 7 runs -> 4 -> 2, then the last merge
  REQUIRE(all_at_once.size() == in_pairs.size());
  for (std::size_t i = 0; i < in_pairs.size(); ++i) {
    CHECK(in_pairs[i].key == all_at_once[i].key);
    CHECK(in_pairs[i].games == all_at_once[i].games);
    CHECK(in_pairs[i].white_wins == all_at_once[i].white_wins);
  }
  // Every key 1..9 has at least 4 games (key 5 only as the sum over the 7 runs).
  REQUIRE(in_pairs.size() == 9);
  CHECK(in_pairs[4].key == 5);
  CHECK(in_pairs[4].games == 7);
  // The group merges removed what they merged; only the last level's runs are left.
  std::size_t left = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) left += entry.path().extension() == ".run";
  CHECK(left == 2);
}
