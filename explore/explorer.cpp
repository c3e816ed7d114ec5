#include "explore/explorer.h"

#include <charconv>
#include <map>
#include <sstream>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "explore/assets.h"
#include "explore/json_text.h"
#include "explore/query.h"
#include "explore/table_report.h"

namespace tbkit::explore {
namespace {

constexpr std::string_view kJson = "application/json; charset=utf-8";
constexpr std::size_t kMaxMoves = 1024;  // a line longer than any game worth exploring


HttpResponse json_response(int status, std::string body) { return HttpResponse{status, std::string(kJson), std::move(body)}; }

HttpResponse error_response(int status, std::string_view field, const std::string& message) {
  std::string body = "{\"error\": " + json_string(message);
  if (!field.empty()) body += ", \"field\": " + json_string(field);
  return json_response(status, body + "}");
}

// The parameters of `query`, refusing any not in `allowed`.
Query read_params(std::string_view query, std::initializer_list<std::string_view> allowed) {
  Query q = parse_query(query);
  for (const auto& [name, value] : q.params) {
    bool known = false;
    for (auto a : allowed) known = known || name == a;
    if (!known && q.ok()) {
      q.field = name;
      q.problem = name + ": unknown parameter";
    }
  }
  return q;
}

HttpResponse bad_params(const Query& q) { return error_response(400, q.field, q.problem); }

// "startpos" or a FEN. Errors name the field.
Result<chess::Position> position_param(const Query& query) {
  const auto it = query.params.find("fen");
  if (it == query.params.end() || it->second.empty()) return make_error(ErrorCode::kInvalidArgument, "missing: give a FEN or 'startpos'");
  if (it->second == "startpos") return chess::Position();
  auto pos = chess::parse_fen(it->second);
  if (!pos) return make_error(pos.error().code, "bad FEN: " + pos.error().message);
  return pos;
}

std::string moves_array(const chess::Position& pos, const chess::MoveList& moves) {
  std::string out = "[";
  for (std::size_t i = 0; i < moves.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"san\": " + json_string(chess::to_san(pos, moves[i])) + ", \"uci\": \"" + chess::to_uci(moves[i]) + "\"}";
  return out + "]";
}

HttpResponse position_api(const Query& query) {
  auto start = position_param(query);
  if (!start) return error_response(400, "fen", start.error().message);
  chess::Position pos = *start;
  std::string line = "[";
  if (const auto it = query.params.find("moves"); it != query.params.end()) {
    // Moves in SAN or UCI, separated by commas or spaces.
    std::string text = it->second;
    for (char& c : text)
      if (c == ',') c = ' ';
    std::istringstream words(text);
    std::string word;
    std::size_t n = 0;
    while (words >> word) {
      if (++n > kMaxMoves) return error_response(400, "moves", "more than " + std::to_string(kMaxMoves) + " moves");
      auto m = chess::parse_uci(pos, word);
      if (!m) m = chess::parse_san(pos, word);
      if (!m)
        return json_response(400, "{\"error\": " + json_string("'" + word + "' is not a legal move in " + chess::to_fen(pos)) +
                                      ", \"field\": \"moves\", \"move\": " + json_string(word) + ", \"ply\": " + std::to_string(n) + "}");
      line += std::string(n > 1 ? ", " : "") + "{\"san\": " + json_string(chess::to_san(pos, *m)) + ", \"uci\": \"" + chess::to_uci(*m) + "\"}";
      pos.do_move(*m);
    }
  }
  line += "]";
  chess::MoveList legal;
  chess::generate_legal(pos, legal);
  std::string body = "{\"fen\": " + json_string(chess::to_fen(pos)) + ", \"start_fen\": " + json_string(chess::to_fen(*start)) +
                     ", \"side_to_move\": \"" + (pos.side_to_move() == chess::Color::kWhite ? "white" : "black") +
                     "\", \"status\": \"" + chess::to_string(pos.status()) + "\", \"in_check\": " + (pos.in_check() ? "true" : "false") +
                     ", \"line\": " + line + ", \"legal_moves\": " + moves_array(pos, legal) + "}";
  return json_response(200, std::move(body));
}

}  // namespace

Result<Explorer> Explorer::open(const std::vector<std::filesystem::path>& books, const std::vector<std::filesystem::path>& table_dirs) {
  Explorer e;
  for (const auto& b : books) {
    auto book = OpenBook::open(b);
    if (!book) return book.error();
    e.books_.push_back(std::move(*book));
  }
  auto tb = probe::Tablebase::open(table_dirs);
  if (!tb) return tb.error();
  e.tables_ = std::make_unique<probe::Tablebase>(std::move(*tb));
  auto sz = probe::SyzygyTablebase::open(table_dirs);
  if (!sz) return sz.error();
  e.syzygy_ = std::make_unique<probe::SyzygyTablebase>(std::move(*sz));
  return e;
}

std::vector<std::string> Explorer::warnings() const {
  std::vector<std::string> out;
  for (const auto& b : books_) out.insert(out.end(), b.warnings().begin(), b.warnings().end());
  return out;
}

HttpResponse Explorer::handle(const HttpRequest& request) const {
  if (request.method != "GET" && request.method != "HEAD") return error_response(405, "method", "only GET and HEAD are served");
  // The page's own files, matched exactly: no path names a file on disk.
  for (const Asset& a : embedded_assets())
    if (request.path == a.path) return HttpResponse{200, std::string(a.content_type), std::string(a.body)};

  if (request.path == "/api/position") {
    auto params = read_params(request.query, {"fen", "moves"});
    if (!params.ok()) return bad_params(params);
    return position_api(params);
  }
  if (request.path == "/api/book") {
    auto params = read_params(request.query, {"fen", "book"});
    if (!params.ok()) return bad_params(params);
    auto pos = position_param(params);
    if (!pos) return error_response(400, "fen", pos.error().message);
    std::size_t index = 0;
    if (const auto it = params.params.find("book"); it != params.params.end()) {
      const std::string& s = it->second;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), index);
      if (ec != std::errc() || end != s.data() + s.size() || s.empty())
        return error_response(400, "book", "book: '" + s + "' is not a book number (0, 1, ...)");
    }
    if (index >= books_.size())
      return error_response(404, "book", "book " + std::to_string(index) + ": no such book (" + std::to_string(books_.size()) + " given)");
    auto report = books_[index].probe(*pos);
    if (!report) return error_response(500, "book", report.error().message);
    return json_response(200, book_json(*report));
  }
  if (request.path == "/api/tables") {
    auto params = read_params(request.query, {"fen"});
    if (!params.ok()) return bad_params(params);
    auto pos = position_param(params);
    if (!pos) return error_response(400, "fen", pos.error().message);
    auto report = probe_tables(*tables_, *syzygy_, *pos);
    if (!report) {
      const ErrorCode c = report.error().code;
      // Not covered (no table for the material, or castling rights the tables do not hold).
      if (c == ErrorCode::kUnavailable || c == ErrorCode::kInvalidArgument)
        return json_response(404, "{\"error\": " + json_string(report.error().message) + ", \"field\": \"fen\", \"covered\": false}");
      return error_response(500, "tables", report.error().message);
    }
    return json_response(200, table_json(*report));
  }
  if (request.path == "/api/info") {
    if (!request.query.empty()) return error_response(400, "query", "/api/info takes no parameters");
    std::string body = "{\"books\": [";
    for (std::size_t i = 0; i < books_.size(); ++i)
      body += std::string(i ? ", " : "") + "{\"index\": " + std::to_string(i) + ", \"name\": " +
              json_string(books_[i].path().filename().string()) + ", \"format\": \"" + books_[i].format() + "\"}";
    const auto names = [](const std::vector<std::string>& v) {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_string(v[i]);
      return s + "]";
    };
    body += "], \"tables\": {\"dtm\": " + names(tables_->materials()) + ", \"dtm_max_men\": " + std::to_string(tables_->max_men()) +
            ", \"syzygy\": " + names(syzygy_->materials()) + ", \"syzygy_max_men\": " + std::to_string(syzygy_->max_men()) + "}}";
    return json_response(200, std::move(body));
  }
  return error_response(404, "path", "not found");
}

}  // namespace tbkit::explore
