#include "gen/run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <list>
#include <optional>

#include "formats/table_file.h"
#include "gen/model.h"
#include "gen/parallel.h"
#include "model/storage_order.h"

namespace tbkit::gen {

std::filesystem::path table_path(const std::filesystem::path& dir, const Material& m) {
  return dir / (m.name() + kTableExtension);
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::uint64_t(usage.ru_maxrss) * 1024;
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

std::uint64_t generation_bytes(const Material& m, std::uint32_t format_version) {
  std::uint64_t bytes = solve_bytes(m, true).memory;
  if (format_version >= 3) {
    // Per slot: values 2 x 2 bytes (in scratch files for a large table), the no-better marks
    // 2 x 1/8 (the table's) and 2 x 1/8 (the writer's copies), the permuted copy 2 + 1; and the
    // samples that choose the order (gen/one_side.cpp).
    const std::uint64_t slots = IndexScheme(m).size();
    const std::uint64_t per_two_slots = is_large_table(m) ? 7 : 15;
    bytes = std::max(bytes, slots * per_two_slots / 2 + (std::uint64_t{128} << 20));
  }
  // The tables m converts into, held while m is solved, each read alone (a version-3 one from its
  // expanded copy, expanded_source).
  return bytes + conversion_bytes(m);
}

std::uint64_t conversion_bytes(const Material& m) {
  std::uint64_t bytes = 0;
  for (const Material& d : m.conversions()) bytes += IndexScheme(d).size() * 2 * sizeof(DtmValue);
  return bytes;
}

namespace {

// Unique among the processes that may share a table directory, on any machine.
std::string process_tag() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + "." + std::to_string(getpid());
}

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

// "KQvKR needs about N MiB of memory (...)" (rounded up), as the memory cap and the memory warning
// say it: the tables it converts into, when read back from disk, are also files on the scratch
// disk, and so are a large table's own values.
std::string needs_about(const Material& m, std::uint64_t bytes) {
  const std::uint64_t mapped = conversion_bytes(m);
  std::string out = m.name() + " needs about " + mib(bytes) + " of memory";
  if (mapped > 0)
    out += " (" + mib(mapped) + " of it the tables it converts into, mapped from as much scratch disk in " +
           kProbeValuesDir + " when read back from their files)";
  if (const std::uint64_t own = solve_bytes(m, true).scratch; own > 0)
    out += " and " + mib(own) + " of scratch disk in the table directory for its values";
  return out;
}

// The file at `path` if it opens and its header is one of `m`'s tables (blocks not checked).
std::optional<formats::TableFile> table_with_header(const std::filesystem::path& path, const Material& m) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  auto file = formats::TableFile::open(path);
  if (!file) return std::nullopt;
  const IndexScheme scheme(m);
  const auto& info = file->info();
  if (info.material != m.name() || !StorageOrder::from_file_id(scheme, info.index_scheme) ||
      info.positions_per_side != scheme.size())
    return std::nullopt;
  return std::move(*file);
}

// Adds the table's legal positions, wins, draws and losses to `s` and raises its longest win, in
// parallel (sums and a maximum: the same whatever the split).
void count_outcomes(const SolvedTable& table, TableSummary& s, tbb::task_arena& arena) {
  struct Counts {
    std::uint64_t positions = 0, wins = 0, draws = 0, losses = 0;
    int longest = 0;
  };
  constexpr std::uint64_t kSpan = std::uint64_t{1} << 16;
  for (const auto& values : table.values) {
    std::vector<Counts> parts((values.size() + kSpan - 1) / kSpan);
    parallel_each(arena, parts.size(), [&](std::uint64_t k) {
      Counts& acc = parts[k];
      // Without branches: the outcomes come in no predictable order.
      int longest_raw = 0;  // a win's raw value grows with its plies
      for (std::size_t i = k * kSpan; i < std::min<std::size_t>(values.size(), (k + 1) * kSpan); ++i) {
        const DtmValue v = values[i];
        const bool win = v.is_win(), loss = v.is_loss(), draw = v.is_draw();
        acc.wins += win;
        acc.losses += loss;
        acc.draws += draw;
        longest_raw = std::max(longest_raw, win ? int(v.raw()) : 0);
      }
      acc.positions = acc.wins + acc.losses + acc.draws;
      if (longest_raw > 0) acc.longest = DtmValue::from_raw(std::uint16_t(longest_raw)).plies();
    });
    for (const Counts& part : parts) {
      s.positions += part.positions;
      s.wins += part.wins;
      s.draws += part.draws;
      s.losses += part.losses;
      s.longest_plies = std::max(s.longest_plies, part.longest);
    }
  }
}

// The size of a file, or 0 if it cannot be read (the summary's figure only).
std::uint64_t file_size_or_zero(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uintmax_t n = std::filesystem::file_size(path, ec);
  return ec ? 0 : std::uint64_t(n);
}

}  // namespace

// TableFile::open checks the header's checksum and the metadata's; with every block's checksum
// the file is byte for byte what the writer wrote. Blocks are not decompressed (that took a
// minute on the dependencies of one 5-piece pawn table; `tbkit verify` does it).
bool is_valid_table(const std::filesystem::path& path, const Material& m, tbb::task_arena& arena) {
  auto file = table_with_header(path, m);
  if (!file) return false;
  std::atomic<bool> ok{true};
  parallel_each(arena, file->block_count(), [&](std::uint64_t k) {
    if (ok.load(std::memory_order_relaxed) && !file->check_block_checksum(k)) ok = false;
  });
  return ok;
}

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::optional<std::string> memory_warning(const std::vector<Material>& wanted, const GenOptions& opts,
                                          std::uint64_t physical) {
  if (opts.memory_limit > 0 || physical == 0) return std::nullopt;
  std::optional<Material> worst;
  std::uint64_t worst_need = 0;
  for (const Material& m : dependency_closure(wanted)) {
    const std::uint64_t need = generation_bytes(m, opts.write.format_version);
    if (need > physical && need > worst_need && !table_with_header(table_path(opts.dir, m), m)) {
      worst = m;
      worst_need = need;
    }
  }
  if (!worst) return std::nullopt;
  return "warning: " + needs_about(*worst, worst_need) + ", more than this machine's " + std::to_string(physical >> 20) +
         " MiB of memory; the run may be killed there (with --mem it refuses up front)";
}

Status generate_tables(const std::vector<Material>& wanted, const GenOptions& opts, tbb::task_arena& arena,
                       const std::function<void(const Material&, const SolveProgress&)>& progress,
                       const std::function<void(const TableSummary&)>& summary) {
  Cluster* const cluster = opts.split.cluster;
  const bool writer = !cluster || cluster->rank() == 0;
  if (cluster && opts.write.format_version != 2)
    return make_error(ErrorCode::kInvalidArgument,
                      "a run over MPI ranks writes format version 2 only (both sides; not --sides one)");
  if (cluster && !opts.split_all) return generate_farm(wanted, opts, arena, progress, summary);
  const std::vector<Material> plan = dependency_closure(wanted);
  std::vector<std::vector<Material>> conversions;
  for (const Material& m : plan) conversions.push_back(m.conversions());
  // The memory cap, checked up front for every table not already on disk (by its header), and
  // again before solving any table (a present file may turn out damaged).
  auto over_limit = [&](const Material& m) -> Status {
    const std::uint64_t need = generation_bytes(m, opts.write.format_version);
    if (opts.memory_limit == 0 || need <= opts.memory_limit) return {};
    return make_error(ErrorCode::kUnavailable, needs_about(m, need) + ", over the --mem limit of " +
                                                   std::to_string(opts.memory_limit >> 20) + " MiB");
  };
  if (opts.memory_limit > 0)
    for (const Material& m : plan)
      if (!table_with_header(table_path(opts.dir, m), m))
        if (Status st = over_limit(m); !st) return st;
  std::error_code ec;
  std::filesystem::create_directories(opts.dir, ec);
  if (ec) return make_error(ErrorCode::kIo, opts.dir.string() + ": cannot create directory: " + ec.message());

  // Small tables' files are written while the next tables are solved: the writers' serial parts
  // (symbol count, side choice, a block count that does not divide among the threads, assembly,
  // fsync) and the solver's (ply barriers) then leave fewer cores idle. Only with two threads or
  // more, for a table that with the subtables its writer reads (version 3) comes to at most
  // kOverlapBytes, while the writes pending hold at most kPendingBytes in all, and within --mem
  // counting those and their compressed copies. The solver does not wait for a write: a queue of
  // them lets it go on while the last ones finish (3+4 run: one at a time left ~0.5 s of two cores
  // idle). When the queue is full, the oldest writes are finished until the new one fits, and it
  // then runs beside the next solve (writing it at once instead left a core idle while its last
  // blocks were coded: ~1 s of a core in the 3+4 run, with 2 MiB blocks).
  constexpr std::uint64_t kOverlapBytes = std::uint64_t{128} << 20;
  constexpr std::uint64_t kPendingBytes = std::uint64_t{256} << 20;
  std::uint64_t max_need = 0;
  for (const Material& m : plan) max_need = std::max(max_need, generation_bytes(m, opts.write.format_version));
  auto overlap_bytes = [](const SolvedTable& t, const TableSet& subtables) {
    return 2 * t.scheme.size() * sizeof(DtmValue) + subtables.bytes();
  };
  auto may_overlap = [&](std::uint64_t bytes, std::uint64_t pending_bytes) {
    return !cluster && arena.max_concurrency() > 1 && bytes <= kOverlapBytes && pending_bytes + bytes <= kPendingBytes &&
           (opts.memory_limit == 0 || max_need + 2 * (pending_bytes + bytes) <= opts.memory_limit);
  };
  // Version-3 runs keep an expanded copy of each table a later table converts into but that is no
  // longer held in memory (see expanded_source): each copy is written when its table is dropped
  // from memory, or made from the file when missing (a resumed run), and removed when no table
  // left in the plan needs it. While a table is held nothing reads its copy, so a run with room
  // for all its tables writes none.
  const bool one_side = opts.write.format_version >= 3;
  const std::filesystem::path cache = opts.dir / kExpandedCacheDir;
  // True when a table from plan[k] on converts into d.
  auto needed_from = [&](const Material& d, std::size_t k) {
    for (std::size_t j = k; j < plan.size(); ++j)
      if (std::find(conversions[j].begin(), conversions[j].end(), d) != conversions[j].end()) return true;
    return false;
  };
  TableSet loaded;
  // Tables read back from disk are decoded into files and mapped (TableSet::keep_probe_values_in):
  // in a split run the ranks of a machine share one copy, rank 0 of each machine making it.
  loaded.keep_probe_values_in(opts.dir / kProbeValuesDir, process_tag());
  // Drops from `loaded` the tables not in `keep`, first writing the expanded copy of each that a
  // table from plan[k] on converts into and that cannot be read alone (it converts into others).
  auto drop_tables = [&](const std::vector<Material>& keep, std::size_t k) -> Status {
    if (one_side)
      for (const Material& x : loaded.materials()) {
        if (std::find(keep.begin(), keep.end(), x) != keep.end() || x.conversions().empty() || !needed_from(x, k)) continue;
        if (std::filesystem::exists(table_path(cache, x), ec)) continue;
        if (Status st = write_expanded_copy(cache, *loaded.find(x), opts.generator, opts.created, arena); !st) return st;
      }
    loaded.retain_only(keep);
    return {};
  };
  struct PendingWrite {
    std::shared_ptr<const SolvedTable> table;
    TableSet subtables;  // what its writer reads (version 3), held apart from `loaded`, which changes
    TableSummary summary;
    std::chrono::steady_clock::time_point started;
    Status status;
    BackgroundTask task;
    std::uint64_t bytes = 0;  // counted against kPendingBytes
  };
  std::list<PendingWrite> pending;  // in plan order
  std::uint64_t pending_bytes = 0;
  // Removes the copies no table from plan[k] on needs (all of them when k == plan.size()).
  auto remove_unneeded_copies = [&](std::size_t k) {
    for (const Material& x : plan) {
      const std::filesystem::path copy = table_path(cache, x);
      if (!needed_from(x, k) && std::filesystem::exists(copy, ec)) std::filesystem::remove(copy, ec);
    }
    // Only when empty, and not while a write may be about to put a copy in it.
    if (pending.empty()) std::filesystem::remove(cache, ec);
  };
  // Waits for the oldest pending write, then reports its table.
  auto finish_oldest = [&]() -> Status {
    PendingWrite& w = pending.front();
    w.task.wait(arena);
    pending_bytes -= w.bytes;
    const Status status = w.status;
    if (status) {
      w.summary.peak_rss = peak_rss_bytes();
      if (summary) summary(w.summary);
    }
    pending.pop_front();
    return status;
  };
  // Waits for every pending write, in order; the first error. Always called before returning.
  auto finish_pending = [&]() -> Status {
    Status first;
    while (!pending.empty())
      if (Status st = finish_oldest(); !st && first) first = st;
    return first;
  };
  struct WaitOnExit {
    std::function<Status()> finish;
    ~WaitOnExit() { (void)finish(); }
  } wait_on_exit{finish_pending};
  // A run killed outright (SIGKILL, power loss) may have left partial NAME.tmp files, as many as
  // writes were pending; they are never read, but go first so that the directory holds only
  // finished tables, whenever this run is stopped.
  if (writer && !opts.farm_job) {
    for (const Material& m : plan) std::filesystem::remove(table_path(opts.dir, m).string() + ".tmp", ec);
    // And decoded tables it mapped (TableSet::keep_probe_values_in), before any rank makes new ones.
    std::filesystem::remove_all(opts.dir / kProbeValuesDir, ec);
  }
  if (cluster && !opts.farm_job) cluster->barrier();
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const Material& m = plan[k];
    if (one_side) remove_unneeded_copies(k);
    const auto t0 = std::chrono::steady_clock::now();
    const std::filesystem::path path = table_path(opts.dir, m);
    bool valid = is_valid_table(path, m, arena);
    // A split run skips a table only when every rank sees it valid: they solve it together.
    if (cluster) valid = cluster->max(valid ? 0 : 1) == 0;
    if (valid) {
      if (Status st = finish_pending(); !st) return st;
      TableSummary s;
      s.material = m;
      s.skipped = true;
      s.file_bytes = file_size_or_zero(path);
      s.peak_rss = peak_rss_bytes();
      if (summary) summary(s);
      continue;
    }
    if (Status st = over_limit(m); !st) return st;
    // Keep in memory the tables this one converts into and, within opts.keep_bytes, those later
    // tables convert into; load missing ones from disk (the previous table, just solved, is in
    // `loaded` already).
    std::uint64_t keep_budget = opts.keep_bytes;
    if (opts.memory_limit > 0) {
      const std::uint64_t need = generation_bytes(m, opts.write.format_version);
      keep_budget = std::min(keep_budget, opts.memory_limit > need ? opts.memory_limit - need : 0);
    }
    if (Status st = drop_tables(loaded.to_keep(conversions, k, keep_budget), k); !st) return st;
    if (std::any_of(conversions[k].begin(), conversions[k].end(), [&](const Material& d) { return !loaded.contains(d); })) {
      // A table read back from disk may still be being written.
      if (Status st = finish_pending(); !st) return st;
      // Making a missing expanded copy holds that table and the tables it converts into: within the
      // memory this table's estimate counts once nothing else is held.
      for (const Material& d : conversions[k])
        if (!loaded.contains(d) && !expanded_source_ready(opts.dir, d, cache, arena)) {
          if (Status st = drop_tables({}, k); !st) return st;
          break;
        }
    }
    const std::size_t held = loaded.size();
    const bool maker = !cluster || cluster->node_rank() == 0;
    for (const Material& d : conversions[k])
      if (maker)
        if (Status st = loaded.load_expanded(opts.dir, d, cache, arena, LoadUse::kProbeOnly); !st) return st;
    if (cluster) {
      cluster->barrier();
      for (const Material& d : conversions[k])
        if (Status st = loaded.map_probe_values(d); !st) return st;
    }
    const std::size_t tables_read = loaded.size() - held;
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_seconds();
    const std::uint64_t sent_before = cluster ? cluster->bytes_sent() : 0;
    int last_ply = 0;
    auto solved = solve_table(m, loaded, arena, [&](const SolveProgress& p) {
      if (p.phase == "retro") last_ply = p.ply;
      if (progress) progress(m, p);
    }, cluster ? &opts.split : nullptr, opts.write.format_version >= 3, SolveStorage{StateLayout::kAuto, is_large_table(m) ? opts.dir : std::filesystem::path()});
    if (!solved) return solved.error();
    const auto t2 = std::chrono::steady_clock::now();
    const double c2 = cpu_seconds();

    PendingWrite& w = pending.emplace_back();
    w.table = *solved;
    if (one_side)
      for (const Material& d : conversions[k]) w.subtables.add(loaded.shared(d));
    w.started = t0;
    TableSummary& s = w.summary;
    s.material = m;
    s.tables_read = tables_read;
    s.solve_seconds = std::chrono::duration<double>(t2 - t1).count();
    s.solve_cpu_seconds = c2 - c1;
    s.plies = last_ply;
    s.split = cluster != nullptr;
    if (cluster) {
      s.exchanged_bytes = cluster->sum(cluster->bytes_sent() - sent_before);
      s.others_peak_rss = cluster->max(writer ? 0 : peak_rss_bytes());
    }
    if (progress) progress(m, SolveProgress{"write", 0, 0, 0});
    // The writer reads its table and (version 3) the tables it converts into, from its own set.
    auto write = [&, path, t2, c2, job = &w] {
      TableSummary& sum = job->summary;
      if (writer) {
        job->status = write_solved_table(path, *job->table, job->subtables, opts.generator, opts.created, arena, opts.write);
        if (job->status) sum.file_bytes = file_size_or_zero(path);
      }
      sum.write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count();
      sum.write_cpu_seconds = cpu_seconds() - c2;
      count_outcomes(*job->table, sum, arena);
      sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - job->started).count();
    };
    const std::uint64_t bytes = overlap_bytes(**solved, w.subtables);
    // A write that may overlap once the oldest ones are done waits for those (helping them), not
    // for its own end: the next table's solve then runs beside it.
    while (pending.size() > 1 && !may_overlap(bytes, pending_bytes) && may_overlap(bytes, 0))
      if (Status st = finish_oldest(); !st) return st;
    if (may_overlap(bytes, pending_bytes)) {
      w.bytes = bytes;
      pending_bytes += bytes;
      w.task.run(arena, write);
    } else {
      // Written now, after the writes before it.
      while (pending.size() > 1)
        if (Status st = finish_oldest(); !st) return st;
      write();
      // The other ranks may read the file back (a later table's dependency) once it is written.
      if (cluster) cluster->barrier();
      if (Status st = finish_oldest(); !st) return st;
    }
    // A split solve's other ranks hold no values: every rank reads the file rank 0 wrote when a
    // later table needs it, so that all hold the same tables.
    if (!cluster) loaded.add(std::move(*solved));
  }
  if (Status st = finish_pending(); !st) return st;
  if (one_side) remove_unneeded_copies(plan.size());
  return {};
}

}  // namespace tbkit::gen
