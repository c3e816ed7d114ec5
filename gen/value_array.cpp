#include "gen/value_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "formats/large_allocator.h"

namespace tbkit::gen {
namespace {

std::string system_error(const std::filesystem::path& path, const std::string& what) {
  return path.string() + ": " + what + ": " + std::strerror(errno);
}

// Gives the open file `fd` its size, its blocks reserved where the file system can, so that a
// full disk is an error here rather than a fault on a page of the mapping later.
bool size_file(int fd, std::uint64_t bytes) {
  if (bytes == 0) return ::ftruncate(fd, 0) == 0;
  const int err = ::posix_fallocate(fd, 0, off_t(bytes));
  if (err == 0) return true;
  if (err != EOPNOTSUPP && err != EINVAL) {
    errno = err;
    return false;
  }
  return ::ftruncate(fd, off_t(bytes)) == 0;
}

}  // namespace

ValueArray::ValueArray(std::uint64_t n) : size_(n), writable_(true) {
  if (n == 0) return;
  // calloc maps a large block fresh from the system, zero pages not yet touched; and the whole
  // 2 MiB pages inside it go on transparent huge pages, as a std::vector's did before.
  mapped_bytes_ = n * sizeof(DtmValue);
  data_ = static_cast<DtmValue*>(std::calloc(n, sizeof(DtmValue)));
  if (data_ == nullptr) throw std::bad_alloc();
  formats::advise_huge_pages(data_, mapped_bytes_);
}

Result<ValueArray> ValueArray::create_file(const std::filesystem::path& path, std::uint64_t n) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(ErrorCode::kIo, system_error(path, "cannot create"));
  return size_and_map(fd, path, n);
}

Result<ValueArray> ValueArray::size_and_map(int fd, const std::filesystem::path& path, std::uint64_t n) {
  const std::uint64_t bytes = n * sizeof(DtmValue);
  if (!size_file(fd, bytes)) {
    const std::string message = system_error(path, "cannot size a file to " + std::to_string(bytes) + " bytes");
    ::close(fd);
    return make_error(ErrorCode::kIo, message);
  }
  return map_file(fd, path, n, true);
}

Result<ValueArray> ValueArray::scratch_file(const std::filesystem::path& dir, std::uint64_t n) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without O_TMPFILE: a named file, removed at once.
    std::string name = (dir / "tbkit-scratch.XXXXXX").string();
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0) return make_error(ErrorCode::kIo, system_error(dir, "cannot make a scratch file"));
  return size_and_map(fd, dir, n);
}

Result<ValueArray> ValueArray::open_file(const std::filesystem::path& path, std::uint64_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kIo, system_error(path, "cannot open"));
  struct stat st {};
  const std::uint64_t bytes = n * sizeof(DtmValue);
  if (::fstat(fd, &st) != 0 || std::uint64_t(st.st_size) != bytes) {
    ::close(fd);
    return make_error(ErrorCode::kCorrupt, path.string() + ": " + std::to_string(st.st_size) + " bytes, expected " +
                                               std::to_string(bytes) + " (" + std::to_string(n) + " values)");
  }
  return map_file(fd, path, n, false);
}

Result<ValueArray> ValueArray::map_file(int fd, const std::filesystem::path& path, std::uint64_t n, bool writable) {
  ValueArray out;
  out.size_ = n;
  out.in_file_ = true;
  out.writable_ = writable;
  const std::uint64_t bytes = n * sizeof(DtmValue);
  if (bytes > 0) {
    void* p = ::mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      const std::string message = system_error(path, "cannot map");
      ::close(fd);
      return make_error(ErrorCode::kIo, message);
    }
    out.data_ = static_cast<DtmValue*>(p);
    out.mapped_bytes_ = bytes;
    // Probed at random: read-ahead would only fetch pages nobody asked for.
    if (!writable) ::madvise(p, bytes, MADV_RANDOM);
  }
  ::close(fd);
  return out;
}

ValueArray ValueArray::copy() const {
  ValueArray out(size_);
  if (size_ > 0) std::memcpy(out.data_, data_, size_ * sizeof(DtmValue));
  return out;
}

bool operator==(const ValueArray& a, const ValueArray& b) {
  return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_ * sizeof(DtmValue)) == 0);
}

ValueArray::~ValueArray() {
  if (mapped_bytes_ == 0) return;
  if (in_file_) ::munmap(data_, mapped_bytes_);
  else std::free(data_);
}

void ValueArray::swap(ValueArray& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(size_, o.size_);
  std::swap(mapped_bytes_, o.mapped_bytes_);
  std::swap(in_file_, o.in_file_);
  std::swap(writable_, o.writable_);
}

}  // namespace tbkit::gen
