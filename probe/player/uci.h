// The UCI protocol loop: reads commands from a stream, answers on another. The search runs on a
// background thread, so "stop", "isready" and "quit" are handled while it thinks.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "chess/position.h"
#include "chess/result.h"
#include "probe/player/search.h"

namespace tbkit::player {

// Runs until "quit" (a running search is stopped, its bestmove sent) or end of input (a running
// search finishes first unless it is infinite).
// Errors in commands are reported as "info string error: ..." lines and the loop continues.
void run_uci(std::istream& in, std::ostream& out);

// "info depth D seldepth S score cp X|mate N nodes N nps N time T pv m1 m2 ..."
[[nodiscard]] std::string format_info(const SearchInfo& info);

// Parses "startpos|fen F... [moves m1 m2 ...]" (the words after "position").
[[nodiscard]] Result<chess::Position> parse_position_command(const std::string& args);

}  // namespace tbkit::player
