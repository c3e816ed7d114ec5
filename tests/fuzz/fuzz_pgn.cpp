// libFuzzer target: input bytes as a PGN collection. Reads them twice, from memory and through the
// streaming lexer with a tiny buffer, following variations; the two must agree on every count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pgn/lexer.h"
#include "pgn/reader.h"
#include "pgn/reader_game.h"
#include "tests/pgn/string_input.h"

namespace {

class CountingVisitor final : public tbkit::pgn::Visitor {
 public:
  void begin_game(const tbkit::pgn::GameLocation&) override { ++events; }
  void tag(std::string_view name, std::string_view value) override { events += name.size() + value.size(); }
  void move(const tbkit::chess::Position& before, tbkit::chess::Move m, int depth) override {
    events += m.raw() + std::uint64_t(depth) + before.key() % 7;
  }
  void comment(std::string_view text) override { events += text.size(); }
  void end_game(tbkit::pgn::GameResult r, const tbkit::pgn::GameError* e) override { events += int(r) + (e ? 100 : 0); }
  std::uint64_t events = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tbkit::pgn::ReaderOptions options;
  options.follow_variations = (size % 2) == 0;
  options.on_error = (size % 3) == 0 ? tbkit::pgn::ReaderOptions::OnError::kCutGame
                                     : tbkit::pgn::ReaderOptions::OnError::kSkipGame;
  CountingVisitor memory_visitor;
  const auto memory = tbkit::pgn::read_pgn_text(text, "fuzz", memory_visitor, options);

  tbkit::test::StringInput input(std::string(text), 5);
  tbkit::pgn::Lexer lexer(input, 3);
  tbkit::pgn::ParseCounts counts;
  CountingVisitor stream_visitor;
  tbkit::pgn::parse_games(lexer, "fuzz", stream_visitor, options, counts);
  if (counts.games_read != memory.games_read || counts.games_used != memory.games_used ||
      stream_visitor.events != memory_visitor.events || lexer.bytes() != size)
    std::abort();
  return 0;
}
