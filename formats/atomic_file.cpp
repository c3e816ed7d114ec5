#include "formats/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace tbkit::formats {
namespace {

std::atomic<TmpFileOpener> tmp_file_opener{nullptr};

std::string tmp_name(const std::filesystem::path& path) { return path.string() + ".tmp"; }

}  // namespace

Error io_error(const std::filesystem::path& path, const std::string& what) {
  return make_error(ErrorCode::kIo, path.string() + ": " + what + ": " + std::strerror(errno));
}

void set_tmp_file_opener(TmpFileOpener opener) { tmp_file_opener.store(opener); }

Result<AtomicFile> AtomicFile::create(const std::filesystem::path& path) {
  const std::string tmp = tmp_name(path);
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  const TmpFileOpener opener = tmp_file_opener.load();
  const int fd = opener ? opener(tmp.c_str(), flags, 0644) : ::open(tmp.c_str(), flags, 0644);
  if (fd < 0) return io_error(tmp, "cannot create");
  return AtomicFile(path, fd);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_) { o.fd_ = -1; }

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_name(path_).c_str());
  fd_ = -1;
}

Status AtomicFile::write_at(std::uint64_t offset, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error(tmp_name(path_), "write failed");
    bytes = bytes.subspan(std::size_t(n));
    offset += std::uint64_t(n);
  }
  return {};
}

Status AtomicFile::commit() {
  const std::string tmp = tmp_name(path_);
  Status st;
  if (::fsync(fd_) != 0) st = io_error(tmp, "fsync failed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && st) st = io_error(tmp, "close failed");
  if (st && ::rename(tmp.c_str(), path_.c_str()) != 0)
    st = io_error(path_, "cannot rename the tmp file into place");
  if (!st) ::unlink(tmp.c_str());
  return st;
}

Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  auto file = AtomicFile::create(path);
  if (!file) return file.error();
  if (Status st = file->write_at(0, bytes); !st) return st;
  return file->commit();
}

}  // namespace tbkit::formats
