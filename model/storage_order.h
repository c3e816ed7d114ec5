// StorageOrder: the order in which a table file stores an index scheme's slots (docs/index.md,
// "Storage order"). The index is a mixed-radix number whose digits are the king pair and then each
// group's combination number; a file may store the slots with those digits permuted (e.g. the
// pawns most significant), which can make the values compress better. Immutable; thread-safe.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "model/index_scheme.h"

namespace tbkit::model {

class StorageOrder {
 public:
  static constexpr int kMaxDigits = 8;

  // The identity: slot s holds index s.
  explicit StorageOrder(const IndexScheme& scheme);
  // `order` lists the scheme's digits (0 = king pair, 1 + g = group g, in index order), most
  // significant first; it must be a permutation of 0 .. scheme.digit_count() - 1.
  StorageOrder(const IndexScheme& scheme, std::span<const int> order);

  // The order a file's `index_scheme` field names, or none when the field does not belong to
  // `scheme` (other base scheme, or bits that are not a permutation of its digits).
  [[nodiscard]] static std::optional<StorageOrder> from_file_id(const IndexScheme& scheme, std::uint32_t file_id);
  // The file's `index_scheme` field: scheme.id() in bits 0-7; bits 8-31 zero for the identity, else
  // the digit at each position (most significant first) in 3 bits each.
  [[nodiscard]] std::uint32_t file_id() const;

  [[nodiscard]] bool identity() const { return identity_; }
  [[nodiscard]] int digit_at(int position) const { return order_[std::size_t(position)]; }

  [[nodiscard]] std::uint64_t to_storage(std::uint64_t index) const {
    if (identity_) return index;
    std::uint64_t slot = 0;
    for (int d = 0; d < digits_; ++d) slot += (index / index_stride_[d]) % radix_[d] * storage_stride_[d];
    return slot;
  }
  [[nodiscard]] std::uint64_t to_index(std::uint64_t slot) const {
    if (identity_) return slot;
    std::uint64_t index = 0;
    for (int d = 0; d < digits_; ++d) index += (slot / storage_stride_[d]) % radix_[d] * index_stride_[d];
    return index;
  }

  // Calls f(slot, index) for slot = first .. last - 1 in turn, stepping the digits like an odometer
  // (no division per slot).
  template <class F>
  void for_each_slot(std::uint64_t first, std::uint64_t last, F&& f) const {
    if (first >= last) return;
    if (identity_) {
      for (std::uint64_t s = first; s < last; ++s) f(s, s);
      return;
    }
    // The digits in storage order, least significant last.
    std::array<std::uint64_t, kMaxDigits> digit{};
    std::uint64_t index = 0;
    for (int p = 0; p < digits_; ++p) {
      const int d = order_[std::size_t(p)];
      digit[std::size_t(p)] = (first / storage_stride_[d]) % radix_[d];
      index += digit[std::size_t(p)] * index_stride_[d];
    }
    // The last digit runs in a tight loop; the others carry between its runs.
    const std::size_t last_p = std::size_t(digits_ - 1);
    const std::uint64_t inner_radix = radix_[std::size_t(order_[last_p])];
    const std::uint64_t inner_stride = index_stride_[std::size_t(order_[last_p])];
    for (std::uint64_t s = first;;) {
      const std::uint64_t run = std::min(inner_radix - digit[last_p], last - s);
      for (std::uint64_t j = 0; j < run; ++j, ++s, index += inner_stride) f(s, index);
      if (s == last) return;
      index -= inner_radix * inner_stride;  // the last digit back to 0
      digit[last_p] = 0;
      for (int p = digits_ - 2;; --p) {
        const int d = order_[std::size_t(p)];
        if (++digit[std::size_t(p)] < radix_[d]) {
          index += index_stride_[d];
          break;
        }
        digit[std::size_t(p)] = 0;
        index -= (radix_[d] - 1) * index_stride_[d];
      }
    }
  }

 private:
  std::uint32_t base_id_ = 0;
  int digits_ = 0;
  bool identity_ = true;
  std::array<int, kMaxDigits> order_{};                // storage position -> index digit
  std::array<std::uint64_t, kMaxDigits> radix_{};      // per index digit
  std::array<std::uint64_t, kMaxDigits> index_stride_{};
  std::array<std::uint64_t, kMaxDigits> storage_stride_{};
};

}  // namespace tbkit::model
