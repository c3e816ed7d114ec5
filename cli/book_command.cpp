// tbkit book: build opening books from PGN, probe them (ours and Polyglot .bin), merge them.
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "chess/fen.h"
#include "chess/notation.h"
#include "cli/book_learn_command.h"
#include "cli/common.h"
#include "cli/interrupt.h"
#include "explore/book_report.h"
#include "formats/book_file.h"
#include "formats/experience.h"
#include "formats/polyglot_book.h"
#include "pgn/book_builder.h"
#include "pgn/book_merge.h"

namespace tbkit::cli {
namespace {

struct BuildOptions {
  std::vector<std::string> inputs;
  std::string output, polyglot, memory, since, until, elo_of = "mover", temp_dir;
  int max_ply = -1, min_games = -1, threads = 0;
  std::uint32_t min_elo = 0;
  double min_score = 0.0;
  bool only_white = false, only_black = false, variations = false, quiet = false, compat = false, uniform = false;
};

struct ProbeOptions {
  std::string book;
  std::vector<std::string> fen;
  std::string moves;
  bool json = false;
};

// "64M", "2G", "512K", "1000000" -> bytes.
Result<std::size_t> parse_size(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument, "--memory: '" + text + "' " + why);
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return bad("is not a size like 64M or 2G");
  const std::string unit = text.substr(digits);
  const int shift = unit.empty() || unit == "B" ? 0 : unit == "K" || unit == "k" ? 10 : unit == "M" || unit == "m" ? 20
                                                  : unit == "G" || unit == "g" ? 30 : -1;
  if (shift < 0) return bad("has an unknown unit '" + unit + "' (use K, M or G)");
  unsigned long long n = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    if (n > (std::numeric_limits<std::size_t>::max() >> shift) / 10) return bad("is too large");
    n = n * 10 + unsigned(text[i] - '0');
  }
  if (n > (std::numeric_limits<std::size_t>::max() >> shift)) return bad("is too large");
  if (n == 0) return bad("must be more than 0 (leave --memory out for no bound)");
  return std::size_t(n << shift);
}

// "2020", "2020-03", "2020.03.15" -> YYYYMMDD; missing parts are the period's first (or last) day.
Result<std::uint32_t> parse_date_bound(const std::string& text, const char* option, bool upper) {
  const auto bad = [&] {
    return make_error(ErrorCode::kInvalidArgument, std::string(option) + ": '" + text + "' is not a date like 2020, 2020-03 or 2020-03-15");
  };
  std::string digits;
  for (char c : text) {
    if (c >= '0' && c <= '9') digits += c;
    else if (c != '-' && c != '.' && c != '/') return bad();
  }
  if (digits.size() != 4 && digits.size() != 6 && digits.size() != 8) return bad();
  if (digits.size() >= 6) {
    const int month = std::stoi(digits.substr(4, 2));
    if (month < 1 || month > 12) return bad();
  }
  if (digits.size() == 8) {
    const int day = std::stoi(digits.substr(6, 2));
    if (day < 1 || day > 31) return bad();
  }
  if (digits.size() == 4) digits += upper ? "1231" : "0101";
  if (digits.size() == 6) digits += upper ? "31" : "01";
  return std::uint32_t(std::stoul(digits));
}

std::string percent(double part, double whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

int run_build(const BuildOptions& o) {
  pgn::BookBuildOptions b;
  b.output = o.output;
  b.polyglot_output = o.polyglot;
  b.threads = o.threads > 0 ? o.threads : int(std::max(1U, std::thread::hardware_concurrency()));
  b.temp_dir = o.temp_dir;
  b.polyglot_compat = o.compat;
  if (o.only_white && o.only_black) return report(make_error(ErrorCode::kInvalidArgument, "--only-white and --only-black exclude each other"));
  if (o.compat) {
    // make-book's rules have no such filters: refuse rather than build a book the user did not ask for.
    const std::pair<bool, const char*> unsupported[] = {{o.min_elo > 0, "--min-elo"}, {o.elo_of != "mover", "--elo-of"},
                                                         {!o.since.empty(), "--since"}, {!o.until.empty(), "--until"},
                                                         {o.variations, "--variations"},
                                                         {!o.memory.empty(), "--memory (the compat build keeps make-book's whole table in memory)"}};
    for (const auto& [given, name] : unsupported)
      if (given) return report(make_error(ErrorCode::kInvalidArgument, std::string("--polyglot-compat does not take ") + name));
    if (b.polyglot_output.empty() && !b.output.empty()) std::swap(b.polyglot_output, b.output);
    if (!b.output.empty())
      return report(make_error(ErrorCode::kInvalidArgument, "--polyglot-compat writes only a Polyglot .bin (-o or --polyglot)"));
    b.compat.max_ply = o.max_ply >= 0 ? std::uint32_t(o.max_ply) : 1024;
    b.compat.min_game = o.min_games >= 0 ? o.min_games : 3;
    b.compat.min_score = o.min_score;
    b.compat.only_white = o.only_white;
    b.compat.only_black = o.only_black;
    b.compat.uniform = o.uniform;
  } else {
    if (o.uniform || o.min_score != 0.0)
      return report(make_error(ErrorCode::kInvalidArgument, "--uniform and --min-score need --polyglot-compat"));
    b.filter.max_ply = o.max_ply >= 0 ? std::uint32_t(o.max_ply) : 1024;
    b.min_games = o.min_games >= 0 ? std::uint32_t(o.min_games) : 1;
    b.filter.min_elo = o.min_elo;
    b.filter.elo_of = o.elo_of == "both" ? formats::EloOf::kBoth : o.elo_of == "average" ? formats::EloOf::kAverage : formats::EloOf::kMover;
    b.filter.colour = o.only_white ? formats::ColourFilter::kWhiteOnly : o.only_black ? formats::ColourFilter::kBlackOnly : formats::ColourFilter::kBoth;
    b.filter.variations = o.variations;
    if (!o.since.empty()) {
      auto d = parse_date_bound(o.since, "--since", false);
      if (!d) return report(d.error());
      b.filter.since = *d;
    }
    if (!o.until.empty()) {
      auto d = parse_date_bound(o.until, "--until", true);
      if (!d) return report(d.error());
      b.filter.until = *d;
    }
    if (b.filter.since && b.filter.until && b.filter.since > b.filter.until)
      return report(make_error(ErrorCode::kInvalidArgument, "--since " + o.since + " is after --until " + o.until + ": no game could be recorded"));
  }
  if (!o.memory.empty()) {
    auto m = parse_size(o.memory);
    if (!m) return report(m.error());
    b.memory_bytes = *m;
  }

  const bool show = !o.quiet && ::isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  pgn::ProgressCallback progress;
  if (show) {
    progress = [&](const pgn::ReadProgress& p) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(250)) return;
      last = now;
      const double secs = std::chrono::duration<double>(now - start).count();
      std::string eta = "?";
      if (p.file_size > 0 && p.compressed_bytes > 0 && p.compressed_bytes <= p.file_size)
        eta = std::to_string(int(secs * double(p.file_size - p.compressed_bytes) / double(p.compressed_bytes))) + " s";
      std::fprintf(stderr, "\r%s: %.1f MB read, %llu games, %.0f games/s, ETA %s   ", p.source.c_str(), double(p.bytes) / 1e6,
                   static_cast<unsigned long long>(p.games), secs > 0 ? double(p.games) / secs : 0.0, eta.c_str());
    };
  }
  // Ctrl-C removes the unfinished NAME.tmp outputs and the spill runs (cli/interrupt.h): the runs go
  // to a private directory made here, guarded and removed with its contents.
  TmpGuard tbb_tmp, bin_tmp, spill_guard;
  if (!b.output.empty()) tbb_tmp.guard(b.output.string() + ".tmp");
  if (!b.polyglot_output.empty()) bin_tmp.guard(b.polyglot_output.string() + ".tmp");
  std::error_code ec;
  const std::filesystem::path base = o.temp_dir.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(o.temp_dir);
  if (ec) return report(make_error(ErrorCode::kIo, "book build: cannot find a temporary directory: " + ec.message()));
  std::string spill = (base / "tbkit-build-XXXXXX").string();
  if (!spill_guard.make_directory(spill))
    return report(make_error(ErrorCode::kIo, spill + ": cannot create a temporary directory: " + std::strerror(errno)));
  b.temp_dir = spill;
  auto summary = pgn::build_book(o.inputs, b, progress);
  std::filesystem::remove_all(spill, ec);
  if (show) std::fprintf(stderr, "\n");
  if (!summary) return report(summary.error());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.quiet) {
    std::ostringstream msg;
    msg << "book: " << summary->read.games_read << " games read, " << summary->games_recorded << " recorded";
    std::uint64_t skipped = 0;
    for (const auto& [reason, n] : summary->read.skipped_by_reason) skipped += n;
    if (skipped) msg << ", " << skipped << " skipped as bad";
    std::uint64_t dropped = 0;
    for (const auto& [reason, n] : summary->read.dropped_by_reason) dropped += n;
    if (dropped) msg << ", " << dropped << " bad variation" << (dropped == 1 ? "" : "s") << " dropped";
    if (summary->games_filtered) msg << ", " << summary->games_filtered << " filtered out";
    if (!b.output.empty()) msg << "; " << b.output.string() << ": " << summary->info.position_count << " positions, " << summary->info.entry_count << " entries";
    if (!b.polyglot_output.empty()) msg << "; " << b.polyglot_output.string() << ": " << summary->polyglot_entries << " entries";
    if (summary->spill_runs)
      msg << "; " << summary->spill_runs << " spill runs"
          << (summary->merge_passes > 1 ? ", merged in " + std::to_string(summary->merge_passes) + " passes" : "");
    char t[32];
    std::snprintf(t, sizeof t, "; %.2f s", secs);
    std::cerr << msg.str() << t << '\n';
    for (const auto& d : summary->read.diagnostics) std::cerr << "book: " << d << '\n';
  }
  return kExitOk;
}

Result<chess::Position> probe_position(const ProbeOptions& o) {
  auto pos = position_from_words(o.fen);
  if (!pos) return pos.error();
  std::istringstream in(o.moves);
  std::string text;
  while (in >> text) {
    auto m = chess::parse_san(*pos, text);
    if (!m) m = chess::parse_uci(*pos, text);
    if (!m) return make_error(ErrorCode::kIllegal, "--moves: '" + text + "' is not a legal move in " + chess::to_fen(*pos));
    pos->do_move(*m);
  }
  return pos;
}

// Prints the book's moves (text, or the JSON object shared with the explorer's /api/book).
int print_book_moves(const ProbeOptions& o, const explore::BookReport& r) {
  std::ostringstream out;
  if (o.json) {
    out << explore::book_json(r) << '\n';
  } else {
    std::uint64_t total = 0;
    for (const auto& m : r.moves) total += m.weight;
    out << "Position: " << chess::to_fen(r.position) << "  (key " << hex_key(r.position.key()) << ")\n";
    if (r.moves.empty()) out << "No book moves.\n";
    char line[160];
    if (!r.moves.empty()) {
      if (r.has_stats) {
        std::snprintf(line, sizeof line, "%-8s %-6s %10s %6s %6s %6s %7s %7s\n", "move", "uci", "games", "win%", "draw%", "loss%", "rating", "weight%");
      } else {
        std::snprintf(line, sizeof line, "%-8s %-6s %7s %7s\n", "move", "uci", "weight", "weight%");
      }
      out << line;
    }
    for (const auto& m : r.moves) {
      if (r.has_stats) {
        std::snprintf(line, sizeof line, "%-8s %-6s %10llu %6s %6s %6s %7s %7s\n", m.san.c_str(), m.uci.c_str(), static_cast<unsigned long long>(m.games),
                      percent(double(m.wins), double(m.games)).c_str(), percent(double(m.draws), double(m.games)).c_str(),
                      percent(double(m.losses), double(m.games)).c_str(), m.rated ? std::to_string(m.elo_sum / m.rated).c_str() : "-",
                      percent(double(m.weight), double(total)).c_str());
      } else {
        std::snprintf(line, sizeof line, "%-8s %-6s %7llu %7s\n", m.san.c_str(), m.uci.c_str(), static_cast<unsigned long long>(m.weight),
                      percent(double(m.weight), double(total)).c_str());
      }
      out << line;
    }
    if (r.has_stats) out << "win/draw/loss are for the side to move; games with unknown results count only in games.\n";
    if (r.learned) out << learned_text(*r.learned);
  }
  std::cout << out.str();
  const bool learned_any = r.learned && !r.learned->moves.empty();
  return r.moves.empty() && !learned_any ? kExitUnavailable : kExitOk;
}

int run_probe(const ProbeOptions& o) {
  auto pos = probe_position(o);
  if (!pos) return report(pos.error());
  auto book = explore::OpenBook::open(o.book);
  if (!book) return report(book.error());
  for (const auto& w : book->warnings()) std::cerr << "tbkit: warning: " << w << '\n';
  auto moves = book->probe(*pos);
  if (!moves) return report(moves.error());
  return print_book_moves(o, *moves);
}

int run_merge(const std::vector<std::string>& inputs, const std::string& output, bool quiet) {
  std::vector<std::filesystem::path> paths(inputs.begin(), inputs.end());
  const TmpGuard tmp(output + ".tmp");
  auto info = pgn::merge_book_files(paths, output);
  if (!info) return report(info.error());
  if (!quiet)
    std::cerr << "book merge: " << output << ": " << info->position_count << " positions, " << info->entry_count << " entries, " << info->games
              << " games\n";
  return kExitOk;
}

// Lookups per second on a warm mapped book: synthesises a book of `entries` random keys if none is given.
int run_bench_lookup(const std::string& book_path, std::uint64_t entries, std::uint64_t lookups) {
  std::filesystem::path path = book_path;
  std::filesystem::path temp;
  if (path.empty()) {
    temp = std::filesystem::temp_directory_path() / ("tbkit-bench-" + std::to_string(::getpid()) + ".tbb");
    path = temp;
    std::mt19937_64 rng(12345);
    std::vector<std::uint64_t> keys(entries);
    for (auto& k : keys) k = rng();
    std::sort(keys.begin(), keys.end());
    auto w = formats::BookWriter::create(path, formats::BookParams{});
    if (!w) return report(w.error());
    std::uint64_t prev = 0;
    for (std::uint64_t k : keys) {
      if (k == prev) continue;
      prev = k;
      formats::BookRecord r{};
      r.key = k;
      r.move = 0x031c;
      r.games = 1;
      if (auto s = w->add(r); !s) return report(s.error());
    }
    if (auto i = w->finish(); !i) return report(i.error());
  }
  auto book = formats::BookFile::open(path);
  if (!temp.empty()) std::filesystem::remove(temp);
  if (!book) return report(book.error());
  const auto recs = book->records();
  if (recs.empty()) return report(make_error(ErrorCode::kUnavailable, "bench-lookup: empty book"));
  std::mt19937_64 rng(67890);
  std::vector<std::uint64_t> probe(1 << 20);
  for (auto& k : probe) k = recs[rng() % recs.size()].key;
  std::uint64_t found = 0;
  for (std::uint64_t k : probe) found += book->lookup(k).size();  // warm-up pass
  // CPU time of this thread as well as wall time: on a busy machine the wall clock counts time spent descheduled.
  auto cpu_now = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  };
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_now();
  for (std::uint64_t i = 0; i < lookups; ++i) found += book->lookup(probe[i & (probe.size() - 1)]).size();
  const double cpu = cpu_now() - cpu_start;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"entries\": %zu, \"lookups\": %llu, \"wall_s\": %.4f, \"cpu_s\": %.4f, \"lookups_per_second_wall\": %.0f, "
              "\"lookups_per_second_cpu\": %.0f, \"found\": %llu}\n",
              recs.size(), static_cast<unsigned long long>(lookups), secs, cpu, double(lookups) / secs, double(lookups) / cpu,
              static_cast<unsigned long long>(found));
  return kExitOk;
}

}  // namespace

void add_book_command(CLI::App& app, int& exit_code) {
  auto* book = app.add_subcommand("book", "Opening books: build from PGN, probe, merge");
  book->require_subcommand(1);

  auto bo = std::make_shared<BuildOptions>();
  auto* build = book->add_subcommand("build", "Build a book (.tbb, and/or Polyglot .bin) from PGN files");
  build->add_option("inputs", bo->inputs, "PGN files (.pgn, .pgn.zst, - for stdin)")->required();
  build->add_option("-o,--output", bo->output, "Native book to write (.tbb)");
  build->add_option("--polyglot", bo->polyglot, "Polyglot book to write (.bin)");
  build->add_flag("--polyglot-compat", bo->compat, "Reproduce 'polyglot make-book' byte for byte (writes a .bin only; takes --max-ply, --min-games, --min-score, --uniform, --only-white, --only-black)");
  build->add_option("--max-ply", bo->max_ply, "Record the first N plies of each game (default 1024)")->check(at_least(0));
  build->add_option("--min-games", bo->min_games, "Drop moves played in fewer games (default 1; 3 with --polyglot-compat)")
      ->check(at_least(0));
  build->add_option("--min-elo", bo->min_elo, "Record only moves by players rated at least E");
  build->add_option("--elo-of", bo->elo_of, "Whose rating --min-elo tests")->check(CLI::IsMember({"mover", "both", "average"}));
  build->add_option("--since", bo->since, "Only games played on or after DATE (2020, 2020-03, 2020-03-15)");
  build->add_option("--until", bo->until, "Only games played on or before DATE");
  build->add_flag("--only-white", bo->only_white, "Record only White's moves");
  build->add_flag("--only-black", bo->only_black, "Record only Black's moves");
  build->add_flag("--variations", bo->variations, "Record moves inside variations too");
  build->add_option("--min-score", bo->min_score, "With --polyglot-compat: drop moves scoring below P percent");
  build->add_flag("--uniform", bo->uniform, "With --polyglot-compat: all weights 1");
  build->add_option("--memory", bo->memory, "Bound the builder's memory (e.g. 64M, 2G); spills sorted runs to disk");
  build->add_option("--temp-dir", bo->temp_dir, "Directory for spill runs (default: the system temp directory)");
  build->add_option("-t,--threads", bo->threads, "Worker threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  build->add_flag("-q,--quiet", bo->quiet, "No progress or summary on stderr");
  build->footer(
      "Examples:\n"
      "  tbkit book build games.pgn.zst -o games.tbb --max-ply 30 --min-games 2\n"
      "  tbkit book build a.pgn b.pgn -o ab.tbb --polyglot ab.bin --min-elo 2400 --elo-of both --memory 2G -t 4\n"
      "  tbkit book build games.pgn --polyglot-compat --max-ply 20 -o games.bin   # same bytes as polyglot make-book\n"
      "Exit codes: 0 ok, 2 bad option, 3 I/O error, 4 corrupt input.");
  build->callback([bo, &exit_code] { exit_code = run_build(*bo); });

  auto po = std::make_shared<ProbeOptions>();
  auto* probe = book->add_subcommand("probe", "List a position's book moves (tbkit .tbb or Polyglot .bin)");
  probe->add_option("book", po->book, "Book file")->required();
  probe->add_option("fen", po->fen, "FEN (quoted or as words), or 'startpos' (default)");
  probe->add_option("-m,--moves", po->moves, "Moves to play first, e.g. \"e4 e5 Nf3\" (SAN or UCI)");
  probe->add_flag("--json", po->json, "Print JSON");
  probe->footer(
      "Examples:\n"
      "  tbkit book probe games.tbb --moves \"e4 e5 Nf3\"\n"
      "  tbkit book probe performance.bin 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' --json\n"
      "Exit codes: 0 moves found, 2 bad FEN or move, 3 I/O error, 4 corrupt book, 5 position not in the book.");
  probe->callback([po, &exit_code] { exit_code = run_probe(*po); });

  auto mo = std::make_shared<std::pair<std::vector<std::string>, std::string>>();
  auto quiet = std::make_shared<bool>(false);
  auto* merge = book->add_subcommand("merge", "Add the statistics of native books into one");
  merge->add_option("inputs", mo->first, "Books to merge (.tbb)")->required()->expected(2, -1);
  merge->add_option("-o,--output", mo->second, "Book to write")->required();
  merge->add_flag("-q,--quiet", *quiet, "No summary on stderr");
  merge->footer("Examples:\n  tbkit book merge 2023.tbb 2024.tbb -o all.tbb\nExit codes: 0 ok, 3 I/O error, 4 corrupt input or count overflow.");
  merge->callback([mo, quiet, &exit_code] { exit_code = run_merge(mo->first, mo->second, *quiet); });

  add_book_learn_command(*book, exit_code);

  auto bl = std::make_shared<std::pair<std::string, std::pair<std::uint64_t, std::uint64_t>>>("", std::make_pair(5000000ULL, 5000000ULL));
  auto* bench = book->add_subcommand("bench-lookup", "Measure lookups per second (benchmark scripts)");
  bench->group("");  // hidden
  bench->add_option("book", bl->first, "Book (.tbb); default: a synthetic book");
  bench->add_option("--entries", bl->second.first, "Entries of the synthetic book");
  bench->add_option("--lookups", bl->second.second, "Lookups to time");
  bench->callback([bl, &exit_code] { exit_code = run_bench_lookup(bl->first, bl->second.first, bl->second.second); });
}

}  // namespace tbkit::cli
