// tbkit verify: checks table files: block checksums, then every position against its successors;
// Syzygy files (.rtbw, .rtbz): their structure and embedded checksum, and their values where the DTM
// tables are beside them.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "chess/fen.h"
#include "cli/common.h"
#include "cli/interrupt.h"
#include "cli/run_progress.h"
#include "cli/syzygy_compare.h"
#include "formats/syzygy_file.h"
#include "formats/table_file.h"
#include "gen/consistency.h"
#include "gen/run.h"
#include "gen/syzygy_output.h"
#include "model/index_scheme.h"
#include "model/material.h"
#include "player/openings.h"
#include "player/root_rule.h"
#include "player/table_oracle.h"
#include "player/table_play.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"
#include <random>

namespace tbkit::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> paths;
  int threads = 0;
  int play = 0;                // --play N: play N random won positions out by the tables
  int sample = 0;              // --sample N: print N random positions
  std::string want = "won";    // --want won|drawn|won50
  std::string rule = "auto";   // --rule auto|fifty|dtm for --play and --play-from
  std::string play_from;       // --play-from FILE: play these start positions
  int clock = 0;               // --clock N: halfmove clock of sampled positions
  std::string material;        // --material for --sample (default: every table in turn for --play)
  std::string dir;             // -d DIR
  std::uint64_t seed = 1;
  std::string to_move = "any";  // --to-move white|black|any for --sample
  bool quiet = false;           // -q: no progress line
  std::string against;          // --against DIRS: DTM results against the Syzygy WDL50 files there
  std::uint64_t every = 1;      // --every K: with --against, the index slots that are a multiple of K
};

bool is_syzygy_file(const std::filesystem::path& p) {
  return p.extension() == gen::kWdlExtension || p.extension() == gen::kDtzExtension;
}

// The table files named: files as given, directories expanded to their *.dtm, *.rtbw and *.rtbz
// files (sorted).
Result<std::vector<std::filesystem::path>> collect_files(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> out;
  for (const auto& p : paths.empty() ? std::vector<std::string>{"."} : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> found;
      for (const auto& entry : std::filesystem::directory_iterator(p, ec))
        if (entry.path().extension() == gen::kTableExtension || is_syzygy_file(entry.path()))
          found.push_back(entry.path());
      if (ec) return make_error(ErrorCode::kIo, p + ": cannot list directory: " + ec.message());
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(p, ec)) {
      out.emplace_back(p);
    } else {
      return make_error(ErrorCode::kIo, p + ": no such file or directory");
    }
  }
  return out;
}

// Tables read for one file stay in memory for the later files of the same directory that need
// them, up to this many bytes: a version-3 table costs a one-ply pass to read.
constexpr std::uint64_t kKeepBytes = std::uint64_t{1} << 30;

// Checks one file; prints its line. Returns true when it passes. `shared` holds tables of the
// file's directory read for earlier files; a file whose name is not its material's table name
// (dir/MATERIAL.dtm) is checked with tables of its own.
// `cache`: the directory of expanded copies, made at the first table that needs it.
bool verify_file(const std::filesystem::path& path, tbb::task_arena& arena, gen::TableSet& shared,
                 std::optional<ScratchDir>& cache, TablesProgress& progress, std::size_t k) {
  progress.start(k);
  auto fail = [&](const std::string& why) {
    progress.finished();
    std::printf("FAIL %s: %s\n", path.string().c_str(), why.c_str());
    std::fflush(stdout);
    return false;
  };
  auto file = formats::TableFile::open(path);
  if (!file) return fail(file.error().message);
  if (Status st = file->verify(); !st) return fail(st.error().message);
  auto material = model::Material::parse(file->info().material);
  if (!material) return fail("header material: " + material.error().message);
  const bool canonical = path == gen::table_path(path.parent_path(), *material);
  gen::TableSet own;
  gen::TableSet& tables = canonical ? shared : own;
  const std::vector<model::Material> deps = material->conversions();
  std::filesystem::path cache_dir;  // unused when no dependency is read through a copy
  if (gen::needs_expanded_copies(path.parent_path(), deps)) {
    if (!cache) cache.emplace("tbkit-expanded");
    if (cache->path().empty()) return fail("cannot make a directory for expanded copies: " + cache->error());
    cache_dir = cache->path();
  }
  for (std::size_t j = 0; j < deps.size(); ++j) {
    if (Status st = tables.load_expanded(path.parent_path(), deps[j], cache_dir, arena, gen::LoadUse::kExact,
                                         progress.reading(deps, j));
        !st)
      return fail("needs " + deps[j].name() + ": " + st.error().message);
  }
  progress.phase("reading it");
  if (!tables.contains(*material))
    if (Status st = tables.load(path, *material, arena, gen::LoadUse::kExact,
                                [&](std::uint64_t done, std::uint64_t total) {
                                  progress.slots("rebuilding its other side", done, total, false);
                                });
        !st)
      return fail(st.error().message);
  const auto report = gen::check_consistency(
      *tables.find(*material), tables, arena,
      [&](std::uint64_t done, std::uint64_t total) { progress.slots("checking", done, total, true); });
  if (report.failed)
    return fail(std::to_string(report.failed) + " of " + std::to_string(report.checked) +
                " positions inconsistent; first: " + report.first_failure);
  progress.finished();
  std::printf("ok   %s: %s, %llu positions consistent\n", path.string().c_str(), material->name().c_str(),
              static_cast<unsigned long long>(report.checked));
  std::fflush(stdout);
  return true;
}

// Checks one Syzygy file: its structure as the reader validates it when opening (header, piece
// orders, compression records, Huffman codes, pair trees, value maps, sizes), then the 16-byte
// checksum it ends with, over the whole file. Prints its line; returns true when it passes.
bool verify_syzygy_file(const std::filesystem::path& path) {
  auto fail = [&](const std::string& why) {
    std::printf("FAIL %s: %s\n", path.string().c_str(), why.c_str());
    std::fflush(stdout);
    return false;
  };
  auto file = formats::syzygy::SyzygyFile::open(path);
  if (!file) return fail(file.error().message);
  if (Status st = file->verify_checksum(); !st) return fail(st.error().message);
  const bool wdl = file->kind() == formats::syzygy::TableKind::kWdl;
  std::printf("ok   %s: %s, Syzygy %s, checksum matches\n", path.string().c_str(),
              path.stem().string().c_str(), wdl ? "WDL50" : "DTZ50");
  std::fflush(stdout);
  return true;
}

// The values of the Syzygy files in `dir` whose material has its DTM table beside them: WDL50 and
// DTZ50 recomputed from the DTM tables must agree with their successors and with DTM (a WDL50 win or
// cursed win exactly where DTM wins), and the files must give those values on every legal position,
// probed as an engine probes them. One line per material; adds to passed / failed.
void verify_syzygy_values(const std::filesystem::path& dir, const std::vector<model::Material>& materials,
                          tbb::task_arena& arena, bool show, int& passed, int& failed) {
  const std::string where = (dir / "").string();
  auto tb = probe::SyzygyTablebase::open({dir});
  if (!tb) {
    std::printf("FAIL %s: %s\n", where.c_str(), tb.error().message.c_str());
    ++failed;
    return;
  }
  // One-side tables are read through expanded copies in a private directory, never beside them.
  ScratchDir cache("tbkit-expanded");
  if (cache.path().empty()) {
    std::printf("FAIL %s: cannot make a directory for expanded copies: %s\n", where.c_str(), cache.error().c_str());
    ++failed;
    return;
  }
  const Status st = gen::visit_dtz_tables(
      dir, materials, arena, cache.path(),
      [&](const gen::DtzTable& table, const gen::SolvedTable& dtm, const gen::DtzSet& subtables, double) -> Status {
        const std::string name = table.material().name();
        if (show) std::fprintf(stderr, "\r\033[K%s: WDL50 and DTZ50 against successors, DTM and the files", name.c_str());
        const gen::ConsistencyReport c = gen::check_dtz_consistency(table, dtm, subtables, arena);
        const SyzygyComparison f = compare_with_syzygy(table, *tb, arena);
        if (show) std::fprintf(stderr, "\r\033[K");
        std::string why;
        if (c.failed)
          why = std::to_string(c.failed) + " of " + std::to_string(c.checked) +
                " positions inconsistent with their successors or DTM; first: " + c.first_failure;
        else if (!f.passed())
          why = "the files disagree: " + std::to_string(f.wdl_mismatches) + " WDL50 and " +
                std::to_string(f.dtz_mismatches) + " DTZ50 mismatches, " + std::to_string(f.wdl_stored_above_captures) +
                " capture-only positions stored above their captures, " + std::to_string(f.errors) + " probe errors" +
                (f.examples.empty() ? "" : "; first: " + f.examples.front());
        if (!why.empty()) {
          std::printf("FAIL %s%s (Syzygy values): %s\n", where.c_str(), name.c_str(), why.c_str());
          ++failed;
        } else {
          std::printf("ok   %s%s (Syzygy values): %llu positions consistent with their successors and with DTM; "
                      "the files agree on WDL50 for %llu, DTZ50 for %llu (%llu read one ply short: stored in moves)\n",
                      where.c_str(), name.c_str(), static_cast<unsigned long long>(c.checked),
                      static_cast<unsigned long long>(f.positions), static_cast<unsigned long long>(f.dtz_compared),
                      static_cast<unsigned long long>(f.dtz_rounded));
          ++passed;
        }
        std::fflush(stdout);
        return {};
      });
  if (!st) {
    std::printf("FAIL %s: %s\n", where.c_str(), st.error().message.c_str());
    ++failed;
  }
}

std::vector<std::filesystem::path> table_dirs(const VerifyOptions& o) {
  std::vector<std::filesystem::path> dirs;
  if (!o.dir.empty()) dirs.emplace_back(o.dir);
  for (const auto& p : o.paths) dirs.emplace_back(p);
  if (dirs.empty()) dirs.emplace_back(".");
  return dirs;
}

Result<probe::Tablebase> open_tables(const VerifyOptions& o) {
  auto tb = probe::Tablebase::open(table_dirs(o));
  if (!tb) return tb.error();
  if (tb->max_men() == 0) return make_error(ErrorCode::kUnavailable, "verify: no *.dtm table files found");
  return tb;
}

Result<probe::SyzygyTablebase> open_syzygy(const VerifyOptions& o) {
  auto tb = probe::SyzygyTablebase::open(table_dirs(o));
  if (!tb) return tb.error();
  if (tb->max_men() == 0) return make_error(ErrorCode::kUnavailable, "verify: no *.rtbw Syzygy files found");
  return tb;
}

int to_move_of(const VerifyOptions& o) { return o.to_move == "white" ? 0 : o.to_move == "black" ? 1 : -1; }

// --sample --want won50: positions the side to move wins under the 50-move rule at --clock, as
// full FENs (the clock matters) with the DTZ50.
int run_sample_50(const VerifyOptions& o) {
  auto tb = open_syzygy(o);
  if (!tb) return report(tb.error());
  std::mt19937_64 rng(o.seed);
  auto positions = player::sample_wins_50(*tb, o.material, o.sample, rng, to_move_of(o), o.clock);
  if (!positions) return report(positions.error());
  for (const auto& p : *positions)
    std::printf("%s ; %s win50 dtz %d\n", chess::to_fen(p.pos).c_str(), o.material.c_str(), p.value.dtz);
  return kExitOk;
}

// --sample: random positions of one material with a wanted outcome, as EPD with the value.
int run_sample(const VerifyOptions& o) {
  if (o.material.empty()) return report(make_error(ErrorCode::kInvalidArgument, "verify --sample needs --material"));
  if (o.want == "won50") return run_sample_50(o);
  auto tb = open_tables(o);
  if (!tb) return report(tb.error());
  // A material without a table is said so, not "found only 0 of N wanted positions".
  const auto material = model::Material::parse(o.material);
  if (!material) return report(material.error());
  const auto names = tb->materials();
  if (std::find(names.begin(), names.end(), material->normalized().name()) == names.end())
    return report(make_error(ErrorCode::kUnavailable, "verify --sample: no table for " + o.material + " (" + material->normalized().name() +
                                                          ".dtm not found in " + (o.dir.empty() ? std::string(".") : o.dir) + ")"));
  std::mt19937_64 rng(o.seed);
  auto positions = player::sample_positions(*tb, o.material, o.want == "won" ? player::WantedOutcome::kWon : player::WantedOutcome::kDrawn,
                                            o.sample, rng, o.to_move == "white" ? 0 : o.to_move == "black" ? 1 : -1);
  if (!positions) return report(positions.error());
  for (const auto& p : *positions) {
    const std::string fen = chess::to_fen(p.pos);
    const auto cut = fen.rfind(' ', fen.rfind(' ') - 1);  // EPD: the first four fields
    std::printf("%s ; %s %s dtm %d\n", fen.substr(0, cut).c_str(), o.material.c_str(),
                p.value.is_draw() ? "draw" : p.value.is_win() ? "win" : "loss", p.value.plies());
  }
  return kExitOk;
}

// --play: N random won positions, spread over the tables that have wins, played out by the tables.
int run_play(const VerifyOptions& o) {
  auto tb = open_tables(o);
  if (!tb) return report(tb.error());
  std::vector<std::string> materials = o.material.empty() ? tb->materials() : std::vector<std::string>{o.material};
  std::mt19937_64 rng(o.seed);
  // Tables with wins for either side to move (the sampler draws the side at random).
  std::vector<std::string> winnable;
  for (const auto& m : materials) {
    std::mt19937_64 probe_rng(o.seed);
    auto s = player::sample_positions(*tb, m, player::WantedOutcome::kWon, 1, probe_rng);
    if (s) winnable.push_back(m);
    else if (s.error().code != ErrorCode::kUnavailable) return report(s.error());
  }
  if (winnable.empty()) return report(make_error(ErrorCode::kUnavailable, "verify --play: no table has won positions"));
  int passed = 0, failed = 0;
  long long total_plies = 0;
  int longest = 0;
  for (int i = 0; i < o.play; ++i) {
    const std::string& m = winnable[std::size_t(i) % winnable.size()];
    auto s = player::sample_positions(*tb, m, player::WantedOutcome::kWon, 1, rng);
    if (!s) return report(s.error());
    const auto& start = s->front().pos;
    auto r = player::play_out(*tb, start);
    if (!r) return report(r.error());
    if (r->failure.empty()) {
      ++passed;
      total_plies += r->plies;
      longest = std::max(longest, r->plies);
    } else {
      ++failed;
      std::printf("FAIL %s %s: %s\n", m.c_str(), chess::to_fen(start).c_str(), r->failure.c_str());
    }
  }
  std::printf("play: %d games over %zu tables, %lld plies, longest %d plies; every game mated exactly on time: %s\n",
              passed + failed, winnable.size(), total_plies, longest, failed ? "no" : "yes");
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? kExitFailed : kExitOk;
}

// One game of --play under the root rule: its material and start.
struct RuleStart {
  std::string material;
  chess::Position start;
};

// Plays every start under `rule` (and, under the 50-move rule with DTM tables at hand, again with
// the DTM-only rule for comparison); prints a line for every game that did not end in the
// starting side's mate, and the summary. Returns the exit code.
int play_rule_games(const std::vector<RuleStart>& starts, const player::RootTableOracle& tables,
                    const player::RootTableOracle* dtm_only, player::TableRule rule, std::size_t table_count) {
  int passed = 0, failed = 0, mates = 0, fifty = 0, other = 0, dtm_fifty = 0, dtm_games = 0;
  long long total_plies = 0;
  int longest = 0;
  const char* rule_name = rule == player::TableRule::kFiftyMove ? "50-move rule" : "DTM-only rule";
  for (const auto& g : starts) {
    const std::string start_fen = chess::to_fen(g.start);
    auto r = player::play_by_rule(tables, g.start, rule);
    if (!r) return report(r.error());
    // The side to move at the start must be the one that mates: an odd number of plies.
    const bool won = r->end == chess::GameStatus::kCheckmate && r->plies % 2 == 1;
    total_plies += r->plies;
    longest = std::max(longest, r->plies);
    if (won) {
      ++mates;
      ++passed;
    } else {
      ++failed;
      std::string how = r->end == chess::GameStatus::kFiftyMoves ? "50-move draw"
                        : r->end != chess::GameStatus::kOngoing ? chess::to_string(r->end)
                        : r->table_draw                         ? "a table draw reached"
                                                                : "no mate within the ply limit";
      if (r->end == chess::GameStatus::kFiftyMoves) ++fifty;
      else ++other;
      std::printf("FAIL %s %s: %s after %d plies in %s\n", g.material.c_str(), start_fen.c_str(), how.c_str(), r->plies,
                  r->end_fen.c_str());
    }
    if (dtm_only) {
      auto d = player::play_by_rule(*dtm_only, g.start, player::TableRule::kDtmOnly);
      if (!d) continue;  // a material without DTM tables: no comparison for it
      ++dtm_games;
      if (d->end == chess::GameStatus::kFiftyMoves) {
        ++dtm_fifty;
        std::printf("DTM-only play draws %s %s: 50-move draw after %d plies in %s\n", g.material.c_str(),
                    start_fen.c_str(), d->plies, d->end_fen.c_str());
      }
    }
    std::fflush(stdout);
  }
  std::printf("play (%s): %d games over %zu tables, %d mates, %d 50-move draws, %d other endings; %lld plies, longest %d\n",
              rule_name, passed + failed, table_count, mates, fifty, other, total_plies, longest);
  if (dtm_only)
    std::printf("DTM-only play (both sides by DTM, clock kept) would have drawn %d of %d games by the 50-move rule\n",
                dtm_fifty, dtm_games);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? kExitFailed : kExitOk;
}

std::string joined_dirs(const VerifyOptions& o) {
  std::string out;
  for (const auto& d : table_dirs(o)) out += (out.empty() ? "" : ":") + d.string();
  return out;
}

// The oracles for --play under a rule: the one that plays, and the DTM-only one for comparison
// (null when there are no DTM tables, or the games are DTM-only already).
struct RuleOracles {
  std::shared_ptr<const player::RootTableOracle> play, dtm_only;
};

Result<RuleOracles> open_rule_oracles(const VerifyOptions& o, player::TableRule rule) {
  RuleOracles out;
  const std::string dirs = joined_dirs(o);
  auto play = player::open_table_oracle(dirs, {true, rule == player::TableRule::kFiftyMove});
  if (!play) return play.error();
  out.play = *play;
  if (rule == player::TableRule::kFiftyMove) {
    auto dtm = player::open_table_oracle(dirs, {true, false});
    if (dtm) out.dtm_only = *dtm;
  }
  return out;
}

// --play under a rule: N sampled starts, spread over the materials, wins under the 50-move rule at
// --clock (with --rule dtm: DTM wins, given the same clock).
int run_play_rule(const VerifyOptions& o, player::TableRule rule) {
  const bool fifty = rule == player::TableRule::kFiftyMove;
  std::optional<probe::SyzygyTablebase> syz;
  std::optional<probe::Tablebase> dtm;
  std::vector<std::string> materials;
  if (fifty) {
    auto tb = open_syzygy(o);
    if (!tb) return report(tb.error());
    materials = tb->materials();
    syz.emplace(std::move(*tb));
  } else {
    auto tb = open_tables(o);
    if (!tb) return report(tb.error());
    materials = tb->materials();
    dtm.emplace(std::move(*tb));
  }
  if (!o.material.empty()) materials = {o.material};
  auto sample = [&](const std::string& m, std::mt19937_64& rng) -> Result<chess::Position> {
    if (fifty) {
      auto s = player::sample_wins_50(*syz, m, 1, rng, to_move_of(o), o.clock);
      if (!s) return s.error();
      return s->front().pos;
    }
    auto s = player::sample_positions(*dtm, m, player::WantedOutcome::kWon, 1, rng, to_move_of(o));
    if (!s) return s.error();
    auto setup = s->front().pos.setup();
    setup.halfmove = o.clock;
    return chess::Position::from_setup(setup);
  };
  std::vector<std::string> winnable;
  for (const auto& m : materials) {
    std::mt19937_64 probe_rng(o.seed);
    auto s = sample(m, probe_rng);
    if (s) winnable.push_back(m);
    else if (s.error().code != ErrorCode::kUnavailable) return report(s.error());
  }
  if (winnable.empty())
    return report(make_error(ErrorCode::kUnavailable, std::string("verify --play: no table has positions won") +
                                                          (fifty ? " under the 50-move rule" : "")));
  auto oracles = open_rule_oracles(o, rule);
  if (!oracles) return report(oracles.error());
  std::mt19937_64 rng(o.seed);
  std::vector<RuleStart> starts;
  for (std::size_t next = 0; int(starts.size()) < o.play;) {
    if (winnable.empty())
      return report(make_error(ErrorCode::kUnavailable, "verify --play: too few won positions found"));
    next %= winnable.size();
    auto s = sample(winnable[next], rng);
    if (!s) {
      // Wins so rare that the sampler's tries found none this time: leave the table out.
      if (s.error().code != ErrorCode::kUnavailable) return report(s.error());
      winnable.erase(winnable.begin() + std::ptrdiff_t(next));
      continue;
    }
    starts.push_back({winnable[next], std::move(*s)});
    ++next;
  }
  std::set<std::string> used;
  for (const auto& st : starts) used.insert(st.material);
  return play_rule_games(starts, *oracles->play, oracles->dtm_only.get(), rule, used.size());
}

// --play-from FILE: every position of the file played out under the rule.
int run_play_from(const VerifyOptions& o, player::TableRule rule) {
  auto openings = player::read_openings(o.play_from);
  if (!openings) return report(openings.error());
  if (openings->empty()) return report(make_error(ErrorCode::kInvalidArgument, o.play_from + ": no positions"));
  auto oracles = open_rule_oracles(o, rule);
  if (!oracles) return report(oracles.error());
  std::vector<RuleStart> starts;
  std::set<std::string> materials;
  for (auto& op : *openings) {
    model::Material m;
    for (int c = 0; c < 2; ++c)
      for (int t = 0; t < 5; ++t)
        m.set_count(chess::Color(c), chess::PieceType(t), chess::popcount(op.start.pieces(chess::Color(c), chess::PieceType(t))));
    const std::string name = m.normalized().name();
    materials.insert(name);
    starts.push_back({name, std::move(op.start)});
  }
  return play_rule_games(starts, *oracles->play, oracles->dtm_only.get(), rule, materials.size());
}

// Which rule --play uses: --rule fifty and dtm as said; exact none (the DTM exact-on-time check);
// auto the 50-move rule when Syzygy files are found in the table directories, else none.
std::optional<player::TableRule> play_rule(const VerifyOptions& o) {
  if (o.rule == "fifty") return player::TableRule::kFiftyMove;
  if (o.rule == "dtm") return player::TableRule::kDtmOnly;
  if (o.rule == "exact") return std::nullopt;
  auto syz = probe::SyzygyTablebase::open(table_dirs(o));
  if (syz && syz->max_men() > 0) return player::TableRule::kFiftyMove;
  return std::nullopt;
}

// --against DIRS: each DTM table's result (win, draw, loss) on every legal position (or every
// K-th slot) against the Syzygy WDL50 files in DIRS, probed as an engine probes them.
int run_against(const VerifyOptions& o) {
  auto all = collect_files(o.paths);
  if (!all) return report(all.error());
  std::vector<std::filesystem::path> files;
  for (const auto& f : *all)
    if (f.extension() == gen::kTableExtension) files.push_back(f);
  if (files.empty()) return report(make_error(ErrorCode::kUnavailable, "verify --against: no *.dtm table files found"));
  auto tb = probe::SyzygyTablebase::open(probe::split_dirs(o.against));
  if (!tb) return report(tb.error());
  if (tb->max_men() == 0)
    return report(make_error(ErrorCode::kUnavailable, "verify --against: no *.rtbw Syzygy files found in " + o.against));
  const std::vector<std::string> have = tb->materials();
  tbb::task_arena arena(o.threads > 0 ? o.threads : int(std::max(1U, std::thread::hardware_concurrency())));
  TablesProgress progress(files, !o.quiet && isatty(STDERR_FILENO));
  int passed = 0, failed = 0;
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::string path = files[k].string();
    progress.start(k);
    auto fail = [&](const std::string& why) {  // errors of the file's reader name it already
      progress.finished();
      std::printf("FAIL %s\n", (why.rfind(path + ": ", 0) == 0 ? why : path + ": " + why).c_str());
      std::fflush(stdout);
      ++failed;
    };
    auto file = formats::TableFile::open(files[k]);
    if (!file) {
      fail(file.error().message);
      continue;
    }
    auto material = model::Material::parse(file->info().material);
    if (!material) {
      fail("header material: " + material.error().message);
      continue;
    }
    const std::string name = material->normalized().name();
    if (std::find(have.begin(), have.end(), name) == have.end()) {
      fail("no Syzygy WDL50 file " + name + ".rtbw in " + o.against);
      continue;
    }
    auto r = compare_dtm_with_wdl(*file, *tb, arena, o.every, [&](std::uint64_t done, std::uint64_t total) {
      progress.slots("comparing with WDL50", done, total, true);
    });
    if (!r) {
      fail(r.error().message);
      continue;
    }
    if (r->positions == 0) {
      fail("no position compared (--every " + std::to_string(o.every) + " passes every slot holding one)");
      continue;
    }
    if (!r->passed()) {
      fail(std::to_string(r->mismatches) + " of " + std::to_string(r->positions) + " positions disagree with WDL50, " +
           std::to_string(r->errors) + " probe errors" + (r->examples.empty() ? "" : "; first: " + r->examples.front()));
      continue;
    }
    progress.finished();
    const auto& c = r->by_wdl;
    std::printf("ok   %s: %s, %llu positions%s agree with WDL50 (wins %llu, cursed wins %llu, draws %llu, "
                "blessed losses %llu, losses %llu)\n",
                path.c_str(), name.c_str(), static_cast<unsigned long long>(r->positions),
                o.every > 1 ? (" (slots that are multiples of " + std::to_string(o.every) + ")").c_str() : "",
                static_cast<unsigned long long>(c[4]), static_cast<unsigned long long>(c[3]),
                static_cast<unsigned long long>(c[2]), static_cast<unsigned long long>(c[1]),
                static_cast<unsigned long long>(c[0]));
    std::fflush(stdout);
    ++passed;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? kExitFailed : kExitOk;
}

int run_verify(const VerifyOptions& o) {
  if (!o.against.empty()) return run_against(o);
  if (o.sample > 0) return run_sample(o);
  if (!o.play_from.empty()) {
    if (o.rule == "exact")
      return report(make_error(ErrorCode::kInvalidArgument, "verify --play-from: --rule exact is for --play only"));
    return run_play_from(o, play_rule(o).value_or(player::TableRule::kDtmOnly));
  }
  if (o.play > 0) {
    if (const auto rule = play_rule(o)) return run_play_rule(o, *rule);
    return run_play(o);
  }
  auto files = collect_files(o.paths);
  if (!files) return report(files.error());
  if (files->empty())
    return report(make_error(ErrorCode::kUnavailable, "verify: no table files (*.dtm, *.rtbw, *.rtbz) found"));
  tbb::task_arena arena(o.threads > 0 ? o.threads : int(std::max(1U, std::thread::hardware_concurrency())));
  int passed = 0, failed = 0;
  // What each file needs in memory: its tables and those it converts into (by its name).
  std::vector<std::vector<model::Material>> needs(files->size());
  for (std::size_t i = 0; i < files->size(); ++i) {
    const std::filesystem::path& f = (*files)[i];
    auto m = model::Material::parse(f.stem().string());
    if (!m || f != gen::table_path(f.parent_path(), *m)) continue;
    needs[i] = m->conversions();
    needs[i].push_back(*m);
  }
  gen::TableSet shared;
  std::filesystem::path shared_dir;
  // Expanded copies of one-side tables (gen::expanded_source); removed at the end, or on Ctrl-C.
  std::optional<ScratchDir> cache;
  TablesProgress progress(*files, !o.quiet && isatty(STDERR_FILENO));
  for (std::size_t i = 0; i < files->size(); ++i) {
    const std::filesystem::path& f = (*files)[i];
    if (is_syzygy_file(f)) {
      progress.start(i);
      const bool ok = verify_syzygy_file(f);
      progress.finished();
      (ok ? passed : failed)++;
      continue;
    }
    if (f.parent_path() != shared_dir) {
      shared = gen::TableSet{};
      shared_dir = f.parent_path();
    }
    shared.retain_only(shared.to_keep(needs, i, kKeepBytes));
    (verify_file(f, arena, shared, cache, progress, i) ? passed : failed)++;
  }
  // Syzygy files beside the DTM table of their material: their values, per directory.
  std::map<std::filesystem::path, std::vector<model::Material>> valued;
  for (const auto& f : *files) {
    if (!is_syzygy_file(f)) continue;
    auto m = model::Material::parse(f.stem().string());
    if (!m) continue;
    std::error_code ec;
    if (!std::filesystem::exists(gen::table_path(f.parent_path(), m->normalized()), ec)) continue;
    auto& list = valued[f.parent_path()];
    if (std::find(list.begin(), list.end(), m->normalized()) == list.end()) list.push_back(m->normalized());
  }
  for (const auto& [dir, materials] : valued)
    verify_syzygy_values(dir, materials, arena, !o.quiet && isatty(STDERR_FILENO), passed, failed);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? kExitFailed : kExitOk;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<VerifyOptions>();
  auto* cmd = app.add_subcommand("verify", "Check table files: checksums, then every position against its successors");
  cmd->add_option("paths", opts->paths,
                  "Table files or directories of *.dtm, *.rtbw and *.rtbz files (default: current directory)");
  cmd->add_option("-t,--threads", opts->threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--play", opts->play,
                  "Instead: play N random won positions out by the tables (winner fastest, loser longest; with\n"
                  "Syzygy files, wins under the 50-move rule, which must end in mate with no 50-move draw)")
      ->check(at_least(1));
  cmd->add_option("--sample", opts->sample, "Instead: print N random positions of --material with outcome --want (EPD)")
      ->check(at_least(1));
  cmd->add_option("--want", opts->want,
                  "For --sample: won (side to move wins), drawn, or won50 (wins under the 50-move rule at --clock; Syzygy files)")
      ->check(CLI::IsMember({"won", "drawn", "won50"}));
  cmd->add_option("--rule", opts->rule,
                  "For --play and --play-from: fifty (both sides by the player's 50-move root rule, Syzygy files\n"
                  "and DTM), dtm (both by DTM alone, clock kept), exact (--play only: DTM, each game must mate in\n"
                  "exactly the announced plies, clock ignored), auto (default: fifty when Syzygy files are found,\n"
                  "else exact)")
      ->check(CLI::IsMember({"auto", "fifty", "dtm", "exact"}));
  cmd->add_option("--play-from", opts->play_from, "Instead: play out every position of this EPD/FEN file under --rule");
  cmd->add_option("--clock", opts->clock, "Halfmove clock of the positions --play and --sample --want won50 draw (default 0)")
      ->check(CLI::Range(0, 99));
  cmd->add_option("--to-move", opts->to_move, "For --sample: side to move, white, black or any (default)")
      ->check(CLI::IsMember({"white", "black", "any"}));
  cmd->add_option("--material", opts->material, "For --sample (required) and --play (default: every table)");
  cmd->add_option("-d,--dir", opts->dir, "Table directory for --play and --sample");
  cmd->add_option("--seed", opts->seed, "Random seed for --play and --sample (default 1)");
  auto* against = cmd->add_option("--against", opts->against,
                  "Instead: compare each DTM table's result with the Syzygy WDL50 files in these directories\n"
                  "(joined by ':'; the tables captures reach must be there too), position by position: a DTM\n"
                  "win must be a win or cursed win, a loss a loss or blessed loss, a draw a draw. Reads blocks\n"
                  "one at a time and solves nothing, so it serves 6-man tables; files of both sides only");
  cmd->add_option("--every", opts->every, "With --against: compare only the index slots that are a multiple of K (a sample)")
      ->check(at_least(1))
      ->needs(against);
  cmd->add_flag("-q,--quiet", opts->quiet, "No progress line (drawn on stderr only when it is a terminal)");
  cmd->footer(
      "Each position's stored value must equal the best value over its moves, with captures and\n"
      "promotions looked up in the other tables (which must sit in the same directory).\n"
      "Syzygy files (*.rtbw, *.rtbz) are checked as the reader validates them, then by the checksum\n"
      "they end with. Where MATERIAL.dtm is beside them, WDL50 and DTZ50 are recomputed from the DTM\n"
      "tables, checked against their successors and against DTM (a WDL50 win or cursed win exactly\n"
      "where DTM wins), and the files must give those values on every legal position (one more line\n"
      "per material).\n"
      "Prints one line per table, then 'N passed, N failed'. On a terminal, a progress line on\n"
      "stderr shows each table's place, phase and share checked, its ETA and the run's (-q: none).\n"
      "For one-side (--sides one) tables, the tables they convert into are expanded into a private\n"
      "directory under $TMPDIR (else /tmp), removed at the end and on Ctrl-C.\n"
      "Examples:\n"
      "  tbkit verify tables\n"
      "  tbkit verify tables/KQvKR.dtm tables/KBNvK.dtm\n"
      "  tbkit verify --play 1000 -d tables     # each game must mate in exactly the announced plies\n"
      "  tbkit verify --play 200 --clock 60 -d syzygy-and-dtm  # mates under the 50-move rule, clock 60 at the start\n"
      "  tbkit verify --play-from won.epd -d tables  # the same from given positions\n"
      "  tbkit verify --sample 50 --want won --material KQvKR -d tables\n"
      "  tbkit verify --against syzygy tables/KRRvKBN.dtm  # every position's result against Syzygy's WDL50\n"
      "With --rule fifty (the default when *.rtbw/*.rtbz files are found), each game is also replayed by\n"
      "DTM alone with the clock kept, and the games that play would have drawn are listed and counted.\n"
      "Exit codes: 0 all passed, 1 a table or game failed, 2 bad option (--sample without --material, a bad\n"
      "material), 3 a path cannot be read, 4 a table file is corrupt (--play, --sample), 5 no table\n"
      "files found (for --sample: none for the material, or too few wanted positions; for --against:\n"
      "no *.dtm files, or no *.rtbw files in its directories).");
  cmd->callback([opts, &exit_code] { exit_code = run_verify(*opts); });
}

}  // namespace tbkit::cli
