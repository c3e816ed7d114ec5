#include "pgn/book_aggregator.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>
#include <string>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_pipeline.h>

namespace tbkit::pgn {
namespace {

using formats::BookRecord;

constexpr std::size_t kInitialCapacity = 1 << 12;
constexpr std::size_t kSlack = 1024;
// An unbounded table's first growth is to one 2 MiB huge page: a build has a table per key range, and
// bigger malloc'd tables come in 4 KiB pages, whose page faults cost more than the records they hold.
constexpr std::size_t kHugePageCapacity = (std::size_t{2} << 20) / sizeof(formats::BookRecord) - kSlack;
// Unbounded tables grow four-fold, so a big build rehashes little; small builds stay small.
constexpr std::size_t kUnboundedGrowth = 4;
// Unbounded builds cap the table at 4 M slots (160 MB) and keep full tables as sorted in-memory runs:
// fewer runs to merge than with cache-sized tables, and the huge pages keep TLB misses rare.
constexpr std::size_t kUnboundedCapacity = std::size_t{1} << 22;
// How far ahead add_all() prefetches: enough to cover a memory access, few enough to stay in L1.
constexpr std::size_t kPrefetchDistance = 6;
// Key ranges of the parallel merge, and how many are merged before their output is handed on.
constexpr std::size_t kMergePartitions = 256;
constexpr std::size_t kRunBufferRecords = 1 << 13;  // 320 KB per run while merging

// Reads a run file sequentially in blocks.
class RunReader {
 public:
  Status open(const std::filesystem::path& path) {
    path_ = path;
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) return make_error(ErrorCode::kIo, path.string() + ": cannot open spill run: " + std::strerror(errno));
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

BookAggregator::BookAggregator(std::size_t budget_bytes, std::filesystem::path run_prefix, int key_shift)
    : budget_(budget_bytes), run_prefix_(std::move(run_prefix)), key_shift_(key_shift) {
  assert(key_shift >= 0 && key_shift < 64);
  const std::size_t cap = initial_capacity();
  table_ = formats::ZeroedArray<BookRecord>(cap + kSlack);
  capacity_ = cap;
}

std::size_t BookAggregator::initial_capacity() const {
  return budget_ ? std::min(kInitialCapacity, std::max<std::size_t>(64, budget_ / sizeof(BookRecord) / 2)) : kInitialCapacity;
}

// The home slot grows with the key (not the move), so the table is nearly sorted by key: sorting a
// full table is a compaction plus an insertion sort over short, local disorder. Probing runs
// upwards without wrapping, into kSlack spare slots past the last home slot.
void BookAggregator::add(const BookRecord& r) {
  for (;;) {
    const std::size_t n = table_.size();
    for (std::size_t i = slot_of(r.key); i < n; ++i) {
      BookRecord& slot = table_[i];
      if (slot.games == 0) {
        slot = r;
        if (++count_ * 4 >= capacity_ * 3) grow_or_spill();
        return;
      }
      if (slot.key == r.key && slot.move == r.move) {
        // Counts saturate only past 2^32 games of one move from one position; keep the first sum then.
        if (!slot.add(r) && status_.ok())
          status_ = make_error(ErrorCode::kCorrupt, "book: a count passed 2^32 for one move; split the input");
        return;
      }
    }
    grow_or_spill();  // probed off the end of the slack: make room and retry
  }
}

void BookAggregator::add_all(std::span<const BookRecord> records) {
  const std::size_t n = records.size();
  if (capacity_ == 0 && n > 0) grow_or_spill();
  for (std::size_t i = 0; i < std::min(n, kPrefetchDistance); ++i) __builtin_prefetch(&table_[slot_of(records[i].key)], 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) __builtin_prefetch(&table_[slot_of(records[i + kPrefetchDistance].key)], 1);
    add(records[i]);
  }
}

void BookAggregator::grow_or_spill() {
  if (capacity_ == 0) {  // emptied by take_sorted()
    rehash(initial_capacity());
    return;
  }
  const std::size_t cap = capacity_;
  // While rehashing both tables are alive: the budget must hold old + new.
  const std::size_t limit = budget_ ? budget_ / sizeof(BookRecord) : 2 * kUnboundedCapacity;
  const std::size_t wanted = budget_ ? cap * 2 : std::max(cap * kUnboundedGrowth, kHugePageCapacity);
  const std::size_t next = std::min(wanted, limit > 2 * kSlack + cap ? limit - cap - 2 * kSlack : 0);
  if (next > cap + cap / 4) {
    rehash(next);
  } else {
    spill();
  }
}

void BookAggregator::rehash(std::size_t capacity) {
  formats::ZeroedArray<BookRecord> old(capacity + kSlack);
  std::swap(old, table_);
  capacity_ = capacity;
  const std::size_t n = table_.size();
  for (std::size_t j = 0; j < old.size(); ++j) {
    const BookRecord& r = old[j];
    if (r.games == 0) continue;
    std::size_t i = slot_of(r.key);
    while (i < n && table_[i].games != 0) ++i;
    if (i == n) {  // the new slack overflowed (vanishingly rare): fall back to the first free slot
      i = 0;
      while (table_[i].games != 0) ++i;
    }
    table_[i] = r;
  }
}

std::size_t BookAggregator::compact_sorted() {
  std::size_t w = 0;
  for (std::size_t r = 0; r < table_.size(); ++r) {
    if (table_[r].games == 0) continue;
    const BookRecord x = table_[r];
    table_[r].games = 0;  // writes below go only to slots <= w <= r, so everything past the end ends empty
    std::size_t j = w;
    while (j > 0 && x < table_[j - 1]) {
      table_[j] = table_[j - 1];
      --j;
    }
    table_[j] = x;
    ++w;
  }
  return w;
}

std::vector<SortedRun> BookAggregator::take_sorted() {
  // Compact and sort in place, then hand the storage over: no second copy of the table.
  const std::size_t used = compact_sorted();
  std::vector<SortedRun> out = std::move(memory_runs_);
  memory_runs_.clear();
  out.push_back(SortedRun{std::move(table_), used});
  capacity_ = 0;  // no table until the next add: fresh memory is costly to fault in
  count_ = 0;
  return out;
}

void BookAggregator::spill() {
  // Compact and sort in place: no second buffer, so the budget holds.
  const std::size_t used = compact_sorted();
  if (budget_ == 0) {
    // The full table becomes the run; a fresh one (zeroed by the kernel) takes its place.
    const std::size_t size = table_.size();
    memory_runs_.push_back(SortedRun{std::move(table_), used});
    table_ = formats::ZeroedArray<BookRecord>(size);
    count_ = 0;
    return;
  }
  std::filesystem::path path = run_prefix_;
  path += "-" + std::to_string(runs_.size()) + ".run";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f && std::fwrite(table_.data(), sizeof(BookRecord), used, f) == used;
  const bool closed = f && std::fclose(f) == 0;
  if ((!ok || !closed) && status_.ok())
    status_ = make_error(ErrorCode::kIo, path.string() + ": cannot write spill run: " + std::strerror(errno));
  runs_.push_back(path);
  std::fill(table_.data(), table_.data() + used, BookRecord{});
  count_ = 0;
}

namespace {

// Merges sorted spans (few: a linear scan for the smallest head beats a heap), summing equal
// (key, move) pairs; appends records with games >= min_games to out.
Status merge_spans(std::vector<std::span<const BookRecord>> spans, std::uint32_t min_games, std::vector<BookRecord>& out) {
  std::erase_if(spans, [](const auto& s) { return s.empty(); });
  if (spans.size() == 1) {  // one source (key-partitioned tables): already summed, only filtered
    for (const BookRecord& r : spans.front())
      if (r.games >= min_games) out.push_back(r);
    return {};
  }
  while (!spans.empty()) {
    std::size_t best = 0;
    for (std::size_t s = 1; s < spans.size(); ++s)
      if (spans[s].front() < spans[best].front()) best = s;
    BookRecord acc = spans[best].front();
    spans[best] = spans[best].subspan(1);
    for (std::size_t s = 0; s < spans.size(); ++s) {
      if (!spans[s].empty() && spans[s].front().key == acc.key && spans[s].front().move == acc.move) {
        if (!acc.add(spans[s].front()))
          return make_error(ErrorCode::kCorrupt, "book: a count passed 2^32 for one move while merging");
        spans[s] = spans[s].subspan(1);
      }
    }
    if (acc.games >= min_games) out.push_back(acc);
    std::erase_if(spans, [](const auto& s) { return s.empty(); });
  }
  return {};
}

// Cuts the key space into kMergePartitions ranges and merges them in parallel, a wave at a time,
// handing each wave's output to sink in key order.
Status merge_memory_parallel(const std::vector<SortedRun>& memory, std::uint32_t min_games,
                             const std::function<Status(const BookRecord&)>& sink, tbb::task_arena& arena) {
  // bounds[r][p] = first record of run r in partition p (keys are uniform: equal key ranges).
  std::vector<std::vector<std::size_t>> bounds(memory.size(), std::vector<std::size_t>(kMergePartitions + 1));
  for (std::size_t r = 0; r < memory.size(); ++r) {
    const auto recs = memory[r].records();
    for (std::size_t p = 0; p < kMergePartitions; ++p)
      bounds[r][p] = p == 0 ? 0 : formats::lower_bound_key(recs, std::uint64_t(p) << 56);
    bounds[r][kMergePartitions] = recs.size();
  }
  static_assert(kMergePartitions == 256, "partition p holds the keys whose top byte is p");
  const std::size_t wave = std::size_t(std::max(arena.max_concurrency(), 1)) * 4;
  std::vector<std::vector<BookRecord>> outs(wave);
  std::vector<Status> statuses(wave);
  for (std::size_t first = 0; first < kMergePartitions; first += wave) {
    const std::size_t count = std::min(wave, kMergePartitions - first);
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, count, [&](std::size_t i) {
        const std::size_t p = first + i;
        std::vector<std::span<const BookRecord>> spans;
        for (std::size_t r = 0; r < memory.size(); ++r)
          spans.push_back(memory[r].records().subspan(bounds[r][p], bounds[r][p + 1] - bounds[r][p]));
        outs[i].clear();
        statuses[i] = merge_spans(std::move(spans), min_games, outs[i]);
      });
    });
    for (std::size_t i = 0; i < count; ++i) {
      if (!statuses[i]) return statuses[i];
      for (const BookRecord& r : outs[i])
        if (auto st = sink(r); !st) return st;
    }
  }
  return {};
}

}  // namespace

Status drain_key_ranges(std::span<BookAggregator* const> ranges, std::uint32_t min_games,
                        const std::function<Status(const BookRecord&)>& sink, tbb::task_arena& arena) {
  struct Batch {
    std::vector<SortedRun> runs;
    std::vector<BookRecord> merged;  // when a range has several runs
    std::span<const BookRecord> records;
    Status status;
  };
  std::size_t next = 0;
  Status result;
  const std::size_t tokens = std::size_t(2 * std::max(arena.max_concurrency(), 1));
  // Sort and filter (parallel), write (serial, in key order), free (parallel: unmapping is slow).
  auto prepare = [min_games](BookAggregator* agg) {
    auto batch = std::make_unique<Batch>();
    assert(agg->runs().empty());
    batch->runs = agg->take_sorted();
    batch->status = agg->status();
    if (!batch->status.ok()) return batch.release();
    if (batch->runs.size() == 1) {
      // One run is already summed: filter it in place rather than into fresh memory.
      SortedRun& run = batch->runs.front();
      std::size_t kept = 0;
      for (std::size_t i = 0; i < run.size; ++i)
        if (run.storage[i].games >= min_games) run.storage[kept++] = run.storage[i];
      batch->records = {run.storage.data(), kept};
    } else {
      std::vector<std::span<const BookRecord>> spans;
      for (const SortedRun& run : batch->runs) spans.push_back(run.records());
      batch->status = merge_spans(std::move(spans), min_games, batch->merged);
      batch->records = batch->merged;
    }
    return batch.release();
  };
  arena.execute([&] {
    tbb::parallel_pipeline(
        tokens,
        tbb::make_filter<void, BookAggregator*>(tbb::filter_mode::serial_in_order,
                                                [&](tbb::flow_control& fc) -> BookAggregator* {
                                                  if (next == ranges.size() || !result.ok()) {
                                                    fc.stop();
                                                    return nullptr;
                                                  }
                                                  return ranges[next++];
                                                }) &
            tbb::make_filter<BookAggregator*, Batch*>(tbb::filter_mode::parallel, prepare) &
            tbb::make_filter<Batch*, Batch*>(tbb::filter_mode::serial_in_order,
                                             [&](Batch* batch) {
                                               if (!result.ok()) return batch;
                                               if (!batch->status.ok()) {
                                                 result = batch->status;
                                                 return batch;
                                               }
                                               for (const BookRecord& r : batch->records)
                                                 if (auto s = sink(r); !s) {
                                                   result = s;
                                                   break;
                                                 }
                                               return batch;
                                             }) &
            tbb::make_filter<Batch*, void>(tbb::filter_mode::parallel, [](Batch* batch) { delete batch; }));
  });
  return result;
}

Status merge_book_sources(const std::vector<std::filesystem::path>& runs, std::vector<SortedRun> memory,
                          std::uint32_t min_games, const std::function<Status(const BookRecord&)>& sink,
                          tbb::task_arena* arena) {
  if (runs.empty() && arena != nullptr) return merge_memory_parallel(memory, min_games, sink, *arena);
  std::vector<std::unique_ptr<RunReader>> readers;
  for (const auto& path : runs) {
    auto reader = std::make_unique<RunReader>();
    if (auto s = reader->open(path); !s) return s;
    if (!reader->done()) readers.push_back(std::move(reader));
  }
  // Sources 0..R-1 are runs, R.. are the in-memory runs.
  std::vector<std::size_t> mem_pos(memory.size(), 0);
  const std::size_t run_count = readers.size();
  auto head = [&](std::size_t s) -> const BookRecord& {
    return s < run_count ? readers[s]->current() : memory[s - run_count].records()[mem_pos[s - run_count]];
  };
  auto greater = [&](std::size_t a, std::size_t b) { return head(b) < head(a) || (!(head(a) < head(b)) && a > b); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(greater)> heap(greater);
  for (std::size_t s = 0; s < run_count; ++s) heap.push(s);
  for (std::size_t m = 0; m < memory.size(); ++m)
    if (memory[m].size > 0) heap.push(run_count + m);

  bool have = false;
  BookRecord acc{};
  auto flush = [&]() -> Status {
    if (have && acc.games >= min_games) return sink(acc);
    return {};
  };
  while (!heap.empty()) {
    const std::size_t s = heap.top();
    heap.pop();
    const BookRecord& r = head(s);
    if (have && acc.key == r.key && acc.move == r.move) {
      if (!acc.add(r)) return make_error(ErrorCode::kCorrupt, "book: a count passed 2^32 for one move while merging");
    } else {
      if (auto st = flush(); !st) return st;
      acc = r;
      have = true;
    }
    if (s < run_count) {
      if (auto st = readers[s]->advance(); !st) return st;
      if (!readers[s]->done()) heap.push(s);
    } else if (++mem_pos[s - run_count] < memory[s - run_count].size) {
      heap.push(s);
    }
  }
  return flush();
}

}  // namespace tbkit::pgn
