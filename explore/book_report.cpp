#include "explore/book_report.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "chess/fen.h"
#include "chess/notation.h"
#include "explore/json_text.h"

namespace tbkit::explore {

Result<OpenBook> OpenBook::open(const std::filesystem::path& path) {
  OpenBook b;
  b.path_ = path;
  const std::string name = path.string();
  std::error_code ec;
  // The experience store: BOOK.learn, or a journal not folded yet.
  const bool has_store = std::filesystem::exists(formats::learned_path(path), ec) || std::filesystem::exists(formats::journal_path(path), ec);
  // A store learned into a book not built yet: its learned moves alone.
  if (!std::filesystem::exists(path, ec) && has_store) {
    auto stats = formats::read_experience_stats(path);
    if (!stats) return stats.error();
    b.learned_only_ = true;
    b.learned_ = std::move(*stats);
    return b;
  }
  if (std::filesystem::is_directory(path, ec)) return make_error(ErrorCode::kIo, name + ": is a directory");
  char head[8] = {};
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorCode::kIo, name + ": cannot open: " + std::strerror(errno));
    in.read(head, sizeof head);
    if (in.bad()) return make_error(ErrorCode::kIo, name + ": read failed");
  }
  // A .tbb without its magic is reported as a damaged tbkit book, not read as a Polyglot one.
  if (formats::has_book_magic(std::as_bytes(std::span<const char>(head, sizeof head))) || path.extension() == ".tbb") {
    auto book = formats::BookFile::open(path);
    if (!book) return book.error();
    b.tbkit_.emplace(std::move(*book));
    if (has_store) {
      auto stats = formats::read_experience_stats(path);
      if (!stats) return stats.error();
      b.learned_ = std::move(*stats);
    }
    return b;
  }
  auto book = formats::read_polyglot_book(path);
  if (!book) return book.error();
  // Polyglot files have no header, so any bytes pass for entries; both faults at once mean the file
  // is something else (a PGN, a damaged .tbb).
  if (book->partial_entry && book->unsorted)
    return make_error(ErrorCode::kCorrupt, name + ": neither a tbkit book (no TBKBOOK header) nor a Polyglot book (not a whole "
                                                  "number of 16-byte entries, and the keys are out of order)");
  b.warnings_ = book->warnings;
  if (book->entries.empty()) b.warnings_.push_back(name + ": the book holds no entries");
  b.polyglot_.emplace(std::move(*book));
  return b;
}

Result<BookReport> OpenBook::probe(const chess::Position& pos) const {
  BookReport r{pos, format(), tbkit_.has_value() || learned_only_, {}, std::nullopt};
  auto describe = [&](std::uint16_t pmove, BookMove& row) -> Status {
    auto m = formats::from_polyglot_move(pos, pmove);
    if (!m) return make_error(ErrorCode::kCorrupt, path_.string() + ": key " + key_text(pos.key()) + ": " + m.error().message);
    row.san = chess::to_san(pos, *m);
    row.uci = chess::to_uci(*m);
    return {};
  };
  if (tbkit_) {
    for (const auto& rec : tbkit_->lookup(pos.key())) {
      BookMove row;
      if (auto s = describe(rec.move, row); !s) return s.error();
      row.games = rec.games;
      row.wins = rec.mover_wins();
      row.draws = rec.draws;
      row.losses = rec.mover_losses();
      row.rated = rec.rated_games;
      row.elo_sum = rec.elo_sum;
      row.weight = 2 * std::uint64_t(rec.mover_wins()) + rec.draws;
      r.moves.push_back(row);
    }
  } else if (polyglot_) {
    for (const auto& e : polyglot_->lookup(pos.key())) {
      BookMove row;
      if (auto s = describe(e.move, row); !s) return s.error();
      row.weight = e.weight;
      r.moves.push_back(row);
    }
  }
  std::stable_sort(r.moves.begin(), r.moves.end(), [](const BookMove& a, const BookMove& b) { return a.weight > b.weight; });
  if (learned_) {
    auto l = learned_moves(*learned_, pos, formats::learned_path(path_));
    if (!l) return l.error();
    r.learned = std::move(*l);
  }
  return r;
}

Result<LearnedMoves> learned_moves(const formats::LearnedStats& stats, const chess::Position& pos, const std::filesystem::path& file) {
  LearnedMoves out;
  out.file_name = file.filename().string();
  out.games = stats.games;
  for (const auto& e : stats.lookup(pos.key())) {
    auto m = formats::from_polyglot_move(pos, e.move);
    if (!m) return make_error(ErrorCode::kCorrupt, file.string() + ": key " + key_text(pos.key()) + ": " + m.error().message);
    out.moves.push_back(LearnedMove{chess::to_san(pos, *m), chess::to_uci(*m), e});
  }
  std::stable_sort(out.moves.begin(), out.moves.end(),
                   [](const LearnedMove& a, const LearnedMove& b) { return a.entry.games > b.entry.games; });
  return out;
}

std::string learned_score(const formats::LearnedEntry& e, const char* none) {
  // A game without a known result is neither won nor lost.
  const double decided = double(e.wins) + double(e.draws) + double(e.losses);
  return decided > 0 ? percent_text(double(e.wins) + 0.5 * double(e.draws), decided) : none;
}

std::string learned_json(const LearnedMoves& learned) {
  std::ostringstream js;
  js << ", \"learned\": {\"games\": " << learned.games << ", \"moves\": [";
  for (std::size_t i = 0; i < learned.moves.size(); ++i) {
    const auto& e = learned.moves[i].entry;
    js << (i ? ", " : "") << "{\"san\": " << json_string(learned.moves[i].san) << ", \"uci\": \"" << learned.moves[i].uci
       << "\", \"games\": " << e.games << ", \"wins\": " << e.wins << ", \"draws\": " << e.draws << ", \"losses\": " << e.losses
       << ", \"unknown\": " << (e.games - e.wins - e.draws - e.losses) << ", \"score_pct\": " << learned_score(e, "null") << "}";
  }
  js << "]}";
  return js.str();
}

std::string book_json(const BookReport& r) {
  std::uint64_t total = 0;
  for (const auto& m : r.moves) total += m.weight;
  std::ostringstream out;
  out << "{\"fen\": " << json_string(chess::to_fen(r.position)) << ", \"key\": \"" << key_text(r.position.key())
      << "\", \"format\": \"" << r.format << "\", \"moves\": [";
  for (std::size_t i = 0; i < r.moves.size(); ++i) {
    const auto& m = r.moves[i];
    out << (i ? ", " : "") << "{\"san\": " << json_string(m.san) << ", \"uci\": \"" << m.uci << "\", \"weight\": " << m.weight
        << ", \"weight_pct\": " << percent_text(double(m.weight), double(total));
    if (r.has_stats) {
      out << ", \"games\": " << m.games << ", \"win_pct\": " << percent_text(double(m.wins), double(m.games))
          << ", \"draw_pct\": " << percent_text(double(m.draws), double(m.games))
          << ", \"loss_pct\": " << percent_text(double(m.losses), double(m.games))
          << ", \"avg_rating\": " << (m.rated ? std::to_string(m.elo_sum / m.rated) : "null");
    }
    out << "}";
  }
  out << "]" << (r.learned ? learned_json(*r.learned) : "") << "}";
  return out.str();
}

}  // namespace tbkit::explore
