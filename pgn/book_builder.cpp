#include "pgn/book_builder.h"

#include <stdlib.h>

#include <bit>
#include <sys/resource.h>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <oneapi/tbb/task_arena.h>

#include "pgn/book_aggregator.h"
#include "pgn/book_export.h"
#include "pgn/parallel.h"

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

// Each thread appends its records to its own PlyStore (no locks held long, no shared cache lines);
// the stores are summed bucket by bucket at the end (book_aggregator.h). With a budget, a store
// that fills is spilled as a sorted run file and reused. Unbounded stores take
// PlyStore::kUnboundedBucketBits and kUnboundedSlabBytes.
// Budgeted stores aim at buckets of this many records when full.
constexpr std::size_t kBudgetBucketRecords = 2048;

struct alignas(64) ThreadBuffers {
  std::mutex mutex;  // taken once a game; contended only by callers outside the arena
  std::optional<PlyStore> store;
  std::vector<std::filesystem::path> runs;
  Status status;
};

class ThreadStores {
 public:
  // budget_per_store: bytes a store may hold before it spills; 0 = unbounded.
  ThreadStores(std::size_t threads, std::size_t budget_per_store, const std::filesystem::path& dir)
      : budget_(budget_per_store), dir_(dir), buffers_(threads + 1) {
    int bits = PlyStore::kUnboundedBucketBits;
    std::size_t slab = PlyStore::kUnboundedSlabBytes;
    if (budget_) {
      // Each bucket holds a partly filled chunk, and the last slab is partly used: keep both to a
      // fraction of the budget.
      bits = 0;
      while (bits < 16 && (PlyStore::kChunkBytes << (bits + 1)) <= budget_ / 4 &&
             (kBudgetBucketRecords * sizeof(PlyRecord) << (bits + 1)) <= budget_)
        ++bits;
      slab = std::max(PlyStore::kChunkBytes, std::bit_floor(std::min(budget_ / 8, std::size_t{2} << 20)));
    }
    for (ThreadBuffers& b : buffers_) b.store.emplace(bits, slab);
  }

  // Thread-safe; called from the parsing threads.
  void add_game(const BookGame& game) {
    const int index = worker_index();
    const std::size_t i = index >= 0 && std::size_t(index) + 1 < buffers_.size() ? std::size_t(index) : buffers_.size() - 1;
    ThreadBuffers& b = buffers_[i];
    std::lock_guard lock(b.mutex);
    for (const BookPly& p : game.plies)
      b.store->add(p.key, p.move, !p.white_to_move, p.white_to_move ? game.white_elo : game.black_elo, game.result);
    if (budget_ && b.store->bytes() >= budget_) spill(b, i);
  }

  // The first spill failure, if any.
  [[nodiscard]] Status status() const {
    for (const ThreadBuffers& b : buffers_)
      if (!b.status.ok()) return b.status;
    return {};
  }
  [[nodiscard]] std::size_t run_count() const {
    std::size_t n = 0;
    for (const ThreadBuffers& b : buffers_) n += b.runs.size();
    return n;
  }
  // Spills what every store holds and returns all run files.
  [[nodiscard]] Result<std::vector<std::filesystem::path>> spill_all() {
    std::vector<std::filesystem::path> runs;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (buffers_[i].store->records() > 0) spill(buffers_[i], i);
      if (!buffers_[i].status.ok()) return buffers_[i].status.error();
      runs.insert(runs.end(), buffers_[i].runs.begin(), buffers_[i].runs.end());
    }
    return runs;
  }
  [[nodiscard]] std::vector<const PlyStore*> stores() const {
    std::vector<const PlyStore*> out;
    for (const ThreadBuffers& b : buffers_) out.push_back(&*b.store);
    return out;
  }

 private:
  void spill(ThreadBuffers& b, std::size_t i) {
    std::filesystem::path path = dir_ / ("store" + std::to_string(i) + "-" + std::to_string(b.runs.size()) + ".run");
    if (auto s = spill_ply_store(*b.store, path); !s && b.status.ok()) b.status = s;
    b.runs.push_back(std::move(path));
    b.store->clear();
  }

  std::size_t budget_;
  std::filesystem::path dir_;
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
  // Created before the games are read, so a bad output path fails at once, not after the input.
  auto out = formats::OutputFile::create(o.polyglot_output);
  if (!out) return out.error();
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
  const auto entries = book.entries(o.compat, &arena);
  if (auto s = formats::write_polyglot_book(std::move(*out), entries); !s) return s.error();
  summary.polyglot_entries = entries.size();
  return summary;
}

// The same file, whether or not it exists yet (two spellings of one path, or hard links).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const auto ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  const auto cb = std::filesystem::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

// An output may be neither an input nor the other output: writing it would destroy the games
// being read, or the two writers would share one NAME.tmp.
Status check_output_paths(const std::vector<std::string>& inputs, const BookBuildOptions& o) {
  const std::filesystem::path* outputs[] = {&o.output, &o.polyglot_output};
  for (const auto* out : outputs) {
    if (out->empty()) continue;
    for (const auto& in : inputs)
      if (in != "-" && same_file(in, *out))
        return make_error(ErrorCode::kInvalidArgument, "book build: output " + out->string() + " is also an input");
  }
  if (!o.output.empty() && !o.polyglot_output.empty() && same_file(o.output, o.polyglot_output))
    return make_error(ErrorCode::kInvalidArgument, "book build: the book and the Polyglot book are both " + o.output.string());
  return {};
}

}  // namespace

Result<BookBuildSummary> build_book(const std::vector<std::string>& inputs, const BookBuildOptions& o, const ProgressCallback& progress) {
  if (inputs.empty()) return make_error(ErrorCode::kInvalidArgument, "book build: no input files");
  if (o.output.empty() && o.polyglot_output.empty()) return make_error(ErrorCode::kInvalidArgument, "book build: no output file");
  if (o.threads < 1) return make_error(ErrorCode::kInvalidArgument, "book build: threads must be at least 1");
  if (auto s = check_output_paths(inputs, o); !s) return s.error();
  tbb::task_arena arena(o.threads);
  ReaderOptions reader;
  reader.follow_variations = !o.polyglot_compat && o.filter.variations;
  reader.on_error = ReaderOptions::OnError::kSkipGame;
  reader.max_ply = o.polyglot_compat ? o.compat.max_ply : o.filter.max_ply;
  ParallelOptions parallel;
  parallel.chunk_size = o.chunk_size;
  if (o.polyglot_compat) return build_compat(inputs, o, arena, reader, parallel, progress);

  // The outputs are created before the games are read, so a bad output path fails at once, not
  // after the whole input.
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
  }
  if (!o.polyglot_output.empty()) {
    auto e = PolyglotExporter::create(o.polyglot_output);
    if (!e) return e.error();
    exporter.emplace(std::move(*e));
  }
  auto temp = TempDir::create(o.temp_dir);
  if (!temp) return temp.error();
  // The stores take three eighths of --memory, shared between the threads, leaving the rest to the
  // reader's chunks in flight and the merge.
  const std::size_t budget = o.memory_bytes ? std::max<std::size_t>(o.memory_bytes * 3 / 8, 1 << 16) : 0;
  ThreadStores stores(std::size_t(o.threads), budget / std::size_t(o.threads), temp->path());
  auto sink = [&stores](const BookGame& g) { stores.add_game(g); };
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
  if (auto s = stores.status(); !s) return s.error();
  if (writer) writer->set_games(summary.games_recorded);

  auto write = [&](const BookRecord& r) -> Status {
    if (writer)
      if (auto s = writer->add(r); !s) return s;
    if (exporter) return exporter->add(r);
    return {};
  };
  Status status;
  if (stores.run_count() == 0) {
    // Everything fit in memory: sum the stores' buckets in parallel, written in key order.
    status = drain_ply_stores(stores.stores(), o.min_games, write, arena);
  } else {
    auto runs = stores.spill_all();
    if (!runs) return runs.error();
    summary.spill_runs = runs->size();
    auto passes = merge_run_files(*runs, o.min_games, write, merge_fan_in(o.memory_bytes));
    if (passes) summary.merge_passes = *passes;
    else status = passes.error();
  }
  if (!status) return status.error();
  // Both files are complete before either replaces an old one. Closing and replacing (which frees
  // an old file's pages) run for both files at once.
  std::optional<Result<formats::BookInfo>> info;
  std::optional<Result<std::uint64_t>> entries;
  parallel_pair(arena, [&] { if (writer) info.emplace(writer->close()); }, [&] { if (exporter) entries.emplace(exporter->close()); });
  if (info && !*info) return info->error();
  if (entries && !*entries) return entries->error();
  Status renamed[2];
  parallel_pair(arena, [&] { if (writer) renamed[0] = writer->commit(); }, [&] { if (exporter) renamed[1] = exporter->commit(); });
  for (const Status& s : renamed)
    if (!s) return s.error();
  if (info) summary.info = **info;
  if (entries) summary.polyglot_entries = **entries;
  return summary;
}

}  // namespace tbkit::pgn
