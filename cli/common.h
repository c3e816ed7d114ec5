// Shared pieces of the command line: exit codes, error printing, position arguments.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "chess/position.h"
#include "chess/result.h"

namespace tbkit::cli {

// Documented exit codes (README, "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,       // a check found failures (perft suite, verify), or a game was lost by rule
  kExitBadInput = 2,     // bad FEN, SAN, option or usage
  kExitIo = 3,           // a file could not be opened, read or written
  kExitCorrupt = 4,      // a file failed validation (magic, version, checksum, truncation)
  kExitUnavailable = 5,  // no table or book covers the request
  kExitInterrupted = 130,
};

[[nodiscard]] int exit_code_for(const Error& e);
// Prints "tbkit: <message>" on stderr and returns the exit code for the error.
int report(const Error& e);

// The board as text, files along the top and bottom, ranks at both sides (" 8 r n b q k b n r  8"),
// from White's side or, with black_view, from Black's (rank 1 at the top).
[[nodiscard]] std::string board_text(const chess::Position& pos, bool black_view = false);

// A 64-bit key as 16 lowercase hex digits (Polyglot keys).
[[nodiscard]] std::string hex_key(std::uint64_t k);

// Wall seconds since t0.
[[nodiscard]] double seconds_since(std::chrono::steady_clock::time_point t0);

// A CLI11 check for a whole-number option of at least `min`: "--movetime: must be a whole number,
// 1 or more, got '0'" (CLI11's own positive/non-negative checks print their range as doubles).
[[nodiscard]] CLI::Validator at_least(std::int64_t min);

// Joins positional words into a FEN; "startpos" (or nothing) is the initial position.
[[nodiscard]] Result<chess::Position> position_from_words(const std::vector<std::string>& words);

// Each subcommand registers itself; its callback stores the process exit code in `exit_code`.
void add_position_command(CLI::App& app, int& exit_code);
void add_perft_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_gen_command(CLI::App& app, int& exit_code);
void add_verify_command(CLI::App& app, int& exit_code);
void add_stats_command(CLI::App& app, int& exit_code);
void add_pgn_command(CLI::App& app, int& exit_code);
void add_book_command(CLI::App& app, int& exit_code);
void add_probe_command(CLI::App& app, int& exit_code);
void add_uci_command(CLI::App& app, int& exit_code);
void add_play_command(CLI::App& app, int& exit_code);
void add_match_command(CLI::App& app, int& exit_code);
void add_explore_command(CLI::App& app, int& exit_code);

}  // namespace tbkit::cli
