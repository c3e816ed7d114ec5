#include "player/openings.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "chess/fen.h"

namespace tbkit::player {

Result<std::vector<Opening>> read_openings(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return make_error(ErrorCode::kIo, path.string() + ": cannot open: " + std::strerror(errno));
  std::vector<Opening> out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto semi = line.find(';');
    std::istringstream words(line.substr(0, semi));
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty() || w[0][0] == '#') continue;
    if (w.size() < 4)
      return make_error(ErrorCode::kInvalidArgument, path.string() + ":" + std::to_string(number) + ": expected a FEN");
    std::string fen = w[0] + " " + w[1] + " " + w[2] + " " + w[3];
    auto numeric = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
    if (w.size() >= 6 && numeric(w[4]) && numeric(w[5])) fen += " " + w[4] + " " + w[5];
    else fen += " 0 1";
    auto pos = chess::parse_fen(fen);
    if (!pos)
      return make_error(pos.error().code, path.string() + ":" + std::to_string(number) + ": " + pos.error().message);
    out.push_back({std::move(*pos), {}, path.filename().string() + ":" + std::to_string(number)});
  }
  return out;
}

std::vector<Opening> book_openings(const OpeningBook& book, int count, int plies, std::uint32_t min_games,
                                   std::mt19937_64& rng) {
  std::vector<Opening> out;
  const BookPolicy policy{min_games, BookSelection::kWeighted};
  for (int i = 0; i < count; ++i) {
    Opening o;
    chess::Position pos;
    for (int p = 0; p < plies; ++p) {
      const auto m = book.choose(pos, policy, rng);
      if (!m) break;
      o.moves.push_back(*m);
      pos.do_move(*m);
    }
    o.label = "book line " + std::to_string(i + 1);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace tbkit::player
