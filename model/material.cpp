#include "model/material.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tbkit::model {

using chess::Color;
using chess::PieceType;

namespace {

constexpr PieceType kNameOrder[5] = {PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight,
                                     PieceType::kPawn};
constexpr int kValue[5] = {1, 3, 3, 5, 9};  // pawn..queen

Result<PieceType> type_of_letter(char ch) {
  switch (std::toupper(static_cast<unsigned char>(ch))) {
    case 'P': return PieceType::kPawn;
    case 'N': return PieceType::kKnight;
    case 'B': return PieceType::kBishop;
    case 'R': return PieceType::kRook;
    case 'Q': return PieceType::kQueen;
    default: return make_error(ErrorCode::kInvalidArgument, "");
  }
}

// Strength of one side: material value, then piece counts queen first.
std::array<int, 6> strength(const Material& m, Color c) {
  return {kValue[4] * m.count(c, PieceType::kQueen) + kValue[3] * m.count(c, PieceType::kRook) +
              kValue[2] * m.count(c, PieceType::kBishop) + kValue[1] * m.count(c, PieceType::kKnight) +
              kValue[0] * m.count(c, PieceType::kPawn),
          m.count(c, PieceType::kQueen), m.count(c, PieceType::kRook), m.count(c, PieceType::kBishop),
          m.count(c, PieceType::kKnight), m.count(c, PieceType::kPawn)};
}

}  // namespace

Result<Material> Material::parse(std::string_view text) {
  auto bad = [&](std::size_t pos, const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument,
                      "material '" + std::string(text) + "': " + why + " at character " + std::to_string(pos + 1));
  };
  if (text.empty() || std::toupper(static_cast<unsigned char>(text[0])) != 'K')
    return make_error(ErrorCode::kInvalidArgument, "material '" + std::string(text) + "': must start with K (e.g. KQvKR)");
  Material m;
  int side = 0;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char ch = text[i];
    const char up = char(std::toupper(static_cast<unsigned char>(ch)));
    if (up == 'V') {
      if (side != 0 || i + 1 >= text.size() || std::toupper(static_cast<unsigned char>(text[i + 1])) != 'K')
        return bad(i, "'v' must be followed by the second king");
      side = 1;
      ++i;
      continue;
    }
    if (up == 'K') {
      if (side != 0) return bad(i, "a third king");
      side = 1;
      continue;
    }
    auto t = type_of_letter(ch);
    if (!t) return bad(i, std::string("unknown piece '") + ch + "'");
    const Color c = side == 0 ? Color::kWhite : Color::kBlack;
    if (m.count(c, *t) >= 7) return bad(i, "too many pieces of one kind");
    m.set_count(c, *t, m.count(c, *t) + 1);
  }
  if (side != 1) return make_error(ErrorCode::kInvalidArgument, "material '" + std::string(text) + "': missing the second king");
  if (m.count(Color::kWhite, PieceType::kPawn) > 6 || m.count(Color::kBlack, PieceType::kPawn) > 6 || m.men() > 8)
    return make_error(ErrorCode::kInvalidArgument, "material '" + std::string(text) + "': too many men");
  return m;
}

int Material::men() const {
  int n = 2;
  for (const auto& side : counts_)
    for (auto v : side) n += v;
  return n;
}

Material Material::flipped() const {
  Material f = *this;
  std::swap(f.counts_[0], f.counts_[1]);
  return f;
}

bool Material::needs_flip() const { return strength(*this, Color::kWhite) < strength(*this, Color::kBlack); }

std::string Material::name() const {
  std::string s;
  for (Color c : {Color::kWhite, Color::kBlack}) {
    if (c == Color::kBlack) s += 'v';
    s += 'K';
    for (PieceType t : kNameOrder) s.append(std::size_t(count(c, t)), "PNBRQ"[index_of(t)]);
  }
  return s;
}

std::uint32_t Material::key() const {
  std::uint32_t k = 0;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 5; ++t) k |= key_term(c, t, counts_[c][t]);
  return k;
}

std::vector<Material> Material::conversions() const {
  std::vector<Material> out;
  auto add = [&](const Material& m) {
    if (m.is_bare_kings()) return;
    const Material n = m.normalized();
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  for (Color c : {Color::kWhite, Color::kBlack}) {
    for (int t = 0; t < 5; ++t) {
      if (count(c, PieceType(t)) == 0) continue;
      Material captured = *this;
      captured.set_count(c, PieceType(t), count(c, PieceType(t)) - 1);
      add(captured);
    }
    if (count(c, PieceType::kPawn) == 0) continue;
    for (int promo = 1; promo < 5; ++promo) {
      Material promoted = *this;
      promoted.set_count(c, PieceType::kPawn, count(c, PieceType::kPawn) - 1);
      promoted.set_count(c, PieceType(promo), count(c, PieceType(promo)) + 1);
      add(promoted);
      for (int t = 1; t < 5; ++t) {  // a promotion capturing on the back rank (never a pawn there)
        if (promoted.count(~c, PieceType(t)) == 0) continue;
        Material both = promoted;
        both.set_count(~c, PieceType(t), promoted.count(~c, PieceType(t)) - 1);
        add(both);
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Material& a, const Material& b) { return a.name() < b.name(); });
  return out;
}

bool generation_order_less(const Material& a, const Material& b) {
  if (a.men() != b.men()) return a.men() < b.men();
  if (a.pawns() != b.pawns()) return a.pawns() < b.pawns();
  return a.name() < b.name();
}

std::vector<Material> dependency_closure(const std::vector<Material>& wanted) {
  std::vector<Material> out;
  std::vector<Material> todo;
  for (const auto& m : wanted) todo.push_back(m.normalized());
  while (!todo.empty()) {
    const Material m = todo.back();
    todo.pop_back();
    if (m.is_bare_kings() || std::find(out.begin(), out.end(), m) != out.end()) continue;
    out.push_back(m);
    for (const auto& d : m.conversions()) todo.push_back(d);
  }
  std::sort(out.begin(), out.end(), generation_order_less);
  return out;
}

std::vector<Material> all_materials(int max_men) {
  std::vector<Material> out;
  // Enumerate multisets of up to max_men-2 pieces per side combination via counts.
  std::vector<Material> frontier{Material{}};
  for (int added = 0; added < max_men - 2; ++added) {
    std::vector<Material> next;
    for (const auto& m : frontier)
      for (Color c : {Color::kWhite, Color::kBlack})
        for (int t = 0; t < 5; ++t) {
          Material n = m;
          n.set_count(c, PieceType(t), m.count(c, PieceType(t)) + 1);
          n = n.normalized();
          if (std::find(next.begin(), next.end(), n) == next.end()) next.push_back(n);
        }
    for (const auto& n : next) out.push_back(n);
    frontier = std::move(next);
  }
  std::sort(out.begin(), out.end(), generation_order_less);
  return out;
}

}  // namespace tbkit::model
