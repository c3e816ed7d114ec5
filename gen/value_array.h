// ValueArray: one side's values of a solved table, in memory or in a file mapped into memory.
#pragma once

#include <cassert>
#include <cstdint>
#include <filesystem>
#include <span>

#include "chess/result.h"
#include "formats/dtm_value.h"

namespace tbkit::gen {

using formats::DtmValue;

// n values, all draws (zero) at the start, either
// - in memory (calloc: a large array's pages are touched only when written, and its whole 2 MiB
//   pages go on transparent huge pages), or
// - in a file of exactly n * 2 bytes (by index, in memory order), mapped shared: its pages are the
//   page cache's, so every process that maps the file on a machine reads one copy, and the kernel
//   may write them out and read them back instead of holding them.
// Move-only. Reads and writes of distinct slots from several threads are safe.
class ValueArray {
 public:
  ValueArray() = default;
  // In memory. Throws std::bad_alloc.
  explicit ValueArray(std::uint64_t n);
  // A new file at `path` (created or truncated), mapped read-write. Errors: kIo naming the file.
  [[nodiscard]] static Result<ValueArray> create_file(const std::filesystem::path& path, std::uint64_t n);
  // A file without a name in directory `dir` (O_TMPFILE, else a file removed as soon as it is
  // open), mapped read-write: scratch disk that the kernel may write out and read back instead of
  // holding the pages, and that goes away with the mapping, however the process ends.
  // Errors: kIo naming dir.
  [[nodiscard]] static Result<ValueArray> scratch_file(const std::filesystem::path& dir, std::uint64_t n);
  // An existing file of n values, mapped read-only: writing to it is a bug. Errors: kIo naming
  // the file (cannot open or map), kCorrupt (its size is not n values).
  [[nodiscard]] static Result<ValueArray> open_file(const std::filesystem::path& path, std::uint64_t n);
  ValueArray(ValueArray&& o) noexcept { swap(o); }
  ValueArray& operator=(ValueArray&& o) noexcept {
    if (this == &o) return *this;
    ValueArray gone;
    swap(o);
    o.swap(gone);  // the old contents go with `gone`
    return *this;
  }
  ValueArray(const ValueArray&) = delete;
  ValueArray& operator=(const ValueArray&) = delete;
  ~ValueArray();

  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] bool in_file() const { return in_file_; }
  [[nodiscard]] const DtmValue* data() const { return data_; }
  [[nodiscard]] DtmValue* data() {
    assert(writable_);
    return data_;
  }
  [[nodiscard]] const DtmValue& operator[](std::uint64_t i) const { return data_[i]; }
  [[nodiscard]] DtmValue& operator[](std::uint64_t i) {
    assert(writable_);
    return data_[i];
  }
  [[nodiscard]] const DtmValue* begin() const { return data_; }
  [[nodiscard]] const DtmValue* end() const { return data_ + size_; }
  [[nodiscard]] operator std::span<const DtmValue>() const { return {data_, size_}; }  // NOLINT: a view
  // A copy in memory.
  [[nodiscard]] ValueArray copy() const;
  friend bool operator==(const ValueArray& a, const ValueArray& b);

 private:
  // Sizes the open file `fd` to n values (its blocks reserved where the file system can) and maps it
  // read-write (fd closed on return); `path` names it in errors.
  static Result<ValueArray> size_and_map(int fd, const std::filesystem::path& path, std::uint64_t n);
  // Maps n values of the open file `fd` (closed on return).
  static Result<ValueArray> map_file(int fd, const std::filesystem::path& path, std::uint64_t n, bool writable);
  void swap(ValueArray& o) noexcept;
  DtmValue* data_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t mapped_bytes_ = 0;  // the bytes allocated or mapped
  bool in_file_ = false;
  bool writable_ = false;
};

}  // namespace tbkit::gen
