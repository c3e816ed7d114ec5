#include "chess/fen.h"

#include <charconv>
#include <cstdio>
#include <vector>

namespace tbkit::chess {
namespace {

Error bad(std::string field, std::string msg) { return make_error(ErrorCode::kInvalidArgument, field + ": " + msg); }

Piece piece_from_letter(char c) {
  const std::string_view letters = "PNBRQK";
  for (std::size_t t = 0; t < letters.size(); ++t) {
    if (c == letters[t]) return Piece(Color::kWhite, PieceType(t));
    if (c == letters[t] + ('a' - 'A')) return Piece(Color::kBlack, PieceType(t));
  }
  return Piece::none();
}

std::vector<std::string_view> split_fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string printable(char c) {
  if (c >= 32 && c < 127) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", unsigned(static_cast<unsigned char>(c)));
  return buf;
}

Result<int> parse_counter(std::string_view text, const char* field, int min, int max) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return bad(field, "'" + std::string(text) + "' is not a number");
  if (v < min || v > max)
    return bad(field, std::string(text) + " is out of range " + std::to_string(min) + ".." + std::to_string(max));
  return v;
}

}  // namespace

Result<Position> parse_fen(std::string_view fen) {
  while (!fen.empty() && (fen.back() == '\n' || fen.back() == '\r' || fen.back() == ' ')) fen.remove_suffix(1);
  const auto fields = split_fields(fen);
  if (fields.empty()) return bad("fen", "empty");
  if (fields.size() < 4) return bad("fen", "expected at least 4 fields (board, side, castling, en passant), got " + std::to_string(fields.size()));
  if (fields.size() > 6) return bad("fen", "expected at most 6 fields, got " + std::to_string(fields.size()));

  PositionSetup s;
  s.board.fill(Piece::none());
  int rank = 7, file = 0;
  const std::string_view board = fields[0];
  for (std::size_t i = 0; i < board.size(); ++i) {
    const char c = board[i];
    const std::string at = "rank " + std::to_string(rank + 1);
    if (c == '/') {
      if (file != 8) return bad("board", at + " has " + std::to_string(file) + " squares, expected 8");
      if (rank == 0) return bad("board", "more than 8 ranks");
      --rank;
      file = 0;
    } else if (c >= '1' && c <= '8') {
      if (i > 0 && board[i - 1] >= '1' && board[i - 1] <= '9')
        return bad("board", at + ": two digits in a row ('" + std::string(board.substr(i - 1, 2)) + "'); a run of empty squares is one digit");
      file += c - '0';
      if (file > 8) return bad("board", at + " has more than 8 squares");
    } else {
      Piece p = piece_from_letter(c);
      if (p.is_none()) return bad("board", "bad character " + printable(c) + " at " + at + " (column " + std::to_string(i + 1) + " of the board field)");
      if (file >= 8) return bad("board", at + " has more than 8 squares");
      s.board[Square(file, rank).index()] = p;
      ++file;
    }
  }
  if (rank != 0) return bad("board", "only " + std::to_string(8 - rank) + " ranks, expected 8");
  if (file != 8) return bad("board", "rank 1 has " + std::to_string(file) + " squares, expected 8");

  if (fields[1] == "w") s.side = Color::kWhite;
  else if (fields[1] == "b") s.side = Color::kBlack;
  else return bad("side to move", "'" + std::string(fields[1]) + "' is not 'w' or 'b'");

  if (fields[2] != "-") {
    for (char c : fields[2]) {
      std::uint8_t bit = 0;
      switch (c) {
        case 'K': bit = kWhiteShort; break;
        case 'Q': bit = kWhiteLong; break;
        case 'k': bit = kBlackShort; break;
        case 'q': bit = kBlackLong; break;
        default: return bad("castling", "bad character " + printable(c) + " in '" + std::string(fields[2]) + "'");
      }
      if (s.castling & bit) return bad("castling", std::string("right '") + c + "' repeated");
      s.castling |= bit;
    }
  }

  const std::string_view ep = fields[3];
  if (ep != "-") {
    if (ep.size() != 2 || ep[0] < 'a' || ep[0] > 'h' || ep[1] < '1' || ep[1] > '8')
      return bad("en passant", "'" + std::string(ep) + "' is not a square");
    s.en_passant = Square(ep[0] - 'a', ep[1] - '1');
  }
  if (fields.size() >= 5) {
    auto hm = parse_counter(fields[4], "halfmove clock", 0, 65535);
    if (!hm) return hm.error();
    s.halfmove = *hm;
  }
  if (fields.size() >= 6) {
    auto fm = parse_counter(fields[5], "fullmove number", 1, 1000000);
    if (!fm) return fm.error();
    s.fullmove = *fm;
  }
  return Position::from_setup(s);
}

std::string to_fen(const Position& pos) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      Piece p = pos.piece_on(Square(file, rank));
      if (p.is_none()) {
        ++empty;
        continue;
      }
      if (empty) out += char('0' + empty);
      empty = 0;
      out += p.letter();
    }
    if (empty) out += char('0' + empty);
    if (rank) out += '/';
  }
  out += pos.side_to_move() == Color::kWhite ? " w " : " b ";
  const std::uint8_t c = pos.castling_rights();
  if (!c) out += '-';
  if (c & kWhiteShort) out += 'K';
  if (c & kWhiteLong) out += 'Q';
  if (c & kBlackShort) out += 'k';
  if (c & kBlackLong) out += 'q';
  out += ' ';
  out += pos.en_passant().is_none() ? std::string("-") : pos.en_passant().name();
  out += ' ' + std::to_string(pos.halfmove_clock()) + ' ' + std::to_string(pos.fullmove_number());
  return out;
}

char Piece::letter() const {
  if (is_none()) return '.';
  const char upper = "PNBRQK"[index_of(type())];
  return color() == Color::kWhite ? upper : char(upper + ('a' - 'A'));
}

std::string Square::name() const {
  if (is_none()) return "-";
  return std::string{char('a' + file()), char('1' + rank())};
}

}  // namespace tbkit::chess
