// Format version 4: the writer (fill, numbering, pair + Huffman coding, layout) and the reader's model.
#include "formats/table_static_codec.h"

#include <algorithm>
#include <array>
#include <bit>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "formats/syzygy_pairs.h"

namespace tbkit::formats::static_codec {
namespace {

bool is_free(DtmValue v, std::span<const SlotFreedom> freedom, std::size_t i) {
  return v.is_illegal() || (!freedom.empty() && freedom[i] == SlotFreedom::kAny);
}

// Bytes of chunk checksums' data each covers: kChunkBytes, or one block when blocks are larger.
std::uint64_t blocks_per_chunk(std::uint32_t block_bytes) {
  return std::max<std::uint64_t>(1, kChunkBytes / block_bytes);
}

}  // namespace

FilledValues fill_and_number(std::span<const DtmValue> values, std::span<const SlotFreedom> freedom) {
  const std::size_t n = values.size();
  // The value free slots before the first stored one repeat: the first stored value (draw if none).
  DtmValue previous = DtmValue::draw();
  for (std::size_t i = 0; i < n; ++i)
    if (!is_free(values[i], freedom, i)) {
      previous = values[i];
      break;
    }
  std::vector<DtmValue> filled(n);
  for (std::size_t i = 0; i < n; ++i) {
    const DtmValue v = values[i];
    if (is_free(v, freedom, i)) {
      filled[i] = previous;
      continue;
    }
    const bool no_better = !freedom.empty() && freedom[i] == SlotFreedom::kNoBetter;
    if (!(no_better && preference_of(previous) <= preference_of(v))) previous = v;
    filled[i] = previous;
  }
  std::vector<std::uint64_t> count(65536, 0);
  for (const DtmValue v : filled) ++count[v.raw()];
  FilledValues out;
  for (std::uint32_t raw = 0; raw < 65536; ++raw)
    if (count[raw] > 0) out.symbols.push_back(DtmValue::from_raw(std::uint16_t(raw)));
  std::stable_sort(out.symbols.begin(), out.symbols.end(),
                   [&](DtmValue a, DtmValue b) { return count[a.raw()] > count[b.raw()]; });
  std::vector<std::uint16_t> code_of(65536, 0);
  for (std::size_t k = 0; k < out.symbols.size(); ++k) code_of[out.symbols[k].raw()] = std::uint16_t(k);
  out.codes.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.codes[i] = code_of[filled[i].raw()];
  return out;
}

Result<std::vector<std::byte>> encode_static_table(const TableInfo& info, const OneSide& side,
                                                   const TableWriteOptions& options) {
  if (Status st = layout::check_info(info); !st) return st.error();
  const std::uint32_t block_bytes = options.static_block_bytes;
  if (block_bytes < kMinBlockBytes || block_bytes > kMaxBlockBytes || !std::has_single_bit(block_bytes))
    return make_error(ErrorCode::kInvalidArgument, "table options: static_block_bytes must be a power of two in 32..65536");
  if (side.values.size() != info.positions_per_side || (!side.freedom.empty() && side.freedom.size() != side.values.size()))
    return make_error(ErrorCode::kInvalidArgument, "table writer: value and freedom spans must hold positions_per_side entries");
  FilledValues filled = fill_and_number(side.values, side.freedom);
  if (filled.symbols.size() > kMaxSymbols)
    return make_error(ErrorCode::kInvalidArgument, "table writer: " + std::to_string(filled.symbols.size()) +
                                                       " distinct values, format version 4 codes at most " +
                                                       std::to_string(kMaxSymbols));
  std::vector<syzygy::pairs::SymbolDef> leaves(filled.symbols.size());
  for (std::size_t k = 0; k < leaves.size(); ++k) leaves[k].left = std::uint16_t(k);
  syzygy::pairs::SymbolStream<std::uint16_t> stream(std::move(filled.codes), int(leaves.size()));
  syzygy::pairs::StreamOptions so;
  // The largest block allowed; smaller ones where they make the file smaller (a table whose values
  // take few bits would otherwise leave most of each block empty: a block holds at most 65536 values).
  so.max_block_log2 = std::countr_zero(block_bytes);
  const syzygy::CompressedSubtable sub = syzygy::pairs::compress_stream(stream, std::move(leaves), 0, so);
  const std::uint32_t chosen_bytes = std::uint32_t{1} << sub.block_size_log2;

  const std::uint64_t blocks = sub.data.size() / chosen_bytes;
  const std::uint64_t chunks = (blocks + blocks_per_chunk(chosen_bytes) - 1) / blocks_per_chunk(chosen_bytes);
  const std::uint64_t chunk_bytes = blocks_per_chunk(chosen_bytes) * chosen_bytes;
  std::vector<std::byte> out(layout::kHeaderSize);
  for (const DtmValue v : filled.symbols) syzygy::pairs::append_le<std::uint16_t>(out, v.raw());
  const std::size_t model_at = out.size();
  out.insert(out.end(), sub.record.begin(), sub.record.end());
  out.insert(out.end(), sub.sparse_index.begin(), sub.sparse_index.end());
  out.insert(out.end(), sub.block_lengths.begin(), sub.block_lengths.end());
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = std::size_t(c * chunk_bytes);
    const std::size_t size = std::size_t(std::min<std::uint64_t>(chunk_bytes, sub.data.size() - begin));
    syzygy::pairs::append_le<std::uint32_t>(out, crc32c(std::span(sub.data).subspan(begin, size)));
  }
  out.resize((out.size() + 63) / 64 * 64, std::byte{0});
  const std::size_t data_at = out.size();
  out.insert(out.end(), sub.data.begin(), sub.data.end());

  layout::Header h;
  h.info = info;
  h.version = 4;
  h.codec = layout::kCodecStatic;
  h.value_encoding = side.freedom.empty() ? layout::kValueEncodingDtm16 : layout::kValueEncodingResolved;
  h.stored_side = std::uint8_t(index_of(side.side));
  h.file_size = out.size();
  h.block_values = chosen_bytes;
  h.symbol_count = std::uint32_t(filled.symbols.size());
  h.symbol_width = 2;
  h.dictionary_size = std::uint32_t(data_at - model_at);
  h.block_count = blocks;
  h.metadata_checksum = crc32c(std::span(out).subspan(layout::kHeaderSize, data_at - layout::kHeaderSize));
  const auto header = layout::encode_header(h);
  std::copy(header.begin(), header.end(), out.begin());
  return out;
}

Result<StaticTable> StaticTable::parse(std::span<const std::byte> file, const layout::Header& h, const std::string& name) {
  StaticTable t;
  t.name_ = name;
  syzygy::SubtableLayout& s = t.code_;
  const std::size_t data_at = std::size_t(h.data_offset());
  std::size_t pos = std::size_t(h.dictionary_offset());
  const std::uint64_t n = h.info.positions_per_side;
  if (data_at > file.size() || pos >= data_at) return syzygy::pair_code_fault(name, pos, "truncated in the model");
  s.flags = std::uint8_t(file[pos++]);
  if (s.flags != 0) return syzygy::pair_code_fault(name, pos - 1, "model flags must be zero");
  if (Status st = syzygy::read_pair_code(file, pos, data_at, n, int(h.symbol_count) - 1, "symbol", name, " (model)", s); !st)
    return st.error();
  if (s.block_size != h.block_values)
    return syzygy::pair_code_fault(name, layout::kOffBlockValues, "block size " + std::to_string(h.block_values) +
                                                                      " differs from the model's " + std::to_string(s.block_size));
  if (s.block_count != h.block_count)
    return syzygy::pair_code_fault(name, layout::kOffBlockCount, "block count differs from the model's");
  s.sparse_index = pos;
  if (!syzygy::add_region(pos, s.sparse_count, syzygy::kSparseEntrySize, data_at))
    return syzygy::pair_code_fault(name, s.sparse_index, "sparse index passes the data");
  s.block_lengths = pos;
  if (!syzygy::add_region(pos, s.block_length_count, 2, data_at))
    return syzygy::pair_code_fault(name, s.block_lengths, "block length table passes the data");
  t.blocks_per_chunk_ = std::uint32_t(blocks_per_chunk(s.block_size));
  t.chunk_count_ = (std::uint64_t{s.block_count} + t.blocks_per_chunk_ - 1) / t.blocks_per_chunk_;
  t.chunk_sums_ = pos;
  if (!syzygy::add_region(pos, t.chunk_count_, 4, data_at))
    return syzygy::pair_code_fault(name, t.chunk_sums_, "chunk checksums pass the data");
  if ((pos + 63) / 64 * 64 != data_at)
    return syzygy::pair_code_fault(name, pos, "model ends at " + std::to_string(pos) + ", the data starts at " + std::to_string(data_at));
  s.data = data_at;
  if (std::uint64_t{s.block_count} * s.block_size != h.file_size - data_at)
    return syzygy::pair_code_fault(name, data_at, "data holds " + std::to_string(h.file_size - data_at) + " bytes, " +
                                                      std::to_string(s.block_count) + " blocks of " + std::to_string(s.block_size) +
                                                      " expected");
  if (Status st = syzygy::check_block_tables(file, s, n, name); !st) return st.error();
  s.marks.reset(s.block_count, s.block_size);  // only now: the blocks are known to lie in the file
  t.checked_ = std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t((t.chunk_count_ + 63) / 64));
  return t;
}

Status StaticTable::check_chunk(std::span<const std::byte> file, std::uint64_t chunk) const {
  std::atomic<std::uint64_t>& word = checked_[std::size_t(chunk / 64)];
  const std::uint64_t bit = std::uint64_t{1} << (chunk % 64);
  if (word.load(std::memory_order_acquire) & bit) return {};
  const std::uint64_t begin = code_.data + chunk * blocks_per_chunk_ * code_.block_size;
  const std::uint64_t end = std::min<std::uint64_t>(begin + std::uint64_t{blocks_per_chunk_} * code_.block_size,
                                                    code_.data + std::uint64_t{code_.block_count} * code_.block_size);
  const std::uint32_t want = load_le<std::uint32_t>(file.data() + chunk_sums_ + 4 * chunk);
  if (crc32c(file.subspan(std::size_t(begin), std::size_t(end - begin))) != want)
    return syzygy::pair_code_fault(name_, std::size_t(begin), "checksum mismatch in data chunk " + std::to_string(chunk));
  word.fetch_or(bit, std::memory_order_release);
  return {};
}

Result<std::uint16_t> StaticTable::code_at(std::span<const std::byte> file, std::uint64_t slot) const {
  auto at = syzygy::locate_pair_block(code_, file.data(), slot, name_);
  if (!at) return at.error();
  if (Status st = check_chunk(file, at->block / blocks_per_chunk_); !st) return st.error();
  auto leaf = syzygy::decode_pair_in_block(code_, file.data(), *at, name_);
  if (!leaf) return leaf.error();
  return std::uint16_t(*leaf);
}

Status StaticTable::codes(std::span<const std::byte> file, std::uint64_t first, std::uint64_t count,
                          std::vector<std::uint16_t>& out) const {
  if (count == 0) return {};
  auto at = syzygy::locate_pair_block(code_, file.data(), first, name_);
  if (!at) return at.error();
  std::vector<std::uint16_t> buffer(65536);
  std::uint32_t block = at->block, skip = at->offset;
  while (count > 0) {
    if (block >= code_.block_count) return syzygy::pair_code_fault(name_, code_.block_lengths, "values run past the last block");
    if (Status st = check_chunk(file, block / blocks_per_chunk_); !st) return st;
    auto n = syzygy::expand_pair_block(code_, file.data(), block, buffer, name_);
    if (!n) return n.error();
    const std::uint32_t take = std::uint32_t(std::min<std::uint64_t>(count, *n - skip));
    out.insert(out.end(), buffer.begin() + skip, buffer.begin() + skip + take);
    count -= take;
    skip = 0;
    ++block;
  }
  return {};
}

Status StaticTable::verify(std::span<const std::byte> file) const {
  for (std::uint64_t c = 0; c < chunk_count_; ++c)
    if (Status st = check_chunk(file, c); !st) return st;
  std::vector<std::uint16_t> buffer(65536);
  for (std::uint32_t b = 0; b < code_.block_count; ++b)
    if (auto n = syzygy::expand_pair_block(code_, file.data(), b, buffer, name_); !n) return n.error();
  return {};
}

Status StaticTable::check_block(std::span<const std::byte> file, std::uint64_t block) const {
  if (block >= code_.block_count) return make_error(ErrorCode::kInvalidArgument, name_ + ": no block " + std::to_string(block));
  // Checked again even when the bitmap says it was: the caller asks about the bytes as they are now.
  const std::uint64_t chunk = block / blocks_per_chunk_;
  const std::uint64_t begin = code_.data + chunk * blocks_per_chunk_ * code_.block_size;
  const std::uint64_t end = std::min<std::uint64_t>(begin + std::uint64_t{blocks_per_chunk_} * code_.block_size,
                                                    code_.data + std::uint64_t{code_.block_count} * code_.block_size);
  if (crc32c(file.subspan(std::size_t(begin), std::size_t(end - begin))) != load_le<std::uint32_t>(file.data() + chunk_sums_ + 4 * chunk))
    return syzygy::pair_code_fault(name_, std::size_t(begin), "checksum mismatch in data chunk " + std::to_string(chunk));
  return {};
}

}  // namespace tbkit::formats::static_codec
