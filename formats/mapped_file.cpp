#include "formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "formats/atomic_file.h"

namespace tbkit::formats {

Result<MappedFile> MappedFile::map(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    return make_error(ErrorCode::kIo, path.string() + ": not a readable regular file" +
                                          (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
  }
  MappedFile m;
  if (st.st_size > 0) {
    void* addr = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return make_error(ErrorCode::kIo, path.string() + ": cannot map: " + std::strerror(err));
    }
    m.data_ = static_cast<const std::byte*>(addr);
    m.size_ = std::size_t(st.st_size);
    m.mapped_ = true;
  }
  ::close(fd);
  return m;
}

MappedFile MappedFile::copy_of(std::span<const std::byte> bytes) {
  MappedFile m;
  m.owned_.assign(bytes.begin(), bytes.end());
  m.data_ = m.owned_.data();
  m.size_ = m.owned_.size();
  return m;
}

void MappedFile::advise_random_access() const {
  if (mapped_) ::madvise(const_cast<std::byte*>(data_), size_, MADV_RANDOM);
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    // A moved vector keeps its buffer, so data_ stays valid for owned copies.
    owned_ = std::move(other.owned_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  owned_.clear();
}

}  // namespace tbkit::formats
