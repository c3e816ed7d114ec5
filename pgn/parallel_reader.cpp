#include "pgn/parallel_reader.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include "formats/zstd_stream.h"
#include "pgn/lexer.h"
#include "pgn/parallel.h"
#include "pgn/reader_game.h"

namespace tbkit::pgn {
namespace {

// Chunk text: a growable byte buffer that, unlike std::string, does not zero what it is about to
// overwrite with file data.
class TextBuffer {
 public:
  TextBuffer() = default;
  TextBuffer(TextBuffer&& o) noexcept
      : data_(std::move(o.data_)), size_(std::exchange(o.size_, 0)), capacity_(std::exchange(o.capacity_, 0)) {}
  TextBuffer& operator=(TextBuffer&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    return *this;
  }
  [[nodiscard]] char* data() { return data_.get(); }
  [[nodiscard]] const char* data() const { return data_.get(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::string_view view() const { return {data_.get(), size_}; }
  void clear() { size_ = 0; }
  // New bytes are uninitialized.
  void resize(std::size_t n) {
    if (n > capacity_) {
      const std::size_t cap = std::max(n, capacity_ * 2);
      auto bigger = std::make_unique_for_overwrite<char[]>(cap);
      if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
      data_ = std::move(bigger);
      capacity_ = cap;
    }
    size_ = n;
  }
  void assign(const char* p, std::size_t n) {
    resize(n);
    if (n > 0) std::memcpy(data_.get(), p, n);
  }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

struct Chunk {
  ChunkInfo info;
  TextBuffer data;
  std::uint64_t first_line = 1;
  std::uint64_t raw_bytes_read = 0;
  std::uint64_t raw_size = 0;
  std::unique_ptr<Visitor> visitor;
  ParseCounts counts;
};

bool is_tag_start(const char* p, const char* end) {
  return p + 1 < end && p[0] == '[' && ((p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z'));
}

// Whether a "{...}" comment is open at a position: the last brace before it is '{'. A brace comment
// ends at its first '}', so if the last brace is '}' (or there is none since the chunk start, which
// is outside any comment) no comment can be open. A '{' inside a tag value or a ';' comment also
// counts as open: such candidates are refused, which only makes a chunk longer.
class BraceState {
 public:
  // True when a candidate at `pos` must be refused: a brace comment may be open there. Candidates
  // come in increasing order within a chunk; one before the furthest position asked about was
  // already refused (the search stops at the first accepted one), so it is refused again.
  bool refuses(const char* data, std::size_t pos) {
    if (pos < scanned_) return true;
    if (pos > scanned_) {
      const char* b = data + scanned_;
      const std::size_t n = pos - scanned_;
      const char* open = static_cast<const char*>(::memrchr(b, '{', n));
      const char* close = static_cast<const char*>(::memrchr(b, '}', n));
      if (open != nullptr && (close == nullptr || open > close)) open_ = true;
      else if (close != nullptr) open_ = false;
      scanned_ = pos;
    }
    return open_;
  }
  // A new chunk starts: its first byte is outside any comment.
  void reset() {
    scanned_ = 0;
    open_ = false;
  }

 private:
  std::size_t scanned_ = 0;
  bool open_ = false;
};

// A chunk boundary is a line starting "[Letter" that is outside any brace comment and whose
// previous non-blank line does not start with '[': the first tag of a game that follows movetext.
// The sequential reader ends a game at such a line too (a tag token ends the movetext), so the
// games are the same either way. Returns npos if none is found in [from, size).
std::size_t find_game_start(const TextBuffer& data, std::size_t from, BraceState& braces) {
  const char* b = data.data();
  const char* e = b + data.size();
  for (std::size_t pos = std::max<std::size_t>(from, 1); pos < data.size();) {
    const void* nl = std::memchr(b + pos - 1, '\n', data.size() - pos + 1);
    if (nl == nullptr) return std::string::npos;
    const char* line = static_cast<const char*>(nl) + 1;
    pos = std::size_t(line - b) + 1;
    if (!is_tag_start(line, e)) continue;
    // Walk back over blank lines to the previous line's first non-space character.
    const char* q = line - 1;
    while (q > b && (q[-1] == '\n' || q[-1] == '\r' || q[-1] == ' ' || q[-1] == '\t')) --q;
    if (q == b) continue;
    const char* prev_start = q;
    while (prev_start > b && prev_start[-1] != '\n') --prev_start;
    while (prev_start < q && (*prev_start == ' ' || *prev_start == '\t')) ++prev_start;
    if (*prev_start == '[') continue;
    if (braces.refuses(b, std::size_t(line - b))) continue;
    return std::size_t(line - b);
  }
  return std::string::npos;
}

class ChunkSource {
 public:
  ChunkSource(const std::vector<std::string>& paths, const ParallelOptions& options) : paths_(paths), options_(options) {}

  // The next chunk, or nothing at the end of the last file or on error (see error()).
  std::optional<Chunk> next() {
    for (;;) {
      if (!input_) {
        if (file_ == paths_.size()) return std::nullopt;
        auto opened = formats::open_input(paths_[file_]);
        if (!opened) {
          error_ = opened.error();
          return std::nullopt;
        }
        input_ = std::move(*opened);
        pending_.clear();
        braces_.reset();
        offset_ = 0;
        line_ = 1;
        eof_ = false;
      }
      std::size_t split = std::string::npos;
      std::size_t search_from = options_.chunk_size;
      while (!eof_) {
        split = pending_.size() > search_from ? find_game_start(pending_, search_from, braces_) : std::string::npos;
        if (split != std::string::npos) break;
        search_from = std::max(search_from, pending_.size() > 256 ? pending_.size() - 256 : std::size_t{0});
        const std::size_t old = pending_.size();
        // Read up to a little past the nominal chunk end, so little is left over to copy.
        constexpr std::size_t kStep = std::size_t{1} << 16;
        const std::size_t want = old < search_from + kStep ? search_from + kStep - old : kStep;
        pending_.resize(old + want);
        auto got = input_->read(pending_.data() + old, want);
        if (!got) {
          error_ = got.error();
          return std::nullopt;
        }
        pending_.resize(old + *got);
        if (*got == 0) eof_ = true;
      }
      if (eof_) split = pending_.size();
      if (split == 0) {
        input_.reset();
        ++file_;
        continue;
      }
      Chunk c;
      c.info.index = index_++;
      c.info.source = paths_[file_];
      c.info.byte_offset = offset_;
      c.info.bytes = split;
      c.first_line = line_;
      c.raw_bytes_read = input_->raw_bytes_read();
      c.raw_size = input_->raw_size();
      // The chunk takes the buffer; only the bytes after the split are copied.
      TextBuffer rest = take_buffer();
      rest.assign(pending_.data() + split, pending_.size() - split);
      c.data = std::move(pending_);
      c.data.resize(split);
      pending_ = std::move(rest);
      braces_.reset();
      offset_ += split;
      line_ += count_newlines(c.data.data(), c.data.data() + c.data.size());
      return c;
    }
  }
  [[nodiscard]] const std::optional<Error>& error() const { return error_; }

  // Buffers of finished chunks are reused, which saves page faults on fresh memory.
  void give_back(TextBuffer&& buffer) {
    std::lock_guard lock(pool_mutex_);
    if (pool_.size() < 4) pool_.push_back(std::move(buffer));
  }

 private:
  const std::vector<std::string>& paths_;
  const ParallelOptions& options_;
  std::size_t file_ = 0;
  std::unique_ptr<formats::InputStream> input_;
  TextBuffer pending_;
  BraceState braces_;  // over pending_, from its start
  std::uint64_t offset_ = 0;
  std::uint64_t line_ = 1;
  std::uint64_t index_ = 0;
  bool eof_ = false;
  std::optional<Error> error_;
  std::mutex pool_mutex_;
  std::vector<TextBuffer> pool_;

  TextBuffer take_buffer() {
    std::lock_guard lock(pool_mutex_);
    if (pool_.empty()) return {};
    TextBuffer b = std::move(pool_.back());
    pool_.pop_back();
    b.clear();
    return b;
  }
};

}  // namespace

Result<ReadSummary> read_pgn_parallel(const std::vector<std::string>& paths, tbb::task_arena& arena,
                                      const ReaderOptions& options, const ParallelOptions& parallel,
                                      const MakeVisitor& make_visitor, const ConsumeChunk& consume,
                                      const ProgressCallback& progress) {
  ChunkSource source(paths, parallel);
  ReadSummary summary;
  ReadProgress prog;
  std::string current_source;
  std::uint64_t games_in_file = 0;
  const std::size_t tokens = parallel.max_chunks_in_flight > 0 ? parallel.max_chunks_in_flight
                                                               : std::size_t(2 * std::max(arena.max_concurrency(), 1));
  ordered_pipeline<Chunk>(
      arena, tokens,
      [&]() -> Chunk* {
        auto c = source.next();
        return c ? new Chunk(std::move(*c)) : nullptr;
      },
      [&](Chunk* c) {
        c->visitor = make_visitor(c->info);
        Lexer lexer(c->data.view(), c->info.byte_offset, c->first_line);
        parse_games(lexer, c->info.source, *c->visitor, options, c->counts);
      },
      [&](Chunk* raw) {
        std::unique_ptr<Chunk> c(raw);
        if (c->info.source != current_source || c->info.byte_offset == 0) {
          current_source = c->info.source;
          games_in_file = 0;
        }
        c->info.first_game_number = games_in_file + 1;
        c->info.games = c->counts.games_read;
        games_in_file += c->counts.games_read;
        for (auto& d : c->counts.diagnostics) d.location.game_number += c->info.first_game_number - 1;
        add_counts(summary, c->counts, options.max_diagnostics);
        summary.bytes += c->info.bytes;
        source.give_back(std::move(c->data));
        consume(c->info, std::move(c->visitor));
        if (progress) {
          prog.bytes = summary.bytes;
          prog.games = summary.games_read;
          prog.compressed_bytes = c->raw_bytes_read;
          prog.file_size = c->raw_size;
          prog.source = c->info.source;
          progress(prog);
        }
      });
  if (source.error()) return *source.error();
  return summary;
}

}  // namespace tbkit::pgn
