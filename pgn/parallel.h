// The book builder's and the parallel reader's concurrency, on a caller's task arena: an ordered
// three-stage pipeline, a loop over ranges, and two calls at once.
//
// Built with TBKIT_CHECKED_THREADS (the ThreadSanitizer build, CMake option TBKIT_TSAN), they run
// on plain std::threads, as gen's loops do (gen/parallel.h says why: Debian's libtbb is not
// instrumented, so ThreadSanitizer reports the ordering TBB gives as races). The stage bodies are
// the same code in every build, so that build checks what they share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include <oneapi/tbb/task_arena.h>

#if defined(TBKIT_CHECKED_THREADS)
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>
#else
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_pipeline.h>
#endif

namespace tbkit::pgn {

#if defined(TBKIT_CHECKED_THREADS)
namespace detail {
inline thread_local int checked_worker_index = -1;

// Runs work(k) on threads k = 0 .. threads-1 (k = 0 on the caller) and joins them.
template <class F>
void on_threads(int threads, F&& work) {
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t)
    helpers.emplace_back([&work, t] {
      checked_worker_index = t;
      work();
    });
  const int own = checked_worker_index;
  checked_worker_index = 0;
  work();
  checked_worker_index = own;
  for (auto& h : helpers) h.join();
}
}  // namespace detail
#endif

// The index of the calling thread among the arena's threads, 0 .. max_concurrency - 1, or a
// negative number outside them.
inline int worker_index() {
#if defined(TBKIT_CHECKED_THREADS)
  return detail::checked_worker_index;
#else
  return tbb::this_task_arena::current_thread_index();
#endif
}

// Items through three stages on `arena`'s threads, at most `tokens` (>= 1) in flight:
// next() -> T* (nullptr: no more), called serially, in order; work(T*) on any thread, in parallel;
// finish(T*), which takes ownership, called serially in next()'s order. next() and finish() may run
// at the same time as each other.
template <class T, class Next, class Work, class Finish>
void ordered_pipeline(tbb::task_arena& arena, std::size_t tokens, Next&& next, Work&& work, Finish&& finish) {
  tokens = std::max<std::size_t>(tokens, 1);
#if defined(TBKIT_CHECKED_THREADS)
  std::counting_semaphore<> free_tokens(std::ptrdiff_t(std::min<std::size_t>(tokens, 1 << 20)));
  std::mutex source_mutex;
  bool stopped = false;
  std::uint64_t taken = 0;
  std::mutex sink_mutex;
  std::uint64_t finished = 0;
  std::map<std::uint64_t, T*> done;  // worked items waiting for their turn to finish
  detail::on_threads(std::max(1, arena.max_concurrency()), [&] {
    for (;;) {
      free_tokens.acquire();
      T* item = nullptr;
      std::uint64_t seq = 0;
      {
        std::lock_guard lock(source_mutex);
        if (!stopped) item = next();
        if (!item) {
          stopped = true;
          free_tokens.release();
          return;
        }
        seq = taken++;
      }
      work(item);
      std::lock_guard lock(sink_mutex);
      done.emplace(seq, item);
      for (auto it = done.begin(); it != done.end() && it->first == finished; it = done.erase(it)) {
        finish(it->second);
        ++finished;
        free_tokens.release();
      }
    }
  });
#else
  arena.execute([&] {
    tbb::parallel_pipeline(tokens,
                           tbb::make_filter<void, T*>(tbb::filter_mode::serial_in_order,
                                                      [&](tbb::flow_control& fc) -> T* {
                                                        T* item = next();
                                                        if (!item) fc.stop();
                                                        return item;
                                                      }) &
                               tbb::make_filter<T*, T*>(tbb::filter_mode::parallel,
                                                        [&](T* item) {
                                                          work(item);
                                                          return item;
                                                        }) &
                               tbb::make_filter<T*, void>(tbb::filter_mode::serial_in_order, [&](T* item) { finish(item); }));
  });
#endif
}

// Calls body(first, last) for ranges covering [0, n), each at most `grain` (>= 1) long, in
// parallel on `arena`'s threads. Which thread runs which range is unspecified.
template <class F>
void parallel_ranges(tbb::task_arena& arena, std::size_t n, std::size_t grain, F&& body) {
  grain = std::max<std::size_t>(grain, 1);
#if defined(TBKIT_CHECKED_THREADS)
  std::atomic<std::size_t> next{0};
  const std::size_t ranges = (n + grain - 1) / grain;
  detail::on_threads(std::max(1, arena.max_concurrency()), [&] {
    for (std::size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < ranges;) body(k * grain, std::min(n, (k + 1) * grain));
  });
#else
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
  });
#endif
}

// Calls a() and b(), possibly at the same time, and returns when both are done.
template <class A, class B>
void parallel_pair(tbb::task_arena& arena, A&& a, B&& b) {
#if defined(TBKIT_CHECKED_THREADS)
  std::atomic<int> next{0};
  detail::on_threads(std::min(2, std::max(1, arena.max_concurrency())), [&] {
    for (int k; (k = next.fetch_add(1, std::memory_order_relaxed)) < 2;) k == 0 ? a() : b();
  });
#else
  arena.execute([&] { tbb::parallel_invoke(a, b); });
#endif
}

}  // namespace tbkit::pgn
