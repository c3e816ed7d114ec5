// Driver for scripts/verify-syzygy: solves tables (DTM, then WDL50/DTZ50) in memory and compares
// every legal position with a directory of Syzygy files (the official ones), and optionally writes
// our own Syzygy files and compares those too.
//   tbkit_verify_syzygy [-t THREADS] [--write DIR] [--every K] [--dtz-stored] OFFICIAL_DIR[:DIR...] [MATERIAL...]
// Without materials: every 3- and 4-man table. --every K compares only the index slots that are a
// multiple of K (a systematic sample). --dtz-stored compares DTZ50 only where the files store it,
// not through the probe's one-ply search on the other side (cli::DtzScope::kStored: what makes the
// 5-man comparison of every position take minutes, not a day). Prints a line per table and
// "N passed, N failed"; exit 0 only when every table passed.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "gen/solver.h"
#include "gen/syzygy_output.h"
#include "gen/wdl_dtz.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"
#include "cli/syzygy_compare.h"

using namespace tbkit;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string describe(const cli::SyzygyComparison& c) {
  std::string s = std::to_string(c.positions) + " positions, WDL50 " + std::to_string(c.wdl_mismatches) + " mismatches";
  if (c.wdl_stored_above_captures)
    s += " (" + std::to_string(c.wdl_stored_above_captures) + " capture-only positions stored above their captures)";
  if (c.dtz_compared)
    s += "; DTZ50 " + std::to_string(c.dtz_compared) + " compared, " + std::to_string(c.dtz_exact) + " exact, " +
         std::to_string(c.dtz_rounded) + " off by the file's rounding, " + std::to_string(c.dtz_mismatches) + " mismatches";
  else
    s += "; no DTZ file";
  if (c.dtz_unstored) s += "; DTZ50 of " + std::to_string(c.dtz_unstored) + " left out (the file stores the other side)";
  if (c.errors) s += "; " + std::to_string(c.errors) + " probe errors";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  std::string write_dir;
  std::uint64_t every = 1;
  cli::DtzScope scope = cli::DtzScope::kEveryPosition;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "-t" || a == "--threads") && i + 1 < argc) threads = std::stoi(argv[++i]);
    else if (a == "--write" && i + 1 < argc) write_dir = argv[++i];
    else if (a == "--every" && i + 1 < argc) every = std::max<std::uint64_t>(1, std::stoull(argv[++i]));
    else if (a == "--dtz-stored") scope = cli::DtzScope::kStored;
    else args.push_back(a);
  }
  if (args.empty()) {
    std::cerr << "usage: tbkit_verify_syzygy [-t THREADS] [--write DIR] [--every K] [--dtz-stored] OFFICIAL_DIR [MATERIAL...]\n";
    return 2;
  }
  auto official = probe::SyzygyTablebase::open(probe::split_dirs(args[0]));
  if (!official) {
    std::cerr << "verify-syzygy: " << official.error().message << '\n';
    return 2;
  }
  std::vector<model::Material> wanted;
  if (args.size() == 1) {
    wanted = model::all_materials(4);
  } else {
    for (std::size_t i = 1; i < args.size(); ++i) {
      auto m = model::Material::parse(args[i]);
      if (!m) {
        std::cerr << "verify-syzygy: " << m.error().message << '\n';
        return 2;
      }
      wanted.push_back(m->normalized());
    }
  }
  tbb::task_arena arena(threads > 0 ? threads : tbb::this_task_arena::max_concurrency());
  gen::TableSet dtm_set;
  gen::DtzSet dtz_set;
  int passed = 0, failed = 0;
  double dtm_total = 0, dtz_total = 0;
  for (const model::Material& m : model::dependency_closure(wanted)) {
    auto t0 = std::chrono::steady_clock::now();
    auto dtm = gen::solve_table(m, dtm_set, arena);
    if (!dtm) {
      std::cerr << "verify-syzygy: " << dtm.error().message << '\n';
      return 2;
    }
    const double dtm_seconds = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    auto dtz = gen::solve_dtz(**dtm, dtz_set, arena);
    if (!dtz) {
      std::cerr << "verify-syzygy: " << dtz.error().message << '\n';
      return 2;
    }
    const double dtz_seconds = seconds_since(t0);
    dtm_total += dtm_seconds;
    dtz_total += dtz_seconds;
    dtm_set.add(*dtm);
    dtz_set.add(*dtz);
    // Every table's files are written, so that captures out of a wanted one find ours too.
    std::optional<gen::SyzygyFiles> files;
    if (!write_dir.empty()) {
      auto written = gen::write_syzygy_files(write_dir, **dtz, dtz_set, arena);
      if (!written) {
        std::cerr << "verify-syzygy: " << written.error().message << '\n';
        return 2;
      }
      files = *written;
    }
    if (std::find(wanted.begin(), wanted.end(), m) == wanted.end()) continue;
    const auto names = official->materials();
    bool ok = std::find(names.begin(), names.end(), m.name()) != names.end();
    std::string line = m.name() + ": ";
    if (!ok) {
      line += "no Syzygy file in " + args[0];
    } else {
      t0 = std::chrono::steady_clock::now();
      const auto c = cli::compare_with_syzygy(**dtz, *official, arena, true, every, scope);
      ok = c.passed();
      line += describe(c);
      char compared[64];
      std::snprintf(compared, sizeof compared, " [compared in %.1f s]", seconds_since(t0));
      line += compared;
      for (const auto& e : c.examples) line += "\n    " + e;
    }
    char times[96];
    std::snprintf(times, sizeof times, " [DTM %.2f s, WDL/DTZ %.2f s]", dtm_seconds, dtz_seconds);
    line += times;
    if (files && ok) {
      auto ours = probe::SyzygyTablebase::open({write_dir});
      const auto c = ours ? cli::compare_with_syzygy(**dtz, *ours, arena, true, every, scope) : cli::SyzygyComparison{};
      ok = ours && c.passed();
      line += "\n    our files: .rtbw " + std::to_string(files->wdl_bytes) + " bytes, .rtbz " +
              std::to_string(files->dtz_bytes) + " bytes; read back: " + (ours ? describe(c) : ours.error().message);
      for (const auto& e : c.examples) line += "\n    " + e;
    }
    std::cout << line << (ok ? "  passed" : "  FAILED") << '\n' << std::flush;
    (ok ? passed : failed)++;
  }
  std::printf("solve time: DTM %.1f s, WDL/DTZ %.1f s (all tables solved, dependencies included)\n", dtm_total, dtz_total);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
