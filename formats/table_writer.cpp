// Table file writer: symbol remapping, don't-care filling, optional dictionary, zstd blocks.
#include <fcntl.h>
#include <unistd.h>

#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <numeric>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "formats/lzma_block.h"
#include "formats/table_file.h"
#include "formats/table_layout.h"

namespace tbkit::formats {
namespace {

using layout::Header;

struct CCtxDeleter { void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); } };
struct CDictDeleter { void operator()(ZSTD_CDict* d) const { ZSTD_freeCDict(d); } };

// The per-table symbol table: code -> raw value, and raw value -> code.
struct Symbols {
  std::vector<std::uint16_t> values;
  std::vector<std::uint16_t> code_of = std::vector<std::uint16_t>(65536, 0);
};

// Counts the values to code: every slot's value except free ones (illegal slots when filling,
// kAny slots), which take a neighbour's symbol.
Symbols build_symbols(std::span<const std::span<const DtmValue>> sides, std::span<const SlotFreedom> freedom,
                      const TableWriteOptions& opt) {
  std::vector<std::uint64_t> counts(65536, 0);
  for (auto side : sides)
    for (std::size_t i = 0; i < side.size(); ++i)
      if (freedom.empty() || freedom[i] != SlotFreedom::kAny) ++counts[side[i].raw()];
  if (opt.fill_illegal) counts[0xFFFF] = 0;
  Symbols s;
  for (std::uint32_t raw = 0; raw < 65536; ++raw)
    if (counts[raw] != 0) s.values.push_back(std::uint16_t(raw));
  if (s.values.empty()) s.values.push_back(0xFFFF);  // an all-illegal table
  if (opt.symbol_order == SymbolOrder::kFrequency)
    std::stable_sort(s.values.begin(), s.values.end(),
                     [&](std::uint16_t x, std::uint16_t y) { return counts[x] > counts[y]; });
  for (std::size_t code = 0; code < s.values.size(); ++code) s.code_of[s.values[code]] = std::uint16_t(code);
  return s;
}

// Codes one block of a side into `out` (width bytes per value). `previous` carries the last
// stored code from slot to slot for filling: a free slot repeats it, and a capture-resolved slot
// (freedom kNoBetter) repeats it when its value is no better than the slot's own.
void code_block(std::span<const DtmValue> values, std::span<const SlotFreedom> freedom, const Symbols& s, int width,
                bool fill, std::uint16_t& previous, std::vector<std::byte>& out) {
  out.resize(values.size() * std::size_t(width));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const DtmValue v = values[i];
    const SlotFreedom f = freedom.empty() ? SlotFreedom::kExact : freedom[i];
    std::uint16_t code = previous;
    if (fill && (v.is_illegal() || f == SlotFreedom::kAny)) {
      // keep the previous code
    } else if (f == SlotFreedom::kNoBetter &&
               preference_of(DtmValue::from_raw(s.values[previous])) <= preference_of(v)) {
      // the previous value is allowed here
    } else {
      code = previous = s.code_of[v.raw()];
    }
    if (width == 1) out[i] = std::byte(code);
    else store_le<std::uint16_t>(&out[2 * i], code);
  }
}

Status check_options(const TableWriteOptions& o) {
  if (o.block_bytes < layout::kMinBlockBytes || o.block_bytes > layout::kMaxBlockBytes)
    return make_error(ErrorCode::kInvalidArgument, "table options: block_bytes must be 256..1048576");
  if (o.format_version < layout::kOldestVersion || o.format_version > layout::kVersion)
    return make_error(ErrorCode::kInvalidArgument, "table options: format_version must be 1, 2 or 3");
  if (o.codec == BlockCodec::kLzma2 && o.format_version < 2)
    return make_error(ErrorCode::kInvalidArgument, "table options: LZMA2 blocks need format version 2");
  const bool zstd = o.codec == BlockCodec::kZstd;
  if (o.compression_level < (zstd ? 1 : 0) || o.compression_level > (zstd ? ZSTD_maxCLevel() : 9))
    return make_error(ErrorCode::kInvalidArgument, "table options: compression_level out of range");
  if (o.dictionary_bytes > layout::kMaxDictionaryBytes)
    return make_error(ErrorCode::kInvalidArgument, "table options: dictionary_bytes over 4 MiB");
  if (o.dictionary_bytes > 0 && !zstd)
    return make_error(ErrorCode::kInvalidArgument, "table options: a dictionary needs the zstd codec");
  return {};
}

// Trains a dictionary on up to 256 blocks spread over the table; empty when training fails
// (e.g. too little data), in which case the file simply has none.
std::vector<std::byte> train_dictionary(std::span<const std::span<const DtmValue>> sides, const Symbols& s,
                                        const Header& h, const TableWriteOptions& opt) {
  const std::uint64_t per_side = h.blocks_per_side();
  const std::uint64_t total = h.block_count;
  const std::uint64_t samples = std::min<std::uint64_t>(total, 256);
  std::vector<std::byte> joined, block;
  std::vector<std::size_t> sizes;
  for (std::uint64_t k = 0; k < samples; ++k) {
    const std::uint64_t blk = k * total / samples;
    auto side = sides[blk / per_side];
    const std::uint64_t first = (blk % per_side) * h.block_values;
    const auto count = std::min<std::uint64_t>(h.block_values, side.size() - first);
    std::uint16_t previous = 0;
    code_block(side.subspan(first, count), {}, s, h.symbol_width, opt.fill_illegal, previous, block);
    joined.insert(joined.end(), block.begin(), block.end());
    sizes.push_back(block.size());
  }
  std::vector<std::byte> dict(opt.dictionary_bytes);
  const std::size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), joined.data(), sizes.data(), unsigned(sizes.size()));
  if (ZDICT_isError(n)) return {};
  dict.resize(n);
  return dict;
}

Status write_all(int fd, std::span<const std::byte> bytes, const std::string& name) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error(ErrorCode::kIo, name + ": write failed: " + std::strerror(errno));
    bytes = bytes.subspan(std::size_t(n));
  }
  return {};
}

// The code of the last legal value before slot `first` of a side (0 when there is none), so
// that a block filled on its own matches the sequential fill.
std::uint16_t previous_code(std::span<const DtmValue> side, std::uint64_t first, const Symbols& s, bool fill) {
  if (!fill) return 0;
  for (std::uint64_t i = first; i > 0; --i)
    if (!side[i - 1].is_illegal()) return s.code_of[side[i - 1].raw()];
  return 0;
}

}  // namespace

struct TableEncoder::Impl {
  std::vector<std::span<const DtmValue>> sides;  // the stored sides, in block order
  std::span<const SlotFreedom> freedom;          // version 3: per slot of sides[0], or empty
  TableWriteOptions options;
  Symbols symbols;
  Header header;
  std::vector<std::byte> dictionary;
  std::unique_ptr<ZSTD_CDict, CDictDeleter> cdict;
};

namespace {

Status fill_encoder(TableEncoder::Impl& im, const TableInfo& info) {
  const TableWriteOptions& options = im.options;
  im.symbols = build_symbols(im.sides, im.freedom, options);
  Header& h = im.header;
  h.info = info;
  h.version = options.format_version;
  h.codec = options.codec == BlockCodec::kZstd ? layout::kCodecZstd : layout::kCodecLzma2;
  h.symbol_count = std::uint32_t(im.symbols.values.size());
  h.symbol_width = (h.symbol_count <= 256 && !options.wide_symbols) ? 1 : 2;
  h.block_values = options.block_bytes / h.symbol_width;
  h.block_count = std::uint64_t(h.sides()) * h.blocks_per_side();
  if (options.dictionary_bytes > 0) im.dictionary = train_dictionary(im.sides, im.symbols, h, options);
  h.dictionary_size = std::uint32_t(im.dictionary.size());
  if (!im.dictionary.empty()) {
    im.cdict.reset(ZSTD_createCDict(im.dictionary.data(), im.dictionary.size(), options.compression_level));
    if (!im.cdict) return make_error(ErrorCode::kIo, "zstd: cannot create the dictionary");
  }
  return {};
}

}  // namespace

Result<TableEncoder> TableEncoder::create(const TableInfo& info, std::span<const DtmValue> white_to_move,
                                          std::span<const DtmValue> black_to_move, const TableWriteOptions& options) {
  if (auto st = layout::check_info(info); !st) return st.error();
  if (auto st = check_options(options); !st) return st.error();
  if (options.format_version >= 3)
    return make_error(ErrorCode::kInvalidArgument, "table options: format version 3 stores one side (the OneSide overloads)");
  if (white_to_move.size() != info.positions_per_side || black_to_move.size() != info.positions_per_side)
    return make_error(ErrorCode::kInvalidArgument, "table values: each side needs positions_per_side values");
  auto impl = std::make_shared<Impl>();
  impl->sides = {white_to_move, black_to_move};
  impl->options = options;
  if (Status st = fill_encoder(*impl, info); !st) return st.error();
  return TableEncoder(std::move(impl));
}

Result<TableEncoder> TableEncoder::create(const TableInfo& info, const OneSide& side, const TableWriteOptions& options) {
  if (auto st = layout::check_info(info); !st) return st.error();
  if (auto st = check_options(options); !st) return st.error();
  if (side.values.size() != info.positions_per_side)
    return make_error(ErrorCode::kInvalidArgument, "table values: the side needs positions_per_side values");
  if (!side.freedom.empty() && side.freedom.size() != side.values.size())
    return make_error(ErrorCode::kInvalidArgument, "table values: freedom needs one entry per value");
  auto impl = std::make_shared<Impl>();
  impl->sides = {side.values};
  impl->freedom = side.freedom;
  impl->options = options;
  impl->options.format_version = 3;
  impl->header.stored_side = std::uint8_t(index_of(side.side));
  impl->header.value_encoding = side.freedom.empty() ? layout::kValueEncodingDtm16 : layout::kValueEncodingResolved;
  if (Status st = fill_encoder(*impl, info); !st) return st.error();
  return TableEncoder(std::move(impl));
}

std::uint64_t TableEncoder::block_count() const { return impl_->header.block_count; }

Result<std::vector<std::byte>> TableEncoder::encode_block(std::uint64_t block) const {
  const Impl& im = *impl_;
  const Header& h = im.header;
  if (block >= h.block_count) return make_error(ErrorCode::kInvalidArgument, "table encoder: no block " + std::to_string(block));
  const auto side = im.sides[block / h.blocks_per_side()];
  const std::uint64_t first = (block % h.blocks_per_side()) * h.block_values;
  const auto count = std::min<std::uint64_t>(h.block_values, side.size() - first);
  // Version 3 starts every block's fill afresh (from code 0), so a block's bytes depend on its
  // own slots only; versions 1 and 2 continue from the last legal value before the block.
  std::uint16_t previous = h.version >= 3 ? 0 : previous_code(side, first, im.symbols, im.options.fill_illegal);
  const auto freedom = im.freedom.empty() ? im.freedom : im.freedom.subspan(first, count);
  std::vector<std::byte> raw, out;
  code_block(side.subspan(first, count), freedom, im.symbols, h.symbol_width, im.options.fill_illegal, previous, raw);
  if (h.codec == layout::kCodecLzma2) {
    if (!lzma_encode_block(raw, im.options.compression_level, im.options.lzma_extreme, out))
      return make_error(ErrorCode::kIo, "lzma: cannot compress a block (out of memory?)");
    return out;
  }
  std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  if (!cctx) return make_error(ErrorCode::kIo, "zstd: out of memory");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, im.options.compression_level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_dictIDFlag, 0);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
  if (im.cdict) ZSTD_CCtx_refCDict(cctx.get(), im.cdict.get());
  out.resize(ZSTD_compressBound(raw.size()));
  const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
  if (ZSTD_isError(n)) return make_error(ErrorCode::kIo, std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

Result<std::vector<std::byte>> TableEncoder::assemble(std::span<const std::vector<std::byte>> blocks) const {
  const Impl& im = *impl_;
  Header h = im.header;
  if (blocks.size() != h.block_count)
    return make_error(ErrorCode::kInvalidArgument, "table encoder: " + std::to_string(blocks.size()) + " blocks given, " +
                                                       std::to_string(h.block_count) + " expected");
  std::vector<std::byte> metadata(2 * im.symbols.values.size());
  for (std::size_t i = 0; i < im.symbols.values.size(); ++i) store_le<std::uint16_t>(&metadata[2 * i], im.symbols.values[i]);
  metadata.insert(metadata.end(), im.dictionary.begin(), im.dictionary.end());
  const std::size_t index_at = metadata.size();
  metadata.resize(index_at + layout::kIndexEntrySize * h.block_count);
  std::uint64_t offset = h.data_offset();
  for (std::uint64_t k = 0; k < h.block_count; ++k) {
    std::byte* entry = &metadata[index_at + layout::kIndexEntrySize * k];
    store_le<std::uint64_t>(entry, offset);
    store_le<std::uint32_t>(entry + 8, std::uint32_t(blocks[k].size()));
    store_le<std::uint32_t>(entry + 12, crc32c(blocks[k]));
    offset += blocks[k].size();
  }
  h.metadata_checksum = crc32c(metadata);
  h.file_size = offset;
  const auto header = layout::encode_header(h);
  std::vector<std::byte> out;
  out.reserve(h.file_size);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), metadata.begin(), metadata.end());
  for (const auto& b : blocks) out.insert(out.end(), b.begin(), b.end());
  return out;
}

namespace {

Result<std::vector<std::byte>> encode_all(const TableEncoder& encoder) {
  std::vector<std::vector<std::byte>> blocks(encoder.block_count());
  for (std::uint64_t k = 0; k < blocks.size(); ++k) {
    auto b = encoder.encode_block(k);
    if (!b) return b.error();
    blocks[k] = std::move(*b);
  }
  return encoder.assemble(blocks);
}

}  // namespace

Result<std::vector<std::byte>> encode_table(const TableInfo& info, std::span<const DtmValue> white_to_move,
                                            std::span<const DtmValue> black_to_move, const TableWriteOptions& options) {
  auto encoder = TableEncoder::create(info, white_to_move, black_to_move, options);
  if (!encoder) return encoder.error();
  return encode_all(*encoder);
}

Result<std::vector<std::byte>> encode_table(const TableInfo& info, const OneSide& side, const TableWriteOptions& options) {
  auto encoder = TableEncoder::create(info, side, options);
  if (!encoder) return encoder.error();
  return encode_all(*encoder);
}

Status write_table_file(const std::filesystem::path& path, const TableInfo& info, const OneSide& side,
                        const TableWriteOptions& options) {
  auto bytes = encode_table(info, side, options);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  const std::string name = tmp.string();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(ErrorCode::kIo, name + ": cannot create: " + std::strerror(errno));
  Status st = write_all(fd, bytes, name);
  if (st && ::fsync(fd) != 0) st = make_error(ErrorCode::kIo, name + ": fsync failed: " + std::strerror(errno));
  if (::close(fd) != 0 && st) st = make_error(ErrorCode::kIo, name + ": close failed: " + std::strerror(errno));
  if (st && ::rename(tmp.c_str(), path.c_str()) != 0)
    st = make_error(ErrorCode::kIo, path.string() + ": cannot rename the tmp file into place: " + std::strerror(errno));
  if (!st) ::unlink(tmp.c_str());
  return st;
}

Status write_table_file(const std::filesystem::path& path, const TableInfo& info,
                        std::span<const DtmValue> white_to_move, std::span<const DtmValue> black_to_move,
                        const TableWriteOptions& options) {
  auto bytes = encode_table(info, white_to_move, black_to_move, options);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

}  // namespace tbkit::formats
