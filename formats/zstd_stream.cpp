#include "formats/zstd_stream.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <zstd.h>

#include "formats/atomic_file.h"

namespace tbkit::formats {
namespace {

// A FILE* reader that can hand back a few bytes it has already read (for the magic check).
class FileStream final : public InputStream {
 public:
  FileStream(std::FILE* file, bool owned, std::string name, std::uint64_t size)
      : file_(file), owned_(owned), name_(std::move(name)), size_(size) {}
  ~FileStream() override {
    if (owned_) std::fclose(file_);
  }
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;

  Result<std::size_t> read(char* dst, std::size_t capacity) override {
    std::size_t n = 0;
    while (n < capacity && peek_pos_ < peeked_.size()) dst[n++] = peeked_[peek_pos_++];
    if (n < capacity) {
      const std::size_t got = std::fread(dst + n, 1, capacity - n, file_);
      if (got < capacity - n && std::ferror(file_))
        return make_error(ErrorCode::kIo, name_ + ": read error at byte " + std::to_string(consumed_ + n + got) + ": " +
                                              std::strerror(errno));
      n += got;
    }
    consumed_ += n;
    return n;
  }
  std::uint64_t raw_bytes_read() const override { return consumed_; }
  std::uint64_t raw_size() const override { return size_; }

  // Reads up to n bytes ahead without consuming them.
  Result<std::size_t> peek(std::size_t n) {
    peeked_.resize(n);
    const std::size_t got = std::fread(peeked_.data(), 1, n, file_);
    if (got < n && std::ferror(file_)) return make_error(ErrorCode::kIo, name_ + ": read error: " + std::strerror(errno));
    peeked_.resize(got);
    return got;
  }
  [[nodiscard]] const std::vector<char>& peeked() const { return peeked_; }
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  std::FILE* file_;
  bool owned_;
  std::string name_;
  std::uint64_t size_;
  std::uint64_t consumed_ = 0;
  std::vector<char> peeked_;
  std::size_t peek_pos_ = 0;
};

class ZstdStream final : public InputStream {
 public:
  explicit ZstdStream(std::unique_ptr<FileStream> file)
      : file_(std::move(file)), dctx_(ZSTD_createDCtx()), in_buf_(ZSTD_DStreamInSize()) {}
  ~ZstdStream() override { ZSTD_freeDCtx(dctx_); }
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;

  Result<std::size_t> read(char* dst, std::size_t capacity) override {
    if (dctx_ == nullptr) return make_error(ErrorCode::kIo, file_->name() + ": out of memory for zstd");
    ZSTD_outBuffer out{dst, capacity, 0};
    while (out.pos == 0 && capacity > 0) {
      if (in_.pos == in_.size) {
        auto got = file_->read(in_buf_.data(), in_buf_.size());
        if (!got) return got.error();
        if (*got == 0) {
          // A stream that stops inside a frame is truncated, not finished.
          if (!frame_done_)
            return make_error(ErrorCode::kCorrupt, file_->name() + ": zstd stream truncated at compressed byte " +
                                                       std::to_string(file_->raw_bytes_read()));
          return std::size_t{0};
        }
        in_ = ZSTD_inBuffer{in_buf_.data(), *got, 0};
      }
      const std::uint64_t before = file_->raw_bytes_read() - (in_.size - in_.pos);
      const std::size_t ret = ZSTD_decompressStream(dctx_, &out, &in_);
      if (ZSTD_isError(ret))
        return make_error(ErrorCode::kCorrupt, file_->name() + ": bad zstd data near compressed byte " + std::to_string(before) +
                                                   ": " + ZSTD_getErrorName(ret));
      frame_done_ = ret == 0;
    }
    return out.pos;
  }
  std::uint64_t raw_bytes_read() const override { return file_->raw_bytes_read() - (in_.size - in_.pos); }
  std::uint64_t raw_size() const override { return file_->raw_size(); }

 private:
  std::unique_ptr<FileStream> file_;
  ZSTD_DCtx* dctx_;
  std::vector<char> in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool frame_done_ = true;
};

}  // namespace

bool has_zstd_magic(const void* data, std::size_t size) {
  static constexpr unsigned char kMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
  return size >= 4 && std::memcmp(data, kMagic, 4) == 0;
}

Result<std::unique_ptr<InputStream>> open_input(const std::string& path) {
  std::unique_ptr<FileStream> file;
  if (path == "-") {
    file = std::make_unique<FileStream>(stdin, false, "<stdin>", 0);
  } else {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return io_error(path, "cannot open");
    struct stat st {};
    std::uint64_t size = 0;
    if (fstat(fileno(f), &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        std::fclose(f);
        return make_error(ErrorCode::kIo, path + ": is a directory");
      }
      if (S_ISREG(st.st_mode)) size = std::uint64_t(st.st_size);
    }
    file = std::make_unique<FileStream>(f, true, path, size);
  }
  auto got = file->peek(4);
  if (!got) return got.error();
  if (has_zstd_magic(file->peeked().data(), file->peeked().size()))
    return std::unique_ptr<InputStream>(std::make_unique<ZstdStream>(std::move(file)));
  return std::unique_ptr<InputStream>(std::move(file));
}

}  // namespace tbkit::formats
