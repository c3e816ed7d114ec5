// Probe speed, for scripts/bench/probe (not a ctest). Prints one JSON object.
// Usage: tbkit_probe_bench TABLES_DIR GAVIOTA_DIR [FIVE_PIECE_TABLE.dtm] [POSITIONS] [RUNS]
// Sets: "3-4" (random legal positions over all 3- and 4-piece tables), "3" (3-piece only) and,
// when the 5-piece file is given and exists, "5" (that table only). For each set: tbkit warm with
// 1 and 2 threads (cache large enough, filled by a first pass), cold (fresh Tablebase: files
// reopened, OS page cache for the files dropped with posix_fadvise, cache empty) with 1 and 2
// threads, and for 3-4 and 3 libgaviotatb warm with 1 and 2 threads on the same positions.
// Cold-probe latency: with files open, cache emptied before each probe (one block decoded each).
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

#include "model/material.h"
#include "probe/tablebase.h"
#include "tests/probe/random_position.h"
#include "tests/support/gaviota_oracle.h"

using namespace tbkit;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Rate {
  double wall = 0;  // probes per wall-clock second, all threads together
  double cpu = 0;   // probes per CPU second of the probing threads (per thread: robust under load)
};

// Rates of `probe(i)` over all positions, split among `threads` threads (each its own slice).
Rate rate(std::size_t n, int threads, const std::function<bool(std::size_t)>& probe) {
  std::atomic<std::uint64_t> failed{0};
  std::vector<double> cpu(std::size_t(threads), 0.0);
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const double c0 = thread_cpu_seconds();
      for (std::size_t i = std::size_t(t); i < n; i += std::size_t(threads))
        if (!probe(i)) failed.fetch_add(1, std::memory_order_relaxed);
      cpu[std::size_t(t)] = thread_cpu_seconds() - c0;
    });
  for (auto& th : pool) th.join();
  const double s = seconds_since(t0);
  if (failed.load() != 0) {
    std::fprintf(stderr, "probe_bench: %llu probes failed\n", static_cast<unsigned long long>(failed.load()));
    std::exit(1);
  }
  double cpu_total = 0;
  for (double c : cpu) cpu_total += c;
  return {double(n) / s, double(n) / cpu_total};
}

void drop_page_cache(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".dtm") continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

std::vector<chess::Position> positions_of(const std::vector<model::Material>& materials, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<chess::Position> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const model::Material& m = materials[rng() % materials.size()];
    out.push_back(testing::random_position((rng() & 1) ? m.flipped() : m, rng, (rng() & 1) != 0));
  }
  return out;
}

probe::Tablebase open_tables(const std::filesystem::path& dir, std::size_t cache) {
  auto tb = probe::Tablebase::open({dir}, {.cache_bytes = cache});
  if (!tb) {
    std::fprintf(stderr, "probe_bench: %s\n", tb.error().message.c_str());
    std::exit(3);
  }
  return std::move(*tb);
}

std::string json_set(const std::string& name, const std::filesystem::path& dir, const std::vector<chess::Position>& pos,
                     int runs, const testing::GaviotaOracle* oracle) {
  const std::size_t n = pos.size();
  constexpr std::size_t kWarmCache = std::size_t{1} << 30;
  std::string out = "\"" + name + "\": {\"positions\": " + std::to_string(n);
  auto field = [&](const std::string& key, const std::vector<double>& v) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ", \"%s\": %.0f", key.c_str(), median(v));
    out += buf;
  };
  auto rates = [&](const std::string& key, const std::vector<Rate>& v) {
    std::vector<double> wall, cpu;
    for (const Rate& r : v) {
      wall.push_back(r.wall);
      cpu.push_back(r.cpu);
    }
    field(key + "_probes_per_s", wall);
    field(key + "_probes_per_cpu_s", cpu);
  };
  // Warm: one Tablebase, a first pass fills the cache.
  {
    probe::Tablebase tb = open_tables(dir, kWarmCache);
    auto probe = [&](std::size_t i) { return tb.probe(pos[i]).ok(); };
    rate(n, 1, probe);
    std::vector<Rate> one, two;
    for (int r = 0; r < runs; ++r) {
      one.push_back(rate(n, 1, probe));
      two.push_back(rate(n, 2, probe));
    }
    rates("tbkit_warm_1t", one);
    rates("tbkit_warm_2t", two);
    // Cold-probe latency: files open, cache emptied before each probe.
    std::vector<double> lat;
    std::uint64_t max_blocks = 0;
    for (std::size_t i = 0; i < n && lat.size() < 2000; ++i) {
      if (!pos[i].en_passant().is_none()) continue;  // those probe two tables
      tb.clear_cache();
      const auto before = tb.cache_stats().blocks_decoded;
      const auto t0 = Clock::now();
      if (!tb.probe(pos[i]).ok()) std::exit(1);
      lat.push_back(seconds_since(t0) * 1e6);
      max_blocks = std::max(max_blocks, tb.cache_stats().blocks_decoded - before);
    }
    field("cold_probe_latency_us_median", lat);
    std::sort(lat.begin(), lat.end());
    char buf[160];
    std::snprintf(buf, sizeof buf, ", \"cold_probe_latency_us_p99\": %.1f, \"cold_probe_max_blocks_decoded\": %llu",
                  lat[lat.size() * 99 / 100], static_cast<unsigned long long>(max_blocks));
    out += buf;
  }
  // Cold: files reopened and dropped from the OS page cache, empty block cache.
  for (int threads : {1, 2}) {
    std::vector<Rate> v;
    std::vector<double> first;
    for (int r = 0; r < runs; ++r) {
      drop_page_cache(dir);
      probe::Tablebase tb = open_tables(dir, kWarmCache);
      const auto t0 = Clock::now();
      if (!tb.probe(pos[0]).ok()) std::exit(1);
      first.push_back(seconds_since(t0) * 1e6);
      v.push_back(rate(n, threads, [&](std::size_t i) { return tb.probe(pos[i]).ok(); }));
    }
    rates("tbkit_cold_" + std::to_string(threads) + "t", v);
    if (threads == 1) field("first_probe_with_file_open_us_median", first);
  }
  if (oracle != nullptr) {
    auto probe = [&](std::size_t i) { return oracle->probe(pos[i]).ok(); };
    rate(n, 1, probe);
    std::vector<Rate> one, two;
    for (int r = 0; r < runs; ++r) {
      one.push_back(rate(n, 1, probe));
      two.push_back(rate(n, 2, probe));
    }
    rates("gaviota_warm_1t", one);
    rates("gaviota_warm_2t", two);
  }
  return out + "}";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 6) {
    std::fprintf(stderr, "usage: %s TABLES_DIR GAVIOTA_DIR [FIVE_PIECE_TABLE.dtm] [POSITIONS] [RUNS]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path tables = argv[1];
  const std::string five = argc > 3 ? argv[3] : "";
  const std::size_t n = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 200000;
  const int runs = argc > 5 ? std::atoi(argv[5]) : 5;
  auto oracle = testing::GaviotaOracle::open({argv[2]}, std::size_t{256} << 20);
  if (!oracle) {
    std::fprintf(stderr, "probe_bench: %s\n", oracle.error().message.c_str());
    return 3;
  }
  std::string out = "{\"runs\": " + std::to_string(runs) + ", \"gaviota_cache_mib\": 256, \"tbkit_warm_cache_mib\": 1024, ";
  out += json_set("3-4", tables, positions_of(model::all_materials(4), n, 1), runs, &*oracle);
  out += ", " + json_set("3", tables, positions_of(model::all_materials(3), n, 2), runs, &*oracle);
  std::error_code ec;
  if (!five.empty() && std::filesystem::is_regular_file(five, ec)) {
    const std::filesystem::path p(five);
    auto m = model::Material::parse(p.stem().string());
    if (!m) {
      std::fprintf(stderr, "probe_bench: %s: not a material file name\n", five.c_str());
      return 2;
    }
    out += ", " + json_set("5:" + m->name(), p.parent_path(), positions_of({*m}, n, 3), runs, nullptr);
  } else {
    out += ", \"5\": \"skipped: no 5-piece table given or found\"";
  }
  std::printf("%s}\n", out.c_str());
  return 0;
}
