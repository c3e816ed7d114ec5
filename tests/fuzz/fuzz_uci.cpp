// libFuzzer target: input bytes as UCI commands, one per line, to the player's protocol loop, with
// "quit" appended so any search they start is stopped. Lines that mention a file, a path or the
// hash size are dropped first (the fuzzer must not read the machine's files or allocate GiBs; the
// script starts with a 1 MiB hash), and "go" lines get a budget of 300 nodes at their end, so
// searches stay short.
// Every line the engine answers must be one a GUI can read: "id", "option", "uciok", "readyok",
// "info ...", "bestmove MOVE [ponder MOVE]" with moves in UCI notation, or a FEN (the "d" command).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "chess/fen.h"
#include "player/uci.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// Whether the line names a file, a path or the hash size, in any case.
bool dropped(std::string_view line) {
  std::string lower(line);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"file", "path", "hash"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

// "0000" or a move like e2e4 / e7e8q.
bool uci_move_text(std::string_view m) {
  if (m == "0000") return true;
  if (m.size() != 4 && m.size() != 5) return false;
  for (std::size_t i = 0; i < 4; ++i)
    if (i % 2 == 0 ? (m[i] < 'a' || m[i] > 'h') : (m[i] < '1' || m[i] > '8')) return false;
  return m.size() == 4 || std::string_view("qrbn").find(m[4]) != std::string_view::npos;
}

bool readable_answer(const std::string& line) {
  std::istringstream words(line);
  std::string first;
  if (!(words >> first)) return false;
  if (first == "id" || first == "option" || first == "uciok" || first == "readyok" || first == "info") return true;
  if (first == "bestmove") {
    std::string move, ponder, reply, extra;
    if (!(words >> move) || !uci_move_text(move)) return false;
    if (!(words >> ponder)) return true;
    return ponder == "ponder" && (words >> reply) && uci_move_text(reply) && !(words >> extra);
  }
  return tbkit::chess::parse_fen(line).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string script = "setoption name Hash value 1\n";  // a 1 MiB table: cheaper runs
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (!dropped(line)) {
      script.append(line);
      // A node budget keeps every search short; it comes last, so it replaces the line's own.
      script += line.substr(0, 3) == "go " || line == "go" ? " nodes 300\n" : "\n";
    }
    start = end + 1;
  }
  script += "quit\n";
  std::istringstream in(script);
  std::ostringstream out;
  tbkit::player::run_uci(in, out);
  std::istringstream answers(out.str());
  for (std::string line; std::getline(answers, line);) TBKIT_FUZZ_CHECK(readable_answer(line));
  return 0;
}
