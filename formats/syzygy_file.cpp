// SyzygyFile: validation of the whole file at open, then bounds-checked decompression of single values.
#include "formats/syzygy_file.h"

#include <algorithm>
#include <utility>

#include "formats/byte_order.h"
#include "formats/crc32c.h"

namespace tbkit::formats::syzygy {

namespace {

constexpr std::size_t kMagicSize = 4;
constexpr std::size_t kChecksumSize = 16;
// DTZ value map classes in file order, by WDL + 2 (loss, blessed loss, draw, cursed win, win).
constexpr int kMapClass[5] = {1, 3, 0, 2, 0};

// ---------------------------------------------------------------------------------------------------
// The embedded checksum. Syzygy's generator hashes the file before the checksum in 16 MiB chunks with
// CityHash-CRC 256 (CityHash v1.1, Google, MIT licence), then the chunk hashes (4 x u64 each, little
// endian) with CityHash-CRC 128, and stores the two u64 of that. Written here from the algorithm.

constexpr std::uint64_t kCityK0 = 0xc3a5c85c97cb3127ULL;
constexpr std::uint64_t kCityK1 = 0xb492b66fbe98f273ULL;
constexpr std::uint64_t kCityK2 = 0x9ae16a3b2f90404fULL;
constexpr std::uint64_t kCityK3 = 0xc949d7c7509e6557ULL;
constexpr std::size_t kChecksumChunk = std::size_t{1} << 24;

struct U128 {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
};

std::uint64_t fetch64(const std::byte* p) { return load_le<std::uint64_t>(p); }
std::uint64_t fetch32(const std::byte* p) { return load_le<std::uint32_t>(p); }
std::uint64_t rotr(std::uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
std::uint64_t shift_mix(std::uint64_t v) { return v ^ (v >> 47); }

std::uint64_t hash_pair(std::uint64_t u, std::uint64_t v) {
  constexpr std::uint64_t kMul = 0x9ddfea08eb382d69ULL;
  std::uint64_t a = (u ^ v) * kMul;
  a ^= a >> 47;
  std::uint64_t b = (v ^ a) * kMul;
  b ^= b >> 47;
  return b * kMul;
}

std::uint64_t hash_upto16(const std::byte* s, std::size_t len) {
  if (len > 8) {
    const std::uint64_t a = fetch64(s);
    const std::uint64_t b = fetch64(s + len - 8);
    return hash_pair(a, rotr(b + len, int(len))) ^ b;
  }
  if (len >= 4) return hash_pair(len + (fetch32(s) << 3), fetch32(s + len - 4));
  if (len > 0) {
    const std::uint32_t y = std::uint32_t(std::uint8_t(s[0])) + (std::uint32_t(std::uint8_t(s[len >> 1])) << 8);
    const std::uint32_t z = std::uint32_t(len) + (std::uint32_t(std::uint8_t(s[len - 1])) << 2);
    return shift_mix(y * kCityK2 ^ z * kCityK3) * kCityK2;
  }
  return kCityK2;
}

U128 weak_hash32(const std::byte* s, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16), z = fetch64(s + 24);
  a += w;
  b = rotr(b + a + z, 21);
  const std::uint64_t c = a;
  a += x + y;
  b += rotr(a, 44);
  return {a + z, b + c};
}

// CityHash128WithSeed for inputs under 128 bytes.
U128 city_murmur(const std::byte* s, std::size_t len, U128 seed) {
  std::uint64_t a = seed.lo, b = seed.hi, c = 0, d = 0;
  if (len <= 16) {
    a = shift_mix(a * kCityK1) * kCityK1;
    c = b * kCityK1 + hash_upto16(s, len);
    d = shift_mix(a + (len >= 8 ? fetch64(s) : c));
  } else {
    c = hash_pair(fetch64(s + len - 8) + kCityK1, a);
    d = hash_pair(b + len, c + fetch64(s + len - 16));
    a += d;
    // 16 bytes a step, at least one step, while bytes past the first 16 remain.
    for (std::int64_t left = std::int64_t(len) - 16; left > 0; left -= 16, s += 16) {
      a ^= shift_mix(fetch64(s) * kCityK1) * kCityK1;
      a *= kCityK1;
      b ^= a;
      c ^= shift_mix(fetch64(s + 8) * kCityK1) * kCityK1;
      c *= kCityK1;
      d ^= c;
    }
  }
  a = hash_pair(a, c);
  b = hash_pair(d, b);
  return {a ^ b, hash_pair(b, a)};
}

U128 city128_seeded(const std::byte* s, std::size_t len, U128 seed) {
  if (len < 128) return city_murmur(s, len, seed);
  U128 v, w;
  std::uint64_t x = seed.lo, y = seed.hi, z = len * kCityK1;
  v.lo = rotr(y ^ kCityK1, 49) * kCityK1 + fetch64(s);
  v.hi = rotr(v.lo, 42) * kCityK1 + fetch64(s + 8);
  w.lo = rotr(y + z, 35) * kCityK1 + x;
  w.hi = rotr(x + fetch64(s + 88), 53) * kCityK1;
  const auto round = [&] {
    x = rotr(x + y + v.lo + fetch64(s + 8), 37) * kCityK1;
    y = rotr(y + v.hi + fetch64(s + 48), 42) * kCityK1;
    x ^= w.hi;
    y += v.lo + fetch64(s + 40);
    z = rotr(z + w.lo, 33) * kCityK1;
    v = weak_hash32(s, v.hi * kCityK1, x + w.lo);
    w = weak_hash32(s + 32, z + w.hi, y + fetch64(s + 16));
    std::swap(z, x);
    s += 64;
  };
  do {
    round();
    round();
    len -= 128;
  } while (len >= 128);
  x += rotr(v.lo + z, 49) * kCityK0;
  z += rotr(w.lo, 37) * kCityK0;
  for (std::size_t tail = 0; tail < len;) {
    tail += 32;
    y = rotr(x + y, 42) * kCityK0 + v.hi;
    w.lo += fetch64(s + len - tail + 16);
    x = x * kCityK0 + w.lo;
    z += w.hi + fetch64(s + len - tail);
    w.hi += v.lo;
    v = weak_hash32(s + len - tail, v.lo + z, v.hi);
  }
  x = hash_pair(x, v.lo);
  y = hash_pair(y + z, w.lo);
  return {hash_pair(x + v.hi, w.hi) + y, hash_pair(x + w.hi, y + v.hi)};
}

U128 city128(const std::byte* s, std::size_t len) {
  if (len >= 16) return city128_seeded(s + 16, len - 16, {fetch64(s) ^ kCityK3, fetch64(s + 8)});
  if (len >= 8) return city128_seeded(nullptr, 0, {fetch64(s) ^ (len * kCityK0), fetch64(s + len - 8) ^ kCityK1});
  return city128_seeded(s, len, {kCityK0, kCityK1});
}

// The CPU's crc32 instruction on a 64-bit word: CRC-32C without the initial and final inversion.
std::uint64_t crc_word(std::uint64_t crc, std::uint64_t word) {
  std::byte b[8];
  store_le<std::uint64_t>(b, word);
  return std::uint32_t(~crc32c(b, ~std::uint32_t(crc)));
}

// CityHash-CRC 256 of at least 240 bytes.
std::array<std::uint64_t, 4> city_crc256_long(const std::byte* s, std::size_t len, std::uint32_t seed) {
  std::array<std::uint64_t, 4> out{};
  std::uint64_t a = fetch64(s + 56) + kCityK0;
  std::uint64_t b = fetch64(s + 96) + kCityK0;
  std::uint64_t c = out[0] = hash_pair(b, len);
  std::uint64_t d = out[1] = fetch64(s + 120) * kCityK0 + len;
  std::uint64_t e = fetch64(s + 184) + seed;
  std::uint64_t f = seed, g = 0, h = 0, i = 0, j = 0;
  std::uint64_t t = c + d;
  // One 40-byte step; `odd` steps use multiplier 1 and rotations one less.
  const auto step = [&](bool odd) {
    const std::uint64_t m = odd ? 1 : kCityK0;
    const int z = odd ? 1 : 0;
    const std::uint64_t old_a = a;
    a = rotr(b, 41 ^ z) * m + fetch64(s);
    b = rotr(c, 27 ^ z) * m + fetch64(s + 8);
    c = rotr(d, 41 ^ z) * m + fetch64(s + 16);
    d = rotr(e, 33 ^ z) * m + fetch64(s + 24);
    e = rotr(t, 25 ^ z) * m + fetch64(s + 32);
    t = old_a;
    f = crc_word(f, a);
    g = crc_word(g, b);
    h = crc_word(h, c);
    i = crc_word(i, d);
    j = crc_word(j, e);
    s += 40;
  };
  std::size_t iters = len / 240;
  len -= iters * 240;
  do {
    for (int k = 0; k < 6; ++k) step(k % 2 == 0);
  } while (--iters > 0);
  for (; len >= 40; len -= 40) step(false);
  if (len > 0) {
    s = s + len - 40;
    step(false);
  }
  j += i << 32;
  a = hash_pair(a, j);
  h += g << 32;
  b += h;
  c = hash_pair(c, f) + i;
  d = hash_pair(d, e + out[0]);
  j += e;
  i += hash_pair(h, t);
  e = hash_pair(a, d) + j;
  f = hash_pair(b, c) + a;
  g = hash_pair(j, i) + c;
  out[0] = e + f + g + h;
  a = shift_mix((a + g) * kCityK0) * kCityK0 + b;
  out[1] += a + out[0];
  a = shift_mix(a * kCityK0) * kCityK0 + c;
  out[2] = a + out[1];
  a = shift_mix((a + e) * kCityK0) * kCityK0;
  out[3] = a + out[2];
  return out;
}

std::array<std::uint64_t, 4> city_crc256(const std::byte* s, std::size_t len) {
  if (len >= 240) return city_crc256_long(s, len, 0);
  std::array<std::byte, 240> padded{};
  std::copy(s, s + len, padded.begin());
  return city_crc256_long(padded.data(), padded.size(), ~std::uint32_t(len));
}

U128 city_crc128(const std::byte* s, std::size_t len) {
  if (len <= 900) return city128(s, len);
  const auto h = city_crc256(s, len);
  return {h[2], h[3]};
}


}  // namespace

SyzygyFile::SyzygyFile(MappedFile mapped, std::string name, TableKind kind)
    : mapped_(std::move(mapped)), name_(std::move(name)), kind_(kind) {}

Error SyzygyFile::corrupt(std::size_t offset, const std::string& what) const {
  return make_error(ErrorCode::kCorrupt, name_ + ": byte " + std::to_string(offset) + ": " + what);
}

Result<SyzygyFile> SyzygyFile::open(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  TableKind kind = TableKind::kWdl;
  if (ext == ".rtbz") {
    kind = TableKind::kDtz;
  } else if (ext != ".rtbw") {
    return make_error(ErrorCode::kInvalidArgument, path.string() + ": not a syzygy file name (.rtbw or .rtbz)");
  }
  auto material = TableMaterial::from_name(path.stem().string());
  if (!material) return make_error(ErrorCode::kInvalidArgument, path.string() + ": " + material.error().message);
  return open(path, kind, *material);
}

Result<SyzygyFile> SyzygyFile::open(const std::filesystem::path& path, TableKind kind, const TableMaterial& material) {
  auto mapped = MappedFile::map(path);
  if (!mapped) return mapped.error();
  mapped->advise_random_access();
  SyzygyFile file(std::move(*mapped), path.string(), kind);
  if (Status st = file.validate(material); !st) return st.error();
  return file;
}

Result<SyzygyFile> SyzygyFile::from_bytes(std::span<const std::byte> bytes, std::string name, TableKind kind,
                                          const TableMaterial& material) {
  SyzygyFile file(MappedFile::copy_of(bytes), std::move(name), kind);
  if (Status st = file.validate(material); !st) return st.error();
  return file;
}

bool SyzygyFile::has_checksum() const { return mapped_.bytes().size() % 64 == kChecksumSize; }

Status SyzygyFile::validate(const TableMaterial& material) {
  const auto bytes = mapped_.bytes();
  const bool dtz = kind_ == TableKind::kDtz;
  if (bytes.size() < kMagicSize + 2) return corrupt(bytes.size(), "truncated: " + std::to_string(bytes.size()) + " bytes");
  const std::uint32_t magic = load_le<std::uint32_t>(bytes.data());
  const std::uint32_t want = dtz ? kDtzMagic : kWdlMagic;
  if (magic != want) {
    const bool other = magic == (dtz ? kWdlMagic : kDtzMagic);
    return corrupt(0, other ? std::string("magic of a ") + (dtz ? "WDL" : "DTZ") + " file, expected " + (dtz ? "DTZ" : "WDL")
                            : "bad magic: not a syzygy file");
  }
  // Syzygy's generator pads the tables to 64 bytes and appends a 16-byte checksum; readers rely on it.
  if (!has_checksum())
    return corrupt(bytes.size(), "file size " + std::to_string(bytes.size()) + " is not 16 more than a multiple of 64");

  if (bytes.size() < 64 + kChecksumSize) return corrupt(bytes.size(), "truncated: " + std::to_string(bytes.size()) + " bytes");
  Cursor in{bytes, 0, bytes.size() - kChecksumSize};
  auto header = parse_index_header(bytes.subspan(kMagicSize, in.end - kMagicSize), kMagicSize, material, dtz, name_);
  if (!header) return header.error();
  index_ = std::move(header->index);
  in.pos = kMagicSize + header->end;

  const int count = index_.sides * index_.files;
  layouts_.assign(std::size_t(count), SubtableLayout{});
  // Compression records, one per subtable, each ending on an even offset.
  for (int k = 0; k < count; ++k) {
    SubtableLayout& s = layouts_[std::size_t(k)];
    const std::size_t at = in.pos;
    const std::string where = " (subtable " + std::to_string(k) + ")";
    if (!in.has(2)) return corrupt(at, "truncated in the compression record" + where);
    s.flags = in.u8();
    if (s.flags & kFlagSingleValue) {
      s.single_value = in.u8();
      if (!dtz && s.single_value > 4) return corrupt(at + 1, "single WDL value " + std::to_string(s.single_value) + " > 4" + where);
      continue;
    }
    if (Status st = read_pair_code(bytes, in.pos, in.end, index_.subtables[std::size_t(k)].size(), dtz ? 0xFFF : 4,
                                   "WDL value", name_, where, s);
        !st)
      return st.error();
  }

  // DTZ value maps, per lead file (one-sided), for records flagged as mapped.
  if (dtz) {
    for (int f = 0; f < index_.files; ++f) {
      SubtableLayout& s = layouts_[std::size_t(f)];
      if (!(s.flags & kFlagMapped)) continue;
      const bool wide = (s.flags & kFlagWideMap) != 0;
      if (wide && (in.pos & 1)) ++in.pos;
      for (int c = 0; c < 4; ++c) {
        if (!in.has(wide ? 2 : 1)) return corrupt(in.pos, "truncated in the DTZ value map of file " + std::to_string(f));
        const std::uint16_t n = wide ? in.u16() : in.u8();
        s.map_offset[std::size_t(c)] = in.pos;
        s.map_count[std::size_t(c)] = n;
        if (!in.has(std::size_t(n) * (wide ? 2 : 1))) return corrupt(in.pos, "truncated in the DTZ value map of file " + std::to_string(f));
        in.pos += std::size_t(n) * (wide ? 2 : 1);
      }
    }
    if (in.pos & 1) ++in.pos;
  }

  // Sparse indices, block lengths, then the 64-byte aligned compressed blocks.
  for (auto& s : layouts_) {
    if (s.flags & kFlagSingleValue) continue;
    s.sparse_index = in.pos;
    if (!add_region(in.pos, s.sparse_count, kSparseEntrySize, in.end))
      return corrupt(s.sparse_index, "sparse index (" + std::to_string(s.sparse_count) + " entries) passes the end of the file");
  }
  for (auto& s : layouts_) {
    if (s.flags & kFlagSingleValue) continue;
    s.block_lengths = in.pos;
    if (!add_region(in.pos, s.block_length_count, 2, in.end))
      return corrupt(s.block_lengths, "block length table (" + std::to_string(s.block_length_count) + " entries) passes the end of the file");
  }
  for (std::size_t k = 0; k < layouts_.size(); ++k) {
    SubtableLayout& s = layouts_[k];
    if (s.flags & kFlagSingleValue) continue;
    in.pos = (in.pos + 63) & ~std::size_t{63};
    s.data = in.pos;
    if (in.pos > in.end || !add_region(in.pos, s.block_count, s.block_size, in.end))
      return corrupt(s.data, "compressed data (" + std::to_string(s.block_count) + " blocks of " + std::to_string(s.block_size) +
                                 " bytes) passes the end of the file");
    if (Status st = check_block_tables(bytes, s, index_.subtables[k].size(), name_); !st) return st.error();
    s.marks.reset(s.block_count, s.block_size);  // only now: the blocks are known to lie in the file
  }
  const std::size_t data_end = (in.pos + 63) & ~std::size_t{63};
  if (data_end != in.end)
    return corrupt(in.pos, "file has " + std::to_string(bytes.size()) + " bytes, the tables end at " +
                               std::to_string(data_end) + " (+16 checksum)");
  return {};
}

Result<int> SyzygyFile::decompress(const SubtableLayout& s, std::uint64_t index) const {
  if (s.flags & kFlagSingleValue) return int(s.single_value);
  PairFault fault;
  const int v = pair_value_or_fault(s, mapped_.bytes().data(), index, fault);
  if (v < 0) return fault.to_error(name_);
  return v;
}
Result<int> SyzygyFile::stored_value(int side, int file, std::uint64_t index) const {
  if (side < 0 || side > 1 || file < 0 || file >= index_.files)
    return make_error(ErrorCode::kInvalidArgument, name_ + ": no subtable side " + std::to_string(side) + ", file " + std::to_string(file));
  const SubtableIndex& sub = index_.at(side, file);
  if (index >= sub.size())
    return make_error(ErrorCode::kInvalidArgument, name_ + ": index " + std::to_string(index) + " past the subtable's " +
                                                       std::to_string(sub.size()));
  return decompress(layout(side, file), index);
}

Result<int> SyzygyFile::map_dtz(int file, int raw, int wdl) const {
  if (kind_ != TableKind::kDtz) return make_error(ErrorCode::kInvalidArgument, name_ + ": not a DTZ file");
  if (wdl < -2 || wdl > 2 || wdl == 0) return make_error(ErrorCode::kInvalidArgument, "DTZ needs a WDL of -2, -1, 1 or 2");
  if (file < 0 || file >= index_.files) return make_error(ErrorCode::kInvalidArgument, name_ + ": no lead file " + std::to_string(file));
  const SubtableLayout& s = layout(0, file);
  int value = raw;
  if (s.flags & kFlagMapped) {
    const int c = kMapClass[wdl + 2];
    if (raw < 0 || raw >= s.map_count[std::size_t(c)])
      return corrupt(s.map_offset[std::size_t(c)], "stored DTZ " + std::to_string(raw) + " past the value map");
    const std::byte* m = mapped_.bytes().data() + s.map_offset[std::size_t(c)];
    value = (s.flags & kFlagWideMap) ? load_le<std::uint16_t>(m + 2 * std::size_t(raw)) : int(std::uint8_t(m[raw]));
  }
  const bool plies = (wdl == 2 && (s.flags & kFlagWinPlies)) || (wdl == -2 && (s.flags & kFlagLossPlies));
  return (plies ? value : 2 * value) + 1;
}

Result<int> SyzygyFile::wdl(const chess::Position& pos) const {
  if (kind_ != TableKind::kWdl) return make_error(ErrorCode::kInvalidArgument, name_ + ": not a WDL file");
  auto op = orient(index_.material, pos);
  if (!op) return op.error();
  return wdl(*op);
}

Result<int> SyzygyFile::wdl(const OrientedPosition& op) const {
  WdlPlace place;
  Error error;
  if (!find_wdl(op, place, error)) return error;
  const int v = wdl_at(place, error);
  if (v == kNoValue) return error;
  return v;
}

bool SyzygyFile::find_wdl(const OrientedPosition& op, WdlPlace& place, Error& error) const {
  if (kind_ != TableKind::kWdl) {
    error = make_error(ErrorCode::kInvalidArgument, name_ + ": not a WDL file");
    return false;
  }
  const int file = lead_file(index_.material, op);
  const SubtableIndex& sub = index_.at(op.side, file);
  const std::uint64_t idx = sub.index_for(op);
  if (idx == SubtableIndex::kNoIndex) {
    error = make_error(ErrorCode::kInvalidArgument, name_ + ": position has no index in this table");
    return false;
  }
  const SubtableLayout& s = layout(op.side, file);
  if (!(s.flags & kFlagSingleValue)) prefetch_pair_value(s, mapped_.bytes().data(), idx);
  place = WdlPlace{&s, idx};
  return true;
}

int SyzygyFile::wdl_at(WdlPlace place, Error& error) const {
  const SubtableLayout& s = *place.layout;
  if (s.flags & kFlagSingleValue) return int(s.single_value) - 2;  // validated: at most 4
  PairFault fault;
  const int v = pair_value_or_fault(s, mapped_.bytes().data(), place.index, fault);
  if (v < 0) {
    error = fault.to_error(name_);
    return kNoValue;
  }
  if (v > 4) {
    error = corrupt(s.tree, "stored WDL value " + std::to_string(v) + " > 4");
    return kNoValue;
  }
  return v - 2;
}

Result<DtzEntry> SyzygyFile::dtz(const chess::Position& pos, int wdl) const {
  if (kind_ != TableKind::kDtz) return make_error(ErrorCode::kInvalidArgument, name_ + ": not a DTZ file");
  if (wdl < -2 || wdl > 2 || wdl == 0) return make_error(ErrorCode::kInvalidArgument, "DTZ needs a WDL of -2, -1, 1 or 2");
  auto op = orient(index_.material, pos);
  if (!op) return op.error();
  return dtz(*op, wdl);
}

Result<DtzEntry> SyzygyFile::dtz(const OrientedPosition& op, int wdl) const {
  if (kind_ != TableKind::kDtz) return make_error(ErrorCode::kInvalidArgument, name_ + ": not a DTZ file");
  if (wdl < -2 || wdl > 2 || wdl == 0) return make_error(ErrorCode::kInvalidArgument, "DTZ needs a WDL of -2, -1, 1 or 2");
  const int file = lead_file(index_.material, op);
  const TableMaterial& m = index_.material;
  // A symmetric pawnless table answers for both sides to move (Syzygy's readers do the same).
  const bool stored = dtz_stored_side(file) == op.side || (m.is_symmetric() && !m.has_pawns());
  if (!stored) return DtzEntry{};
  const SubtableIndex& sub = index_.at(0, file);
  const std::uint64_t idx = sub.index_for(op);
  if (idx == SubtableIndex::kNoIndex) return make_error(ErrorCode::kInvalidArgument, name_ + ": position has no index in this table");
  auto raw = decompress(layout(0, file), idx);
  if (!raw) return raw.error();
  auto plies = map_dtz(file, *raw, wdl);
  if (!plies) return plies.error();
  return DtzEntry{true, *plies};
}

std::array<std::byte, 16> syzygy_checksum(std::span<const std::byte> bytes) {
  const std::size_t size = bytes.size();
  std::vector<std::byte> chunk_hashes;
  for (std::size_t start = 0; start < size; start += kChecksumChunk) {
    const auto h = city_crc256(bytes.data() + start, std::min(kChecksumChunk, size - start));
    for (std::uint64_t word : h) {
      std::byte b[8];
      store_le<std::uint64_t>(b, word);
      chunk_hashes.insert(chunk_hashes.end(), b, b + 8);
    }
  }
  const U128 sum = city_crc128(chunk_hashes.data(), chunk_hashes.size());
  std::array<std::byte, 16> out;
  store_le<std::uint64_t>(out.data(), sum.lo);
  store_le<std::uint64_t>(out.data() + 8, sum.hi);
  return out;
}

Status SyzygyFile::verify_checksum() const {
  if (!has_checksum()) return make_error(ErrorCode::kUnavailable, name_ + ": no embedded checksum");
  const auto bytes = mapped_.bytes();
  const std::size_t size = bytes.size() - kChecksumSize;
  const auto sum = syzygy_checksum(bytes.first(size));
  if (!std::equal(sum.begin(), sum.end(), bytes.begin() + std::ptrdiff_t(size))) return corrupt(size, "checksum mismatch");
  return {};
}

}  // namespace tbkit::formats::syzygy
