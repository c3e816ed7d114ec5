// tbkit perft: node counts for one position, or a whole suite checked against expected counts.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "chess/fen.h"
#include "chess/notation.h"
#include "chess/perft.h"
#include "chess/perft_suite.h"
#include "cli/common.h"

namespace tbkit::cli {
namespace {

struct PerftOptions {
  std::vector<std::string> args;  // FEN words..., DEPTH
  bool divide = false;
  std::string suite;
  int max_depth = 99;
  int limit = 0;
};

int run_suite(const PerftOptions& o) {
  std::ifstream in(o.suite);
  if (!in) return report(make_error(ErrorCode::kIo, o.suite + ": cannot open: " + std::strerror(errno)));
  auto cases = chess::parse_perft_suite(in, o.suite);
  if (!cases) return report(cases.error());
  std::uint64_t passed = 0, failed = 0, nodes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  int count = 0;
  for (const auto& c : *cases) {
    if (o.limit > 0 && count >= o.limit) break;
    ++count;
    auto pos = chess::parse_fen(c.fen);
    if (!pos) {
      std::cout << "FAIL " << c.name << " (" << o.suite << ":" << c.line << "): bad FEN: " << pos.error().message << '\n';
      ++failed;
      continue;
    }
    for (const auto& [depth, expected] : c.expected) {
      if (depth > o.max_depth) continue;
      const std::uint64_t got = chess::perft(*pos, depth);
      nodes += got;
      if (got == expected) {
        ++passed;
      } else {
        ++failed;
        std::cout << "FAIL " << c.name << " (" << o.suite << ":" << c.line << ") depth " << depth << ": expected " << expected
                  << ", got " << got << "  " << c.fen << '\n';
      }
    }
  }
  const double secs = seconds_since(t0);
  std::fprintf(stderr, "%d positions, %llu nodes in %.2f s (%.1f Mnodes/s)\n", count,
               static_cast<unsigned long long>(nodes), secs, secs > 0 ? double(nodes) / secs / 1e6 : 0.0);
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? kExitFailed : kExitOk;
}

int run_perft(const PerftOptions& o) {
  if (!o.suite.empty()) return run_suite(o);
  if (o.args.empty()) return report(make_error(ErrorCode::kInvalidArgument, "perft: give (FEN|startpos) DEPTH, or --suite FILE"));
  const std::string& depth_text = o.args.back();
  int depth = -1;
  if (depth_text.find_first_not_of("0123456789") == std::string::npos && depth_text.size() <= 2) depth = std::stoi(depth_text);
  if (depth < 0 || depth > 15) return report(make_error(ErrorCode::kInvalidArgument, "perft: DEPTH must be 0..15, got '" + depth_text + "'"));
  auto pos = position_from_words(std::vector<std::string>(o.args.begin(), o.args.end() - 1));
  if (!pos) return report(pos.error());
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t nodes = 0;
  if (o.divide) {
    for (const auto& [m, n] : chess::perft_divide(*pos, depth)) {
      std::cout << chess::to_uci(m) << ": " << n << '\n';
      nodes += n;
    }
    std::cout << '\n';
  } else {
    nodes = chess::perft(*pos, depth);
  }
  const double secs = seconds_since(t0);
  std::printf("Nodes: %llu\nTime: %.3f s\nNodes/s: %.0f\n", static_cast<unsigned long long>(nodes), secs,
              secs > 0 ? double(nodes) / secs : 0.0);
  return kExitOk;
}

}  // namespace

void add_perft_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<PerftOptions>();
  auto* cmd = app.add_subcommand("perft", "Count leaf nodes of the legal move tree (move generator check)");
  cmd->add_option("args", opts->args, "(FEN|startpos) DEPTH");
  cmd->add_flag("--divide", opts->divide, "Print the count below each legal root move");
  cmd->add_option("--suite", opts->suite, "Run an EPD (;D1 20 ...) or .perft (id/epd/perft) suite");
  cmd->add_option("--max-depth", opts->max_depth, "With --suite: skip depths above D")->check(CLI::Range(1, 20));
  cmd->add_option("--limit", opts->limit, "With --suite: only the first N positions")->check(at_least(0));
  cmd->footer(
      "Examples:\n"
      "  tbkit perft startpos 6\n"
      "  tbkit perft 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 3 --divide\n"
      "  tbkit perft --suite data/perft/perftsuite.epd --max-depth 4\n"
      "A suite prints one line per failure, then 'N passed, N failed'.\n"
      "Exit codes: 0 all passed, 1 a count differed, 2 bad FEN or arguments, 3 unreadable file.");
  cmd->callback([opts, &exit_code] { exit_code = run_perft(*opts); });
}

}  // namespace tbkit::cli
