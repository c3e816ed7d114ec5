#include "formats/book_output.h"

#include <string>
#include <system_error>

#include "formats/atomic_file.h"

namespace tbkit::formats {
namespace {

// Few write calls, and few fresh pages to fault in (each costs more than the write calls saved).
constexpr std::size_t kBufferSize = std::size_t{256} << 10;

}  // namespace

Result<OutputFile> OutputFile::create(const std::filesystem::path& path) {
  OutputFile out;
  out.path_ = path;
  out.tmp_path_ = path;
  out.tmp_path_ += ".tmp";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(ErrorCode::kIo, path.string() + ": is a directory");
  out.file_ = std::fopen(out.tmp_path_.c_str(), "wb");
  if (!out.file_) return io_error(out.tmp_path_, "cannot create");
  out.buffer_ = std::make_unique_for_overwrite<char[]>(kBufferSize);
  std::setvbuf(out.file_, out.buffer_.get(), _IOFBF, kBufferSize);
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept { *this = std::move(other); }

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    abort();
    path_ = std::move(other.path_);
    tmp_path_ = std::move(other.tmp_path_);
    file_ = other.file_;
    buffer_ = std::move(other.buffer_);
    written_ = other.written_;
    closed_ = other.closed_;
    other.file_ = nullptr;
    other.closed_ = false;
  }
  return *this;
}

OutputFile::~OutputFile() { abort(); }

Status OutputFile::write(const void* data, std::size_t size) {
  if (!file_) return make_error(ErrorCode::kIo, tmp_path_.string() + ": write after close");
  if (size && ::fwrite_unlocked(data, 1, size, file_) != size)
    return io_error(tmp_path_, "write failed at offset " + std::to_string(written_));
  written_ += size;
  return {};
}

Status OutputFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  if (!file_) return make_error(ErrorCode::kIo, tmp_path_.string() + ": write after close");
  if (std::fseek(file_, long(offset), SEEK_SET) != 0 || std::fwrite(data, 1, size, file_) != size ||
      std::fseek(file_, 0, SEEK_END) != 0)
    return io_error(tmp_path_, "write failed at offset " + std::to_string(offset));
  return {};
}

Status OutputFile::close() {
  if (!file_) return make_error(ErrorCode::kIo, tmp_path_.string() + ": close after close");
  const bool flushed = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    Error e = io_error(tmp_path_, "cannot flush");
    std::error_code ec;
    std::filesystem::remove(tmp_path_, ec);
    return e;
  }
  closed_ = true;
  return {};
}

Status OutputFile::commit() {
  if (file_)
    if (auto s = close(); !s) return s;
  if (!closed_) return make_error(ErrorCode::kIo, tmp_path_.string() + ": commit after close");
  closed_ = false;
  std::error_code ec;
  std::filesystem::rename(tmp_path_, path_, ec);
  if (ec) {
    const std::string reason = ec.message();  // before remove() reuses ec
    std::filesystem::remove(tmp_path_, ec);
    return make_error(ErrorCode::kIo, path_.string() + ": cannot rename from .tmp: " + reason);
  }
  return {};
}

void OutputFile::abort() {
  if (!file_ && !closed_) return;
  if (file_) std::fclose(file_);
  file_ = nullptr;
  closed_ = false;
  std::error_code ec;
  std::filesystem::remove(tmp_path_, ec);
}

}  // namespace tbkit::formats
