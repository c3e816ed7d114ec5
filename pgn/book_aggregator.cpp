#include "pgn/book_aggregator.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <span>
#include <string>

#include <sys/resource.h>

#include "formats/atomic_file.h"
#include "pgn/parallel.h"

namespace tbkit::pgn {
namespace {

using formats::BookRecord;

// Spare slots past a summing table's last home slot, so probing rarely has to wrap.
constexpr std::size_t kSlack = 256;
// A summing table starts with room for its bucket's records, but at most 16 K slots (640 KB, inside
// the L2 cache): buckets holding the opening positions have many records and few sums.
constexpr std::size_t kMaxInitialCapacity = std::size_t{1} << 14;
constexpr std::size_t kRunBufferRecords = 1 << 13;  // 320 KB per run while merging
// At most this many runs open at once (the usual limit of open files is 1024).
constexpr std::size_t kMaxFanIn = 256;

// Reads a run file sequentially in blocks.
class RunReader {
 public:
  Status open(const std::filesystem::path& path) {
    path_ = path;
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) return formats::io_error(path, "cannot open spill run");
    buffer_.resize(kRunBufferRecords);
    return refill();
  }
  ~RunReader() {
    if (file_) std::fclose(file_);
  }
  [[nodiscard]] bool done() const { return pos_ == size_; }
  [[nodiscard]] const BookRecord& current() const { return buffer_[pos_]; }
  Status advance() {
    ++pos_;
    return pos_ == size_ ? refill() : Status{};
  }

 private:
  Status refill() {
    pos_ = 0;
    size_ = std::fread(buffer_.data(), sizeof(BookRecord), buffer_.size(), file_);
    if (size_ == 0 && std::ferror(file_)) return make_error(ErrorCode::kIo, path_.string() + ": spill run read failed");
    return {};
  }
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::vector<BookRecord> buffer_;
  std::size_t pos_ = 0, size_ = 0;
};

}  // namespace

PlyStore::PlyStore(int bucket_bits, std::size_t slab_bytes)
    : bucket_bits_(bucket_bits),
      slab_chunks_(slab_bytes / kChunkBytes),
      open_(std::size_t{1} << bucket_bits, nullptr),
      fill_(std::size_t{1} << bucket_bits, std::uint16_t(kChunkRecords)),
      chunks_(std::size_t{1} << bucket_bits) {
  assert(bucket_bits >= 0 && bucket_bits <= 16);
  assert(std::has_single_bit(slab_bytes) && slab_bytes >= kChunkBytes);
}

void PlyStore::start_chunk(std::size_t bucket) {
  if (slab_ < slabs_.size() && slab_used_ == slab_chunks_) {
    ++slab_;
    slab_used_ = 0;
  }
  if (slab_ == slabs_.size()) slabs_.emplace_back(slab_chunks_ * kChunkBytes);
  auto* chunk = reinterpret_cast<PlyRecord*>(slabs_[slab_].data() + slab_used_ * kChunkBytes);
  ++slab_used_;
  chunks_[bucket].push_back(chunk);
  open_[bucket] = chunk;
  fill_[bucket] = 0;
}

void PlyStore::clear() {
  for (std::size_t b = 0; b < chunks_.size(); ++b) {
    open_[b] = nullptr;
    fill_[b] = std::uint16_t(kChunkRecords);
    chunks_[b].clear();
  }
  slab_ = 0;
  slab_used_ = 0;
  records_ = 0;
}

std::size_t PlyStore::bytes() const {
  const std::size_t chunk_count = slab_ * slab_chunks_ + slab_used_;
  return chunk_count * (kChunkBytes + sizeof(PlyRecord*)) +
         chunks_.size() * (sizeof(PlyRecord*) + sizeof(std::uint16_t) + sizeof(std::vector<PlyRecord*>));
}

std::size_t PlyStore::bucket_size(std::size_t bucket) const {
  const std::vector<PlyRecord*>& chunks = chunks_[bucket];
  return chunks.empty() ? 0 : (chunks.size() - 1) * kChunkRecords + fill_[bucket];
}

namespace {

// An open-addressing table of sums in a caller's scratch vector. A record's home slot grows with its
// key (below the bucket's fixed top bits), so the table is nearly sorted by key: sorting it is a
// compaction plus an insertion sort over short, local disorder. Probing runs upwards into kSlack
// spare slots, and wraps to the start only past them (correct in any case: the insertion sort
// copes with any order, if slowly).
class SumTable {
 public:
  SumTable(std::vector<BookRecord>& slots, int shift, std::size_t capacity) : slots_(slots), shift_(shift) { reset(capacity); }

  // Returns false if a count would pass 2^32.
  bool add(const PlyRecord& p) {
    const std::uint64_t key = key_of(p);
    for (std::size_t i = home(key);; ++i) {
      if (i == size_) i = 0;
      BookRecord& slot = slots_[i];
      if (slot.games == 0) {
        slot = BookRecord{key, p.move, std::uint16_t(p.info & PlyStore::kBlackBit ? formats::kBookBlackToMove : 0)};
        add_to(slot, p);
        if (++count_ * 4 > capacity_ * 3) grow();
        return true;
      }
      if (slot.key == key && slot.move == p.move) return add_to(slot, p);
    }
  }
  // Moves the sums with games >= min_games to out in (key, move) order; leaves every slot empty.
  // Compaction and filter go without branches (whether a slot is used is a coin toss), then an
  // insertion sort fixes the short, local disorder.
  void take_sorted(std::uint32_t min_games, std::vector<BookRecord>& out) {
    const std::uint32_t keep = std::max<std::uint32_t>(min_games, 1);
    const std::size_t first = out.size();
    out.resize(first + count_ + 1);  // one spare: every slot is copied before the filter decides
    BookRecord* o = out.data() + first;
    for (std::size_t i = 0; i < size_; ++i) {
      *o = slots_[i];
      o += slots_[i].games >= keep;
      slots_[i].games = 0;
    }
    out.resize(std::size_t(o - out.data()));
    for (std::size_t k = first + 1; k < out.size(); ++k) {
      if (!(out[k] < out[k - 1])) continue;
      const BookRecord x = out[k];
      std::size_t j = k;
      do {
        out[j] = out[j - 1];
        --j;
      } while (j > first && x < out[j - 1]);
      out[j] = x;
    }
    count_ = 0;
  }

 private:
  [[nodiscard]] static std::uint64_t key_of(const PlyRecord& p) { return std::uint64_t(p.key_high) << 32 | p.key_low; }
  [[nodiscard]] std::size_t home(std::uint64_t key) const { return std::size_t(formats::mul_hi(key << shift_, capacity_)); }
  void reset(std::size_t capacity) {
    capacity_ = capacity;
    size_ = capacity + kSlack;
    if (slots_.size() < size_) slots_.resize(size_);
  }
  // Doubles the capacity: a bucket dominated by a few common positions starts with less room
  // than records (the initial capacity is capped) and grows here if its sums need it.
  void grow() {
    std::vector<BookRecord> held;
    held.reserve(count_);
    for (std::size_t j = 0; j < size_; ++j)
      if (slots_[j].games != 0) {
        held.push_back(slots_[j]);
        slots_[j].games = 0;
      }
    reset(capacity_ * 2);
    for (const BookRecord& r : held) {
      std::size_t j = home(r.key);
      for (;; ++j) {
        if (j == size_) j = 0;
        if (slots_[j].games == 0) break;
      }
      slots_[j] = r;
    }
  }
  static bool add_to(BookRecord& slot, const PlyRecord& p) {
    if (slot.games == std::numeric_limits<std::uint32_t>::max()) [[unlikely]]
      return false;
    const unsigned result = (p.info >> PlyStore::kResultShift) & 3;
    const std::uint32_t elo = p.info & PlyStore::kMaxElo;
    ++slot.games;
    slot.white_wins += result == 1;
    slot.draws += result == 2;
    slot.black_wins += result == 3;
    slot.rated_games += elo != 0;
    slot.elo_sum += elo;
    return true;
  }

  std::vector<BookRecord>& slots_;
  int shift_;
  std::size_t capacity_ = 0, size_ = 0, count_ = 0;
};

}  // namespace

Status sum_bucket(std::span<const PlyStore* const> stores, std::size_t bucket, std::uint32_t min_games,
                  std::vector<BookRecord>& table, std::vector<BookRecord>& out) {
  std::size_t n = 0;
  for (const PlyStore* s : stores) n += s->bucket_size(bucket);
  if (n == 0) return {};
  // Most buckets hold 1.4 records per sum: n + n/4 slots keep the load near 0.6.
  SumTable sums(table, stores.front()->bucket_bits(), std::min(n + n / 4 + 16, kMaxInitialCapacity));
  bool ok = true;
  for (const PlyStore* s : stores)
    s->for_each_chunk(bucket, [&](std::span<const PlyRecord> chunk) {
      for (const PlyRecord& p : chunk) ok &= sums.add(p);
    });
  sums.take_sorted(min_games, out);
  if (!ok) return make_error(ErrorCode::kCorrupt, "book: a count passed 2^32 for one move; split the input");
  return {};
}

Status drain_ply_stores(std::span<const PlyStore* const> stores, std::uint32_t min_games,
                        const std::function<Status(const BookRecord&)>& sink, tbb::task_arena& arena) {
  if (stores.empty()) return {};
  struct Batch {
    std::size_t bucket = 0;
    std::vector<BookRecord> table;  // all games == 0 between uses
    std::vector<BookRecord> out;
    Status status;
  };
  // Batches (and their cache-sized tables) are reused: there are never more than `tokens` in flight.
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Batch>> pool;
  const std::size_t buckets = std::size_t{1} << stores.front()->bucket_bits();
  std::size_t next = 0;
  Status result;                    // the sink stage's alone
  std::atomic<bool> failed{false};  // set by the sink stage, read by the source stage beside it
  const std::size_t tokens = std::size_t(2 * std::max(arena.max_concurrency(), 1));
  ordered_pipeline<Batch>(
      arena, tokens,
      [&]() -> Batch* {
        if (next == buckets || failed.load(std::memory_order_relaxed)) return nullptr;
        std::unique_ptr<Batch> batch;
        {
          std::lock_guard lock(pool_mutex);
          if (!pool.empty()) {
            batch = std::move(pool.back());
            pool.pop_back();
          }
        }
        if (!batch) batch = std::make_unique<Batch>();
        batch->bucket = next++;
        return batch.release();
      },
      [&](Batch* batch) {
        batch->out.clear();
        batch->status = sum_bucket(stores, batch->bucket, min_games, batch->table, batch->out);
      },
      [&](Batch* raw) {
        std::unique_ptr<Batch> batch(raw);
        if (result.ok() && !batch->status.ok()) result = batch->status;
        if (result.ok())
          for (const BookRecord& r : batch->out)
            if (auto s = sink(r); !s) {
              result = s;
              break;
            }
        if (!result.ok()) failed.store(true, std::memory_order_relaxed);
        std::lock_guard lock(pool_mutex);
        pool.push_back(std::move(batch));
      });
  return result;
}

Status spill_ply_store(const PlyStore& store, const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return formats::io_error(path, "cannot write spill run");
  const PlyStore* stores[] = {&store};
  std::vector<BookRecord> table, out;
  Status status;
  bool ok = true;
  for (std::size_t b = 0; b < (std::size_t{1} << store.bucket_bits()) && ok && status.ok(); ++b) {
    out.clear();
    status = sum_bucket(stores, b, 0, table, out);
    ok = std::fwrite(out.data(), sizeof(BookRecord), out.size(), f) == out.size();
  }
  const bool closed = std::fclose(f) == 0;
  if (!status.ok()) return status;
  if (!ok || !closed) return formats::io_error(path, "cannot write spill run");
  return {};
}

namespace {

// One k-way merge of sorted runs: equal (key, move) pairs summed, records with games >= min_games
// passed to sink in (key, move) order. Opens every run in `runs` at once.
Status merge_once(std::span<const std::filesystem::path> runs, std::uint32_t min_games,
                  const std::function<Status(const BookRecord&)>& sink) {
  std::vector<std::unique_ptr<RunReader>> readers;
  for (const auto& path : runs) {
    auto reader = std::make_unique<RunReader>();
    if (auto s = reader->open(path); !s) return s;
    if (!reader->done()) readers.push_back(std::move(reader));
  }
  auto greater = [&](std::size_t a, std::size_t b) {
    const BookRecord& x = readers[a]->current();
    const BookRecord& y = readers[b]->current();
    return y < x || (!(x < y) && a > b);
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(greater)> heap(greater);
  for (std::size_t s = 0; s < readers.size(); ++s) heap.push(s);

  bool have = false;
  BookRecord acc{};
  auto flush = [&]() -> Status {
    if (have && acc.games >= min_games) return sink(acc);
    return {};
  };
  while (!heap.empty()) {
    const std::size_t s = heap.top();
    heap.pop();
    const BookRecord& r = readers[s]->current();
    if (have && acc.key == r.key && acc.move == r.move) {
      if (!acc.add(r)) return make_error(ErrorCode::kCorrupt, "book: a count passed 2^32 for one move while merging");
    } else {
      if (auto st = flush(); !st) return st;
      acc = r;
      have = true;
    }
    if (auto st = readers[s]->advance(); !st) return st;
    if (!readers[s]->done()) heap.push(s);
  }
  return flush();
}

// Merges `runs` (summing, no threshold) into a new run file at `path`, then removes them.
Status merge_into_run(std::span<const std::filesystem::path> runs, const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return formats::io_error(path, "cannot write merge run");
  std::vector<BookRecord> batch;
  batch.reserve(kRunBufferRecords);
  bool ok = true;
  auto put = [&]() {
    ok = ok && std::fwrite(batch.data(), sizeof(BookRecord), batch.size(), f) == batch.size();
    batch.clear();
  };
  Status status = merge_once(runs, 0, [&](const BookRecord& r) -> Status {
    batch.push_back(r);
    if (batch.size() == kRunBufferRecords) put();
    return {};
  });
  put();
  const bool closed = std::fclose(f) == 0;
  if (!status.ok()) return status;
  if (!ok || !closed) return formats::io_error(path, "cannot write merge run");
  for (const auto& run : runs) {
    std::error_code ec;
    std::filesystem::remove(run, ec);  // only disk space is at stake; the temp directory goes anyway
  }
  return {};
}

}  // namespace

std::size_t merge_fan_in(std::size_t memory_bytes) {
  std::size_t most = kMaxFanIn;
  // Half the process's limit of open files, leaving the rest to the inputs and outputs.
  if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
    most = std::clamp<std::size_t>(std::size_t(files.rlim_cur / 2), 2, most);
  if (memory_bytes == 0) return most;
  const std::size_t per_run = kRunBufferRecords * sizeof(BookRecord);
  return std::clamp<std::size_t>(memory_bytes * 5 / 8 / per_run, 2, most);
}

Result<std::uint32_t> merge_run_files(const std::vector<std::filesystem::path>& runs, std::uint32_t min_games,
                                      const std::function<Status(const BookRecord&)>& sink, std::size_t fan_in) {
  fan_in = std::max<std::size_t>(fan_in, 2);
  std::vector<std::filesystem::path> level = runs;
  std::uint32_t passes = 0;
  // Merge groups of fan_in runs into longer runs until one merge can take them all.
  while (level.size() > fan_in) {
    std::vector<std::filesystem::path> next;
    for (std::size_t first = 0; first < level.size(); first += fan_in) {
      const std::span<const std::filesystem::path> group(level.data() + first, std::min(fan_in, level.size() - first));
      if (group.size() == 1) {
        next.push_back(group.front());
        continue;
      }
      std::filesystem::path out = level.front().parent_path() /
                                  ("merge" + std::to_string(passes) + "-" + std::to_string(next.size()) + ".run");
      if (auto st = merge_into_run(group, out); !st) return st.error();
      next.push_back(std::move(out));
    }
    level = std::move(next);
    ++passes;
  }
  if (auto st = merge_once(level, min_games, sink); !st) return st.error();
  return passes + 1;
}

}  // namespace tbkit::pgn
