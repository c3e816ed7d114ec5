#include "pgn/book_aggregator.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>
#include <string>

namespace tbkit::pgn {
namespace {

using formats::BookRecord;

constexpr std::size_t kInitialCapacity = 1 << 12;
// Unbounded builds cap the table here (40 MB) and keep full tables as sorted in-memory runs: adds
// into a table this size miss the cache far less than into one holding the whole book.
constexpr std::size_t kUnboundedCapacity = 1 << 20;
constexpr std::size_t kSlack = 1024;
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

BookAggregator::BookAggregator(std::size_t budget_bytes, std::filesystem::path run_prefix)
    : budget_(budget_bytes), run_prefix_(std::move(run_prefix)) {
  const std::size_t cap = budget_ ? std::min(kInitialCapacity, std::max<std::size_t>(64, budget_ / sizeof(BookRecord) / 2)) : kInitialCapacity;
  table_.resize(cap + kSlack);
  capacity_ = cap;
}

// The home slot grows with the key (not the move), so the table is nearly sorted by key: sorting a
// full table is a compaction plus an insertion sort over short, local disorder. Probing runs
// upwards without wrapping, into kSlack spare slots past the last home slot.
std::size_t BookAggregator::slot_of(std::uint64_t key) const { return std::size_t(formats::mul_hi(key, capacity_)); }

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

void BookAggregator::grow_or_spill() {
  const std::size_t cap = capacity_;
  // While rehashing both tables are alive: the budget must hold old + new.
  const std::size_t limit = budget_ ? budget_ / sizeof(BookRecord) : 2 * kUnboundedCapacity;
  const std::size_t next = std::min(cap * 2, limit > 2 * kSlack + cap ? limit - cap - 2 * kSlack : 0);
  if (next > cap + cap / 4) {
    rehash(next);
  } else {
    spill();
  }
}

void BookAggregator::rehash(std::size_t capacity) {
  std::vector<BookRecord> old(capacity + kSlack);
  old.swap(table_);
  capacity_ = capacity;
  const std::size_t n = table_.size();
  for (const BookRecord& r : old) {
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

std::vector<std::vector<BookRecord>> BookAggregator::take_sorted() {
  // Compact and sort in place, then hand the storage over: no second copy of the table.
  table_.resize(compact_sorted());
  std::vector<std::vector<BookRecord>> out = std::move(memory_runs_);
  memory_runs_.clear();
  out.push_back(std::move(table_));
  table_.assign(64 + kSlack, BookRecord{});
  capacity_ = 64;
  count_ = 0;
  return out;
}

void BookAggregator::spill() {
  // Compact and sort in place: no second buffer, so the budget holds.
  const std::size_t used = compact_sorted();
  if (budget_ == 0) {
    memory_runs_.emplace_back(table_.begin(), table_.begin() + std::ptrdiff_t(used));
  } else {
    std::filesystem::path path = run_prefix_;
    path += "-" + std::to_string(runs_.size()) + ".run";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const bool ok = f && std::fwrite(table_.data(), sizeof(BookRecord), used, f) == used;
    const bool closed = f && std::fclose(f) == 0;
    if ((!ok || !closed) && status_.ok())
      status_ = make_error(ErrorCode::kIo, path.string() + ": cannot write spill run: " + std::strerror(errno));
    runs_.push_back(path);
  }
  std::fill(table_.begin(), table_.begin() + std::ptrdiff_t(used), BookRecord{});
  count_ = 0;
}

Status merge_book_sources(const std::vector<std::filesystem::path>& runs, std::vector<std::vector<BookRecord>> memory,
                          std::uint32_t min_games, const std::function<Status(const BookRecord&)>& sink) {
  std::vector<std::unique_ptr<RunReader>> readers;
  for (const auto& path : runs) {
    auto reader = std::make_unique<RunReader>();
    if (auto s = reader->open(path); !s) return s;
    if (!reader->done()) readers.push_back(std::move(reader));
  }
  // Sources 0..R-1 are runs, R.. are the in-memory vectors.
  std::vector<std::size_t> mem_pos(memory.size(), 0);
  const std::size_t run_count = readers.size();
  auto head = [&](std::size_t s) -> const BookRecord& {
    return s < run_count ? readers[s]->current() : memory[s - run_count][mem_pos[s - run_count]];
  };
  auto greater = [&](std::size_t a, std::size_t b) { return head(b) < head(a) || (!(head(a) < head(b)) && a > b); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(greater)> heap(greater);
  for (std::size_t s = 0; s < run_count; ++s) heap.push(s);
  for (std::size_t m = 0; m < memory.size(); ++m)
    if (!memory[m].empty()) heap.push(run_count + m);

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
    } else if (++mem_pos[s - run_count] < memory[s - run_count].size()) {
      heap.push(s);
    }
  }
  return flush();
}

}  // namespace tbkit::pgn
