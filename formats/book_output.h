// OutputFile: a buffered file written as NAME.tmp and renamed into place on commit; the .tmp is
// removed if the object is destroyed without a successful commit (error paths, exceptions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "chess/result.h"

namespace tbkit::formats {

class OutputFile {
 public:
  // Creates PATH.tmp for writing. Errors: kIo naming the file.
  [[nodiscard]] static Result<OutputFile> create(const std::filesystem::path& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Appends bytes. Errors: kIo naming the file and the offset.
  [[nodiscard]] Status write(const void* data, std::size_t size);
  // Overwrites bytes at an absolute offset (for headers written last), then returns to the end.
  [[nodiscard]] Status write_at(std::uint64_t offset, const void* data, std::size_t size);
  [[nodiscard]] std::uint64_t size() const { return written_; }
  // Flushes and closes PATH.tmp (optional: commit() does it too). No more writes are allowed.
  // Errors: kIo (PATH.tmp is then removed).
  [[nodiscard]] Status close();
  // Closes if still open, and renames PATH.tmp to PATH.
  [[nodiscard]] Status commit();
  // Closes and removes PATH.tmp.
  void abort();

 private:
  OutputFile() = default;
  std::filesystem::path path_;
  std::filesystem::path tmp_path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::uint64_t written_ = 0;
  bool closed_ = false;  // PATH.tmp is complete and closed, not yet renamed
};

}  // namespace tbkit::formats
