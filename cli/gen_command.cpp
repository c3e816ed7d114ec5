// tbkit gen: generates DTM tables (and the tables they convert into) into a directory.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/common.h"
#include "cli/interrupt.h"
#include "cli/run_progress.h"
#include "cli/version.h"
#include "gen/run.h"
#include "gen/syzygy_output.h"
#if defined(TBKIT_HAVE_MPI)
#include "cli/mpi_cluster.h"
#endif

namespace tbkit::cli {
namespace {

struct GenCliOptions {
  std::vector<std::string> materials;
  int all = 0;
  std::string dir = ".";
  int threads = 0;
  std::string mem;
  bool quiet = false;
  std::string compression = "small";
  std::string sides = "both";
  int format = 0;
  bool syzygy = false;
  std::uint64_t slice_seed = 0;
  bool split = false;
  std::string split_above;
};

// "512M", "24G", "1048576" -> bytes; 0 on error.
std::uint64_t parse_bytes(const std::string& text) {
  if (text.empty()) return 0;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    return 0;
  }
  std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "K" || unit == "KiB" || unit == "k") scale = 1024.0;
  else if (unit == "M" || unit == "MiB") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB") scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty()) return 0;
  return v > 0 ? std::uint64_t(v * scale) : 0;
}

std::int64_t created_timestamp() {
  const char* env = std::getenv("SOURCE_DATE_EPOCH");
  if (!env || !*env) return 0;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  return end && *end == '\0' && v >= 0 ? std::int64_t(v) : 0;
}

int run_gen_alone_or_split(const GenCliOptions& o, gen::Cluster* cluster);

// The ranks of this node (1 when not under mpirun).
int ranks_on_node() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  return local ? std::max(1, std::atoi(local)) : 1;
}

// Under mpirun every rank runs this: a table farm, or with --split every table solved by all the
// ranks together (gen::GenOptions). A rank that fails stops them all.
int run_gen(const GenCliOptions& in) {
  GenCliOptions o = in;
#if defined(TBKIT_HAVE_MPI)
  if (started_by_mpirun()) {
    auto cluster = make_mpi_cluster();
    // The ranks on this node share its cores.
    if (o.threads == 0) o.threads = std::max(1, int(std::max(1U, std::thread::hardware_concurrency())) / ranks_on_node());
    const int code = run_gen_alone_or_split(o, cluster.get());
    if (code != kExitOk) abort_mpi_run(code);
    return code;
  }
#else
  if (std::getenv("OMPI_COMM_WORLD_SIZE"))
    return report(make_error(ErrorCode::kInvalidArgument,
                             "gen: started by mpirun, but this tbkit was built without MPI (install libopenmpi-dev and "
                             "rebuild: docs/mpi.md)"));
#endif
  return run_gen_alone_or_split(o, nullptr);
}

int run_gen_alone_or_split(const GenCliOptions& o, gen::Cluster* cluster) {
  if (!cluster && (o.split || !o.split_above.empty() || o.slice_seed != 0))
    return report(make_error(ErrorCode::kInvalidArgument,
                             "gen: --split, --split-above and --slice-seed apply under mpirun only (docs/mpi.md)"));
  std::vector<model::Material> wanted;
  if (o.all > 0) {
    if (o.all < 3 || o.all > 6) return report(make_error(ErrorCode::kInvalidArgument, "gen: --all N needs N in 3..6"));
    wanted = model::all_materials(o.all);
  }
  for (const auto& name : o.materials) {
    auto m = model::Material::parse(name);
    if (!m) return report(m.error());
    if (m->is_bare_kings()) return report(make_error(ErrorCode::kInvalidArgument, "gen: KvK is a draw and has no table"));
    wanted.push_back(m->normalized());
  }
  if (wanted.empty()) return report(make_error(ErrorCode::kInvalidArgument, "gen: name a material (e.g. KQvKR) or --all N"));
  gen::GenOptions opts;
  opts.dir = o.dir;
  opts.generator = std::string("tbkit ") + kVersion;
  opts.created = created_timestamp();
  opts.split = {cluster, o.slice_seed};
  opts.split_all = o.split;
  auto write = gen::write_options_named(o.compression, o.sides);
  if (!write) return report(make_error(ErrorCode::kInvalidArgument, "gen: " + write.error().message));
  opts.write = *write;
  if (o.format == 4) {
    if (o.sides != "one") return report(make_error(ErrorCode::kInvalidArgument, "gen: --format 4 stores one side (add --sides one)"));
    opts.write.format_version = 4;
  }
  if (!o.mem.empty()) {
    opts.memory_limit = parse_bytes(o.mem);
    if (opts.memory_limit == 0) return report(make_error(ErrorCode::kInvalidArgument, "gen: --mem '" + o.mem + "' is not a size (e.g. 8G, 512M)"));
  }
  // Shown even with -q: without --mem nothing else stops a run that will not fit.
  // A farm splits the tables that do not fit one rank's share of the node (or --mem).
  if (cluster) opts.split_above = opts.memory_limit > 0 ? opts.memory_limit : gen::physical_memory_bytes() / std::uint64_t(ranks_on_node());
  if (!o.split_above.empty()) {
    opts.split_above = parse_bytes(o.split_above);
    if (opts.split_above == 0)
      return report(make_error(ErrorCode::kInvalidArgument, "gen: --split-above '" + o.split_above + "' is not a size (e.g. 8G, 512M)"));
  }
  const int rank = cluster ? cluster->rank() : 0;
  if (auto warning = gen::memory_warning(wanted, opts, gen::physical_memory_bytes()); warning && rank == 0)
    std::fprintf(stderr, "%s\n", warning->c_str());
  const int threads = o.threads > 0 ? o.threads : int(std::max(1U, std::thread::hardware_concurrency()));
  tbb::task_arena arena(threads);
  const bool show_progress = !o.quiet && isatty(STDERR_FILENO);
  RunProgress run = RunProgress::for_run(wanted, opts.dir);
  auto started = std::chrono::steady_clock::now();
  auto last = started;
  // Ctrl-C, SIGTERM or SIGHUP while files are being written removes their NAME.tmp
  // (cli/interrupt.h): several small tables' writes may be pending at once, one guard each.
  std::map<std::string, TmpGuard> writing;
  // The decoded tables the run maps (gen::kProbeValuesDir) go too.
  const TmpGuard mapped_values(opts.dir / gen::kProbeValuesDir);
  auto progress = [&](const model::Material& m, const gen::SolveProgress& p) {
    if (p.phase == "write") writing.try_emplace(m.name(), gen::table_path(opts.dir, m).string() + ".tmp");
    if (!show_progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (p.phase == "write") {
      std::fprintf(stderr, "\r\033[K%s%s: writing the file%s", run.place(m).c_str(), m.name().c_str(),
                   run.eta(m, 1.0).c_str());
      return;
    }
    if (p.phase == "init") started = now;
    if (now - last < std::chrono::milliseconds(200) && p.phase == "retro") return;
    last = now;
    const double secs = std::chrono::duration<double>(now - started).count();
    const double frac = p.total ? double(p.done) / double(p.total) : 0;
    // Resolution slows near the end; the ETA is a rough linear projection of resolved positions.
    const double eta = frac > 0.05 ? secs / frac - secs : 0;
    std::fprintf(stderr, "\r\033[K%s%s: %s ply %d, %llu of %llu resolved, %.0f s, ETA %.0f s%s", run.place(m).c_str(),
                 m.name().c_str(), std::string(p.phase).c_str(), p.ply, static_cast<unsigned long long>(p.done),
                 static_cast<unsigned long long>(p.total), secs, eta, run.eta(m, frac).c_str());
  };
  // Under mpirun, each rank reports the tables it made (rank 0 those split over all of them).
  const std::string who = cluster ? "[rank " + std::to_string(rank) + "] " : "";
  auto summary = [&](const gen::TableSummary& s) {
    writing.erase(s.material.name());
    run.finished(s);
    if (show_progress) std::fprintf(stderr, "\r\033[K");
    if (o.quiet || (s.split && rank != 0)) return;
    if (s.skipped) {
      std::fprintf(stderr, "%s%s: present and valid, skipped (%llu bytes)\n", who.c_str(), s.material.name().c_str(),
                   static_cast<unsigned long long>(s.file_bytes));
      return;
    }
    std::fprintf(stderr,
                 "%s%s: %llu positions, W/D/L %llu/%llu/%llu, longest mate %d plies, %.2f s (solve %.2f s, %.2f s CPU; "
                 "write %.2f s, %.2f s CPU), peak %.0f MiB, %llu bytes\n",
                 who.c_str(), s.material.name().c_str(), static_cast<unsigned long long>(s.positions),
                 static_cast<unsigned long long>(s.wins), static_cast<unsigned long long>(s.draws),
                 static_cast<unsigned long long>(s.losses), s.longest_plies, s.seconds, s.solve_seconds, s.solve_cpu_seconds,
                 s.write_seconds, s.write_cpu_seconds,
                 double(s.peak_rss) / (1 << 20), static_cast<unsigned long long>(s.file_bytes));
    if (s.split)
      std::fprintf(stderr, "%s: %d ranks exchanged %llu bytes over %d plies; the other ranks' peak %.0f MiB\n",
                   s.material.name().c_str(), cluster->ranks(), static_cast<unsigned long long>(s.exchanged_bytes),
                   s.plies + 1, double(s.others_peak_rss) / (1 << 20));
  };
  Status st = gen::generate_tables(wanted, opts, arena, progress, summary);
  writing.clear();
  if (!st) return report(st.error());
  if (!o.quiet && run.size() > 1 && !cluster)
    std::fprintf(stderr, "%s, peak %.0f MiB\n", run.totals().c_str(), double(gen::peak_rss_bytes()) / (1 << 20));
  if (!o.syzygy || (cluster && cluster->rank() != 0)) return kExitOk;
  // The Syzygy step's own run ETA: a table counts its slots when its files are to be written (the
  // step reports the tables it skips before any work); the time of a table solved only for a later
  // one falls on the tables written after it.
  const std::vector<model::Material> syzygy_plan = model::dependency_closure(wanted);
  std::vector<std::uint64_t> syzygy_slots;
  for (const model::Material& m : syzygy_plan) syzygy_slots.push_back(model::IndexScheme(m).size());
  RunProgress syzygy_run(syzygy_plan, std::move(syzygy_slots));
  auto syzygy_summary = [&](const gen::SyzygySummary& s) {
    const std::size_t k = syzygy_run.position(s.material);
    if (s.skipped) syzygy_run.skipped_at(k);
    else syzygy_run.finished_at(k, s.seconds);
    if (show_progress) std::fprintf(stderr, "\r\033[K");
    if (o.quiet) return;
    if (s.skipped) {
      std::fprintf(stderr, "%s: Syzygy files present and valid, skipped\n", s.material.name().c_str());
      return;
    }
    std::fprintf(stderr,
                 "%s: WDL50 win/cursed/draw/blessed/loss %llu/%llu/%llu/%llu/%llu, %.2f s (WDL/DTZ %.2f s), "
                 ".rtbw %llu bytes, .rtbz %llu bytes\n",
                 s.material.name().c_str(), static_cast<unsigned long long>(s.wins),
                 static_cast<unsigned long long>(s.cursed_wins), static_cast<unsigned long long>(s.draws),
                 static_cast<unsigned long long>(s.blessed_losses), static_cast<unsigned long long>(s.losses), s.seconds,
                 s.solve_seconds, static_cast<unsigned long long>(s.wdl_bytes),
                 static_cast<unsigned long long>(s.dtz_bytes));
  };
  // One line per step: a table's DTM files read, its WDL/DTZ pass (level, ply), its files written.
  auto syzygy_progress = [&](const gen::SyzygyProgress& p) {
    if (!show_progress) return;
    const auto now = std::chrono::steady_clock::now();
    const std::string table = run.place(p.material) + p.material.name() + (p.dependency ? " (for a later table)" : "");
    // The table's share done, for the run's ETA: its pass (pawn levels in turn) counted as the first
    // fifth of its step, the files as the rest (5-man tables spend ~80% of the step writing).
    constexpr double kPassShare = 0.2;
    const std::size_t k = syzygy_run.position(p.material);
    if (p.phase == "read") {
      started = now;
      std::fprintf(stderr, "\r\033[K%s: WDL/DTZ, reading the DTM tables%s", table.c_str(),
                   syzygy_run.eta_at(k, 0).c_str());
      return;
    }
    if (p.phase == "write") {
      std::fprintf(stderr, "\r\033[K%s: writing %s and %s%s", table.c_str(), gen::kWdlExtension, gen::kDtzExtension,
                   syzygy_run.eta_at(k, kPassShare).c_str());
      return;
    }
    if (p.dtz.phase == "pull") return;  // the next retro line follows at once
    if (now - last < std::chrono::milliseconds(200) && p.dtz.phase == "retro") return;
    last = now;
    const std::string level =
        p.dtz.levels > 1 ? ", pawn level " + std::to_string(p.dtz.level + 1) + " of " + std::to_string(p.dtz.levels) : "";
    const double level_done = p.dtz.total ? double(p.dtz.done) / double(p.dtz.total) : 0;
    const double pass_done = p.dtz.levels ? (p.dtz.level + level_done) / p.dtz.levels : 0;
    std::fprintf(stderr, "\r\033[K%s: WDL/DTZ%s, %s ply %d, %llu of %llu resolved, %.0f s%s", table.c_str(), level.c_str(),
                 std::string(p.dtz.phase).c_str(), p.dtz.ply, static_cast<unsigned long long>(p.dtz.done),
                 static_cast<unsigned long long>(p.dtz.total), std::chrono::duration<double>(now - started).count(),
                 syzygy_run.eta_at(k, kPassShare * pass_done).c_str());
  };
  if (Status sz = gen::generate_syzygy_tables(wanted, opts, arena, syzygy_summary, {}, syzygy_progress); !sz)
    return report(sz.error());
  return kExitOk;
}

}  // namespace

void add_gen_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<GenCliOptions>();
  auto* cmd = app.add_subcommand("gen", "Generate DTM endgame tables by retrograde analysis");
  cmd->add_option("materials", opts->materials, "Materials such as KQvKR, KBNvK, KRPvKR (KQKR also accepted)");
  cmd->add_option("--all", opts->all, "Generate every table with up to N men (3..6)");
  cmd->add_option("-d,--dir", opts->dir, "Directory for the table files (default: current)");
  cmd->add_option("-t,--threads", opts->threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--mem", opts->mem, "Memory cap, e.g. 8G; refuse up front if a table needs more (without it, warn when a table needs more than the machine has). Tables later ones need stay in memory up to 1 GiB, within the cap");
  cmd->add_flag("-q,--quiet", opts->quiet, "No progress or summary lines");
  cmd->add_option("--compression", opts->compression,
                  "small (default: LZMA2, 1 MiB blocks, smallest files), balanced (LZMA2, a shallower match "
                  "search; with --sides one, 3+4-piece files ~2% larger in 2 MiB blocks for ~45% of the coding time, "
                  "5-piece ones ~8% larger for ~a quarter of it) or fast (zstd 9: 4-20x faster to write, ~40% larger). "
                  "All 3+4-piece tables on 2 cores: fast 12 s, 24.4 MiB; small 35 s, 17.2 MiB; one side fast 12 s, "
                  "8.1 MiB; one side balanced 18 s, 5.97 MiB; one side small 26 s, 5.86 MiB (README)");
  cmd->add_option("--sides", opts->sides,
                  "both (default: both sides to move stored; a cold probe decodes one block) or one (store one side, "
                  "capture-resolved: ~2.9x smaller files; a probe of the other side searches one ply)");
  cmd->add_option("--format", opts->format,
                  "With --sides one: 3 (default; LZMA2 blocks of 1-2 MiB, decoded whole into a cache) or 4 "
                  "(experimental: one static pair + Huffman model per table, 64-byte blocks decoded in place)")
      ->check(CLI::IsMember({3, 4}));
  cmd->add_flag("--split", opts->split,
                "Under mpirun: solve every table with all the ranks together (by default, whole tables go to the "
                "ranks free, and only a table that needs more than a rank's share of the node's memory, or --mem, is "
                "split)");
  cmd->add_option("--split-above", opts->split_above,
                  "Under mpirun: split the tables that need more than this, e.g. 16G (default: --mem, else the node's "
                  "memory divided by its ranks)");
  cmd->add_option("--slice-seed", opts->slice_seed,
                  "Under mpirun: map king-pair slices to ranks pseudo-randomly from this seed instead of round "
                  "robin (the output is the same for any map; used by the tests)");
  cmd->add_flag("--syzygy", opts->syzygy,
                "Also write WDL50 and DTZ50 tables in Syzygy's format (MATERIAL.rtbw, MATERIAL.rtbz: the 50-move "
                "rule's values, read by Stockfish and other engines), from the DTM tables after they are made");
  cmd->footer(
      "Tables the named ones convert into (captures, promotions) are generated first; tables already\n"
      "present and valid are skipped, so an interrupted run can simply be restarted. Files are named\n"
      "MATERIAL.dtm (e.g. KQvKR.dtm) and written atomically. The header timestamp is SOURCE_DATE_EPOCH\n"
      "if set, else 0, so runs give bit-identical files. Ctrl-C or SIGTERM removes the half-written\n"
      "MATERIAL.dtm.tmp before exiting. The summary line per table splits its time into solve and write.\n"
      "Examples:\n"
      "  tbkit gen KQvKR -d tables\n"
      "  tbkit gen --all 4 -d tables -t 2\n"
      "  tbkit gen KRPvKR -d tables --mem 8G -q\n"
      "  tbkit gen --all 4 -d small-tables --sides one\n"
      "  mpirun -np 4 tbkit gen --all 5 -d tables   (a build with Open MPI: a table farm over the ranks,\n"
      "  a table too big for one split over them all; the files are the same as without mpirun: docs/mpi.md)\n"
      "Exit codes: 0 ok, 2 bad material or option, 3 I/O error, 4 a present dependency is corrupt,\n"
      "5 over the --mem limit.");
  cmd->callback([opts, &exit_code] { exit_code = run_gen(*opts); });
}

}  // namespace tbkit::cli
