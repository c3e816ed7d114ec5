// The parallel reader gives the same games as the sequential one, for any thread count.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <oneapi/tbb/task_arena.h>

#include "pgn/parallel_reader.h"
#include "reader_test_util.h"
#include "tests/formats/book_test_util.h"

using namespace tbkit;
using namespace tbkit::pgn;
using tbkit::pgn::testing::data_path;
using tbkit::pgn::testing::RecordingVisitor;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A collection of a few hundred games of every kind from the edge-case files, repeated.
std::string make_collection() {
  std::string all;
  for (const char* f : {"chess-library/multiple.pgn", "chess-library/variations.pgn", "python-chess/kasparov-deep-blue-1997.pgn",
                        "chess-library/corrupted.pgn", "chess-library/empty_body.pgn", "python-chess/antichess-programfox.pgn",
                        "chess-library/no_moves_but_game_termination_multiple.pgn", "chess-library/skip.pgn"}) {
    std::string text = slurp(data_path(std::string("pgn/edge/") + f));
    if (!text.empty() && text.back() != '\n') text += '\n';
    all += text + "\n";
  }
  std::string out;
  for (int i = 0; i < 20; ++i) out += all;
  return out;
}

struct ParallelRun {
  ReadSummary summary;
  std::string digest;
  std::vector<ChunkInfo> chunks;
};

ParallelRun run(const std::vector<std::string>& paths, int threads, std::size_t chunk_size, const ReaderOptions& o) {
  tbb::task_arena arena(threads);
  ParallelOptions po;
  po.chunk_size = chunk_size;
  ParallelRun r;
  auto s = read_pgn_parallel(
      paths, arena, o, po, [](const ChunkInfo&) { return std::make_unique<RecordingVisitor>(); },
      [&](const ChunkInfo& info, std::unique_ptr<Visitor> v) {
        auto& rec = static_cast<RecordingVisitor&>(*v);
        // Renumber games to their number in the file, as a consumer would.
        for (auto& g : rec.games) g.location.game_number += info.first_game_number - 1;
        r.digest += rec.digest();
        r.chunks.push_back(info);
      },
      nullptr);
  REQUIRE(s.ok());
  r.summary = *s;
  return r;
}

}  // namespace

TEST_CASE("parallel reader: 1 and 2 threads and the sequential reader agree", "[pgn][parallel]") {
  const std::string text = make_collection();
  const test::ScratchDir scratch;
  const auto path = (scratch / "parallel.pgn").string();
  std::ofstream(path, std::ios::binary) << text;

  for (bool variations : {false, true}) {
    INFO("variations " << variations);
    ReaderOptions o;
    o.follow_variations = variations;
    RecordingVisitor seq;
    auto s = read_pgn(path, seq, o);
    REQUIRE(s.ok());
    REQUIRE(s->games_read > 300);

    const auto one = run({path}, 1, 16 << 10, o);
    const auto two = run({path}, 2, 16 << 10, o);
    CHECK(one.chunks.size() > 10);
    CHECK(one.digest == two.digest);
    CHECK(one.digest == seq.digest());
    CHECK(one.summary.games_read == s->games_read);
    CHECK(two.summary.games_used == s->games_used);
    CHECK(two.summary.skipped_by_reason == s->skipped_by_reason);
    CHECK(two.summary.diagnostics == s->diagnostics);
    CHECK(two.summary.bytes == text.size());
    // Chunks cover the file in order without gaps.
    std::uint64_t offset = 0, games = 0;
    for (const auto& c : two.chunks) {
      CHECK(c.byte_offset == offset);
      CHECK(c.first_game_number == games + 1);
      offset += c.bytes;
      games += c.games;
    }
    CHECK(offset == text.size());
  }
}

TEST_CASE("parallel reader: several files, zstd, errors", "[pgn][parallel]") {
  const std::vector<std::string> paths = {data_path("pgn/small.pgn.zst"), data_path("pgn/edge/python-chess/utf8-bom.pgn"),
                                          data_path("pgn/small.pgn")};
  const auto r = run(paths, 2, 1 << 10, ReaderOptions{});
  CHECK(r.summary.games_read == 6);
  CHECK(r.chunks.size() == 3);
  CHECK(r.chunks[1].first_game_number == 1);
  CHECK(r.chunks[2].source == paths[2]);

  tbb::task_arena arena(2);
  auto bad = read_pgn_parallel(
      {data_path("pgn/small.pgn"), data_path("pgn/truncated.pgn.zst")}, arena, ReaderOptions{}, ParallelOptions{},
      [](const ChunkInfo&) { return std::make_unique<RecordingVisitor>(); }, [](const ChunkInfo&, std::unique_ptr<Visitor>) {},
      nullptr);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kCorrupt);
}

TEST_CASE("parallel reader: a comment quoting tag lines is not a game boundary", "[pgn][parallel]") {
  // Each game's comment holds lines that look like the start of a game ("[Event" after movetext);
  // the '{' in a ';' comment and in a tag value must not confuse the splitter either.
  const std::string game =
      "[Event \"quoting {\"]\n[Result \"1-0\"]\n\n1. e4 { a game from the archive:\n"
      "[Event \"inner\"]\n[Site \"x\"]\n\n1. d4 d5 } e5 2. Nf3 ; brace { in a line comment\n"
      "Nc6 { closed } 3. Bb5 {\n[Black \"also quoted\"]\n} a6 1-0\n\n"
      "[Event \"next\"]\n\n1. d4 { [%clk 0:01:00]\n[Round \"1\"] } 1/2-1/2\n\n";
  std::string text;
  for (int i = 0; i < 40; ++i) text += game;
  const test::ScratchDir scratch;
  const auto path = (scratch / "quoted_tags.pgn").string();
  std::ofstream(path, std::ios::binary) << text;

  RecordingVisitor seq;
  auto s = read_pgn(path, seq, ReaderOptions{});
  REQUIRE(s.ok());
  CHECK(s->games_read == 80);
  CHECK(s->games_used == 80);
  // Chunk sizes that put the nominal split point everywhere inside the game text.
  for (std::size_t chunk = 40; chunk < 400; chunk += 23) {
    INFO("chunk size " << chunk);
    const auto two = run({path}, 2, chunk, ReaderOptions{});
    CHECK(two.chunks.size() > 1);
    CHECK(two.summary.games_read == 80);
    CHECK(two.summary.games_used == 80);
    CHECK(two.digest == seq.digest());
  }
}
