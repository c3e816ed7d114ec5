// A read-only memory mapping of a whole file, or an owned in-memory copy of one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

#include "chess/result.h"

namespace tbkit::formats {

class MappedFile {
 public:
  // Maps the file read-only. Errors: kIo naming the file. An empty file maps to no bytes.
  [[nodiscard]] static Result<MappedFile> map(const std::filesystem::path& path);
  // Holds a copy of the bytes.
  [[nodiscard]] static MappedFile copy_of(std::span<const std::byte> bytes);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }
  // Tells the kernel accesses will be random (no read-ahead). A no-op for in-memory copies.
  void advise_random_access() const;

 private:
  MappedFile() = default;
  void release();

  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;           // data_ came from mmap
  std::vector<std::byte> owned_;  // the copy, when not mapped
};

}  // namespace tbkit::formats
