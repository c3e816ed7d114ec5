#include "cli/common.h"

#include <iostream>

#include "chess/fen.h"

namespace tbkit::cli {

int exit_code_for(const Error& e) {
  switch (e.code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kIllegal: return kExitBadInput;
    case ErrorCode::kIo: return kExitIo;
    case ErrorCode::kCorrupt:
    case ErrorCode::kVersion: return kExitCorrupt;
    case ErrorCode::kUnavailable: return kExitUnavailable;
  }
  return kExitFailed;
}

int report(const Error& e) {
  std::cerr << "tbkit: " << e.message << '\n';
  return exit_code_for(e);
}

Result<chess::Position> position_from_words(const std::vector<std::string>& words) {
  if (words.empty() || (words.size() == 1 && words[0] == "startpos")) return chess::Position();
  std::string fen;
  for (const auto& w : words) {
    if (!fen.empty()) fen += ' ';
    fen += w;
  }
  auto pos = chess::parse_fen(fen);
  if (!pos) return make_error(pos.error().code, "bad FEN '" + fen + "': " + pos.error().message);
  return pos;
}

}  // namespace tbkit::cli
