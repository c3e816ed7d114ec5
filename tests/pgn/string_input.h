// An input stream over a string, served in reads of at most `step` bytes, like a pipe: for the
// lexer's buffer-boundary tests and the PGN fuzzer.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/zstd_stream.h"

namespace tbkit::test {

class StringInput final : public formats::InputStream {
 public:
  StringInput(std::string text, std::size_t step) : text_(std::move(text)), step_(step) {}
  Result<std::size_t> read(char* dst, std::size_t capacity) override {
    const std::size_t n = std::min({capacity, step_, text_.size() - pos_});
    std::memcpy(dst, text_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t raw_bytes_read() const override { return pos_; }
  std::uint64_t raw_size() const override { return text_.size(); }

 private:
  std::string text_;
  std::size_t step_;
  std::size_t pos_ = 0;
};

}  // namespace tbkit::test
