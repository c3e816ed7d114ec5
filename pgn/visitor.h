// The PGN visitor API: the reader calls a Visitor for each game it reads, in file order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "chess/position.h"
#include "chess/types.h"

namespace tbkit::pgn {

// Where a game starts: the source name ("-" for stdin), its 1-based number in the source (in the
// parallel reader: within its chunk, see parallel_reader.h), the 1-based line and the byte offset
// of its first token in the (decompressed) stream.
struct GameLocation {
  std::string source;
  std::uint64_t game_number = 0;
  std::uint64_t line = 0;
  std::uint64_t byte_offset = 0;
};

// "1-0", "0-1", "1/2-1/2"; "*" or no result at all is kUnknown.
enum class GameResult { kWhiteWins, kBlackWins, kDraw, kUnknown };

// Why a game was skipped or cut. reason_code is a stable snake_case word (docs/pgn.md lists them:
// illegal_move, ambiguous_move, bad_san, bad_fen, variant, bad_token, unterminated, ...); message is
// for people; line is where the offending token starts; token is that token (truncated to 80 bytes).
struct GameError {
  std::string reason_code;
  std::string message;
  std::uint64_t line = 0;
  std::string token;
};

// Receives the games. All string_views are valid only during the call. Callbacks of one game come
// in the order begin_game, tag*, begin_moves, (move | comment)*, end_game; a game that fails before
// its movetext (bad FEN, variant) gets end_game without begin_moves.
//
// Null moves ("--", "Z0", "@@@@", "null") are delivered as move(before, Move::none(), depth): the
// side to move passes and the game continues. A visitor that records positions must ignore them.
//
// Errors: with ReaderOptions::OnError::kSkipGame a bad game still delivers the moves before the bad
// one, then end_game(kUnknown, error): the visitor must discard the whole game. With kCutGame the
// moves before the bad one are good, the rest is not delivered, and end_game gets the game's result
// and the error.
class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void begin_game(const GameLocation& /*location*/) {}
  virtual void tag(std::string_view /*name*/, std::string_view /*value*/) {}
  // After the tags, with the start position (standard, or FEN/SetUp). Return false to skip the moves.
  virtual bool begin_moves(const chess::Position& /*start*/) { return true; }
  // Each move, resolved: `before` is the position it is played from. variation_depth 0 = main line;
  // moves inside (...) come only when ReaderOptions::follow_variations is set.
  virtual void move(const chess::Position& /*before*/, chess::Move /*move*/, int /*variation_depth*/) {}
  virtual void comment(std::string_view /*text*/) {}
  // Result token of the movetext (or of the Result tag when the movetext has none); error set when
  // the game was skipped or cut.
  virtual void end_game(GameResult /*result*/, const GameError* /*error*/) {}
};

struct ReaderOptions {
  // Deliver moves inside (...) too (with their depth); otherwise variations are skipped unparsed.
  bool follow_variations = false;
  enum class OnError { kSkipGame, kCutGame } on_error = OnError::kSkipGame;
  // Plies resolved per line: a move at ply >= max_ply (counted from the game's start position, in
  // the main line or a variation) is not resolved or delivered, nor is anything after it on its line
  // (comments, deeper variations); the rest of the game is only tokenized to find its end, so a bad
  // move there goes unnoticed. Tokenizer errors (bad_token, unterminated) are still reported.
  std::uint32_t max_ply = 0xFFFFFFFF;
  // Bytes read from the source at a time; tokens longer than this still work (the buffer grows).
  std::size_t buffer_size = std::size_t{1} << 20;
  // How many diagnostic messages ReadSummary keeps (the counts are always complete).
  std::size_t max_diagnostics = 20;
};

struct ReadSummary {
  std::uint64_t games_read = 0;
  // Games delivered without error (cut games count here too: their first moves are good).
  std::uint64_t games_used = 0;
  std::uint64_t bytes = 0;  // bytes of PGN text (after decompression)
  std::map<std::string, std::uint64_t> skipped_by_reason;
  std::map<std::string, std::uint64_t> cut_by_reason;  // kCutGame only
  // Followed variations dropped for a bad move (or too deep, or before any move); their games go on.
  std::map<std::string, std::uint64_t> dropped_by_reason;
  std::vector<std::string> diagnostics;                // first max_diagnostics messages
};

[[nodiscard]] const char* to_string(GameResult r);

}  // namespace tbkit::pgn
