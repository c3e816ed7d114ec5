// Syzygy's position index (WDL50/DTZ50 files, .rtbw/.rtbz): the table's material, the piece order and
// grouping stored in a file header, and the mapping between placements and indices in both directions.
// Everything here is a pure value: thread-safe to share. Field tables: docs/formats/syzygy.md.
//
// Vocabulary:
// - Table orientation: the table's "white" is the first side of its name (KQvKR: K+Q). A position whose
//   white pieces are the table's black ones is probed with colours swapped and ranks mirrored; so is a
//   position of a symmetric table (KPvKP) with black to move. `orient` does this.
// - Subtable: one (side to move, lead file) part of a file. Pawnless tables have one lead file (0);
//   pawn tables one per file a..d of the leading pawn (b..d also hold the mirrored files g..e).
//   WDL files of unsymmetric material store both sides to move (2 sides), the rest one.
// - Piece order: the order in which the file lists the pieces of a subtable; it defines the groups
//   (pieces encoded together) and `encode`/`decode` take and give squares in this order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "chess/types.h"

namespace tbkit::formats::syzygy {

inline constexpr int kMaxPieces = 7;
inline constexpr int kMaxFiles = 4;  // lead-pawn files a..d

using SquareList = std::array<chess::Square, kMaxPieces>;
using PieceList = std::array<chess::Piece, kMaxPieces>;

// Syzygy's piece code as stored in headers: 1..6 white pawn..king, 9..14 black pawn..king.
[[nodiscard]] constexpr int piece_code(chess::Piece p) {
  return 1 + chess::index_of(p.type()) + (p.color() == chess::Color::kBlack ? 8 : 0);
}
// The piece of a header code, or none for a code that names no piece (0, 7, 8, 15).
[[nodiscard]] constexpr chess::Piece piece_of_code(int code) {
  const int type = (code & 7) - 1;
  if (code < 0 || code > 15 || type < 0 || type > 5) return chess::Piece::none();
  return chess::Piece((code & 8) ? chess::Color::kBlack : chess::Color::kWhite, chess::PieceType(type));
}

// The material of one table: piece counts per colour in the table's orientation (white = the side
// named first). Kings included. A value type.
class TableMaterial {
 public:
  TableMaterial() = default;
  // Parses a table name such as "KQvKR" or "KPPvKP" (an optional ".rtbw"/".rtbz" suffix is ignored).
  // Errors: kInvalidArgument naming the text, for a malformed name, not exactly one king a side,
  // fewer than 3 or more than 7 men.
  [[nodiscard]] static Result<TableMaterial> from_name(std::string_view name);
  // The material of a position, white's pieces first (no validation of the piece count beyond 7).
  [[nodiscard]] static Result<TableMaterial> from_position(const chess::Position& pos);

  [[nodiscard]] int count(chess::Color c, chess::PieceType t) const {
    return counts_[chess::index_of(c)][chess::index_of(t)];
  }
  [[nodiscard]] int piece_count() const;
  [[nodiscard]] int pawn_count(chess::Color c) const { return count(c, chess::PieceType::kPawn); }
  [[nodiscard]] bool has_pawns() const { return pawn_count(chess::Color::kWhite) + pawn_count(chess::Color::kBlack) > 0; }
  // Both sides have the same pieces (KPvKP): files store white to move only.
  [[nodiscard]] bool is_symmetric() const { return counts_[0] == counts_[1]; }
  // Some side has a piece other than the king of which it has exactly one (Syzygy then encodes three
  // unique pieces together in pawnless tables instead of the two kings).
  [[nodiscard]] bool has_unique_pieces() const;
  // The colour whose pawns lead (are encoded first): the one with fewer pawns, white if equal or if
  // black has none. Meaningful only when has_pawns().
  [[nodiscard]] chess::Color lead_color() const;
  [[nodiscard]] int lead_pawn_count() const { return has_pawns() ? pawn_count(lead_color()) : 0; }
  [[nodiscard]] int other_pawn_count() const { return has_pawns() ? pawn_count(~lead_color()) : 0; }
  // The same material with colours exchanged.
  [[nodiscard]] TableMaterial swapped() const;
  // "KQvKR": white's pieces then black's, each from king down to pawn.
  [[nodiscard]] std::string name() const;
  friend bool operator==(const TableMaterial&, const TableMaterial&) = default;

 private:
  std::array<std::array<std::uint8_t, chess::kPieceTypeCount>, 2> counts_{};
};

// A position's men seen in a table's orientation: its colour and type boards as they are, and
// whether the orientation exchanges colours (then ranks are mirrored too) as of() applies it. The
// boards are a legal board's: each man on one colour board and one type board.
struct OrientedPosition {
  std::array<chess::Bitboard, 2> colour{};                       // as in the position
  std::array<chess::Bitboard, chess::kPieceTypeCount> type{};    // as in the position
  int side = 0;          // side to move in table orientation: 0 white, 1 black
  bool swapped = false;  // colours are exchanged (and ranks mirrored) in table orientation

  // The squares of a table-orientation piece's men, in table orientation.
  [[nodiscard]] chess::Bitboard of(chess::Piece p) const {
    const chess::Bitboard b = colour[std::size_t(chess::index_of(p.color()) ^ int(swapped))] &
                              type[std::size_t(chess::index_of(p.type()))];
    return swapped ? chess::flip_ranks(b) : b;
  }
  // Puts a man on a square (of a position built in table orientation: swapped false).
  void add(chess::Piece p, chess::Square s) {
    colour[std::size_t(chess::index_of(p.color()))] |= s.bb();
    type[std::size_t(chess::index_of(p.type()))] |= s.bb();
  }
};

// Puts a position into the orientation of a table of material m (see the top of this file). The
// en-passant right and the move counters are ignored. Errors: kInvalidArgument when the position's
// material is not m in either colour orientation.
[[nodiscard]] Result<OrientedPosition> orient(const TableMaterial& m, const chess::Position& pos);

// The lead file (0..3 = a..d, mirrored) of a pawn table's placement: the file of the leading pawn, the
// lead-colour pawn nearest the a/h edge and, on equal files, lowest in rank. 0 for pawnless material.
[[nodiscard]] int lead_file(const TableMaterial& m, const OrientedPosition& op);

// The index scheme of one subtable: piece order, groups and group factors. Immutable once built.
class SubtableIndex {
 public:
  // Builds the scheme from a material, the subtable's piece order (m.piece_count() pieces, each a
  // piece of m in table orientation: pawn tables begin with all the lead colour's pawns, then the
  // other colour's pawns), the order bytes' nibbles (order0: position of the leading group among the
  // encoding factors, 0 = least significant; order1: that of the other colour's pawns, 0xF when that
  // colour has none) and the lead file (0..3; 0 for pawnless tables). Pawnless tables begin with the
  // leading group: three different pieces when m.has_unique_pieces(), else the two kings.
  // Errors: kInvalidArgument saying which argument is inconsistent.
  [[nodiscard]] static Result<SubtableIndex> create(const TableMaterial& m, std::span<const chess::Piece> order,
                                                    int order0, int order1, int file);

  [[nodiscard]] const TableMaterial& material() const { return material_; }
  [[nodiscard]] int piece_count() const { return count_; }
  [[nodiscard]] chess::Piece piece(int i) const { return pieces_[i]; }
  [[nodiscard]] std::span<const chess::Piece> pieces() const { return {pieces_.data(), std::size_t(count_)}; }
  [[nodiscard]] int order0() const { return order0_; }
  [[nodiscard]] int order1() const { return order1_; }
  [[nodiscard]] int file() const { return file_; }
  // Groups in piece order: group g holds group_length(g) consecutive pieces and has encoding factor
  // group_factor(g) (its digit's weight in the index).
  [[nodiscard]] int group_count() const { return groups_; }
  [[nodiscard]] int group_length(int g) const { return group_len_[g]; }
  [[nodiscard]] std::uint64_t group_factor(int g) const { return group_factor_[g]; }
  // Number of indices of this subtable (valid indices are 0 .. size()-1).
  [[nodiscard]] std::uint64_t size() const { return size_; }

  // The index of an oriented position whose lead file is file(): encode() of its men in this
  // subtable's piece order. kNoIndex when its men are not this subtable's or encode() has no index
  // for them (the probe library's hot path: no squares list in between).
  [[nodiscard]] std::uint64_t index_for(const OrientedPosition& op) const;

  // The index of a placement: squares in piece order, table orientation (colours already swapped).
  // Applies Syzygy's normalisation itself: leading pawn choice, a-d file mirror, and for pawnless
  // tables the rank mirror and the a1-h8 diagonal flip; pieces of a group may come in any order.
  // nullopt when the placement is not encodable here: two men on one square, a pawn on rank 1 or 8,
  // a leading pawn on another lead file than file(), or (two-king leading group) adjacent kings.
  [[nodiscard]] std::optional<std::uint64_t> encode(std::span<const chess::Square> squares) const;
  // The same as a plain number, kNoIndex for nullopt (for loops over many placements: cheaper).
  static constexpr std::uint64_t kNoIndex = ~std::uint64_t{0};
  [[nodiscard]] std::uint64_t encode_or_none(std::span<const chess::Square> squares) const;
  // The same for square numbers (0..63) known to be distinct, no pawn on rank 1 or 8: a placement
  // that decode() of some subtable of the material gives, in this subtable's piece order. Skips
  // those checks (the writer's order maps call it for every index of a subtable).
  [[nodiscard]] std::uint64_t encode_distinct(std::span<const int> squares) const;
  // The same for a placement already in this subtable's normal form whose leading group's digit is
  // known: the squares of decode(i) of a subtable whose leading group (and, in pawn tables, the other
  // colour's pawns) comes first in the same piece order, and that subtable's group-0 digit of i.
  // Skips the symmetry and validity checks; encode_or_none gives the same index.
  [[nodiscard]] std::uint64_t encode_normal(std::span<const int> squares, std::uint64_t lead_digit) const;
  // encode_normal's index in two parts, their sum: prefix_value of the prefix's digits (the leading
  // group's; pawn_digit, the other colour's pawns', only where both colours have pawns) and
  // rest_value of the other men, each given as its position among the squares the prefix leaves
  // free, in this subtable's piece order after the prefix (SubtableWalk::rest_positions of a
  // subtable with the same prefix). The rest's part does not change with the prefix: a map from a
  // walk whose prefix steps keeps it.
  [[nodiscard]] std::uint64_t prefix_value(std::uint64_t lead_digit, std::uint64_t pawn_digit) const;
  [[nodiscard]] std::uint64_t rest_value(std::span<const int> positions) const;

  // The canonical placement of an index, squares in piece order (groups in ascending square order,
  // the leading pawn first). encode(*decode(i)) == i for every i < size(); nullopt for i >= size().
  // Placements may still be illegal chess positions (side not to move in check, adjacent kings).
  [[nodiscard]] std::optional<SquareList> decode(std::uint64_t index) const;

 private:
  friend class SubtableWalk;
  // An index's digit of each group (index < size()).
  void digits_of(std::uint64_t index, std::uint64_t* digit) const;
  // Places every group by its digits into sq (decode's placement).
  void place(const std::uint64_t* digit, int sq[]) const;
  // The leading group's squares for its digit, into sq[0 ..).
  void place_lead(std::uint64_t lead, int sq[]) const;
  // The other colour's pawns (group 1 where both colours have pawns) for their digit, into sq after
  // the leading group, whose squares `lead` holds.
  void place_pawns(std::uint64_t digit, std::uint64_t lead, int sq[]) const;
  // encode_or_none of distinct squares (as indices) in piece order, no pawn on rank 1 or 8.
  std::uint64_t encode_placed(const int* at) const;
  // The index of squares in normal form (sorted within each group in place) whose leading group's
  // value is lead_value.
  std::uint64_t index_after_lead(int* sq, std::uint64_t lead_value) const;

  // What index_for reads, together (few cache lines for a probe): runs of one kind of man in the
  // piece order (identical men are adjacent), each its piece, first slot and length.
  struct KindRun {
    chess::Piece piece;
    std::uint8_t first = 0, count = 0;
  };
  std::array<KindRun, kMaxPieces> runs_{};
  int run_count_ = 0;
  int count_ = 0;
  int groups_ = 0;
  int file_ = 0;
  std::array<int, kMaxPieces + 1> group_len_{};
  std::array<std::uint64_t, kMaxPieces + 1> group_factor_{};
  TableMaterial material_;
  PieceList pieces_{};
  std::array<std::uint64_t, kMaxPieces + 1> group_radix_{};  // values of each group's digit
  std::array<std::int8_t, kMaxPieces + 1> slot_group_{};  // group of each slot, least significant first
  std::uint64_t size_ = 0;
  int order0_ = 0;
  int order1_ = 0xF;
};

// The placements of consecutive indices of one subtable, each made from the one before. The
// prefix (the leading group, and the other colour's pawns when both colours have pawns) is placed
// again only when its digits change. Every other man is kept as its position among the squares the
// prefix leaves free, which changes only with its own group's digit or those of groups before it in
// piece order; its square is that position among the prefix's free squares. So a step of a leading
// group that is the least significant digit places the prefix and turns each other man's kept
// position into a square, with no combinatorial unranking. squares() is decode(index()).
class SubtableWalk {
 public:
  // Precondition: index < sub.size(); sub outlives the walk.
  SubtableWalk(const SubtableIndex& sub, std::uint64_t index);
  [[nodiscard]] std::uint64_t index() const { return index_; }
  [[nodiscard]] const SquareList& squares() const { return squares_; }
  // The same squares as numbers 0..63 (what encode_distinct and encode_normal take).
  [[nodiscard]] std::span<const int> square_numbers() const { return {sq_, std::size_t(sub_->piece_count())}; }
  // The index's digit of group g (0: the leading group's value).
  [[nodiscard]] std::uint64_t digit(int g) const { return digit_[std::size_t(g)]; }
  // Each man after the prefix as its position among the squares the prefix leaves free, indexed
  // by man (the prefix's entries unused).
  [[nodiscard]] std::span<const int> rest_positions() const { return {rest_, std::size_t(sub_->piece_count())}; }
  // The first man whose position changed in the last step; piece_count() when none did (the walk's
  // first placement counts as a change of every man after the prefix).
  [[nodiscard]] int rest_changed() const { return rest_changed_; }
  // On to index() + 1. Precondition: index() + 1 < size().
  void next();

 private:
  // Places the prefix (the leading group too when `lead`, else only the other colour's pawns).
  void place_prefix(bool lead);
  // The positions, among the prefix's free squares, of the men of groups from `from` on.
  void place_rest(int from);
  // The squares of the men from `from` on (after the prefix) from their positions.
  void expand(int from);
  void publish(int first);

  const SubtableIndex* sub_;
  std::uint64_t index_;
  std::array<std::uint64_t, kMaxPieces + 1> digit_{};
  int sq_[kMaxPieces] = {};
  int rest_[kMaxPieces] = {};  // men after the prefix: positions among the prefix's free squares
  std::uint64_t prefix_ = 0;   // the prefix's squares
  int prefix_groups_ = 1;
  int rest_changed_ = 0;
  std::array<int, kMaxPieces + 2> group_start_{};  // first man of each group; [groups] = piece count
  static constexpr std::uint64_t kLeadTable = 64;
  bool lead_table_ = false;  // a pawn table's leading group's squares are in lead_sq_
  std::array<std::array<std::int8_t, kMaxPieces>, kLeadTable> lead_sq_{};
  SquareList squares_{};
};

// All subtables of one file: sides() x files() SubtableIndex values.
struct TableIndex {
  TableMaterial material;
  int sides = 1;  // 2 for an unsymmetric WDL file, else 1
  int files = 1;  // 4 for pawn tables, else 1
  std::vector<SubtableIndex> subtables;  // [file * sides + side]

  // Where the subtable for a side to move (0 or 1, taken modulo sides) and lead file lies, here and
  // in any array ordered as `subtables`. Precondition: file < files.
  [[nodiscard]] std::size_t position(int side, int file) const {
    return std::size_t(file * sides + (side & (sides - 1)));  // sides is 1 or 2: no division
  }
  // That subtable.
  [[nodiscard]] const SubtableIndex& at(int side, int file) const { return subtables[position(side, file)]; }
};

// The piece-order header of a Syzygy file: the bytes after the 4-byte magic, from the flags byte up to
// (not including) the first per-subtable compression record. `dtz` selects the one-sided DTZ layout.
struct IndexHeader {
  TableIndex index;
  std::size_t end = 0;  // offset, relative to the span passed in, just past the header (even-aligned)
};

// Parses and validates the header bytes at the start of `bytes` (which begins at the flags byte; `base`
// is its offset in the file, used in messages and for the alignment). Errors: kCorrupt naming
// `file_name`, the byte offset and the field (flags inconsistent with the material, a piece code not of
// the material, bad order nibbles, truncation).
[[nodiscard]] Result<IndexHeader> parse_index_header(std::span<const std::byte> bytes, std::size_t base,
                                                     const TableMaterial& m, bool dtz, std::string_view file_name);

// The header bytes for a table index, from the flags byte on, with the padding byte that makes the
// header end on an even file offset when it starts at file offset `base` (4 in Syzygy files).
// parse_index_header of the result gives back the same index.
[[nodiscard]] std::vector<std::byte> write_index_header(const TableIndex& index, std::size_t base, bool dtz);

// Builds a TableIndex from per-subtable piece orders and order bytes ([file * sides + side]), e.g. for
// a writer choosing its own order. sides must be 2 only for an unsymmetric WDL table.
// Errors: as SubtableIndex::create, naming the subtable.
[[nodiscard]] Result<TableIndex> make_table_index(const TableMaterial& m, int sides,
                                                  std::span<const PieceList> orders,
                                                  std::span<const std::array<int, 2>> order_nibbles);

// A default piece order for a material: pawn tables the lead pawns, other pawns, then the remaining
// pieces from white king down; pawnless tables the leading group (three unique pieces or the two kings)
// then the rest. Usable with order nibbles {0, 1 or 0xF}.
[[nodiscard]] PieceList default_piece_order(const TableMaterial& m);

}  // namespace tbkit::formats::syzygy
