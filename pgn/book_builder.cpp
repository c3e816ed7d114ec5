#include "pgn/book_builder.h"

#include <stdlib.h>

#include <memory>
#include <mutex>
#include <optional>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "pgn/book_aggregator.h"
#include "pgn/book_export.h"

namespace tbkit::pgn {
namespace {

using formats::BookRecord;

// A private directory for spill runs, removed with everything in it when the build ends.
class TempDir {
 public:
  static Result<TempDir> create(const std::filesystem::path& parent) {
    std::error_code ec;
    std::filesystem::path base = parent.empty() ? std::filesystem::temp_directory_path(ec) : parent;
    if (ec) return make_error(ErrorCode::kIo, "cannot find a temporary directory: " + ec.message());
    std::string pattern = (base / "tbkit-book-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) return make_error(ErrorCode::kIo, pattern + ": cannot create temporary directory");
    TempDir d;
    d.path_ = pattern;
    return d;
  }
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  TempDir() = default;
  std::filesystem::path path_;
};

struct Slot {
  std::mutex mutex;
  std::unique_ptr<BookAggregator> aggregator;
  std::vector<BookRecord> scratch;  // one game's records
};

void add_game_records(const BookGame& game, Slot& slot) {
  BookRecord r{};
  r.games = 1;
  r.white_wins = game.result == GameResult::kWhiteWins;
  r.draws = game.result == GameResult::kDraw;
  r.black_wins = game.result == GameResult::kBlackWins;
  slot.scratch.clear();
  for (const BookPly& p : game.plies) {
    r.key = p.key;
    r.move = p.move;
    r.flags = p.white_to_move ? 0 : formats::kBookBlackToMove;
    const std::uint32_t elo = p.white_to_move ? game.white_elo : game.black_elo;
    r.rated_games = elo ? 1 : 0;
    r.elo_sum = elo;
    slot.scratch.push_back(r);
  }
  slot.aggregator->add_all(slot.scratch);
}

// Compat chunks keep their games so they can be replayed in input order.
class CompatChunk : public BookGameCollector {
 public:
  explicit CompatChunk(const BookFilter& filter)
      : BookGameCollector(filter, [this](const BookGame& g) { games.push_back(g); }) {}
  std::vector<BookGame> games;
};

Result<BookBuildSummary> build_compat(const std::vector<std::string>& inputs, const BookBuildOptions& o, tbb::task_arena& arena,
                                      const ReaderOptions& reader, const ParallelOptions& parallel, const ProgressCallback& progress) {
  if (o.polyglot_output.empty()) return make_error(ErrorCode::kInvalidArgument, "--polyglot-compat needs a Polyglot output file");
  BookFilter filter;
  filter.max_ply = o.compat.max_ply;
  PolyglotCompatBook book;
  BookBuildSummary summary;
  auto read = read_pgn_parallel(
      inputs, arena, reader, parallel, [&](const ChunkInfo&) { return std::make_unique<CompatChunk>(filter); },
      [&](const ChunkInfo&, std::unique_ptr<Visitor> v) {
        auto* chunk = static_cast<CompatChunk*>(v.get());
        for (const BookGame& g : chunk->games) book.add_game(g, o.compat.max_ply);
        summary.games_recorded += chunk->games_recorded();
      },
      progress);
  if (!read) return read.error();
  summary.read = std::move(*read);
  const auto entries = book.entries(o.compat);
  if (auto s = formats::write_polyglot_book(o.polyglot_output, entries); !s) return s.error();
  summary.polyglot_entries = entries.size();
  return summary;
}

}  // namespace

Result<BookBuildSummary> build_book(const std::vector<std::string>& inputs, const BookBuildOptions& o, const ProgressCallback& progress) {
  if (inputs.empty()) return make_error(ErrorCode::kInvalidArgument, "book build: no input files");
  if (o.output.empty() && o.polyglot_output.empty()) return make_error(ErrorCode::kInvalidArgument, "book build: no output file");
  if (o.threads < 1) return make_error(ErrorCode::kInvalidArgument, "book build: threads must be at least 1");
  tbb::task_arena arena(o.threads);
  ReaderOptions reader;
  reader.follow_variations = !o.polyglot_compat && o.filter.variations;
  reader.on_error = ReaderOptions::OnError::kSkipGame;
  reader.max_ply = o.polyglot_compat ? o.compat.max_ply : o.filter.max_ply;
  ParallelOptions parallel;
  parallel.chunk_size = o.chunk_size;
  if (o.polyglot_compat) return build_compat(inputs, o, arena, reader, parallel, progress);

  auto temp = TempDir::create(o.temp_dir);
  if (!temp) return temp.error();
  // One aggregator per arena thread (plus one for callers outside the arena); the table budget
  // takes three quarters of --memory, leaving the rest to the reader's chunks in flight.
  const std::size_t slots = std::size_t(o.threads) + 1;
  const std::size_t budget = o.memory_bytes ? std::max<std::size_t>(o.memory_bytes * 3 / 4 / slots, 1 << 16) : 0;
  std::vector<Slot> aggs(slots);
  for (std::size_t i = 0; i < slots; ++i)
    aggs[i].aggregator = std::make_unique<BookAggregator>(budget, temp->path() / ("agg" + std::to_string(i)));

  auto sink = [&aggs, slots](const BookGame& g) {
    const int index = tbb::this_task_arena::current_thread_index();
    Slot& slot = aggs[index >= 0 && std::size_t(index) + 1 < slots ? std::size_t(index) : slots - 1];
    std::lock_guard lock(slot.mutex);
    add_game_records(g, slot);
  };
  BookBuildSummary summary;
  auto read = read_pgn_parallel(
      inputs, arena, reader, parallel, [&](const ChunkInfo&) { return std::make_unique<BookGameCollector>(o.filter, sink); },
      [&](const ChunkInfo&, std::unique_ptr<Visitor> v) {
        auto* c = static_cast<BookGameCollector*>(v.get());
        summary.games_recorded += c->games_recorded();
        summary.games_filtered += c->games_filtered();
      },
      progress);
  if (!read) return read.error();
  summary.read = std::move(*read);

  std::vector<std::filesystem::path> runs;
  std::vector<SortedRun> memory;
  // Each aggregator sorts its table on its own thread.
  std::vector<std::vector<SortedRun>> sorted(slots);
  arena.execute([&] { tbb::parallel_for(std::size_t{0}, slots, [&](std::size_t i) { sorted[i] = aggs[i].aggregator->take_sorted(); }); });
  for (std::size_t i = 0; i < slots; ++i) {
    if (!aggs[i].aggregator->status().ok()) return aggs[i].aggregator->status().error();
    runs.insert(runs.end(), aggs[i].aggregator->runs().begin(), aggs[i].aggregator->runs().end());
    for (auto& run : sorted[i]) memory.push_back(std::move(run));
  }
  summary.spill_runs = runs.size();

  formats::BookParams params;
  params.max_ply = o.filter.max_ply;
  params.min_games = o.min_games;
  params.min_elo = o.filter.min_elo;
  params.elo_of = o.filter.elo_of;
  params.colour = o.filter.colour;
  params.since = o.filter.since;
  params.until = o.filter.until;
  params.variations = o.filter.variations;
  std::optional<formats::BookWriter> writer;
  std::optional<PolyglotExporter> exporter;
  if (!o.output.empty()) {
    auto w = formats::BookWriter::create(o.output, params);
    if (!w) return w.error();
    writer.emplace(std::move(*w));
    writer->set_games(summary.games_recorded);
  }
  if (!o.polyglot_output.empty()) {
    auto e = PolyglotExporter::create(o.polyglot_output);
    if (!e) return e.error();
    exporter.emplace(std::move(*e));
  }
  auto status = merge_book_sources(runs, std::move(memory), o.min_games, [&](const BookRecord& r) -> Status {
    if (writer)
      if (auto s = writer->add(r); !s) return s;
    if (exporter) return exporter->add(r);
    return {};
  }, &arena);
  if (!status) return status.error();
  if (writer) {
    auto info = writer->finish();
    if (!info) return info.error();
    summary.info = *info;
  }
  if (exporter) {
    auto n = exporter->finish();
    if (!n) return n.error();
    summary.polyglot_entries = *n;
  }
  return summary;
}

}  // namespace tbkit::pgn
