#include "pgn/book_builder.h"

#include <stdlib.h>

#include <bit>
#include <sys/resource.h>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <oneapi/tbb/parallel_invoke.h>
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

// Records are summed in tables that each own a range of keys (their top bits), so a position lives
// in one table whatever the thread count: threads do not each grow a copy of the common positions,
// and the sorted tables are disjoint key ranges. Unbounded builds use kPartitions tables; bounded
// builds use one, so its budget (and so the spill runs) stay large.
constexpr int kPartitionBits = 4;
constexpr std::size_t kPartitions = std::size_t{1} << kPartitionBits;
// Records a thread holds per table before adding them under the table's lock (10 KB: few fresh pages).
constexpr std::size_t kFlushRecords = 256;
// Records a thread holds per table at most while the table is busy (640 KB).
constexpr std::size_t kMaxPendingRecords = 64 * kFlushRecords;

// Cache-line aligned, as are the thread buffers: each is written by one thread at a time.
struct alignas(64) Partition {
  std::mutex mutex;
  std::optional<BookAggregator> aggregator;
};

// One per arena thread (plus one shared by callers outside the arena): records waiting per table.
// Per thread, the records of recent (position, move)s are summed in a small direct-mapped cache
// before they go to the shared tables: the opening moves recur in most games, and summing them here
// keeps the shared tables' hottest cache lines from bouncing between cores.
constexpr int kHotBits = 10;

struct alignas(64) ThreadBuffers {
  std::mutex mutex;
  std::vector<BookRecord> hot = std::vector<BookRecord>(std::size_t{1} << kHotBits);  // games == 0: empty
  std::vector<BookRecord> pending[kPartitions];
};

class PartitionedTables {
 public:
  PartitionedTables(std::size_t partitions, std::size_t threads, std::size_t budget_per_table, const std::filesystem::path& dir)
      : shift_(partitions == 1 ? 64 : 64 - std::countr_zero(partitions)), tables_(partitions), buffers_(threads + 1) {
    for (std::size_t i = 0; i < partitions; ++i)
      tables_[i].aggregator.emplace(budget_per_table, dir / ("agg" + std::to_string(i)), partitions == 1 ? 0 : 64 - shift_);
    for (ThreadBuffers& b : buffers_)
      for (std::size_t i = 0; i < partitions; ++i) b.pending[i].reserve(kFlushRecords);
  }

  // Thread-safe; called from the parsing threads.
  void add_game(const BookGame& game) {
    const int index = tbb::this_task_arena::current_thread_index();
    ThreadBuffers& b = buffers_[index >= 0 && std::size_t(index) + 1 < buffers_.size() ? std::size_t(index) : buffers_.size() - 1];
    std::lock_guard lock(b.mutex);
    BookRecord r{};
    r.games = 1;
    r.white_wins = game.result == GameResult::kWhiteWins;
    r.draws = game.result == GameResult::kDraw;
    r.black_wins = game.result == GameResult::kBlackWins;
    for (const BookPly& p : game.plies) {
      r.key = p.key;
      r.move = p.move;
      r.flags = p.white_to_move ? 0 : formats::kBookBlackToMove;
      const std::uint32_t elo = p.white_to_move ? game.white_elo : game.black_elo;
      r.rated_games = elo ? 1 : 0;
      r.elo_sum = elo;
      BookRecord& h = b.hot[hot_slot(r)];
      if (h.games != 0 && h.key == r.key && h.move == r.move && h.add(r)) continue;
      if (h.games != 0) push(b, h);
      h = r;
    }
  }

  // Adds every record still waiting; call once parsing is over.
  void flush_all() {
    for (ThreadBuffers& b : buffers_) {
      for (BookRecord& h : b.hot)
        if (h.games != 0) push(b, std::exchange(h, BookRecord{}));
      for (std::size_t t = 0; t < tables_.size(); ++t) flush(b.pending[t], t);
    }
  }

  [[nodiscard]] std::size_t size() const { return tables_.size(); }
  [[nodiscard]] BookAggregator& table(std::size_t i) { return *tables_[i].aggregator; }

 private:
  [[nodiscard]] std::size_t table_of(std::uint64_t key) const { return shift_ == 64 ? 0 : std::size_t(key >> shift_); }
  [[nodiscard]] static std::size_t hot_slot(const BookRecord& r) {
    return std::size_t((r.key ^ (std::uint64_t(r.move) * 0x9E3779B97F4A7C15ULL)) >> (64 - kHotBits));
  }
  void push(ThreadBuffers& b, const BookRecord& r) {
    const std::size_t t = table_of(r.key);
    std::vector<BookRecord>& pending = b.pending[t];
    pending.push_back(r);
    if (pending.size() % kFlushRecords != 0) return;
    // A table that another thread holds (growing, say) is passed over while its records fit here.
    std::unique_lock lock(tables_[t].mutex, std::defer_lock);
    if (pending.size() < kMaxPendingRecords) {
      if (!lock.try_lock()) return;
    } else {
      lock.lock();
    }
    tables_[t].aggregator->add_all(pending);
    pending.clear();
  }
  void flush(std::vector<BookRecord>& records, std::size_t t) {
    std::lock_guard lock(tables_[t].mutex);
    tables_[t].aggregator->add_all(records);
    records.clear();
  }

  int shift_;
  std::vector<Partition> tables_;
  std::vector<ThreadBuffers> buffers_;
};

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
  // The tables take three eighths of --memory, leaving the rest to the reader's chunks in flight,
  // the records waiting per thread and the merge.
  const std::size_t partitions = o.memory_bytes ? 1 : kPartitions;
  const std::size_t budget = o.memory_bytes ? std::max<std::size_t>(o.memory_bytes * 3 / 8, 1 << 16) : 0;
  PartitionedTables tables(partitions, std::size_t(o.threads), budget, temp->path());
  auto sink = [&tables](const BookGame& g) { tables.add_game(g); };
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

  tables.flush_all();

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
  auto write = [&](const BookRecord& r) -> Status {
    if (writer)
      if (auto s = writer->add(r); !s) return s;
    if (exporter) return exporter->add(r);
    return {};
  };
  Status status;
  if (tables.size() > 1) {
    // Key-range tables: each is sorted and filtered on its own, in parallel, and written in order.
    std::vector<BookAggregator*> ranges;
    for (std::size_t i = 0; i < tables.size(); ++i) ranges.push_back(&tables.table(i));
    status = drain_key_ranges(ranges, o.min_games, write, arena);
  } else {
    BookAggregator& table = tables.table(0);
    std::vector<SortedRun> memory = table.take_sorted();
    if (!table.status().ok()) return table.status().error();
    summary.spill_runs = table.runs().size();
    status = merge_book_sources(table.runs(), std::move(memory), o.min_games, write, &arena);
  }
  if (!status) return status.error();
  // Both files are complete before either replaces an old one. Closing and replacing (which frees
  // an old file's pages) run for both files at once.
  std::optional<Result<formats::BookInfo>> info;
  std::optional<Result<std::uint64_t>> entries;
  arena.execute([&] {
    tbb::parallel_invoke([&] { if (writer) info.emplace(writer->close()); }, [&] { if (exporter) entries.emplace(exporter->close()); });
  });
  if (info && !*info) return info->error();
  if (entries && !*entries) return entries->error();
  Status renamed[2];
  arena.execute([&] {
    tbb::parallel_invoke([&] { if (writer) renamed[0] = writer->commit(); }, [&] { if (exporter) renamed[1] = exporter->commit(); });
  });
  for (const Status& s : renamed)
    if (!s) return s.error();
  if (info) summary.info = **info;
  if (entries) summary.polyglot_entries = **entries;
  return summary;
}

}  // namespace tbkit::pgn
