#include "model/storage_order.h"

#include <cassert>

namespace tbkit::model {

StorageOrder::StorageOrder(const IndexScheme& scheme) : base_id_(scheme.id()), digits_(scheme.digit_count()) {
  for (int d = 0; d < digits_ && d < kMaxDigits; ++d) order_[std::size_t(d)] = d;
}

StorageOrder::StorageOrder(const IndexScheme& scheme, std::span<const int> order) : StorageOrder(scheme) {
  assert(int(order.size()) == digits_ && digits_ <= kMaxDigits);
  std::uint64_t stride = 1;
  for (int d = digits_ - 1; d >= 0; --d) {
    radix_[std::size_t(d)] = scheme.digit_radix(d);
    index_stride_[std::size_t(d)] = stride;
    stride *= radix_[std::size_t(d)];
  }
  stride = 1;
  for (int p = digits_ - 1; p >= 0; --p) {
    const int d = order[std::size_t(p)];
    assert(d >= 0 && d < digits_);
    order_[std::size_t(p)] = d;
    storage_stride_[std::size_t(d)] = stride;
    stride *= radix_[std::size_t(d)];
    if (d != p) identity_ = false;
  }
}

std::optional<StorageOrder> StorageOrder::from_file_id(const IndexScheme& scheme, std::uint32_t file_id) {
  if ((file_id & 0xFF) != scheme.id()) return std::nullopt;
  std::uint32_t bits = file_id >> 8;
  if (bits == 0) return StorageOrder(scheme);
  const int n = scheme.digit_count();
  if (n > kMaxDigits) return std::nullopt;
  std::array<int, kMaxDigits> order{};
  unsigned seen = 0;
  for (int p = 0; p < n; ++p, bits >>= 3) {
    const int d = int(bits & 7);
    if (d >= n || (seen & (1U << d))) return std::nullopt;
    seen |= 1U << d;
    order[std::size_t(p)] = d;
  }
  if (bits != 0) return std::nullopt;
  return StorageOrder(scheme, std::span<const int>(order.data(), std::size_t(n)));
}

std::uint32_t StorageOrder::file_id() const {
  if (identity_) return base_id_;
  std::uint32_t bits = 0;
  for (int p = 0; p < digits_; ++p) bits |= std::uint32_t(order_[std::size_t(p)]) << (3 * p);
  return base_id_ | bits << 8;
}

}  // namespace tbkit::model
