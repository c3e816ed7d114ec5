#include "probe/tablebase.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "chess/movegen.h"
#include "formats/table_file.h"
#include "model/board.h"
#include "model/index_scheme.h"
#include "model/material.h"
#include "model/one_ply.h"
#include "model/storage_order.h"
#include "model/value_ops.h"
#include "probe/block_cache.h"

namespace tbkit::probe {

using formats::DtmValue;
using model::Board;
using namespace chess;

int preference(DtmValue v) { return model::preference(v); }
DtmValue back_up(DtmValue child) { return model::back_up(child); }

namespace {

// One table file: found at open(), mapped and validated on first use.
struct Table {
  model::Material material;  // normalized: the stored White
  std::string name;
  std::filesystem::path path;
  std::uint32_t id = 0;

  std::once_flag once;
  std::atomic<bool> ready{false};
  std::optional<Error> error;  // set once, before ready
  std::optional<formats::TableFile> file;
  std::unique_ptr<model::IndexScheme> scheme;
  std::optional<model::StorageOrder> order;  // the file's slot order
  std::uint64_t positions = 0;
  std::uint64_t values_per_block = 0;
  std::uint64_t blocks_per_side = 0;
  std::uint64_t page_values = 0;
  int stored_side = -1;      // format version 3: the one side the file stores; -1: both
  bool resolved = false;     // capture-resolved values (better_of with the best conversion)
  bool symmetric = false;    // the unstored side is the stored one colour-flipped
  bool in_place = false;     // format version 4: values decoded from the mapping, no block cache
  std::uint64_t pages_per_block = 0;
  std::unique_ptr<BlockCache::PageHints[]> hints;
};

// The key of a board's material, or a value no table has when a count does not fit its 3 bits.
std::uint32_t material_key(const Board& b) {
  std::uint32_t key = 0;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 5; ++t) {
      const int n = popcount(b.pieces(Color(c), PieceType(t)));
      if (n > 7) return ~std::uint32_t{0};
      key |= std::uint32_t(n) << (3 * (5 * c + t));
    }
  return key;
}

// A legal position never holds the illegal marker (a file read back as such is damaged).
Status check_not_illegal(const Table& t, DtmValue stored, const Board& b, std::uint64_t index) {
  if (!stored.is_illegal()) return {};
  return make_error(ErrorCode::kCorrupt, t.path.string() + ": index " + std::to_string(index) + ", " +
                                             (b.side == Color::kWhite ? "white" : "black") +
                                             " to move: a legal position is marked illegal");
}

}  // namespace

struct Tablebase::Impl {
  explicit Impl(std::size_t cache_bytes) : cache(cache_bytes) {}

  struct Slot {
    std::uint32_t key = 0;
    std::int32_t table = -1;
    bool flip = false;
  };

  std::vector<std::unique_ptr<Table>> tables;
  std::vector<Slot> lookup;  // open addressing by material key
  int lookup_shift = 32;
  int max_men = 0;
  mutable BlockCache cache;
  mutable std::atomic<std::uint64_t> misses{0};
  mutable std::atomic<std::uint64_t> blocks_decoded{0};
  mutable std::atomic<std::uint64_t> files_opened{0};

  [[nodiscard]] std::size_t bucket(std::uint32_t key) const { return (key * 0x9E3779B1U) >> lookup_shift; }

  void build_lookup() {
    std::size_t size = 64;
    while (size < 4 * 2 * tables.size()) size *= 2;
    lookup.assign(size, Slot{});
    lookup_shift = 32 - std::countr_zero(size);
    for (std::size_t i = 0; i < tables.size(); ++i) {
      const model::Material& m = tables[i]->material;
      insert(m.key(), std::int32_t(i), false);
      if (!m.is_symmetric()) insert(m.flipped().key(), std::int32_t(i), true);
    }
  }
  void insert(std::uint32_t key, std::int32_t table, bool flip) {
    std::size_t i = bucket(key);
    while (lookup[i].table >= 0) i = (i + 1) & (lookup.size() - 1);
    lookup[i] = Slot{key, table, flip};
  }
  [[nodiscard]] const Slot* find(std::uint32_t key) const {
    for (std::size_t i = bucket(key);; i = (i + 1) & (lookup.size() - 1)) {
      if (lookup[i].table < 0) return nullptr;
      if (lookup[i].key == key) return &lookup[i];
    }
  }

  void open_table(Table& t) const {
    auto file = formats::TableFile::open(t.path);
    if (!file) {
      t.error = file.error();
      return;
    }
    files_opened.fetch_add(1, std::memory_order_relaxed);
    auto scheme = std::make_unique<model::IndexScheme>(t.material);
    const formats::TableInfo& info = file->info();
    std::string problem;
    if (info.material != t.name) problem = "holds " + info.material + ", expected " + t.name;
    else if (!(t.order = model::StorageOrder::from_file_id(*scheme, info.index_scheme)))
      problem = "index scheme " + std::to_string(info.index_scheme) + ", expected " + std::to_string(scheme->id()) +
                " in some storage order";
    else if (info.positions_per_side != scheme->size())
      problem = std::to_string(info.positions_per_side) + " positions per side, expected " + std::to_string(scheme->size());
    else if (file->values_per_block() == 0)
      problem = "no values per block";
    if (!problem.empty()) {
      t.error = make_error(ErrorCode::kCorrupt, t.path.string() + ": " + problem);
      return;
    }
    file->advise_random_access();
    t.stored_side = file->stores(Color::kWhite) && file->stores(Color::kBlack) ? -1 : index_of(file->stored_side());
    t.resolved = file->capture_resolved();
    t.symmetric = t.material.is_symmetric();
    t.positions = info.positions_per_side;
    t.values_per_block = file->values_per_block();
    t.in_place = file->codec() == formats::BlockCodec::kStatic;
    t.blocks_per_side = (t.positions + t.values_per_block - 1) / t.values_per_block;
    t.page_values = std::min<std::uint64_t>(BlockCache::kPageValues, t.values_per_block);
    t.pages_per_block = (t.values_per_block + t.page_values - 1) / t.page_values;
    if (!t.in_place) t.hints = std::make_unique<BlockCache::PageHints[]>(2 * t.blocks_per_side * t.pages_per_block);
    t.scheme = std::move(scheme);
    t.file = std::move(*file);
  }

  // Null when the table opened; else its error.
  const Error* ensure_open(Table& t) const {
    if (!t.ready.load(std::memory_order_acquire)) {
      std::call_once(t.once, [&] {
        open_table(t);
        t.ready.store(true, std::memory_order_release);
      });
    }
    return t.error ? &*t.error : nullptr;
  }

  Result<DtmValue> read(const Table& t, Color side, std::uint64_t index) const {
    const std::uint64_t slot = t.order->to_storage(index);
    if (t.in_place) return t.file->value(side, slot);
    const std::uint64_t block = slot / t.values_per_block;
    const std::uint64_t within = slot - block * t.values_per_block;
    const std::uint64_t page_in_block = within / t.page_values;
    const auto offset = std::uint32_t(within - page_in_block * t.page_values);
    const std::uint64_t first_page = (index_of(side) * t.blocks_per_side + block) * t.pages_per_block;
    const std::uint64_t page = first_page + page_in_block;
    const std::uint64_t key = (std::uint64_t{t.id} << 40) | page;
    std::uint16_t raw = 0;
    if (cache.find(key, t.hints[page], offset, raw)) return DtmValue::from_raw(raw);

    misses.fetch_add(1, std::memory_order_relaxed);
    const std::uint64_t first = block * t.values_per_block;
    const std::uint64_t count = std::min(t.values_per_block, t.positions - first);
    auto values = t.file->values(side, first, count);
    if (!values) return values.error();
    blocks_decoded.fetch_add(1, std::memory_order_relaxed);
    const std::span<const DtmValue> all(*values);
    for (std::uint64_t p = 0; p * t.page_values < count; ++p) {
      const std::uint64_t begin = p * t.page_values;
      cache.install((std::uint64_t{t.id} << 40) | (first_page + p), t.hints[first_page + p],
                    all.subspan(begin, std::min(t.page_values, count - begin)), p == page_in_block);
    }
    return all[within];
  }

  // The value of b without any en-passant right.
  Result<DtmValue> probe_board(const Board& b) const {
    const int men = popcount(b.occupied());
    if (men == 2) return DtmValue::draw();
    const Slot* slot = men <= max_men ? find(material_key(b)) : nullptr;
    if (slot == nullptr) {
      // Checkmate and stalemate need no table.
      if (!model::has_legal_move(b)) return model::in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
      const model::Material m = b.material();
      return make_error(ErrorCode::kUnavailable, "no table for " + m.name() + " (" + std::to_string(men) +
                                                     " men): " + m.normalized().name() + ".dtm not found");
    }
    Table& t = *tables[std::size_t(slot->table)];
    if (const Error* e = ensure_open(t)) return *e;
    return table_value(t, slot->flip ? model::color_flipped(b) : b);
  }

  // The value of b (in t's orientation). Format version 3 stores one side: the other is a
  // one-ply search (or, for a symmetric material, the stored side colour-flipped).
  Result<DtmValue> table_value(const Table& t, const Board& b) const {
    if (t.stored_side < 0 || index_of(b.side) == t.stored_side) return exact_value(t, b);
    if (t.symmetric) return exact_value(t, model::color_flipped(b));
    // Captures, promotions and double pushes are valued exactly. A quiet move's child is a stored
    // position whose stored value is never better for its side than its exact value (the writer
    // guarantees it), so back_up(stored) bounds what the move is worth to b: children are
    // resolved best bound first, until no bound can beat the best value found.
    struct Quiet {
      Board child;
      std::uint64_t index;
      DtmValue stored;
      int bound;
    };
    std::array<Quiet, 256> quiet;
    std::size_t quiet_count = 0;
    std::optional<DtmValue> best;
    std::optional<Error> error;
    auto consider = [&](const Result<DtmValue>& v) {
      if (!v) {
        if (!error) error = v.error();
        return;
      }
      const DtmValue backed = model::back_up(*v);
      best = best ? model::better_of(*best, backed) : backed;
    };
    model::for_each_legal_move(b, [&](const Board& child, const model::MoveInfo& mi) {
      if (error) return;
      if (mi.kind == model::MoveKind::kConversion) return consider(probe_board(child));
      if (mi.kind == model::MoveKind::kDoublePush) return consider(probe(child, mi.ep_square));
      const std::uint64_t index = t.scheme->encode(child);
      auto stored = read(t, child.side, index);
      if (!stored) return consider(stored);
      if (quiet_count == quiet.size()) return consider(resolve(t, child, index, *stored));  // no room: no pruning
      quiet[quiet_count++] = {child, index, *stored, model::preference(model::back_up(*stored))};
    });
    if (error) return *error;
    std::sort(quiet.begin(), quiet.begin() + std::ptrdiff_t(quiet_count),
              [](const Quiet& x, const Quiet& y) { return x.bound > y.bound; });
    for (std::size_t i = 0; i < quiet_count && !error; ++i) {
      if (best && model::preference(*best) >= quiet[i].bound) break;
      consider(resolve(t, quiet[i].child, quiet[i].index, quiet[i].stored));
    }
    if (error) return *error;
    if (best) return *best;
    return model::in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
  }

  // The exact value of a position of the stored side.
  Result<DtmValue> exact_value(const Table& t, const Board& b) const {
    const std::uint64_t index = t.scheme->encode(b);
    auto stored = read(t, b.side, index);
    if (!stored) return stored;
    return resolve(t, b, index, *stored);
  }

  // The one place that knows how a stored value becomes the exact value of a position of the
  // stored side: as stored, or (capture-resolved files) better_of(stored, best capture or
  // promotion), with checkmate and stalemate taken from the board.
  Result<DtmValue> resolve(const Table& t, const Board& b, std::uint64_t index, DtmValue stored) const {
    if (Status st = check_not_illegal(t, stored, b, index); !st) return st.error();
    if (!t.resolved) return stored;
    bool any_move = false;
    DtmValue value = stored;
    std::optional<Error> error;
    model::for_each_legal_move(b, [&](const Board& child, const model::MoveInfo& mi) {
      any_move = true;
      if (error || mi.kind != model::MoveKind::kConversion) return;
      auto v = probe_board(child);
      if (!v) error = v.error();
      else value = model::better_of(value, model::back_up(*v));
    });
    if (error) return *error;
    if (!any_move) return model::in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
    return value;
  }

  Result<DtmValue> probe(const Board& b, Square ep) const {
    auto value = probe_board(b);
    if (ep.is_none() || !value) return value;
    // The table holds b without the right; the en-passant captures are extra moves.
    std::optional<Error> error;
    const DtmValue v = model::with_en_passant(b, ep, *value, [&](const Board& child) {
      auto c = probe_board(child);
      if (c) return *c;
      if (!error) error = c.error();
      return DtmValue::draw();
    });
    if (error) return *error;
    return v;
  }
};

Tablebase::Tablebase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tablebase::Tablebase(Tablebase&&) noexcept = default;
Tablebase& Tablebase::operator=(Tablebase&&) noexcept = default;
Tablebase::~Tablebase() = default;

namespace {

// The automatic cache size for `tables` (TablebaseOptions::cache_bytes).
std::size_t auto_cache_bytes(const std::vector<model::Material>& tables) {
  std::uint64_t decoded = 0;
  for (const auto& m : tables) decoded += 2 * model::IndexScheme(m).size() * sizeof(std::uint16_t);
  std::uint64_t ceiling = kAutoCacheMaxBytes;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) ceiling = std::min<std::uint64_t>(ceiling, std::uint64_t(pages) * std::uint64_t(page_size) / 8);
  // Whole pages, and at least one.
  const std::uint64_t page = BlockCache::kPageBytes;
  return std::size_t(std::max(page, std::min(ceiling, (decoded + page - 1) / page * page)));
}

}  // namespace

Result<Tablebase> Tablebase::open(const std::vector<std::filesystem::path>& dirs, const TablebaseOptions& options) {
  std::map<std::string, std::filesystem::path> found;  // by name; the first directory wins
  for (const auto& dir : dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> here;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto& p = it->path();
      if (p.extension() != ".dtm") continue;
      if (std::error_code fec; !it->is_regular_file(fec)) continue;
      here.push_back(p);
    }
    if (ec) return make_error(ErrorCode::kIo, dir.string() + ": cannot read directory: " + ec.message());
    for (const auto& p : here) {
      auto m = model::Material::parse(p.stem().string());
      // Only files named as the generator names them (normalized material, 3+ men).
      if (!m || m->name() != p.stem().string() || m->normalized() != *m || m->men() < 3) continue;
      found.emplace(m->name(), p);
    }
  }
  std::vector<model::Material> materials;
  for (const auto& [name, path] : found) materials.push_back(*model::Material::parse(name));
  auto impl = std::make_unique<Impl>(options.cache_bytes ? *options.cache_bytes : auto_cache_bytes(materials));
  for (const auto& [name, path] : found) {
    auto t = std::make_unique<Table>();
    t->material = materials[impl->tables.size()];
    t->name = name;
    t->path = path;
    t->id = std::uint32_t(impl->tables.size());
    impl->max_men = std::max(impl->max_men, t->material.men());
    impl->tables.push_back(std::move(t));
  }
  impl->build_lookup();
  return Tablebase(std::move(impl));
}

int Tablebase::max_men() const { return impl_->max_men; }

std::vector<std::string> Tablebase::materials() const {
  std::vector<std::string> out;
  for (const auto& t : impl_->tables) out.push_back(t->name);
  return out;
}

namespace {

// The most men any endgame table holds (the largest sets known have 7).
constexpr int kMostMenInAnyTable = 7;

// What no table can answer, the first problem first: more men than any table holds (the start
// position), then castling rights. Checkmate and stalemate need no table, whatever the count.
Status check_probeable(const Position& pos, int max_men) {
  if (const int men = popcount(pos.pieces()); men > kMostMenInAnyTable && !legal_moves(pos).empty())
    return make_error(ErrorCode::kUnavailable,
                      "no table has " + std::to_string(men) + " men: endgame tables hold at most " +
                          std::to_string(kMostMenInAnyTable) + (max_men == 0 ? std::string(", and no table was found here")
                                                                             : ", those found here at most " + std::to_string(max_men)));
  if (pos.castling_rights() == 0) return {};
  return make_error(ErrorCode::kInvalidArgument,
                    "the position has castling rights; tables hold positions without castling rights "
                    "(clear them in the FEN: '-' in the castling field)");
}

}  // namespace

Result<DtmValue> Tablebase::probe(const Position& pos) const {
  if (Status st = check_probeable(pos, impl_->max_men); !st) return st.error();
  return impl_->probe(model::board_from_position(pos), pos.en_passant());
}

Result<DtmValue> Tablebase::probe(const model::Board& b, Square en_passant) const { return impl_->probe(b, en_passant); }

Result<std::vector<RankedMove>> Tablebase::rank_moves(const Position& pos) const {
  if (Status st = check_probeable(pos, impl_->max_men); !st) return st.error();
  std::vector<RankedMove> out;
  Position child = pos;
  for (const Move m : legal_moves(pos)) {
    child.do_move(m);
    auto v = impl_->probe(model::board_from_position(child), child.en_passant());
    child.undo_move(m);
    if (!v) return v.error();
    out.push_back({m, model::back_up(*v)});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankedMove& a, const RankedMove& b) { return preference(a.value) > preference(b.value); });
  return out;
}

void Tablebase::clear_cache() const { impl_->cache.clear(); }

CacheStats Tablebase::cache_stats() const {
  CacheStats s;
  s.misses = impl_->misses.load(std::memory_order_relaxed);
  s.blocks_decoded = impl_->blocks_decoded.load(std::memory_order_relaxed);
  s.files_opened = impl_->files_opened.load(std::memory_order_relaxed);
  s.capacity_bytes = impl_->cache.capacity_bytes();
  return s;
}

std::vector<std::filesystem::path> split_dirs(const std::string& joined) {
  std::vector<std::filesystem::path> out;
  std::stringstream ss(joined);
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty()) out.emplace_back(dir);
  return out;
}

}  // namespace tbkit::probe
