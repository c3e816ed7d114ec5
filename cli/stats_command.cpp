// tbkit stats: per side to move, legal/win/draw/loss counts and the longest win of a table.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/common.h"
#include "cli/interrupt.h"
#include "cli/json.h"
#include "cli/run_progress.h"
#include "formats/table_file.h"
#include "gen/run.h"
#include "gen/stats.h"
#include "gen/syzygy_output.h"

namespace tbkit::cli {
namespace {

struct StatsOptions {
  std::string target;
  std::string dir = ".";
  bool json = false;
  bool quiet = false;  // -q: no progress line
};

int run_stats(const StatsOptions& o) {
  std::filesystem::path path = o.target;
  std::error_code ec;
  model::Material material;
  if (std::filesystem::is_regular_file(path, ec)) {
    auto m = model::Material::parse(path.stem().string());
    if (!m) return report(make_error(ErrorCode::kInvalidArgument, path.string() + ": file name is not a material (e.g. KQvK.dtm)"));
    material = m->normalized();
  } else {
    auto m = model::Material::parse(o.target);
    if (!m) return report(m.error());
    material = m->normalized();
    path = gen::table_path(o.dir, material);
  }
  // A version-3 file stores one side: the other is rebuilt from the tables it converts into,
  // each read alone (from an expanded copy when it is one-side too).
  tbb::task_arena arena;
  gen::TableSet tables;
  auto file = formats::TableFile::open(path);
  if (!file) return report(file.error());
  TablesProgress progress({path}, !o.quiet && isatty(STDERR_FILENO));
  progress.start(0);
  auto fail = [&](const Error& e) {
    progress.finished();
    return report(e);
  };
  // A temporary directory for the copies, made only for a file that needs them; removed at the
  // end, or on Ctrl-C.
  std::optional<ScratchDir> cache;
  if (file->format_version() >= 3 || file->capture_resolved()) {
    const std::vector<model::Material> deps = material.conversions();
    if (gen::needs_expanded_copies(path.parent_path(), deps)) {
      cache.emplace("tbkit-expanded");
      if (cache->path().empty()) return fail(make_error(ErrorCode::kIo, "stats: " + cache->error()));
    }
    const std::filesystem::path cache_dir = cache ? cache->path() : std::filesystem::path();  // unused when none
    for (std::size_t j = 0; j < deps.size(); ++j) {
      if (Status st = tables.load_expanded(path.parent_path(), deps[j], cache_dir, arena, gen::LoadUse::kExact,
                                           progress.reading(deps, j));
          !st)
        return fail(st.error());
    }
  }
  progress.phase("reading it");
  if (Status st = tables.load(path, material, arena, gen::LoadUse::kExact,
                              [&](std::uint64_t done, std::uint64_t total) {
                                progress.slots("rebuilding its other side", done, total, true);
                              });
      !st)
    return fail(st.error());
  progress.phase("counting");
  const gen::TableStats s = gen::compute_stats(*tables.find(material), arena);
  // With the material's Syzygy WDL file beside it, the 50-move rule's counts too (computed from
  // the DTM files of the table and of those it converts into).
  std::optional<std::array<gen::SideStats50, 2>> s50;
  if (std::filesystem::exists(gen::syzygy_path(path.parent_path(), material, gen::kWdlExtension), ec)) {
    progress.phase("WDL50/DTZ50");
    // The tables it converts into, at any depth, may be one-side: their copies go to the private
    // directory too, never beside the tables.
    if (!cache) cache.emplace("tbkit-expanded");
    if (cache->path().empty()) return fail(make_error(ErrorCode::kIo, "stats: " + cache->error()));
    auto dtz = gen::dtz_table_from_dtm_files(path.parent_path(), material, arena, cache->path());
    if (!dtz) return fail(dtz.error());
    s50 = gen::compute_stats50(**dtz, arena);
  }
  progress.finished();
  const char* names[2] = {"white", "black"};
  if (o.json) {
    std::cout << "{\"material\": " << json_string(material.name()) << ", \"file\": " << json_string(path.string());
    for (int side = 0; side < 2; ++side) {
      const auto& x = s.side[side];
      std::cout << ", \"" << names[side] << "_to_move\": {\"legal\": " << x.legal << ", \"win\": " << x.win
                << ", \"draw\": " << x.draw << ", \"loss\": " << x.loss << ", \"longest_win_plies\": " << x.longest_win_plies
                << ", \"longest_win_fen\": " << json_string(x.longest_win_fen) << "}";
    }
    for (int side = 0; side < 2 && s50; ++side) {
      const auto& x = (*s50)[side];
      std::cout << ", \"" << names[side] << "_to_move_50\": {\"win\": " << x.win << ", \"cursed_win\": " << x.cursed_win
                << ", \"draw\": " << x.draw << ", \"blessed_loss\": " << x.blessed_loss << ", \"loss\": " << x.loss
                << ", \"longest_dtz_plies\": " << x.longest_dtz << ", \"longest_dtz_fen\": " << json_string(x.longest_dtz_fen)
                << "}";
    }
    std::cout << ", \"stored_positions\": " << s.stored << ", \"index_slots\": " << s.slots << "}\n";
    return kExitOk;
  }
  std::printf("%s (%s): %llu positions stored in %llu index slots\n", material.name().c_str(), path.string().c_str(),
              static_cast<unsigned long long>(s.stored), static_cast<unsigned long long>(s.slots));
  for (int side = 0; side < 2; ++side) {
    const auto& x = s.side[side];
    std::printf("%s to move: %llu legal, %llu win, %llu draw, %llu loss", side ? "Black" : "White",
                static_cast<unsigned long long>(x.legal), static_cast<unsigned long long>(x.win),
                static_cast<unsigned long long>(x.draw), static_cast<unsigned long long>(x.loss));
    if (x.longest_win_plies > 0) std::printf("; longest win %d plies: %s", x.longest_win_plies, x.longest_win_fen.c_str());
    std::printf("\n");
  }
  for (int side = 0; side < 2 && s50; ++side) {
    const auto& x = (*s50)[side];
    std::printf("%s to move, 50-move rule: %llu win, %llu cursed win, %llu draw, %llu blessed loss, %llu loss",
                side ? "Black" : "White", static_cast<unsigned long long>(x.win),
                static_cast<unsigned long long>(x.cursed_win), static_cast<unsigned long long>(x.draw),
                static_cast<unsigned long long>(x.blessed_loss), static_cast<unsigned long long>(x.loss));
    if (x.longest_dtz > 0) std::printf("; longest DTZ50 %d plies: %s", x.longest_dtz, x.longest_dtz_fen.c_str());
    std::printf("\n");
  }
  return kExitOk;
}

}  // namespace

void add_stats_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<StatsOptions>();
  auto* cmd = app.add_subcommand("stats", "Count wins, draws and losses of a table, and find its longest win");
  cmd->add_option("table", opts->target, "A table file, or a material looked up in --dir")->required();
  cmd->add_option("-d,--dir", opts->dir,
                  "Directory holding MATERIAL.dtm (default: current); with MATERIAL.rtbw beside it (tbkit gen --syzygy) "
                  "the 50-move rule's WDL50 counts and longest DTZ50 are added, computed from the DTM files");
  cmd->add_flag("--json", opts->json, "Print one JSON object");
  cmd->add_flag("-q,--quiet", opts->quiet, "No progress line (drawn on stderr only when it is a terminal)");
  cmd->footer(
      "Counts follow the published convention: every legal placement once (no symmetry reduction),\n"
      "identical pieces once, no en-passant rights. A one-side (--sides one) file's other side is\n"
      "rebuilt from the tables it converts into, expanded into a private directory under $TMPDIR\n"
      "(else /tmp), removed at the end and on Ctrl-C. On a terminal, a progress line on stderr shows\n"
      "the phase (-q: none).\n"
      "Examples:\n"
      "  tbkit stats KQvK -d tables\n"
      "  tbkit stats tables/KBNvK.dtm --json\n"
      "Exit codes: 0 ok, 2 bad material, 3 file missing or unreadable (or no\n"
      "temporary directory), 4 corrupt file.");
  cmd->callback([opts, &exit_code] { exit_code = run_stats(*opts); });
}

}  // namespace tbkit::cli
