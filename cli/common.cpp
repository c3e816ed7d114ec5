#include "cli/common.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <system_error>

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

std::string board_text(const chess::Position& pos, bool black_view) {
  const char* files = black_view ? "   h g f e d c b a\n" : "   a b c d e f g h\n";
  std::ostringstream out;
  out << files;
  for (int i = 0; i < 8; ++i) {
    const int rank = black_view ? i : 7 - i;
    out << ' ' << rank + 1 << ' ';
    for (int j = 0; j < 8; ++j) {
      const int file = black_view ? 7 - j : j;
      out << pos.piece_on(chess::Square(file, rank)).letter() << (j < 7 ? " " : "");
    }
    out << "  " << rank + 1 << '\n';
  }
  out << files;
  return out.str();
}

int report(const Error& e) {
  std::cerr << "tbkit: " << e.message << '\n';
  return exit_code_for(e);
}

CLI::Validator at_least(std::int64_t min) {
  return CLI::Validator(
      [min](std::string& value) -> std::string {
        std::int64_t n = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, n);
        if (ec == std::errc() && ptr == end && n >= min) return {};
        return "must be a whole number, " + std::to_string(min) + " or more, got '" + value + "'";
      },
      "INT>=" + std::to_string(min), "at_least");
}

std::string hex_key(std::uint64_t k) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(k));
  return buf;
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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace tbkit::cli
