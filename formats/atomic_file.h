// AtomicFile: a file written to NAME.tmp, in any order, and renamed into place only when complete.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "chess/result.h"

namespace tbkit::formats {

// kIo "PATH: WHAT: <strerror(errno)>", for a failed system call on `path`.
[[nodiscard]] Error io_error(const std::filesystem::path& path, const std::string& what);

// Writes path + ".tmp" (created, or truncated if left by an earlier run) at any offsets; commit()
// fsyncs it and renames it to `path`. Until then `path` is untouched, and a writer dropped without
// commit() (or whose commit failed) removes the tmp file. Not thread-safe: one writer per object.
class AtomicFile {
 public:
  // Errors: kIo naming the tmp file (cannot create).
  [[nodiscard]] static Result<AtomicFile> create(const std::filesystem::path& path);
  AtomicFile(AtomicFile&& o) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();

  // Writes `bytes` at byte `offset` of the tmp file. Errors: kIo naming it.
  [[nodiscard]] Status write_at(std::uint64_t offset, std::span<const std::byte> bytes);
  // fsync, close, rename into place. Errors: kIo naming the file and the step; the tmp file is
  // then removed. Call once.
  [[nodiscard]] Status commit();

 private:
  AtomicFile(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void discard();
  std::filesystem::path path_;
  int fd_ = -1;
};

// Writes `bytes` to path + ".tmp", fsyncs, renames it to `path`; removes the tmp file on failure.
[[nodiscard]] Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);

// How AtomicFile creates path + ".tmp": open(2)'s arguments, the descriptor or -1 with errno set.
// A program may route it through its own lock: the command line does, so that no tmp file is
// created once a signal's cleanup has begun, where the cleanup could miss it (cli/interrupt.h).
// nullptr restores the default, ::open. Thread-safe.
using TmpFileOpener = int (*)(const char* path, int flags, unsigned mode);
void set_tmp_file_opener(TmpFileOpener opener);

}  // namespace tbkit::formats
