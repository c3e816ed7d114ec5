// Piece-order candidates, the search over them and the sample they are judged on.
#include "formats/syzygy_order_search.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace tbkit::formats::syzygy {

using chess::Color;
using chess::Piece;
using chess::PieceType;

namespace {

// The distinct piece kinds of a material: white king down to white pawn, then black's.
std::vector<Piece> piece_kinds(const TableMaterial& m) {
  std::vector<Piece> kinds;
  for (Color c : {Color::kWhite, Color::kBlack})
    for (int t = chess::kPieceTypeCount - 1; t >= 0; --t)
      if (m.count(c, PieceType(t)) > 0) kinds.emplace_back(c, PieceType(t));
  return kinds;
}

Result<SubtableIndex> index_of(const TableMaterial& m, const PieceOrder& order, int file) {
  return SubtableIndex::create(m, std::span(order.pieces).first(std::size_t(m.piece_count())), order.order0,
                               order.order1, file);
}

// Costs of `orders` (indices built for `file`), in the same order.
Result<std::vector<std::uint64_t>> costs_of(const TableMaterial& m, int file, std::span<const PieceOrder> orders,
                                            const OrderCosts& costs) {
  std::vector<SubtableIndex> subs;
  for (const PieceOrder& o : orders) {
    auto sub = index_of(m, o, file);
    if (!sub) return sub.error();
    subs.push_back(std::move(*sub));
  }
  std::vector<std::uint64_t> out = costs(subs);
  if (out.size() != subs.size())
    return make_error(ErrorCode::kInvalidArgument, "syzygy order search: cost callback gave the wrong count");
  return out;
}

}  // namespace

PieceOrder default_order(const TableMaterial& m) {
  PieceOrder out;
  out.pieces = default_piece_order(m);
  out.order1 = m.other_pawn_count() > 0 ? 1 : 0xF;
  return out;
}

PieceOrder order_of(const SubtableIndex& sub) {
  PieceOrder out;
  std::copy(sub.pieces().begin(), sub.pieces().end(), out.pieces.begin());
  out.order0 = sub.order0();
  out.order1 = sub.order1();
  return out;
}

std::optional<PieceOrder> order_of_digits(const TableMaterial& m, std::span<const int> digits) {
  const std::vector<Piece> kinds = piece_kinds(m);
  const int n = int(digits.size());
  if (n != int(kinds.size())) return std::nullopt;
  const auto kind = [&](int pos) { return kinds[std::size_t(digits[std::size_t(pos)])]; };
  const auto count = [&](int pos) { return m.count(kind(pos).color(), kind(pos).type()); };
  PieceOrder out;
  int next = 0;
  const auto append = [&](int pos) {
    for (int k = 0; k < count(pos); ++k) out.pieces[std::size_t(next++)] = kind(pos);
  };
  if (m.has_pawns()) {
    const Piece lead(m.lead_color(), PieceType::kPawn);
    const Piece other(~m.lead_color(), PieceType::kPawn);
    int lead_pos = -1, other_pos = -1;
    for (int p = 0; p < n; ++p) {
      if (kind(p) == lead) lead_pos = p;
      if (kind(p) == other) other_pos = p;
    }
    append(lead_pos);
    if (other_pos >= 0) append(other_pos);
    for (int p = 0; p < n; ++p)
      if (p != lead_pos && p != other_pos) append(p);
    out.order0 = lead_pos;
    out.order1 = other_pos >= 0 ? other_pos : 0xF;
    return out;
  }
  // The leading group is one digit made of `run` adjacent kinds of one man each.
  const int run = m.has_unique_pieces() ? 3 : 2;
  int start = -1;
  for (int p = n - run; p >= 0 && start < 0; --p) {
    bool unique = true;
    for (int k = p; k < p + run; ++k) unique = unique && count(k) == 1;
    if (unique) start = p;
  }
  if (start < 0) return std::nullopt;
  for (int k = start + run - 1; k >= start; --k) append(k);
  for (int p = 0; p < n; ++p)
    if (p < start || p >= start + run) append(p);
  out.order0 = start;
  return out;
}

Result<SubtableIndex> search_piece_order(const TableMaterial& m, int file, const OrderCosts& costs) {
  const int n = int(piece_kinds(m).size());
  const PieceOrder fallback = default_order(m);
  std::vector<PieceOrder> evaluated{fallback};
  auto first_costs = costs_of(m, file, evaluated, costs);
  if (!first_costs) return first_costs.error();
  std::vector<std::uint64_t> evaluated_costs = *first_costs;
  // Judges the orders of `candidates` not judged yet, all in one call; gives each candidate's cost.
  const auto judge = [&](const std::vector<PieceOrder>& candidates) -> Result<std::vector<std::uint64_t>> {
    std::vector<PieceOrder> fresh;
    for (const PieceOrder& o : candidates)
      if (std::find(evaluated.begin(), evaluated.end(), o) == evaluated.end() &&
          std::find(fresh.begin(), fresh.end(), o) == fresh.end())
        fresh.push_back(o);
    auto c = costs_of(m, file, fresh, costs);
    if (!c) return c.error();
    evaluated.insert(evaluated.end(), fresh.begin(), fresh.end());
    evaluated_costs.insert(evaluated_costs.end(), c->begin(), c->end());
    std::vector<std::uint64_t> out;
    for (const PieceOrder& o : candidates)
      out.push_back(evaluated_costs[std::size_t(std::find(evaluated.begin(), evaluated.end(), o) - evaluated.begin())]);
    return out;
  };

  if (n <= 4) {
    std::vector<int> digits(static_cast<std::size_t>(n));
    std::iota(digits.begin(), digits.end(), 0);
    std::vector<PieceOrder> all;
    do {
      if (auto o = order_of_digits(m, digits)) all.push_back(*o);
    } while (std::next_permutation(digits.begin(), digits.end()));
    if (auto c = judge(all); !c) return c.error();
  } else {
    // The first valid arrangement (lexicographic in the free digits) beginning with `prefix`.
    const auto complete = [&](const std::vector<int>& prefix) -> std::optional<std::vector<int>> {
      std::vector<int> rest;
      for (int d = 0; d < n; ++d)
        if (std::find(prefix.begin(), prefix.end(), d) == prefix.end()) rest.push_back(d);
      do {
        std::vector<int> digits = prefix;
        digits.insert(digits.end(), rest.begin(), rest.end());
        if (order_of_digits(m, digits)) return digits;
      } while (std::next_permutation(rest.begin(), rest.end()));
      return std::nullopt;
    };
    std::vector<int> fixed;
    for (int k = 0; k + 1 < n; ++k) {
      std::vector<std::vector<int>> options;
      for (int p = 0; p < n; ++p)
        for (int q = 0; q < n; ++q) {
          const auto is_fixed = [&](int d) { return std::find(fixed.begin(), fixed.end(), d) != fixed.end(); };
          if (p == q || is_fixed(p) || is_fixed(q)) continue;
          std::vector<int> prefix = fixed;
          prefix.push_back(p);
          prefix.push_back(q);
          if (auto digits = complete(prefix)) options.push_back(*digits);
        }
      if (options.empty()) break;
      std::vector<PieceOrder> orders;
      for (const auto& d : options) orders.push_back(*order_of_digits(m, d));
      auto c = judge(orders);
      if (!c) return c.error();
      const std::size_t best = std::size_t(std::min_element(c->begin(), c->end()) - c->begin());
      fixed.push_back(options[best][std::size_t(k)]);
    }
  }
  const std::size_t best =
      std::size_t(std::min_element(evaluated_costs.begin(), evaluated_costs.end()) - evaluated_costs.begin());
  return index_of(m, evaluated[best], file);
}

std::uint64_t sample_values(std::uint64_t size, int fraction_log2, std::uint64_t min_values) {
  return size <= min_values ? size : std::max(size >> fraction_log2, min_values);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> sample_ranges(std::uint64_t size, int fraction_log2,
                                                                   std::uint64_t min_values, int segments) {
  if (size <= min_values || segments < 1) return {{0, size}};
  const std::uint64_t total = sample_values(size, fraction_log2, min_values);
  const std::uint64_t count = std::uint64_t(segments);
  const std::uint64_t length = std::max<std::uint64_t>(1, total / count);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t first = size / count * k;
    out.emplace_back(first, std::min(size, first + length));
  }
  return out;
}

}  // namespace tbkit::formats::syzygy
