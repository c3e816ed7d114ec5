// Probe speed, for scripts/bench/probe (not a ctest). Prints one JSON object.
// Usage: tbkit_probe_bench [--syzygy DIR]... [--syzygy-five FILE.rtbw] [--syzygy-only] [--write-fens DIR]
//                          TABLES_DIR GAVIOTA_DIR [FIVE_PIECE_TABLE.dtm] [POSITIONS] [RUNS]
// Sets: "3-4" (random legal positions over all 3- and 4-piece tables), "3" (3-piece only) and,
// when the 5-piece file is given and exists, "5" (that table only). For each set: tbkit warm with
// 1 and 2 threads (cache large enough, filled by a first pass), cold (fresh Tablebase: files
// reopened, OS page cache for the files dropped with posix_fadvise, cache empty) with 1 and 2
// threads, and for 3-4 and 3 libgaviotatb warm with 1 and 2 threads on the same positions.
// Warm with 1 thread also split by side ("tbkit_warm_1t_stored_...", "tbkit_warm_1t_rebuilt_...", and
// "tbkit_warm_stored_positions"/"..._rebuilt_positions"): positions of the side the file stores (or of a
// symmetric table), and of the side a one-side file leaves out, which a probe rebuilds by a one-ply search.
// Cold-probe latency: with files open, cache emptied before each probe (one block decoded each).
// Failures: each is printed to stderr as "probe_bench: LIBRARY: FEN: error" (the first 10 per
// library, then a count). A tbkit failure ends the run (exit 1). libgaviotatb is measured as a
// multi-threaded caller gets it (unserialised), and from 2 threads it sometimes answers from the
// wrong table (tests/support/gaviota_oracle.h): its probes that fail or answer other than a
// single-threaded pass are counted in the JSON instead ("gaviota_warm_Nt_failures" over all runs,
// "..._wrong_values" of them answered a value, "gaviota_failed_probes" the first few).
// Syzygy (each --syzygy DIR, on the same positions as the DTM sets 3-4 and 3, and with --syzygy-five
// on that table's positions, its directory first and the first --syzygy DIR for the captures):
// probe_wdl warm with 1 and 2 threads, probe_dtz warm with 1 and 2 threads (one SyzygyTablebase, a
// first pass opens every file), the C interface's tbkit_probe_wdl50 warm with 1 thread from a flat
// array of bitboards ("wdl_c_api_warm_1t", as Fathom's driver probes; its answers checked equal),
// every figure from plain loops (one a thread) and each figure's runs back to back, as the driver's,
// the latency of single WDL probes with the files open (comparable with the DTM cold-probe latency:
// nothing is cached, so this is what any probe costs), and the first-probe
// latency: a new SyzygyTablebase per sample (open() not timed), the one probe_wdl timed, which maps and
// validates the position's file and those its captures reach (the files are in the OS page cache).
// "wdl_hash"/"dtz_hash" fold every answer, to compare builds; "wdl_wins", "wdl_cursed_wins",
// "wdl_draws", "wdl_blessed_losses" and "wdl_losses" count probe_wdl's answers by class, to compare
// with another library (scripts/bench/fathom_probe.c). --syzygy-only skips DTM and Gaviota.
// --write-fens DIR writes the positions of the sets 3-4 and 3 to DIR/3-4.fen and DIR/3.fen, one FEN a
// line in probe order (for a peer probing the same positions), before measuring anything.
// Exit status: 1 a tbkit probe failed, 2 usage, 3 tables that cannot be opened, 4 a FEN file that
// cannot be written.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "chess/fen.h"
#include "formats/table_file.h"
#include "model/board.h"
#include "model/material.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"
#include "probe/tbkit_probe.h"
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

// A probe that went wrong: an error, or (Gaviota) an answer other than its single-threaded one.
struct Miss {
  std::string error;
  bool wrong_value = false;
};
using ProbeFn = std::function<std::optional<Miss>(std::size_t)>;

struct ProbeFailure {
  std::size_t index = 0;  // into the set's positions
  int threads = 0;
  Miss miss;
};

struct Rate {
  double wall = 0;  // probes per wall-clock second, all threads together
  double cpu = 0;   // probes per CPU second of the probing threads (per thread: robust under load)
  std::vector<ProbeFailure> failures;  // in position order
};

// Appends `, "key": v` to a JSON object under construction.
void add_field(std::string& out, const std::string& key, double v, const char* format = ", \"%s\": %.0f") {
  char buf[160];
  std::snprintf(buf, sizeof buf, format, key.c_str(), v);
  out += buf;
}

// Appends the median wall and CPU rates of several runs: key_probes_per_s, key_probes_per_cpu_s.
void add_rates(std::string& out, const std::string& key, const std::vector<Rate>& v) {
  std::vector<double> wall, cpu;
  for (const Rate& r : v) {
    wall.push_back(r.wall);
    cpu.push_back(r.cpu);
  }
  add_field(out, key + "_probes_per_s", median(wall));
  add_field(out, key + "_probes_per_cpu_s", median(cpu));
}

// Rates of `probe(i)` over all positions, split among `threads` threads (each its own slice).
// Every probe counts, failed ones too: they took their time like the others, and leaving them out
// would credit a library for the probes it got wrong.
Rate rate(std::size_t n, int threads, const ProbeFn& probe) {
  std::vector<double> cpu(std::size_t(threads), 0.0);
  std::vector<std::vector<ProbeFailure>> failed(static_cast<std::size_t>(threads));
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const double c0 = thread_cpu_seconds();
      for (std::size_t i = std::size_t(t); i < n; i += std::size_t(threads))
        if (auto miss = probe(i)) failed[std::size_t(t)].push_back({i, threads, std::move(*miss)});
      cpu[std::size_t(t)] = thread_cpu_seconds() - c0;
    });
  for (auto& th : pool) th.join();
  const double s = seconds_since(t0);
  double cpu_total = 0;
  for (double c : cpu) cpu_total += c;
  Rate r{double(n) / s, double(n) / cpu_total, {}};
  for (auto& f : failed) r.failures.insert(r.failures.end(), f.begin(), f.end());
  std::sort(r.failures.begin(), r.failures.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  return r;
}

// Prints failures to stderr, the first kShown of each library; finish() counts the rest.
class FailureLog {
 public:
  static constexpr std::uint64_t kShown = 10;

  void report(const std::string& library, const chess::Position& pos, const ProbeFailure& f) {
    if (++count_[library] <= kShown)
      std::fprintf(stderr, "probe_bench: %s: %s: %s (%d thread%s)\n", library.c_str(), chess::to_fen(pos).c_str(),
                   f.miss.error.c_str(), f.threads, f.threads == 1 ? "" : "s");
  }

  void finish() const {
    for (const auto& [library, n] : count_)
      if (n > kShown)
        std::fprintf(stderr, "probe_bench: %s: %llu more failures not shown (%llu in all)\n", library.c_str(),
                     static_cast<unsigned long long>(n - kShown), static_cast<unsigned long long>(n));
  }

 private:
  std::map<std::string, std::uint64_t> count_;
};

// A tbkit probe failure is a bug in our reader or tables: name it and stop.
[[noreturn]] void fail_tbkit(FailureLog& log, const std::vector<chess::Position>& pos,
                             const std::vector<ProbeFailure>& failures) {
  for (const ProbeFailure& f : failures) log.report("tbkit", pos[f.index], f);
  log.finish();
  std::fprintf(stderr, "probe_bench: tbkit: %zu probes failed\n", failures.size());
  std::exit(1);
}

Rate rate_tbkit(std::size_t n, int threads, const ProbeFn& probe, FailureLog& log,
                const std::vector<chess::Position>& pos) {
  Rate r = rate(n, threads, probe);
  if (!r.failures.empty()) fail_tbkit(log, pos, r.failures);
  return r;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    out += c;
  }
  return out + "\"";
}

std::string describe(const testing::OracleValue& v) {
  switch (v.wdl) {
    case testing::OracleWdl::kWin: return "win in " + std::to_string(v.plies) + " plies";
    case testing::OracleWdl::kLoss: return "loss in " + std::to_string(v.plies) + " plies";
    case testing::OracleWdl::kDraw: break;
  }
  return "draw";
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
  // Copied once more, one after another: a Position keeps its state (castling, en passant) on the
  // heap, and the retries above leave those states scattered over it, so that reading them cost a
  // cache miss a probe (2026-12-07: probe_wdl(Position) 1.5-2.5 M/s, the same build's loop over
  // positions read from FENs 4.0-4.4 M/s). Copies made in order lie in order, as an engine's
  // positions lie in its caches: the figures time the probes, not the harness's heap.
  return std::vector<chess::Position>(out.begin(), out.end());
}

probe::Tablebase open_tables(const std::filesystem::path& dir, std::size_t cache) {
  auto tb = probe::Tablebase::open({dir}, {.cache_bytes = cache});
  if (!tb) {
    std::fprintf(stderr, "probe_bench: %s\n", tb.error().message.c_str());
    std::exit(3);
  }
  return std::move(*tb);
}

// The positions whose side to move the table file stores (or whose table is symmetric: the stored side
// colour-flipped), and those of the side a one-side file leaves out, which a probe rebuilds by a
// one-ply search. Exits 3 when a table cannot be opened.
std::pair<std::vector<chess::Position>, std::vector<chess::Position>> split_by_stored_side(
    const std::filesystem::path& dir, const std::vector<chess::Position>& pos) {
  std::map<std::string, formats::TableFile> files;
  std::pair<std::vector<chess::Position>, std::vector<chess::Position>> out;
  for (const chess::Position& p : pos) {
    const model::Material m = model::board_from_position(p).material();
    const model::Material table = m.normalized();
    auto it = files.find(table.name());
    if (it == files.end()) {
      auto file = formats::TableFile::open(dir / (table.name() + ".dtm"));
      if (!file) {
        std::fprintf(stderr, "probe_bench: %s\n", file.error().message.c_str());
        std::exit(3);
      }
      it = files.emplace(table.name(), std::move(*file)).first;
    }
    const chess::Color side = m.needs_flip() ? ~p.side_to_move() : p.side_to_move();
    (table.is_symmetric() || it->second.stores(side) ? out.first : out.second).push_back(p);
  }
  return out;
}

std::string json_set(const std::string& name, const std::filesystem::path& dir, const std::vector<chess::Position>& pos,
                     int runs, const testing::GaviotaOracle* oracle, FailureLog& log) {
  const std::size_t n = pos.size();
  constexpr std::size_t kWarmCache = std::size_t{1} << 30;
  std::string out = "\"" + name + "\": {\"positions\": " + std::to_string(n);
  auto field = [&](const std::string& key, const std::vector<double>& v) { add_field(out, key, median(v)); };
  auto rates = [&](const std::string& key, const std::vector<Rate>& v) { add_rates(out, key, v); };
  auto probe_one = [&](const probe::Tablebase& tb, std::size_t i) {
    if (auto r = tb.probe(pos[i]); !r) fail_tbkit(log, pos, {{i, 1, {r.error().message}}});
  };
  // Warm: one Tablebase, a first pass fills the cache.
  {
    probe::Tablebase tb = open_tables(dir, kWarmCache);
    const ProbeFn probe = [&](std::size_t i) -> std::optional<Miss> {
      if (auto r = tb.probe(pos[i]); !r) return Miss{r.error().message};
      return std::nullopt;
    };
    rate_tbkit(n, 1, probe, log, pos);
    std::vector<Rate> one, two;
    for (int r = 0; r < runs; ++r) {
      one.push_back(rate_tbkit(n, 1, probe, log, pos));
      two.push_back(rate_tbkit(n, 2, probe, log, pos));
    }
    rates("tbkit_warm_1t", one);
    rates("tbkit_warm_2t", two);
    // The warm probes again, split by side: stored, and rebuilt by the one-ply search.
    const auto [stored, rebuilt] = split_by_stored_side(dir, pos);
    for (const auto& [part, part_pos] : {std::pair{"stored", &stored}, std::pair{"rebuilt", &rebuilt}}) {
      add_field(out, std::string("tbkit_warm_") + part + "_positions", double(part_pos->size()));
      if (part_pos->empty()) continue;
      const ProbeFn probe_part = [&, v = part_pos](std::size_t i) -> std::optional<Miss> {
        if (auto r = tb.probe((*v)[i]); !r) return Miss{r.error().message};
        return std::nullopt;
      };
      std::vector<Rate> part_rates;
      for (int r = 0; r < runs; ++r) part_rates.push_back(rate_tbkit(part_pos->size(), 1, probe_part, log, *part_pos));
      rates(std::string("tbkit_warm_1t_") + part, part_rates);
    }
    // Cold-probe latency: files open, cache emptied before each probe.
    std::vector<double> lat;
    std::uint64_t max_blocks = 0;
    for (std::size_t i = 0; i < n && lat.size() < 2000; ++i) {
      if (!pos[i].en_passant().is_none()) continue;  // those probe two tables
      tb.clear_cache();
      const auto before = tb.cache_stats().blocks_decoded;
      const auto t0 = Clock::now();
      probe_one(tb, i);
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
      probe_one(tb, 0);
      first.push_back(seconds_since(t0) * 1e6);
      const ProbeFn probe = [&](std::size_t i) -> std::optional<Miss> {
        if (auto res = tb.probe(pos[i]); !res) return Miss{res.error().message};
        return std::nullopt;
      };
      v.push_back(rate_tbkit(n, threads, probe, log, pos));
    }
    rates("tbkit_cold_" + std::to_string(threads) + "t", v);
    if (threads == 1) field("first_probe_with_file_open_us_median", first);
  }
  if (oracle != nullptr) {
    // The first pass, single-threaded, warms the cache and records each answer: a later probe
    // that errs or answers otherwise (from 2 threads: libgaviotatb's race) counts as a failure.
    std::vector<std::optional<testing::OracleValue>> alone(n);
    rate(n, 1, [&](std::size_t i) -> std::optional<Miss> {
      if (auto v = oracle->probe_unsynchronized(pos[i])) alone[i] = *v;
      return std::nullopt;
    });
    const ProbeFn probe = [&](std::size_t i) -> std::optional<Miss> {
      const auto v = oracle->probe_unsynchronized(pos[i]);
      if (v && alone[i] == *v) return std::nullopt;
      const std::string single = "; alone: " + (alone[i] ? describe(*alone[i]) : std::string("an error"));
      if (!v) return Miss{v.error().message + single};
      return Miss{"answered " + describe(*v) + single, true};
    };
    std::vector<std::string> shown;
    auto tally = [&](const std::string& key, const std::vector<Rate>& v) {
      std::uint64_t failures = 0, wrong_values = 0;
      for (const Rate& r : v)
        for (const ProbeFailure& f : r.failures) {
          ++failures;
          wrong_values += f.miss.wrong_value;
          log.report("gaviota", pos[f.index], f);
          if (shown.size() < 5)
            shown.push_back(chess::to_fen(pos[f.index]) + ": " + f.miss.error + " (" + std::to_string(f.threads) +
                            "t)");
        }
      out += ", \"" + key + "_failures\": " + std::to_string(failures) + ", \"" + key +
             "_wrong_values\": " + std::to_string(wrong_values);
    };
    std::vector<Rate> one, two;
    for (int r = 0; r < runs; ++r) {
      one.push_back(rate(n, 1, probe));
      two.push_back(rate(n, 2, probe));
    }
    rates("gaviota_warm_1t", one);
    tally("gaviota_warm_1t", one);
    rates("gaviota_warm_2t", two);
    tally("gaviota_warm_2t", two);
    out += ", \"gaviota_failed_probes\": [";
    for (std::size_t i = 0; i < shown.size(); ++i) out += (i ? ", " : "") + json_string(shown[i]);
    out += "]";
  }
  return out + "}";
}


probe::SyzygyTablebase open_syzygy(const std::vector<std::filesystem::path>& dirs) {
  auto tb = probe::SyzygyTablebase::open(dirs);
  if (!tb) {
    std::fprintf(stderr, "probe_bench: %s\n", tb.error().message.c_str());
    std::exit(3);
  }
  if (tb->max_men() == 0) {
    std::fprintf(stderr, "probe_bench: no Syzygy files in %s\n", dirs.front().c_str());
    std::exit(3);
  }
  return std::move(*tb);
}

// A position as the C interface's bitboards.
tbkit_board c_board(const chess::Position& p) {
  using chess::PieceType;
  tbkit_board b{};
  b.white = p.pieces(chess::Color::kWhite);
  b.black = p.pieces(chess::Color::kBlack);
  b.kings = p.pieces(PieceType::kKing);
  b.queens = p.pieces(PieceType::kQueen);
  b.rooks = p.pieces(PieceType::kRook);
  b.bishops = p.pieces(PieceType::kBishop);
  b.knights = p.pieces(PieceType::kKnight);
  b.pawns = p.pieces(PieceType::kPawn);
  b.side_to_move = p.side_to_move() == chess::Color::kWhite ? 0 : 1;
  b.ep_square = p.en_passant().is_none() ? -1 : p.en_passant().index();
  return b;
}

std::uint64_t fold(std::uint64_t h, std::int64_t v) { return (h ^ std::uint64_t(v + 1000)) * 0x100000001b3ULL; }

std::string json_syzygy_set(const std::string& name, const std::vector<std::filesystem::path>& dirs,
                            const std::vector<chess::Position>& pos, int runs, FailureLog& log) {
  const std::size_t n = pos.size();
  std::string out = "\"" + name + "\": {\"positions\": " + std::to_string(n);
  auto add = [&](const std::string& key, double v, const char* format) { add_field(out, key, v, format); };
  auto rates = [&](const std::string& key, const std::vector<Rate>& v) { add_rates(out, key, v); };
  auto latencies = [&](const std::string& key, std::vector<double> lat) {
    std::sort(lat.begin(), lat.end());
    add(key + "_us_median", median(lat), ", \"%s\": %.2f");
    add(key + "_us_p99", lat[lat.size() * 99 / 100], ", \"%s\": %.2f");
  };
  const probe::SyzygyTablebase tb = open_syzygy(dirs);
  const ProbeFn wdl = [&](std::size_t i) -> std::optional<Miss> {
    if (auto r = tb.probe_wdl(pos[i]); !r) return Miss{r.error().message};
    return std::nullopt;
  };
  const ProbeFn dtz = [&](std::size_t i) -> std::optional<Miss> {
    if (auto r = tb.probe_dtz(pos[i]); !r) return Miss{r.error().message};
    return std::nullopt;
  };
  // The first pass opens every file, folds the answers and counts probe_wdl's by class.
  std::uint64_t wdl_hash = 0xcbf29ce484222325ULL, dtz_hash = wdl_hash;
  std::uint64_t classes[5] = {};  // indexed by Wdl50 + 2
  for (std::size_t i = 0; i < n; ++i) {
    auto w = tb.probe_wdl(pos[i]);
    auto d = tb.probe_dtz(pos[i]);
    if (!w || !d) fail_tbkit(log, pos, {{i, 1, {(!w ? w.error() : d.error()).message}}});
    wdl_hash = fold(wdl_hash, int(*w));
    dtz_hash = fold(fold(dtz_hash, int(d->wdl)), d->dtz);
    ++classes[int(*w) + 2];
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, ", \"wdl_hash\": \"%016llx\", \"dtz_hash\": \"%016llx\"",
                static_cast<unsigned long long>(wdl_hash), static_cast<unsigned long long>(dtz_hash));
  out += buf;
  const char* class_keys[5] = {"wdl_losses", "wdl_blessed_losses", "wdl_draws", "wdl_cursed_wins", "wdl_wins"};
  for (int c = 4; c >= 0; --c) add(class_keys[c], double(classes[c]), ", \"%s\": %.0f");
  // The C interface from bitboards (tbkit_probe_wdl50), as an engine embedding the library calls it
  // and as Fathom's driver probes: the boards lie in one flat array, like the driver's.
  std::string joined;
  for (const auto& d : dirs) joined += (joined.empty() ? "" : ":") + d.string();
  tbkit_tablebase* c_tb = nullptr;
  char c_error[256] = "";
  if (tbkit_open(joined.c_str(), 0, &c_tb, c_error, sizeof c_error) != TBKIT_OK) {
    std::fprintf(stderr, "probe_bench: tbkit_open: %s\n", c_error);
    std::exit(3);
  }
  std::vector<tbkit_board> boards;
  boards.reserve(n);
  for (const chess::Position& p : pos) boards.push_back(c_board(p));
  const auto c_probe = [&](std::size_t i, int& w) -> std::optional<Miss> {
    if (const int rc = tbkit_probe_wdl50(c_tb, &boards[i], &w); rc != TBKIT_OK)
      return Miss{"tbkit_probe_wdl50 returned " + std::to_string(rc)};
    return std::nullopt;
  };
  std::uint64_t c_hash = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    int w = 0;
    if (auto miss = c_probe(i, w)) fail_tbkit(log, pos, {{i, 1, *miss}});
    c_hash = fold(c_hash, w);
  }
  if (c_hash != wdl_hash) {
    std::fprintf(stderr, "probe_bench: tbkit_probe_wdl50 and probe_wdl disagree (hash %016llx, %016llx)\n",
                 static_cast<unsigned long long>(c_hash), static_cast<unsigned long long>(wdl_hash));
    std::exit(1);
  }
  // The figures are timed from plain loops, one a thread over its slice of the positions, as
  // Fathom's driver calls tb_probe_wdl: no std::function or failure record per probe (the checking
  // passes above saw every answer; a failure here stops the bench all the same, named by `probe`
  // again). Not rate() with a lambda: its std::optional<Miss> per probe measured 3.4-3.5 M/s on the
  // 3+4 C API figure where this loop gave 4.5-4.9 M/s minutes apart (2026-12-03).
  const auto plain_rate = [&](int threads, const auto& ok, const ProbeFn& probe) {
    std::vector<double> cpu(std::size_t(threads), 0.0);
    std::vector<std::size_t> first_failed(std::size_t(threads), n);
    const auto slice = [&](int t) {
      const double c0 = thread_cpu_seconds();
      for (std::size_t i = std::size_t(t); i < n; i += std::size_t(threads))
        if (!ok(i) && first_failed[std::size_t(t)] == n) first_failed[std::size_t(t)] = i;
      cpu[std::size_t(t)] = thread_cpu_seconds() - c0;
    };
    const auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(slice, t);
    slice(0);
    for (auto& th : pool) th.join();
    const double wall = seconds_since(t0);
    const std::size_t failed = *std::min_element(first_failed.begin(), first_failed.end());
    if (failed != n) fail_tbkit(log, pos, {{failed, threads, probe(failed).value_or(Miss{"failed, then not again"})}});
    double cpu_total = 0;
    for (const double c : cpu) cpu_total += c;
    return Rate{double(n) / wall, double(n) / cpu_total, {}};
  };
  const auto c_ok = [&](std::size_t i) {
    int w = 0;
    return tbkit_probe_wdl50(c_tb, &boards[i], &w) == TBKIT_OK;
  };
  const auto wdl_ok = [&](std::size_t i) { return bool(tb.probe_wdl(pos[i])); };
  const auto dtz_ok = [&](std::size_t i) { return bool(tb.probe_dtz(pos[i])); };
  const ProbeFn c_wdl = [&](std::size_t i) -> std::optional<Miss> {
    int w = 0;
    return c_probe(i, w);
  };
  // Each figure's runs back to back, as Fathom's driver runs its passes: a run finds the caches as
  // the run before it left them (a WDL pass right after a DTZ pass is a third slower), and the median
  // is of warm runs.
  std::vector<Rate> w1, w2, d1, d2, c1;
  for (int r = 0; r < runs; ++r) c1.push_back(plain_rate(1, c_ok, c_wdl));
  for (int r = 0; r < runs; ++r) w1.push_back(plain_rate(1, wdl_ok, wdl));
  for (int r = 0; r < runs; ++r) w2.push_back(plain_rate(2, wdl_ok, wdl));
  for (int r = 0; r < runs; ++r) d1.push_back(plain_rate(1, dtz_ok, dtz));
  for (int r = 0; r < runs; ++r) d2.push_back(plain_rate(2, dtz_ok, dtz));
  tbkit_close(c_tb);
  rates("wdl_warm_1t", w1);
  rates("wdl_c_api_warm_1t", c1);
  rates("wdl_warm_2t", w2);
  rates("dtz_warm_1t", d1);
  rates("dtz_warm_2t", d2);
  // Single probes with the files open (the DTM cold probe's counterpart: Syzygy caches nothing).
  std::vector<double> lat;
  for (std::size_t i = 0; i < n && lat.size() < 20000; ++i) {
    const auto t0 = Clock::now();
    auto r = tb.probe_wdl(pos[i]);
    lat.push_back(seconds_since(t0) * 1e6);
    if (!r) fail_tbkit(log, pos, {{i, 1, {r.error().message}}});
  }
  latencies("wdl_files_open_latency", lat);
  // First probe of a new SyzygyTablebase: maps and validates the files the probe needs.
  lat.clear();
  for (std::size_t i = 0; i < n && lat.size() < 2000; ++i) {
    const probe::SyzygyTablebase fresh = open_syzygy(dirs);
    const auto t0 = Clock::now();
    auto r = fresh.probe_wdl(pos[i]);
    lat.push_back(seconds_since(t0) * 1e6);
    if (!r) fail_tbkit(log, pos, {{i, 1, {r.error().message}}});
  }
  latencies("wdl_first_probe_latency", lat);
  return out + "}";
}

// Writes one FEN a line to `path` (through path.tmp, renamed into place); exits 4 on failure.
void write_fens(const std::filesystem::path& path, const std::vector<chess::Position>& pos) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    for (const chess::Position& p : pos) out << chess::to_fen(p) << '\n';
    out.flush();
    if (out) {
      std::error_code ec;
      out.close();
      std::filesystem::rename(tmp, path, ec);
      if (!ec) return;
    }
  }
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
  std::fprintf(stderr, "probe_bench: cannot write %s\n", path.c_str());
  std::exit(4);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  std::vector<std::filesystem::path> syzygy_dirs;
  std::string syzygy_five;
  std::filesystem::path fens_dir;
  bool syzygy_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--syzygy" || a == "--syzygy-five" || a == "--write-fens") && i + 1 < argc) {
      if (a == "--syzygy") syzygy_dirs.emplace_back(argv[++i]);
      else if (a == "--syzygy-five") syzygy_five = argv[++i];
      else fens_dir = argv[++i];
    } else if (a == "--syzygy-only") {
      syzygy_only = true;
    } else {
      args.push_back(a);
    }
  }
  if (args.size() < 2 || args.size() > 5 || (syzygy_only && syzygy_dirs.empty())) {
    std::fprintf(stderr,
                 "usage: %s [--syzygy DIR]... [--syzygy-five FILE.rtbw] [--syzygy-only] [--write-fens DIR] TABLES_DIR "
                 "GAVIOTA_DIR [FIVE_PIECE_TABLE.dtm] [POSITIONS] [RUNS]\n",
                 argv[0]);
    return 2;
  }
  const std::filesystem::path tables = args[0];
  const std::string five = args.size() > 2 ? args[2] : "";
  const std::size_t n = args.size() > 3 ? std::strtoull(args[3].c_str(), nullptr, 10) : 200000;
  const int runs = args.size() > 4 ? std::atoi(args[4].c_str()) : 5;
  FailureLog log;
  std::string out = "{\"runs\": " + std::to_string(runs);
  const auto positions34 = positions_of(model::all_materials(4), n, 1);
  const auto positions3 = positions_of(model::all_materials(3), n, 2);
  if (!fens_dir.empty()) {
    write_fens(fens_dir / "3-4.fen", positions34);
    write_fens(fens_dir / "3.fen", positions3);
  }
  if (!syzygy_only) {
    auto oracle = testing::GaviotaOracle::open({args[1]}, std::size_t{256} << 20);
    if (!oracle) {
      std::fprintf(stderr, "probe_bench: %s\n", oracle.error().message.c_str());
      return 3;
    }
    out += ", \"gaviota_cache_mib\": 256, \"tbkit_warm_cache_mib\": 1024, ";
    out += json_set("3-4", tables, positions34, runs, &*oracle, log);
    out += ", " + json_set("3", tables, positions3, runs, &*oracle, log);
    std::error_code ec;
    if (!five.empty() && std::filesystem::is_regular_file(five, ec)) {
      const std::filesystem::path p(five);
      auto m = model::Material::parse(p.stem().string());
      if (!m) {
        std::fprintf(stderr, "probe_bench: %s: not a material file name\n", five.c_str());
        return 2;
      }
      out += ", " + json_set("5:" + m->name(), p.parent_path(), positions_of({*m}, n, 3), runs, nullptr, log);
    } else {
      out += ", \"5\": \"skipped: no 5-piece table given or found\"";
    }
  }
  if (!syzygy_dirs.empty()) {
    out += ", \"syzygy\": {";
    for (std::size_t d = 0; d < syzygy_dirs.size(); ++d) {
      const auto& dir = syzygy_dirs[d];
      out += (d ? ", " : "") + json_string(dir.string()) + ": {";
      out += json_syzygy_set("3-4", {dir}, positions34, runs, log);
      out += ", " + json_syzygy_set("3", {dir}, positions3, runs, log);
      std::error_code ec;
      if (d == 0 && !syzygy_five.empty() && std::filesystem::is_regular_file(syzygy_five, ec)) {
        const std::filesystem::path p(syzygy_five);
        auto m = model::Material::parse(p.stem().string());
        if (!m) {
          std::fprintf(stderr, "probe_bench: %s: not a material file name\n", syzygy_five.c_str());
          return 2;
        }
        out += ", " + json_syzygy_set("5:" + m->name(), {p.parent_path(), dir}, positions_of({*m}, n, 3), runs, log);
      }
      out += "}";
    }
    out += "}";
  }
  log.finish();
  std::printf("%s}\n", out.c_str());
  return 0;
}
