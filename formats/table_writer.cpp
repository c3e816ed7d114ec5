// Table file writer: symbol remapping, don't-care filling, optional dictionary, zstd blocks.
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>
#include <numeric>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "formats/lzma_block.h"
#include "formats/table_file.h"
#include "formats/table_layout.h"
#include "formats/table_static_codec.h"

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
std::vector<std::uint64_t> count_values(std::span<const std::span<const DtmValue>> sides,
                                        std::span<const SlotFreedom> freedom) {
  std::vector<std::uint64_t> counts(65536, 0);
  for (auto side : sides)
    for (std::size_t i = 0; i < side.size(); ++i)
      if (freedom.empty() || freedom[i] != SlotFreedom::kAny) ++counts[side[i].raw()];
  return counts;
}

// The symbols of the counted values (`counts` has 65536 entries, one per raw value).
Symbols build_symbols(std::vector<std::uint64_t> counts, bool one_side, const TableWriteOptions& opt) {
  if (opt.fill_illegal) counts[0xFFFF] = 0;
  Symbols s;
  for (std::uint32_t raw = 0; raw < 65536; ++raw)
    if (counts[raw] != 0) s.values.push_back(std::uint16_t(raw));
  if (s.values.empty()) s.values.push_back(0xFFFF);  // an all-illegal table
  const SymbolOrder order = opt.symbol_order != SymbolOrder::kDefault ? opt.symbol_order
                            : one_side                                 ? SymbolOrder::kPreference
                                                                       : SymbolOrder::kFrequency;
  if (order == SymbolOrder::kFrequency)
    std::stable_sort(s.values.begin(), s.values.end(),
                     [&](std::uint16_t x, std::uint16_t y) { return counts[x] > counts[y]; });
  else if (order == SymbolOrder::kPreference)
    std::stable_sort(s.values.begin(), s.values.end(), [](std::uint16_t x, std::uint16_t y) {
      return preference_of(DtmValue::from_raw(x)) < preference_of(DtmValue::from_raw(y));
    });
  for (std::size_t code = 0; code < s.values.size(); ++code) s.code_of[s.values[code]] = std::uint16_t(code);
  return s;
}

// Codes one block of a side into `out` (width bytes per value). `previous` carries the last
// stored code from slot to slot for filling: a free slot repeats it, and a capture-resolved slot
// (freedom kNoBetter) repeats it when its value is no better than the slot's own.
void code_block(std::span<const DtmValue> values, std::span<const SlotFreedom> freedom, const Symbols& s, int width,
                bool fill, std::uint16_t& previous, std::vector<std::byte>& out, bool look_next = false) {
  out.resize(values.size() * std::size_t(width));
  std::size_t next = 0;  // look_next: the first exact slot after i (values.size() if none)
  for (std::size_t i = 0; i < values.size(); ++i) {
    const DtmValue v = values[i];
    const SlotFreedom f = freedom.empty() ? SlotFreedom::kExact : freedom[i];
    std::uint16_t code = previous;
    if (fill && (v.is_illegal() || f == SlotFreedom::kAny)) {
      // keep the previous code
    } else if (f == SlotFreedom::kNoBetter &&
               preference_of(DtmValue::from_raw(s.values[previous])) <= preference_of(v)) {
      // the previous value is allowed here
    } else if (f == SlotFreedom::kNoBetter && look_next) {
      // Not the previous value: the next exact slot's value if allowed (one run boundary, not two).
      if (next <= i)
        for (next = i + 1; next < values.size(); ++next)
          if (!values[next].is_illegal() && freedom[next] == SlotFreedom::kExact) break;
      const bool ahead = next < values.size() && preference_of(values[next]) <= preference_of(v);
      code = previous = s.code_of[(ahead ? values[next] : v).raw()];
    } else {
      code = previous = s.code_of[v.raw()];
    }
    if (width == 1) out[i] = std::byte(code);
    else store_le<std::uint16_t>(&out[2 * i], code);
  }
}

// FillMode::kMatch (version 3). Every slot copies the slot `d` back, d the current copy
// distance, as long as its freedom allows; where it does not, the distance changes to the
// candidate whose copy runs longest from here (up to `lookahead` slots; candidates: the 4 most
// recently used distances, then kFillDistances; ties to the earlier), and a slot no candidate can
// fill stores its own value (the distance stays: LZMA codes such a literal against the byte at
// the last match distance). Free slots thereby continue LZ matches instead of short runs.
constexpr std::uint16_t kFillDistances[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 44, 45, 46, 47, 48, 49, 50,
                                            51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64};

void code_block_match(std::span<const DtmValue> values, std::span<const SlotFreedom> freedom, const Symbols& s, int width,
                      std::uint32_t lookahead, std::uint32_t min_run, std::vector<std::byte>& out) {
  const std::size_t n = values.size();
  enum : std::uint8_t { kExactSlot, kNoBetterSlot, kAnySlot };
  // The thread's buffers from its previous block: fresh ones for every block faulted in ~9 MiB.
  thread_local std::vector<std::uint8_t> kind;
  thread_local std::vector<std::uint16_t> own, code, sim;
  thread_local std::vector<int> pref;
  kind.assign(n, 0);
  own.assign(n, 0);
  pref.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const DtmValue v = values[i];
    const SlotFreedom f = freedom.empty() ? SlotFreedom::kExact : freedom[i];
    if (v.is_illegal() || f == SlotFreedom::kAny) {
      kind[i] = kAnySlot;
      continue;
    }
    kind[i] = f == SlotFreedom::kNoBetter ? kNoBetterSlot : kExactSlot;
    own[i] = s.code_of[v.raw()];
    pref[i] = preference_of(v);
  }
  std::vector<int> pref_of_code(s.values.size());
  for (std::size_t c = 0; c < s.values.size(); ++c) pref_of_code[c] = preference_of(DtmValue::from_raw(s.values[c]));
  auto allowed = [&](std::size_t j, std::uint16_t c) {
    return kind[j] == kAnySlot || (kind[j] == kExactSlot ? c == own[j] : pref_of_code[c] <= pref[j]);
  };
  code.assign(n, 0);
  sim.assign(lookahead, 0);
  // How many slots from i on a copy from `d` back could fill (sim holds the copied codes).
  auto run = [&](std::size_t i, std::size_t d) {
    std::uint32_t len = 0;
    for (; len < lookahead && i + len < n; ++len) {
      const std::size_t from = i + len - d;
      const std::uint16_t c = from < i ? code[from] : sim[from - i];
      if (!allowed(i + len, c)) break;
      sim[len] = c;
    }
    return len;
  };
  std::size_t recent[4] = {1, 2, 3, 4};
  std::size_t d = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= d && allowed(i, code[i - d])) {
      code[i] = code[i - d];
      continue;
    }
    std::uint32_t best_len = 0;
    std::size_t best_d = 0;
    auto consider = [&](std::size_t cand) {
      if (cand > i || cand == d) return;
      const std::uint32_t len = run(i, cand);
      if (len > best_len) best_len = len, best_d = cand;
    };
    for (std::size_t r : recent) consider(r);
    if (best_len < lookahead)
      for (std::size_t cand : kFillDistances) consider(cand);
    if (best_len >= min_run) {
      d = best_d;
      std::size_t k = 0;
      while (k < 3 && recent[k] != d) ++k;
      for (; k > 0; --k) recent[k] = recent[k - 1];
      recent[0] = d;
      code[i] = code[i - d];
    } else {
      code[i] = kind[i] == kAnySlot ? (i > 0 ? code[i - 1] : 0) : own[i];
      if (min_run > 1) d = 1;
    }
  }
  out.resize(n * std::size_t(width));
  for (std::size_t i = 0; i < n; ++i) {
    if (width == 1) out[i] = std::byte(code[i]);
    else store_le<std::uint16_t>(&out[2 * i], code[i]);
  }
}

Status check_options(const TableWriteOptions& o) {
  if (o.block_bytes < layout::kMinBlockBytes || o.block_bytes > layout::kMaxBlockBytes)
    return make_error(ErrorCode::kInvalidArgument, "table options: block_bytes must be 256..4194304");
  if (o.lzma_large_block_bytes != 0 &&
      (o.lzma_large_block_bytes < layout::kMinBlockBytes || o.lzma_large_block_bytes > layout::kMaxBlockBytes))
    return make_error(ErrorCode::kInvalidArgument, "table options: lzma_large_block_bytes must be 0 or 256..4194304");
  if (o.format_version < layout::kOldestVersion || o.format_version > layout::kVersion)
    return make_error(ErrorCode::kInvalidArgument, "table options: format_version must be 1, 2, 3 or 4");
  if (o.codec == BlockCodec::kLzma2 && o.format_version < 2)
    return make_error(ErrorCode::kInvalidArgument, "table options: LZMA2 blocks need format version 2");
  const bool zstd = o.codec == BlockCodec::kZstd;
  if (o.compression_level < (zstd ? -7 : 0) || (zstd && o.compression_level == 0) ||
      o.compression_level > (zstd ? ZSTD_maxCLevel() : 9))
    return make_error(ErrorCode::kInvalidArgument, "table options: compression_level out of range");
  if (o.dictionary_bytes > layout::kMaxDictionaryBytes)
    return make_error(ErrorCode::kInvalidArgument, "table options: dictionary_bytes over 4 MiB");
  if (o.lzma_nice_len == 1 || o.lzma_nice_len > 273)
    return make_error(ErrorCode::kInvalidArgument, "table options: lzma_nice_len must be 0 or 2..273");
  if (o.lzma_depth > 1000 || o.lzma_large_depth > 1000)
    return make_error(ErrorCode::kInvalidArgument, "table options: lzma_depth must be 0..1000");
  if (o.lzma_large_nice_len == 1 || o.lzma_large_nice_len > 273)
    return make_error(ErrorCode::kInvalidArgument, "table options: lzma_large_nice_len must be 0 or 2..273");
  if (o.lzma_lc > 4 || o.lzma_lp > 4 || o.lzma_pb > 4 || std::max(o.lzma_lc, 0) + std::max(o.lzma_lp, 0) > 4)
    return make_error(ErrorCode::kInvalidArgument, "table options: LZMA2 needs lc, lp, pb <= 4 and lc + lp <= 4");
  if (o.fill_lookahead == 0 || o.fill_lookahead > 65536)
    return make_error(ErrorCode::kInvalidArgument, "table options: fill_lookahead must be 1..65536");
  if (o.fill_min_run == 0) return make_error(ErrorCode::kInvalidArgument, "table options: fill_min_run must be >= 1");
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
  bool one_side = false;  // version 3
  // Codes one block's values (a slice of a side, or values the caller gathered) into `out`.
  Status encode_values(std::span<const DtmValue> values, std::span<const SlotFreedom> slot_freedom,
                       std::uint16_t previous, std::vector<std::byte>& out) const;
  // Compresses one coded block into `out`.
  Status compress(std::span<const std::byte> raw, std::vector<std::byte>& out) const;
};

namespace {

// The header, symbols and dictionary; `counts` as count_values gives them for im.sides.
Status fill_encoder(TableEncoder::Impl& im, const TableInfo& info, std::vector<std::uint64_t> counts) {
  if (im.options.lzma_large_above > 0 && info.positions_per_side > im.options.lzma_large_above) {
    im.options.lzma_nice_len = im.options.lzma_large_nice_len;
    im.options.lzma_depth = im.options.lzma_large_depth;
    if (im.options.lzma_large_block_bytes != 0) im.options.block_bytes = im.options.lzma_large_block_bytes;
  }
  const TableWriteOptions& options = im.options;
  im.symbols = build_symbols(std::move(counts), im.one_side, options);
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
  if (Status st = fill_encoder(*impl, info, count_values(impl->sides, {})); !st) return st.error();
  return TableEncoder(std::move(impl));
}

Result<TableEncoder> TableEncoder::create(const TableInfo& info, const OneSide& side, const TableWriteOptions& options) {
  if (auto st = layout::check_info(info); !st) return st.error();
  if (auto st = check_options(options); !st) return st.error();
  if (options.format_version == 4)
    return make_error(ErrorCode::kInvalidArgument, "table encoder: format version 4 is coded whole (encode_table)");
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
  impl->one_side = true;
  if (Status st = fill_encoder(*impl, info, count_values(impl->sides, impl->freedom)); !st) return st.error();
  return TableEncoder(std::move(impl));
}

Result<TableEncoder> TableEncoder::create_from_counts(const TableInfo& info, chess::Color side, bool capture_resolved,
                                                      std::span<const std::uint64_t> counts,
                                                      const TableWriteOptions& options) {
  if (auto st = layout::check_info(info); !st) return st.error();
  if (auto st = check_options(options); !st) return st.error();
  if (options.format_version == 4)
    return make_error(ErrorCode::kInvalidArgument, "table encoder: format version 4 is coded whole (encode_table)");
  if (counts.size() != 65536)
    return make_error(ErrorCode::kInvalidArgument, "table encoder: counts needs one entry per raw value (65536)");
  if (options.dictionary_bytes > 0)
    return make_error(ErrorCode::kInvalidArgument, "table encoder: a dictionary needs the values (create)");
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->options.format_version = 3;
  impl->header.stored_side = std::uint8_t(index_of(side));
  impl->header.value_encoding = capture_resolved ? layout::kValueEncodingResolved : layout::kValueEncodingDtm16;
  impl->one_side = true;
  if (Status st = fill_encoder(*impl, info, std::vector<std::uint64_t>(counts.begin(), counts.end())); !st)
    return st.error();
  return TableEncoder(std::move(impl));
}

std::uint64_t TableEncoder::block_count() const { return impl_->header.block_count; }

std::uint64_t TableEncoder::block_values() const { return impl_->header.block_values; }

Result<std::vector<std::byte>> TableEncoder::encode_block(std::uint64_t block) const {
  const Impl& im = *impl_;
  const Header& h = im.header;
  if (im.sides.empty())
    return make_error(ErrorCode::kInvalidArgument,
                      "table encoder: made from counts, it holds no values (encode_block(values, freedom))");
  if (block >= h.block_count) return make_error(ErrorCode::kInvalidArgument, "table encoder: no block " + std::to_string(block));
  const auto side = im.sides[block / h.blocks_per_side()];
  const std::uint64_t first = (block % h.blocks_per_side()) * h.block_values;
  const auto count = std::min<std::uint64_t>(h.block_values, side.size() - first);
  // Version 3 starts every block's fill afresh (from code 0), so a block's bytes depend on its
  // own slots only; versions 1 and 2 continue from the last legal value before the block.
  const std::uint16_t previous = h.version >= 3 ? 0 : previous_code(side, first, im.symbols, im.options.fill_illegal);
  const auto freedom = im.freedom.empty() ? im.freedom : im.freedom.subspan(first, count);
  std::vector<std::byte> out;
  if (Status st = im.encode_values(side.subspan(first, count), freedom, previous, out); !st) return st.error();
  return out;
}

Result<std::vector<std::byte>> TableEncoder::encode_block(std::span<const DtmValue> values,
                                                          std::span<const SlotFreedom> freedom) const {
  const Impl& im = *impl_;
  if (!im.one_side) return make_error(ErrorCode::kInvalidArgument, "table encoder: gathered blocks need version 3");
  if (values.empty() || values.size() > im.header.block_values || (!freedom.empty() && freedom.size() != values.size()))
    return make_error(ErrorCode::kInvalidArgument, "table encoder: a block holds 1 to block_values() values, and "
                                                   "freedom none or one entry per value");
  std::vector<std::byte> out;
  if (Status st = im.encode_values(values, freedom, 0, out); !st) return st.error();
  return out;
}

bool TableEncoder::keyed() const {
  const Impl& im = *impl_;
  const SymbolOrder order = im.options.symbol_order;
  return im.one_side && im.options.fill == FillMode::kPrevious && im.options.fill_illegal &&
         (order == SymbolOrder::kDefault || order == SymbolOrder::kPreference) && im.symbols.values.size() < kNoBetterKey;
}

std::uint16_t TableEncoder::symbol_key(DtmValue value, SlotFreedom freedom) const {
  assert(keyed());
  if (value.is_illegal() || freedom == SlotFreedom::kAny) return kFreeKey;
  const std::uint16_t code = impl_->symbols.code_of[value.raw()];
  return freedom == SlotFreedom::kNoBetter ? std::uint16_t(code | kNoBetterKey) : code;
}

std::span<const std::uint16_t> TableEncoder::symbol_codes() const { return impl_->symbols.code_of; }

int TableEncoder::symbol_width() const { return impl_->header.symbol_width; }

std::uint32_t TableEncoder::symbol_count() const { return std::uint32_t(impl_->symbols.values.size()); }

Result<std::vector<std::byte>> TableEncoder::compress_coded(std::span<const std::byte> coded) const {
  const Impl& im = *impl_;
  const std::uint64_t width = im.header.symbol_width;
  if (coded.empty() || coded.size() % width != 0 || coded.size() / width > im.header.block_values)
    return make_error(ErrorCode::kInvalidArgument, "table encoder: a coded block holds 1 to block_values() slots");
  std::vector<std::byte> out;
  if (Status st = im.compress(coded, out); !st) return st.error();
  return out;
}

std::uint64_t TableEncoder::file_size(std::uint64_t block_bytes) const {
  return impl_->header.data_offset() + block_bytes;
}

Status TableEncoder::Impl::encode_values(std::span<const DtmValue> values, std::span<const SlotFreedom> slot_freedom,
                                         std::uint16_t previous, std::vector<std::byte>& out) const {
  const Impl& im = *this;
  const Header& h = im.header;
  thread_local std::vector<std::byte> raw;  // the coded block, kept by the thread for the next one
  if (h.version >= 3 && im.options.fill == FillMode::kMatch && im.options.fill_illegal)
    code_block_match(values, slot_freedom, im.symbols, h.symbol_width, im.options.fill_lookahead, im.options.fill_min_run,
                     raw);
  else
    code_block(values, slot_freedom, im.symbols, h.symbol_width, im.options.fill_illegal, previous, raw,
               im.options.fill == FillMode::kNext);
  return compress(raw, out);
}

Status TableEncoder::Impl::compress(std::span<const std::byte> raw, std::vector<std::byte>& out) const {
  const Impl& im = *this;
  const Header& h = im.header;
  if (h.codec == layout::kCodecLzma2) {
    const TableWriteOptions& o = im.options;
    const bool v3 = h.version >= 3;  // version 3's tuned defaults (docs/formats/table.md)
    const LzmaEncodeOptions lzma{.preset = o.compression_level,
                                 .extreme = o.lzma_extreme,
                                 .nice_len = o.lzma_nice_len != 0 ? o.lzma_nice_len : v3 ? 273U : 0U,
                                 .lc = o.lzma_lc >= 0 ? o.lzma_lc : v3 ? 0 : -1,
                                 .lp = o.lzma_lp >= 0 ? o.lzma_lp : v3 ? 0 : -1,
                                 .pb = o.lzma_pb >= 0 ? o.lzma_pb : v3 ? 0 : -1,
                                 .depth = o.lzma_depth};
    if (!lzma_encode_block(raw, lzma, out))
      return make_error(ErrorCode::kIo, "lzma: cannot compress a block (out of memory?)");
    return {};
  }
  // The thread's context and output buffer, reset for each block (zstd's bytes do not depend on
  // the context's history once reset).
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx;
  thread_local std::vector<std::byte> coded;
  if (!cctx) cctx.reset(ZSTD_createCCtx());
  if (!cctx) return make_error(ErrorCode::kIo, "zstd: out of memory");
  ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, im.options.compression_level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_dictIDFlag, 0);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
  if (im.cdict) ZSTD_CCtx_refCDict(cctx.get(), im.cdict.get());
  coded.resize(std::max(coded.size(), ZSTD_compressBound(raw.size())));
  const std::size_t n = ZSTD_compress2(cctx.get(), coded.data(), ZSTD_compressBound(raw.size()), raw.data(), raw.size());
  if (ZSTD_isError(n)) return make_error(ErrorCode::kIo, std::string("zstd: ") + ZSTD_getErrorName(n));
  out.assign(coded.begin(), coded.begin() + std::ptrdiff_t(n));
  return {};
}

BlockExtent extent_of(std::span<const std::byte> block) {
  return {std::uint32_t(block.size()), crc32c(block)};
}

std::uint64_t TableEncoder::data_offset() const { return impl_->header.data_offset(); }

Result<std::vector<std::byte>> TableEncoder::head(std::span<const BlockExtent> blocks) const {
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
    store_le<std::uint32_t>(entry + 8, blocks[k].size);
    store_le<std::uint32_t>(entry + 12, blocks[k].crc);
    offset += blocks[k].size;
  }
  h.metadata_checksum = crc32c(metadata);
  h.file_size = offset;
  const auto header = layout::encode_header(h);
  std::vector<std::byte> out(header.begin(), header.end());
  out.insert(out.end(), metadata.begin(), metadata.end());
  assert(out.size() == h.data_offset());
  return out;
}

Result<std::vector<std::byte>> TableEncoder::assemble(std::span<const std::vector<std::byte>> blocks) const {
  std::vector<BlockExtent> extents;
  extents.reserve(blocks.size());
  std::uint64_t bytes = 0;
  for (const auto& b : blocks) {
    extents.push_back(extent_of(b));
    bytes += b.size();
  }
  auto out = head(extents);
  if (!out) return out.error();
  out->reserve(out->size() + bytes);
  for (const auto& b : blocks) out->insert(out->end(), b.begin(), b.end());
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
  if (options.format_version == 4) {
    if (auto st = check_options(options); !st) return st.error();
    return static_codec::encode_static_table(info, side, options);
  }
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

Status write_table_file(const std::filesystem::path& path, const TableInfo& info,
                        std::span<const DtmValue> white_to_move, std::span<const DtmValue> black_to_move,
                        const TableWriteOptions& options) {
  auto bytes = encode_table(info, white_to_move, black_to_move, options);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

}  // namespace tbkit::formats
