// Material: the men of a table (kings implied), its Syzygy-style name and its conversions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chess/result.h"
#include "chess/types.h"

namespace tbkit::model {

// Piece counts per colour, excluding the kings. counts[colour][type] for pawn..queen.
class Material {
 public:
  constexpr Material() = default;

  // Parses "KQvKR", "KQKR" or lower case. Errors (kInvalidArgument) name the offending character.
  // The result is as written; call normalized() for the table that serves it.
  [[nodiscard]] static Result<Material> parse(std::string_view text);

  [[nodiscard]] int count(chess::Color c, chess::PieceType t) const { return counts_[index_of(c)][index_of(t)]; }
  void set_count(chess::Color c, chess::PieceType t, int n) { counts_[index_of(c)][index_of(t)] = std::uint8_t(n); }
  // Men on the board including both kings.
  [[nodiscard]] int men() const;
  [[nodiscard]] int pawns() const { return count(chess::Color::kWhite, chess::PieceType::kPawn) + count(chess::Color::kBlack, chess::PieceType::kPawn); }
  [[nodiscard]] bool has_pawns() const { return pawns() > 0; }
  [[nodiscard]] bool is_bare_kings() const { return men() == 2; }

  // The same men with colours swapped.
  [[nodiscard]] Material flipped() const;
  // True when White is not the stronger side (the table is stored with colours swapped).
  [[nodiscard]] bool needs_flip() const;
  // Stronger side as White (ties: either, chosen deterministically).
  [[nodiscard]] Material normalized() const { return needs_flip() ? flipped() : *this; }
  // True when both colours have the same men (both orientations are the same table).
  [[nodiscard]] bool is_symmetric() const { return counts_[0] == counts_[1]; }

  // "KQvKR": white men then black men, each in order K Q R B N P.
  [[nodiscard]] std::string name() const;
  // A 32-bit key of the counts (3 bits per colour and type), for fast lookups: the sum of
  // key_term over the colours and types.
  [[nodiscard]] std::uint32_t key() const;
  [[nodiscard]] static constexpr std::uint32_t key_term(int colour, int type, int count) {
    return std::uint32_t(count) << (3 * (5 * colour + type));
  }

  // Normalized materials one capture or promotion away (bare kings excluded), sorted by name.
  [[nodiscard]] std::vector<Material> conversions() const;

  friend bool operator==(const Material&, const Material&) = default;

 private:
  std::array<std::array<std::uint8_t, 5>, 2> counts_{};
};

// Orders tables so that every table comes after those it converts into: by men, then pawns, then name.
[[nodiscard]] bool generation_order_less(const Material& a, const Material& b);

// The normalized materials `m` depends on, transitively, plus `m` itself, in generation order.
[[nodiscard]] std::vector<Material> dependency_closure(const std::vector<Material>& wanted);

// Every normalized material with 3..max_men men, in generation order.
[[nodiscard]] std::vector<Material> all_materials(int max_men);

}  // namespace tbkit::model
