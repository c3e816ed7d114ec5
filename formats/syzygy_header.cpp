// Syzygy's table index and file header: the subtables of a file built from piece orders, and the
// piece-order header parsed and written (declared in formats/syzygy_index.h).
#include "formats/syzygy_index.h"

#include <string>

namespace tbkit::formats::syzygy {

using chess::Color;
using chess::Piece;
using chess::PieceType;

Result<TableIndex> make_table_index(const TableMaterial& m, int sides, std::span<const PieceList> orders,
                                    std::span<const std::array<int, 2>> order_nibbles) {
  TableIndex index;
  index.material = m;
  index.sides = sides;
  index.files = m.has_pawns() ? kMaxFiles : 1;
  const std::size_t want = std::size_t(index.sides * index.files);
  if ((sides != 1 && sides != 2) || (sides == 2 && m.is_symmetric()))
    return make_error(ErrorCode::kInvalidArgument, "syzygy index of " + m.name() + ": bad side count");
  if (orders.size() != want || order_nibbles.size() != want)
    return make_error(ErrorCode::kInvalidArgument,
                      "syzygy index of " + m.name() + ": " + std::to_string(want) + " subtables expected");
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < sides; ++side) {
      const std::size_t k = std::size_t(f * sides + side);
      auto s = SubtableIndex::create(m, std::span(orders[k]).first(std::size_t(m.piece_count())),
                                     order_nibbles[k][0], order_nibbles[k][1], f);
      if (!s) {
        return make_error(s.error().code, s.error().message + " (subtable side " + std::to_string(side) + ", file " +
                                              std::to_string(f) + ")");
      }
      index.subtables.push_back(std::move(*s));
    }
  return index;
}

Result<IndexHeader> parse_index_header(std::span<const std::byte> bytes, std::size_t base, const TableMaterial& m,
                                       bool dtz, std::string_view file_name) {
  std::size_t pos = 0;
  const auto corrupt = [&](std::size_t at, const std::string& what) {
    return make_error(ErrorCode::kCorrupt, std::string(file_name) + ": byte " + std::to_string(base + at) + ": " + what);
  };
  const auto byte_at = [&](std::size_t at) { return std::uint8_t(bytes[at]); };
  if (bytes.empty()) return corrupt(0, "truncated before the table flags");
  const std::uint8_t flags = byte_at(pos++);
  const bool split = (flags & 1) != 0;
  const bool pawns = (flags & 2) != 0;
  if ((flags & 0xCU) != 0) return corrupt(0, "table flags " + std::to_string(flags) + " has unknown bits");
  if ((flags >> 4) != m.piece_count())
    return corrupt(0, "table flags: " + std::to_string(flags >> 4) + " men, material " + m.name() + " has " +
                          std::to_string(m.piece_count()));
  if (pawns != m.has_pawns()) return corrupt(0, "table flags: pawn bit does not match material " + m.name());
  if (split == m.is_symmetric()) return corrupt(0, "table flags: split bit does not match material " + m.name());

  const int sides = (!dtz && split) ? 2 : 1;
  const int files = pawns ? kMaxFiles : 1;
  const bool both_pawns = pawns && m.other_pawn_count() > 0;
  const int n = m.piece_count();
  // Fixed arrays, not vectors: with a profile, GCC 12 reports a false -Wstringop-overflow on the
  // value-initialisation of a vector of PieceList here.
  std::array<PieceList, 2 * kMaxFiles> orders{};
  std::array<std::array<int, 2>, 2 * kMaxFiles> nibbles{};
  std::array<std::size_t, kMaxFiles> record_offset{};
  for (int f = 0; f < files; ++f) {
    record_offset[std::size_t(f)] = pos;
    const std::size_t need = 1 + (both_pawns ? 1 : 0) + std::size_t(n);
    if (bytes.size() - pos < need) return corrupt(pos, "truncated in the piece header of file " + std::to_string(f));
    const std::uint8_t o0 = byte_at(pos);
    const std::uint8_t o1 = both_pawns ? byte_at(pos + 1) : std::uint8_t(0xFF);
    pos += both_pawns ? 2 : 1;
    for (int side = 0; side < sides; ++side) {
      const int shift = side ? 4 : 0;
      nibbles[std::size_t(f * sides + side)] = {(o0 >> shift) & 0xF, (o1 >> shift) & 0xF};
    }
    for (int i = 0; i < n; ++i, ++pos)
      for (int side = 0; side < sides; ++side) {
        const int code = (byte_at(pos) >> (side ? 4 : 0)) & 0xF;
        const Piece p = piece_of_code(code);
        if (p.is_none()) return corrupt(pos, "piece code " + std::to_string(code) + " names no piece");
        orders[std::size_t(f * sides + side)][std::size_t(i)] = p;
      }
  }
  IndexHeader header;
  for (int f = 0; f < files; ++f)
    for (int side = 0; side < sides; ++side) {
      const std::size_t k = std::size_t(f * sides + side);
      auto s = SubtableIndex::create(m, std::span(orders[k]).first(std::size_t(n)), nibbles[k][0], nibbles[k][1], f);
      if (!s) return corrupt(record_offset[std::size_t(f)], "piece header, side " + std::to_string(side) + ": " + s.error().message);
      header.index.subtables.push_back(std::move(*s));
    }
  header.index.material = m;
  header.index.sides = sides;
  header.index.files = files;
  if ((base + pos) & 1) {
    if (pos >= bytes.size()) return corrupt(pos, "truncated at the piece header's padding");
    ++pos;
  }
  header.end = pos;
  return header;
}

std::vector<std::byte> write_index_header(const TableIndex& index, std::size_t base, bool dtz) {
  const TableMaterial& m = index.material;
  std::vector<std::byte> out;
  out.push_back(std::byte((m.piece_count() << 4) | (m.is_symmetric() ? 0 : 1) | (m.has_pawns() ? 2 : 0)));
  const bool both_pawns = m.has_pawns() && m.other_pawn_count() > 0;
  const int sides = dtz ? 1 : index.sides;
  for (int f = 0; f < index.files; ++f) {
    const SubtableIndex& lo = index.at(0, f);
    // Syzygy's generator leaves the high nibbles zero in DTZ files and repeats the low ones in
    // one-sided WDL files.
    const SubtableIndex& hi = sides == 2 ? index.at(1, f) : lo;
    const int high = dtz ? 0 : 1;
    out.push_back(std::byte((lo.order0() & 0xF) | (high * (hi.order0() & 0xF) << 4)));
    if (both_pawns) out.push_back(std::byte((lo.order1() & 0xF) | (high * (hi.order1() & 0xF) << 4)));
    for (int i = 0; i < lo.piece_count(); ++i)
      out.push_back(std::byte(piece_code(lo.piece(i)) | (high * piece_code(hi.piece(i)) << 4)));
  }
  if ((base + out.size()) & 1) out.push_back(std::byte{0});
  return out;
}

PieceList default_piece_order(const TableMaterial& m) {
  PieceList order{};
  int n = 0;
  std::array<std::array<int, chess::kPieceTypeCount>, 2> left{};
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < chess::kPieceTypeCount; ++t) left[std::size_t(c)][std::size_t(t)] = m.count(Color(c), PieceType(t));
  const auto take = [&](Color c, PieceType t) {
    order[std::size_t(n++)] = Piece(c, t);
    --left[std::size_t(index_of(c))][std::size_t(index_of(t))];
  };
  if (m.has_pawns()) {
    for (Color c : {m.lead_color(), ~m.lead_color()})
      while (left[std::size_t(index_of(c))][0] > 0) take(c, PieceType::kPawn);
  } else if (m.has_unique_pieces()) {
    int unique = 0;
    for (int t = chess::kPieceTypeCount - 1; t >= 0 && unique < 3; --t)
      for (Color c : {Color::kWhite, Color::kBlack})
        if (unique < 3 && m.count(c, PieceType(t)) == 1) take(c, PieceType(t)), ++unique;
  } else {
    take(Color::kWhite, PieceType::kKing);
    take(Color::kBlack, PieceType::kKing);
  }
  for (Color c : {Color::kWhite, Color::kBlack})
    for (int t = chess::kPieceTypeCount - 1; t >= 0; --t)
      while (left[std::size_t(index_of(c))][std::size_t(t)] > 0) take(c, PieceType(t));
  return order;
}

}  // namespace tbkit::formats::syzygy
