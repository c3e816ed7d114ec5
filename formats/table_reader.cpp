// TableFile: validation of the header, symbol table and block index; block decoding.
#include <zstd.h>

#include <algorithm>
#include <mutex>
#include <optional>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "formats/lzma_block.h"
#include "formats/mapped_file.h"
#include "formats/table_file.h"
#include "formats/table_layout.h"
#include "formats/table_static_codec.h"

namespace tbkit::formats {

using layout::corrupt;

struct DDictDeleter { void operator()(ZSTD_DDict* d) const { ZSTD_freeDDict(d); } };

struct TableFile::Impl {
  struct BlockRef {
    std::uint64_t offset = 0;
    std::uint32_t size = 0;
    std::uint32_t checksum = 0;
  };
  // One decoder's scratch: a context and a buffer of one block's bytes.
  struct Scratch {
    ZSTD_DCtx* dctx = nullptr;
    std::vector<std::byte> buffer;
  };

  explicit Impl(MappedFile f) : file(std::move(f)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    for (Scratch& s : pool) ZSTD_freeDCtx(s.dctx);
  }

  MappedFile file;
  std::string name;
  layout::Header header;
  std::vector<DtmValue> symbols;
  std::unique_ptr<ZSTD_DDict, DDictDeleter> ddict;
  std::optional<static_codec::StaticTable> static_table;  // version 4

  // Version 4: the value of slot i (a code checked against the symbol table).
  [[nodiscard]] Result<DtmValue> static_value(std::uint64_t i) const {
    auto code = static_table->code_at(file.bytes(), i);
    if (!code) return code.error();
    if (*code >= symbols.size())
      return corrupt(name, header.symbol_table_offset(), "symbol_table", "code " + std::to_string(*code) + " past the table");
    return symbols[*code];
  }

  // Guarded pool of decoder scratch so that const methods may run concurrently.
  mutable std::mutex pool_mutex;
  mutable std::vector<Scratch> pool;

  [[nodiscard]] BlockRef block_ref(std::uint64_t block) const {
    const std::byte* e = file.bytes().data() + header.index_offset() + layout::kIndexEntrySize * block;
    return {load_le<std::uint64_t>(e), load_le<std::uint32_t>(e + 8), load_le<std::uint32_t>(e + 12)};
  }
  // Values the block holds (the last block of a side may be short).
  [[nodiscard]] std::uint64_t block_length(std::uint64_t block) const {
    const std::uint64_t first = (block % header.blocks_per_side()) * header.block_values;
    return std::min<std::uint64_t>(header.block_values, header.info.positions_per_side - first);
  }

  // "block 23, black to move, from index 2816", for messages.
  [[nodiscard]] std::string block_name(std::uint64_t block) const {
    const bool black = header.block_side(block) == 1;
    return "block " + std::to_string(block) + ", " + (black ? "black" : "white") + " to move, from index " +
           std::to_string((block % header.blocks_per_side()) * header.block_values);
  }

  Scratch acquire() const {
    {
      std::lock_guard lock(pool_mutex);
      if (!pool.empty()) {
        Scratch s = std::move(pool.back());
        pool.pop_back();
        return s;
      }
    }
    return Scratch{ZSTD_createDCtx(), {}};
  }
  void release(Scratch s) const {
    if (s.dctx == nullptr) return;  // allocation failed; try again next time
    std::lock_guard lock(pool_mutex);
    pool.push_back(std::move(s));
  }

  // Checks and decompresses a block into s.buffer, exactly block_length * width bytes.
  Status decode_block(std::uint64_t block, Scratch& s) const;
  // The value of slot i of the decoded block in s.buffer.
  Result<DtmValue> symbol_value(const Scratch& s, std::uint64_t block, std::uint64_t i) const;
  Status validate_metadata();
};

Status TableFile::Impl::decode_block(std::uint64_t block, Scratch& s) const {
  const BlockRef ref = block_ref(block);
  const auto bytes = file.bytes().subspan(ref.offset, ref.size);
  const std::string where = block_name(block);
  if (crc32c(bytes) != ref.checksum) return corrupt(name, ref.offset, where.c_str(), "block checksum mismatch");
  const std::size_t expected = block_length(block) * header.symbol_width;
  s.buffer.resize(expected);
  if (header.codec == layout::kCodecLzma2) {
    if (!lzma_decode_block(bytes, s.buffer))
      return corrupt(name, ref.offset, where.c_str(), "lzma: damaged block (does not decode to " + std::to_string(expected) + " bytes)");
    return {};
  }
  if (s.dctx == nullptr) return make_error(ErrorCode::kIo, name + ": zstd: out of memory");
  const std::size_t n = ddict ? ZSTD_decompress_usingDDict(s.dctx, s.buffer.data(), expected, bytes.data(), bytes.size(), ddict.get())
                              : ZSTD_decompressDCtx(s.dctx, s.buffer.data(), expected, bytes.data(), bytes.size());
  if (ZSTD_isError(n)) return corrupt(name, ref.offset, where.c_str(), std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n != expected)
    return corrupt(name, ref.offset, where.c_str(),
                   "decompressed to " + std::to_string(n) + " bytes, expected " + std::to_string(expected));
  return {};
}

Result<DtmValue> TableFile::Impl::symbol_value(const Scratch& s, std::uint64_t block, std::uint64_t i) const {
  const std::uint32_t code = header.symbol_width == 1 ? std::uint32_t(s.buffer[i]) : load_le<std::uint16_t>(&s.buffer[2 * i]);
  if (code >= symbols.size())
    return corrupt(name, block_ref(block).offset, block_name(block).c_str(),
                   "symbol " + std::to_string(code) + " at slot " + std::to_string(i) + " is outside the symbol table");
  return symbols[code];
}

Status TableFile::Impl::validate_metadata() {
  const auto bytes = file.bytes();
  const auto metadata = bytes.subspan(layout::kHeaderSize, header.data_offset() - layout::kHeaderSize);
  if (crc32c(metadata) != header.metadata_checksum)
    return corrupt(name, layout::kOffMetadataChecksum, "metadata_checksum",
                   "checksum of the symbol table, dictionary and block index mismatch");
  std::vector<bool> seen(65536, false);
  for (std::uint32_t i = 0; i < header.symbol_count; ++i) {
    const std::uint64_t at = header.symbol_table_offset() + 2ULL * i;
    const auto raw = load_le<std::uint16_t>(bytes.data() + at);
    if (seen[raw]) return corrupt(name, at, "symbol_table", "value " + std::to_string(raw) + " listed twice");
    seen[raw] = true;
    symbols.push_back(DtmValue::from_raw(raw));
  }
  if (header.version >= 4) {
    auto parsed = static_codec::StaticTable::parse(bytes, header, name);
    if (!parsed) return parsed.error();
    static_table.emplace(std::move(*parsed));
    return {};
  }
  if (header.dictionary_size > 0) {
    ddict.reset(ZSTD_createDDict(bytes.data() + header.dictionary_offset(), header.dictionary_size));
    if (!ddict) return corrupt(name, header.dictionary_offset(), "dictionary", "zstd rejects the dictionary");
  }
  const std::uint64_t max_block = header.max_block_size();
  std::uint64_t expected_offset = header.data_offset();
  for (std::uint64_t b = 0; b < header.block_count; ++b) {
    const BlockRef ref = block_ref(b);
    const std::uint64_t at = header.index_offset() + layout::kIndexEntrySize * b;
    if (ref.offset != expected_offset)
      return corrupt(name, at, "block_index",
                     "block " + std::to_string(b) + " starts at " + std::to_string(ref.offset) + ", expected " +
                         std::to_string(expected_offset));
    if (ref.size == 0 || ref.size > max_block || ref.size > header.file_size - ref.offset)
      return corrupt(name, at + 8, "block_index", "block " + std::to_string(b) + " has an invalid size");
    expected_offset += ref.size;
  }
  if (expected_offset != header.file_size)
    return corrupt(name, header.index_offset(), "block_index", "blocks end at " + std::to_string(expected_offset) +
                                                                   ", the file at " + std::to_string(header.file_size));
  return {};
}

namespace {

Status validate(TableFile::Impl* impl) {
  const auto bytes = impl->file.bytes();
  auto header = layout::decode_header(bytes.first(std::min<std::size_t>(bytes.size(), layout::kHeaderSize)),
                                      bytes.size(), impl->name);
  if (!header) return header.error();
  impl->header = std::move(*header);
  return impl->validate_metadata();
}

}  // namespace

Result<TableFile> TableFile::open(const std::filesystem::path& path) {
  auto file = MappedFile::map(path);
  if (!file) return file.error();
  auto impl = std::make_shared<Impl>(std::move(*file));
  impl->name = path.string();
  if (auto st = validate(impl.get()); !st) return st.error();
  return TableFile(std::move(impl));
}

Result<TableFile> TableFile::open_memory(std::span<const std::byte> bytes, std::string name) {
  auto impl = std::make_shared<Impl>(MappedFile::copy_of(bytes));
  impl->name = std::move(name);
  if (auto st = validate(impl.get()); !st) return st.error();
  return TableFile(std::move(impl));
}

const TableInfo& TableFile::info() const { return impl_->header.info; }
const std::string& TableFile::name() const { return impl_->name; }
void TableFile::advise_random_access() const { impl_->file.advise_random_access(); }
std::uint64_t TableFile::file_size() const { return impl_->header.file_size; }
std::uint64_t TableFile::block_count() const { return impl_->header.block_count; }
std::uint32_t TableFile::values_per_block() const {
  return impl_->static_table ? static_codec::kNominalReadValues : impl_->header.block_values;
}
std::uint32_t TableFile::symbol_count() const { return impl_->header.symbol_count; }
std::uint32_t TableFile::dictionary_size() const { return impl_->static_table ? 0 : impl_->header.dictionary_size; }
std::uint32_t TableFile::format_version() const { return impl_->header.version; }
bool TableFile::stores(chess::Color side_to_move) const {
  return impl_->header.sides() == 2 || impl_->header.stored_side == index_of(side_to_move);
}
chess::Color TableFile::stored_side() const { return chess::Color(impl_->header.stored_side); }
bool TableFile::capture_resolved() const { return impl_->header.value_encoding == layout::kValueEncodingResolved; }
BlockCodec TableFile::codec() const {
  if (impl_->header.codec == layout::kCodecStatic) return BlockCodec::kStatic;
  return impl_->header.codec == layout::kCodecLzma2 ? BlockCodec::kLzma2 : BlockCodec::kZstd;
}

Result<DtmValue> TableFile::value(chess::Color side_to_move, std::uint64_t index) const {
  const Impl& im = *impl_;
  if (im.static_table && index < im.header.info.positions_per_side && stores(side_to_move)) return im.static_value(index);
  auto v = values(side_to_move, index, 1);
  if (!v) return v.error();
  return v->front();
}

Result<std::vector<DtmValue>> TableFile::values(chess::Color side_to_move, std::uint64_t first, std::uint64_t count) const {
  const Impl& im = *impl_;
  const std::uint64_t n = im.header.info.positions_per_side;
  if (first > n || count > n - first)
    return make_error(ErrorCode::kInvalidArgument, im.name + ": index range [" + std::to_string(first) + ", " +
                                                       std::to_string(first + count) + ") outside 0.." +
                                                       std::to_string(n));
  if (!stores(side_to_move))
    return make_error(ErrorCode::kInvalidArgument, im.name + ": stores only " +
                                                       (im.header.stored_side == 0 ? "white" : "black") + " to move");
  std::vector<DtmValue> out;
  out.reserve(count);
  if (im.static_table) {
    std::vector<std::uint16_t> codes;
    codes.reserve(count);
    if (Status st = im.static_table->codes(im.file.bytes(), first, count, codes); !st) return st.error();
    for (const std::uint16_t c : codes) {
      if (c >= im.symbols.size())
        return corrupt(im.name, im.header.symbol_table_offset(), "symbol_table", "code " + std::to_string(c) + " past the table");
      out.push_back(im.symbols[c]);
    }
    return out;
  }
  Impl::Scratch s = im.acquire();
  Status st;
  const std::uint64_t side_base =
      im.header.sides() == 1 || side_to_move == chess::Color::kWhite ? 0 : im.header.blocks_per_side();
  for (std::uint64_t i = first; i < first + count && st;) {
    const std::uint64_t block = side_base + i / im.header.block_values;
    st = im.decode_block(block, s);
    const std::uint64_t end = std::min(first + count, (i / im.header.block_values + 1) * im.header.block_values);
    for (; i < end && st; ++i) {
      auto v = im.symbol_value(s, block, i % im.header.block_values);
      if (v) out.push_back(*v);
      else st = v.error();
    }
  }
  im.release(std::move(s));
  if (!st) return st.error();
  return out;
}

Status TableFile::check_block_checksum(std::uint64_t block) const {
  const Impl& im = *impl_;
  if (im.static_table) return im.static_table->check_block(im.file.bytes(), block);
  if (block >= im.header.block_count)
    return make_error(ErrorCode::kInvalidArgument, im.name + ": no block " + std::to_string(block));
  const auto ref = im.block_ref(block);
  if (crc32c(im.file.bytes().subspan(ref.offset, ref.size)) != ref.checksum)
    return corrupt(im.name, ref.offset, im.block_name(block).c_str(), "block checksum mismatch");
  return {};
}

Status TableFile::verify() const {
  const Impl& im = *impl_;
  if (im.static_table) return im.static_table->verify(im.file.bytes());
  Impl::Scratch s = im.acquire();
  Status st;
  for (std::uint64_t b = 0; b < im.header.block_count && st; ++b) {
    st = im.decode_block(b, s);
    for (std::uint64_t i = 0; i < im.block_length(b) && st; ++i)
      if (auto v = im.symbol_value(s, b, i); !v) st = v.error();
  }
  im.release(std::move(s));
  return st;
}

}  // namespace tbkit::formats
