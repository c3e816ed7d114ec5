// tbkit probe: a position's DTM verdict and every legal move's value from the tables; the mating
// line on request; batch mode over stdin. Output formats: docs/probe.md.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "cli/common.h"
#include "cli/json.h"
#include "explore/table_report.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"

namespace tbkit::cli {
namespace {

using formats::DtmValue;
using explore::dtz_words;
using explore::verdict_words;

struct ProbeOptions {
  std::vector<std::string> fen;
  std::vector<std::string> dirs;
  bool json = false;
  bool line = false;
  std::string follow = "dtm";  // the line's metric: dtm (fastest mate) or dtz (50-move safe)
  std::optional<std::size_t> cache_mib;  // unset: sized from the tables found (TablebaseOptions)
};

// A move's value for the side playing it: "mates in 9 (17 plies)", "is mated in 3 (6 plies)", "draw".
std::string move_words(DtmValue v) {
  if (v.is_win()) return "mates in " + std::to_string(v.moves()) + " (" + std::to_string(v.plies()) + " plies)";
  if (v.is_loss()) return "is mated in " + std::to_string(v.moves()) + " (" + std::to_string(v.plies()) + " plies)";
  return "draw";
}

struct LineResult {
  std::vector<std::string> san;
  std::vector<std::string> uci;
  bool ok = false;
  std::string problem;
  int longest_quiet = 0;  // following DTZ50: the most plies in a row without a capture or pawn move
  bool cursed = false;    // following DTZ50 from a cursed win or blessed loss
};

// What the check of a line found, when it passed.
std::string line_check_words(const LineResult& line, bool by_dtz) {
  const std::string mate = "checkmate after " + std::to_string(line.san.size()) + " plies";
  if (!by_dtz) return mate + ", as announced";
  const std::string quiet = std::to_string(line.longest_quiet) + " plies in a row without a capture or pawn move";
  return line.cursed ? mate + ", only past " + quiet + ": a draw by the 50-move rule" : mate + ", at most " + quiet;
}

// Plays the best move for both sides until the game ends, and checks the line ends in checkmate
// after exactly the announced number of plies.
// With `sz` the line follows DTZ50 (the fastest zeroing move that keeps the 50-move win) and is
// checked to reach checkmate with no 100 plies in a row without a capture or pawn move; from a cursed
// win or blessed loss (`cursed`), to reach checkmate only past such a stretch, as the verdict says.
// (Its length is not checked against DTM: the loser resists by DTZ50, not by DTM, and may be mated
// sooner than DTM announces.)
Result<LineResult> mating_line(const probe::Tablebase& tb, const probe::SyzygyTablebase* sz, const chess::Position& root,
                               DtmValue value, bool cursed) {
  LineResult out;
  out.cursed = cursed;
  chess::Position pos = root;
  const int limit = DtmValue::kMaxLossPlies + 2;
  int quiet = 0, longest_quiet = 0;
  while (int(out.san.size()) <= limit) {
    chess::Move m;
    if (sz) {
      auto ranked = sz->rank_moves(pos);
      if (!ranked) return ranked.error();
      if (ranked->empty()) break;
      m = ranked->front().move;
      quiet = ranked->front().zeroing ? 0 : quiet + 1;
      longest_quiet = std::max(longest_quiet, quiet);
    } else {
      auto ranked = tb.rank_moves(pos);
      if (!ranked) return ranked.error();
      if (ranked->empty()) break;
      m = ranked->front().move;
    }
    out.san.push_back(chess::to_san(pos, m));
    out.uci.push_back(chess::to_uci(m));
    pos.do_move(m);
  }
  const int plies = int(out.san.size());
  out.longest_quiet = longest_quiet;
  if (pos.status() != chess::GameStatus::kCheckmate) {
    out.problem = "the line ends after " + std::to_string(plies) + " plies without checkmate";
  } else if (sz && !cursed && longest_quiet > 100) {
    out.problem = std::to_string(longest_quiet) + " plies in a row without a capture or pawn move";
  } else if (sz && cursed && longest_quiet <= 100) {
    out.problem = "a cursed result, but the line keeps the 50-move rule (at most " + std::to_string(longest_quiet) +
                  " plies in a row without a capture or pawn move)";
  } else if (!sz && plies != value.plies()) {
    out.problem = "checkmate after " + std::to_string(plies) + " plies, " + std::to_string(value.plies()) + " announced";
  } else {
    out.ok = true;
  }
  return out;
}

std::string numbered_line(const chess::Position& root, const std::vector<std::string>& san) {
  std::string s;
  int number = root.fullmove_number();
  bool white = root.side_to_move() == chess::Color::kWhite;
  for (std::size_t i = 0; i < san.size(); ++i) {
    if (white) s += (s.empty() ? "" : " ") + std::to_string(number) + ". ";
    else if (i == 0) s += std::to_string(number) + "... ";
    else s += ' ';
    s += san[i];
    if (!white) ++number;
    white = !white;
  }
  return s;
}

std::string json_error(const std::string& input, const Error& e) {
  return "{\"input\": " + json_string(input) + ", \"error\": " + json_string(e.message) + ", \"exit_code\": " +
         std::to_string(exit_code_for(e)) + "}";
}

// Probes one position and prints it. `batch`: one line of text per position. Returns the exit code.
int probe_one(const probe::Tablebase& tb, const probe::SyzygyTablebase& sz, const std::string& input, const ProbeOptions& o,
              bool batch) {
  auto pos = position_from_words({input});
  auto tables = pos ? explore::probe_tables(tb, sz, *pos) : Result<explore::TableReport>(pos.error());
  if (!tables) {
    if (o.json) std::cout << json_error(input, tables.error()) << '\n';
    else if (batch) std::cout << input << ": error: " << tables.error().message << '\n';
    return report(tables.error());
  }
  const chess::Position& p = tables->position;
  const DtmValue value = tables->value;
  const std::vector<probe::RankedMove>& ranked = tables->moves;
  const std::optional<explore::FiftyValues>& fifty = tables->fifty;
  auto fifty_of = [&](chess::Move m) { return tables->fifty_of(m); };
  const bool by_dtz = o.follow == "dtz";
  if (o.line && by_dtz && !fifty)
    return report(make_error(ErrorCode::kUnavailable, "--follow dtz: no Syzygy WDL/DTZ files (MATERIAL.rtbw, .rtbz) for this position"));
  std::optional<LineResult> line;
  if (o.line && !value.is_draw()) {
    const bool cursed = fifty && (fifty->value.wdl == probe::Wdl50::kCursedWin ||
                                  fifty->value.wdl == probe::Wdl50::kBlessedLoss);
    auto l = mating_line(tb, by_dtz ? &sz : nullptr, p, value, cursed);
    if (!l) return report(l.error());
    line = std::move(*l);
  }
  const std::string fen = chess::to_fen(p);
  const std::string fifty_text = explore::fifty_suffix(*tables);
  const std::string dtm_plies = value.plies() > 0 ? " (" + std::to_string(value.plies()) + " plies)" : "";
  if (o.json) {
    // The object of docs/probe.md, shared with the explorer's /api/tables; --line adds "line".
    std::ostringstream out;
    if (o.line) {
      out << ", \"line\": ";
      if (!line) {
        out << "null";
      } else {
        out << "{\"san\": [";
        for (std::size_t i = 0; i < line->san.size(); ++i) out << (i ? ", " : "") << json_string(line->san[i]);
        out << "], \"uci\": [";
        for (std::size_t i = 0; i < line->uci.size(); ++i) out << (i ? ", " : "") << json_string(line->uci[i]);
        out << "], \"checked\": " << (line->ok ? "true" : "false");
        if (!line->ok) out << ", \"problem\": " << json_string(line->problem);
        out << "}";
      }
    }
    std::cout << explore::table_json(*tables, out.str()) << '\n';
  } else if (batch) {
    std::cout << fen << ": " << verdict_words(p, value) << dtm_plies << fifty_text;
    if (!ranked.empty()) std::cout << "; best " << chess::to_san(p, ranked.front().move);
    if (line) std::cout << "; line " << (line->ok ? "checked" : "FAILED: " + line->problem);
    std::cout << '\n';
  } else {
    std::ostringstream out;
    out << board_text(p) << '\n';
    out << "FEN:     " << fen << '\n';
    out << "Verdict: " << verdict_words(p, value) << dtm_plies << fifty_text << '\n';
    out << "Moves:   " << ranked.size() << ", best first\n";
    for (const auto& r : ranked) {
      const std::string san = chess::to_san(p, r.move);
      out << "  " << san << std::string(san.size() < 8 ? 8 - san.size() : 1, ' ') << chess::to_uci(r.move)
          << std::string(7 - std::min<std::size_t>(chess::to_uci(r.move).size(), 6), ' ') << move_words(r.value);
      if (const auto* f = fifty_of(r.move)) {
        const std::string dtm = move_words(r.value);
        out << std::string(dtm.size() < 30 ? 30 - dtm.size() : 1, ' ') << dtz_words(f->wdl, f->dtz);
      }
      out << '\n';
    }
    if (o.line) {
      if (!line) out << "Line:    none (draw)\n";
      else {
        out << "Line:    " << numbered_line(p, line->san) << '\n';
        out << (line->ok ? "Checked: " + line_check_words(*line, by_dtz) + '\n' : "FAILED:  " + line->problem + '\n');
      }
    }
    std::cout << out.str();
  }
  if (line && !line->ok) {
    std::cerr << "tbkit: " << fen << ": mating line check failed: " << line->problem << '\n';
    return kExitFailed;
  }
  return kExitOk;
}

int run_probe(const ProbeOptions& o) {
  std::vector<std::filesystem::path> dirs(o.dirs.begin(), o.dirs.end());
  if (dirs.empty()) dirs.emplace_back(".");
  const std::uint64_t machine = std::uint64_t(::sysconf(_SC_PHYS_PAGES)) * std::uint64_t(::sysconf(_SC_PAGESIZE));
  if (o.cache_mib && machine > 0 && (std::uint64_t(*o.cache_mib) << 20) > machine)
    return report(make_error(ErrorCode::kInvalidArgument, "--cache: " + std::to_string(*o.cache_mib) + " MiB is more than this machine's memory (" +
                                                              std::to_string(machine >> 20) + " MiB)"));
  auto tb = [&]() -> Result<probe::Tablebase> {
    try {
      probe::TablebaseOptions options;
      if (o.cache_mib) options.cache_bytes = *o.cache_mib << 20;
      return probe::Tablebase::open(dirs, options);
    } catch (const std::bad_alloc&) {  // the cache is reserved up front
      return make_error(ErrorCode::kInvalidArgument, "--cache: cannot allocate the block cache; give a smaller --cache");
    }
  }();
  if (!tb) return report(tb.error());
  auto sz = probe::SyzygyTablebase::open(dirs);
  if (!sz) return report(sz.error());
  std::string input;
  for (const auto& w : o.fen) input += (input.empty() ? "" : " ") + w;
  if (input != "-") {
    if (input.empty()) return report(make_error(ErrorCode::kInvalidArgument, "probe: a FEN, or '-' to read FENs from stdin, is required"));
    return probe_one(*tb, *sz, input, o, false);
  }
  // Batch: every line is probed; the exit code is the first failure's (0 if none).
  int status = kExitOk;
  std::string text;
  while (std::getline(std::cin, text)) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const int code = probe_one(*tb, *sz, text, o, true);
    if (status == kExitOk) status = code;
  }
  return status;
}

}  // namespace

void add_probe_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<ProbeOptions>();
  auto* cmd = app.add_subcommand("probe", "Look a position up in the tables: verdict, every move's value, mating line");
  cmd->add_option("fen", opts->fen, "FEN (quoted or as separate words), or '-' to read one FEN per line from stdin")->required();
  cmd->add_option("-d,--dir", opts->dirs,
                  "Directory holding MATERIAL.dtm tables, and MATERIAL.rtbw/.rtbz Syzygy files for the 50-move rule's "
                  "values (repeatable; default: current)");
  cmd->add_flag("--json", opts->json, "Print one JSON object per position (schema in docs/probe.md)");
  cmd->add_flag("--line", opts->line, "Print the mating line under best play and check it ends in mate as announced");
  cmd->add_option("--follow", opts->follow,
                  "The line's metric: dtm (default: the fastest mate) or dtz (Syzygy's DTZ50: a line that wins under the "
                  "50-move rule, checked to have no 100 plies without a capture or pawn move)")
      ->check(CLI::IsMember({"dtm", "dtz"}));
  cmd->add_option("--cache", opts->cache_mib, "Block cache size in MiB, 0 to 1048576 (default: the decoded size of the tables found, at most 1024 MiB and an eighth of memory; 0: no cache)")->check(CLI::Range(0, 1 << 20));
  cmd->footer(
      "Examples:\n"
      "  tbkit probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1' -d tables\n"
      "  tbkit probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1' -d tables --line\n"
      "  cut -d' ' -f1-4 positions.epd | tbkit probe - -d tables --json\n"
      "Batch mode ('-') prints one line (or JSON object) per FEN, continues after a bad one and exits\n"
      "with the first failure's code.\n"
      "Exit codes: 0 ok, 1 mating line check failed, 2 bad FEN or castling rights, 3 unreadable table,\n"
      "4 corrupt table, 5 no table for the material.");
  cmd->callback([opts, &exit_code] { exit_code = run_probe(*opts); });
}

}  // namespace tbkit::cli
