#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "model/storage_order.h"
#include "tests/model/material_util.h"

using namespace tbkit::model;
using tbkit::model::testing::mat;

namespace {

std::vector<std::vector<int>> all_orders(int digits) {
  std::vector<int> order(static_cast<std::size_t>(digits));
  for (int d = 0; d < digits; ++d) order[std::size_t(d)] = d;
  std::vector<std::vector<int>> out;
  do out.push_back(order);
  while (std::next_permutation(order.begin(), order.end()));
  return out;
}

}  // namespace

TEST_CASE("Storage orders are bijections and name themselves in the file field", "[gen][index]") {
  // Every slot of the 3- and 4-man schemes; a sample of a 4-digit 5-man one.
  for (const char* name : {"KQvKR", "KPvKP", "KBBvK", "KRPvKB"}) {
    const IndexScheme scheme(mat(name));
    const std::uint64_t n = scheme.size();
    const bool sample = n > 10'000'000;
    for (const auto& order : all_orders(scheme.digit_count())) {
      const StorageOrder so(scheme, order);
      INFO(name << " order " << so.file_id());
      // The digit at each position, and the most significant digit steps slowest.
      for (int p = 0; p < scheme.digit_count(); ++p) CHECK(so.digit_at(p) == order[std::size_t(p)]);
      CHECK(so.identity() == std::is_sorted(order.begin(), order.end()));
      // to_index inverts to_storage, and (whole schemes) every slot is hit once.
      std::mt19937_64 rng(7);
      std::vector<bool> hit(sample ? 0 : n, false);
      std::uint64_t bad = 0;
      for (std::uint64_t k = 0; k < (sample ? 50000 : n); ++k) {
        const std::uint64_t i = sample ? rng() % n : k;
        const std::uint64_t s = so.to_storage(i);
        bad += s >= n || so.to_index(s) != i;
        if (!sample && s < n) {
          bad += hit[s];
          hit[s] = true;
        }
      }
      CHECK(bad == 0);
      // The odometer agrees with to_index from any starting slot.
      for (int k = 0; k < 10; ++k) {
        const std::uint64_t first = rng() % n, last = std::min(n, first + 1 + rng() % 50000);
        std::uint64_t expect = first, wrong = 0;
        so.for_each_slot(first, last, [&](std::uint64_t s, std::uint64_t i) {
          wrong += s != expect++ || i != so.to_index(s);
        });
        CHECK(wrong == 0);
        CHECK(expect == last);
      }
      // The file field names the order; the identity is the plain scheme id.
      auto back = StorageOrder::from_file_id(scheme, so.file_id());
      REQUIRE(back.has_value());
      CHECK(back->file_id() == so.file_id());
      CHECK(back->to_storage(n / 3) == so.to_storage(n / 3));
      CHECK((so.file_id() == scheme.id()) == so.identity());
    }
  }
}

TEST_CASE("A file field that is no order of the scheme is refused", "[gen][index]") {
  const IndexScheme pawnless(mat("KQvKR")), pawns(mat("KRvKP"));
  CHECK(StorageOrder::from_file_id(pawnless, kSchemePawnless).has_value());
  CHECK_FALSE(StorageOrder::from_file_id(pawnless, kSchemePawns).has_value());  // other scheme
  CHECK_FALSE(StorageOrder::from_file_id(pawns, kSchemePawnless).has_value());
  CHECK_FALSE(StorageOrder::from_file_id(pawnless, 0).has_value());
  auto field = [](std::uint32_t base, std::initializer_list<int> digits) {
    std::uint32_t bits = 0, p = 0;
    for (int d : digits) bits |= std::uint32_t(d) << (3 * p++);
    return base | bits << 8;
  };
  CHECK(StorageOrder::from_file_id(pawnless, field(kSchemePawnless, {2, 0, 1})).has_value());
  CHECK_FALSE(StorageOrder::from_file_id(pawnless, field(kSchemePawnless, {2, 2, 1})).has_value());  // repeated digit
  CHECK_FALSE(StorageOrder::from_file_id(pawnless, field(kSchemePawnless, {3, 0, 1})).has_value());  // no digit 3
  CHECK_FALSE(StorageOrder::from_file_id(pawnless, field(kSchemePawnless, {2, 0, 1, 3})).has_value());  // extra bits
  CHECK_FALSE(StorageOrder::from_file_id(pawnless, field(kSchemePawnless, {1, 0})).has_value());  // too few digits
}
