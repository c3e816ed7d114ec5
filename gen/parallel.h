// gen's parallel loops and its one background task, on a caller's task arena.
//
// Built with TBKIT_CHECKED_THREADS (the ThreadSanitizer build, CMake option TBKIT_TSAN), they run
// on plain std::threads instead of TBB's workers. Debian's libtbb is not instrumented, so
// ThreadSanitizer cannot see the ordering TBB's tasks and joins give and reports it as races by the
// hundred. Threads it sees start, join and synchronise through atomics, so in that build it checks
// the loop bodies, which are the same code as in every other build: their shared state (the
// solver's atomic states and counters, plain reads of the side not being written) must be race-free
// under any schedule, not only TBB's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include <tbb/task_arena.h>

#if defined(TBKIT_CHECKED_THREADS)
#include <atomic>
#include <thread>
#include <vector>
#else
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>
#endif

namespace tbkit::gen {

// Index slots per task of a loop over a table's slots: a multiple of 64, so no two tasks share a
// word of a bitmap over the slots.
inline constexpr std::uint64_t kSlotChunk = 1 << 14;

// Calls body(first, last) for ranges covering [0, n) once, each at most `grain` long (grain >= 1),
// in parallel on `arena`'s threads, and returns when all are done. Which thread runs which range is
// unspecified, so a caller's result must not depend on it.
template <class F>
void parallel_ranges(tbb::task_arena& arena, std::uint64_t n, std::uint64_t grain, F&& body) {
#if defined(TBKIT_CHECKED_THREADS)
  const std::uint64_t ranges = (n + grain - 1) / grain;
  std::atomic<std::uint64_t> next{0};
  auto work = [&] {
    for (std::uint64_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < ranges;)
      body(k * grain, std::min(n, (k + 1) * grain));
  };
  const int threads = std::max(1, arena.max_concurrency());
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
#else
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::uint64_t>(0, n, grain),
        [&](const tbb::blocked_range<std::uint64_t>& r) { body(r.begin(), r.end()); }, tbb::simple_partitioner());
  });
#endif
}

// Calls body(k) for every k in [0, n), in parallel on `arena`'s threads (also from inside one of
// its loops: nested loops share the arena's threads).
template <class F>
void parallel_each(tbb::task_arena& arena, std::uint64_t n, F&& body) {
  parallel_ranges(arena, n, 1, [&](std::uint64_t from, std::uint64_t to) {
    for (std::uint64_t k = from; k != to; ++k) body(k);
  });
}

// Calls body(first, last) for each chunk [c * chunk, min(n, (c + 1) * chunk)) of [0, n), in
// parallel. Unlike parallel_ranges' ranges, these start at multiples of `chunk`, so a caller may
// keep per-chunk state indexed by first / chunk.
template <class F>
void parallel_chunks(tbb::task_arena& arena, std::uint64_t n, std::uint64_t chunk, F&& body) {
  parallel_each(arena, (n + chunk - 1) / chunk, [&](std::uint64_t c) { body(c * chunk, std::min(n, (c + 1) * chunk)); });
}

// Chunks of both sides of an index of n slots: body(side, first, last, c) for each chunk c of
// side 0's [0, n), then side 1's, c numbering them all (2 * ceil(n / chunk) in all), in parallel.
template <class F>
void parallel_side_chunks(tbb::task_arena& arena, std::uint64_t n, std::uint64_t chunk, F&& body) {
  const std::uint64_t per_side = (n + chunk - 1) / chunk;
  parallel_each(arena, 2 * per_side, [&](std::uint64_t c) {
    const std::uint64_t first = (c % per_side) * chunk;
    body(int(c / per_side), first, std::min(n, first + chunk), c);
  });
}

// One piece of work run beside the calling thread (the run manager writes a table while it
// solves the next). wait() must be called before another run() and before destruction.
class BackgroundTask {
 public:
  template <class F>
  void run(tbb::task_arena& arena, F&& work) {
#if defined(TBKIT_CHECKED_THREADS)
    (void)arena;
    thread_ = std::thread(std::forward<F>(work));
#else
    arena.execute([&] { group_.run(std::forward<F>(work)); });
#endif
  }
  void wait(tbb::task_arena& arena) {
#if defined(TBKIT_CHECKED_THREADS)
    (void)arena;
    if (thread_.joinable()) thread_.join();
#else
    arena.execute([&] { group_.wait(); });
#endif
  }

 private:
#if defined(TBKIT_CHECKED_THREADS)
  std::thread thread_;
#else
  tbb::task_group group_;
#endif
};

}  // namespace tbkit::gen
