// The UCI protocol loop: reads commands from a stream, answers on another. The search runs on a
// background thread, so "stop", "isready" and "quit" are handled while it thinks.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "player/search.h"

namespace tbkit::player {

// Runs until "quit" (a running search is stopped, its bestmove sent) or end of input (a running
// search finishes first unless it is infinite).
// Errors in commands are reported as "info string error: ..." lines and the loop continues.
void run_uci(std::istream& in, std::ostream& out);

// UCI option names are not case sensitive: "Hash" and "hash" name one option.
[[nodiscard]] bool same_option_name(std::string_view a, std::string_view b);

// "info depth D seldepth S score cp X|mate N nodes N nps N time T pv m1 m2 ..."
[[nodiscard]] std::string format_info(const SearchInfo& info);

// Parses "startpos|fen F... [moves m1 m2 ...]" (the words after "position").
struct PositionLine {
  chess::Position start;             // startpos or the FEN
  std::vector<chess::Move> moves;    // the moves after it
  chess::Position pos;               // start after the moves (with their history)
};
[[nodiscard]] Result<PositionLine> parse_position_line(const std::string& args);
// parse_position_line's final position.
[[nodiscard]] Result<chess::Position> parse_position_command(const std::string& args);

// What "go ARGS" asks for (the words after "go"), in position `pos`: depth, nodes, movetime,
// wtime/btime, winc/binc, movestogo, mate N (a depth of 2N + 1), infinite, ponder (searched like
// infinite) and searchmoves (the legal moves that follow it). Numbers are clamped to what the
// search can use, so no value overflows: depths 1..kMaxGoDepth, times and increments
// 0..kMaxGoMilliseconds (movetime from 1), movestogo 0..1000, nodes from 1. A keyword without a
// number is skipped with a message in `errors`; unknown words are ignored, as UCI asks.
// limits.move_overhead_ms is left at its default: the caller sets it.
struct GoCommand {
  SearchLimits limits;
  std::vector<chess::Move> search_moves;
  std::vector<std::string> errors;
};
inline constexpr int kMaxGoDepth = 10000;
inline constexpr std::int64_t kMaxGoMilliseconds = std::int64_t{1} << 40;  // about 35 years
[[nodiscard]] GoCommand parse_go_command(const std::string& args, const chess::Position& pos);

}  // namespace tbkit::player
