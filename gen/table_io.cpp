// Table files <-> SolvedTable: parallel writing (blocks compressed with TBB) and loading.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <system_error>

#include "formats/table_file.h"
#include "gen/model.h"
#include "gen/one_side.h"
#include "gen/parallel.h"
#include "gen/run.h"
#include "gen/table_set.h"
#include "model/storage_order.h"

namespace tbkit::gen {

using namespace chess;

namespace {

// True when `file` holds both sides exactly: read alone, it needs no other table.
bool stores_both_exactly(const formats::TableFile& file) {
  return file.stores(Color::kWhite) && file.stores(Color::kBlack) && !file.capture_resolved();
}

// True when m's `file` is read as it is (expanded_source): it needs no other table.
bool read_alone(const formats::TableFile& file, const Material& m) {
  return stores_both_exactly(file) || m.conversions().empty();
}

// Expanded copies are written for speed: zstd level 1, both sides (format version 2).
formats::TableWriteOptions expanded_copy_options() {
  formats::TableWriteOptions o;
  o.codec = formats::BlockCodec::kZstd;
  o.compression_level = 1;
  return o;
}

}  // namespace

Result<formats::TableWriteOptions> write_options_named(std::string_view name, std::string_view sides) {
  formats::TableWriteOptions o;
  if (sides == "one") o.format_version = 3;
  else if (sides != "both") return make_error(ErrorCode::kInvalidArgument, "unknown sides '" + std::string(sides) + "' (both or one)");
  if (name == "small") return o;
  if (name == "balanced") {
    // LZMA2 settling for a shorter match. Storing both sides, a 64-byte match (preset 9's own, so
    // the files are "small"'s). Storing one side, 2 MiB blocks with a 64-byte match and 12
    // match-finder steps: the coder's state spans twice the slots, which pays for the shallower
    // search (the 3+4 set: 14.3 CPU s of LZMA2 instead of 16.7 with 1 MiB blocks, 88 and 18, for
    // about the same bytes). For tables of more than 8 Mi positions a side (5-piece tables) 1 MiB
    // blocks, a 32-byte match and 8 steps: ~40% less time again for ~5% more bytes
    // (docs/results.md, "Balanced").
    o.lzma_nice_len = 64;
    if (sides == "one") {
      o.block_bytes = 2U << 20;
      o.lzma_depth = 12;
      o.lzma_large_block_bytes = 1U << 20;
    }
    o.lzma_large_above = std::uint64_t{8} << 20;
    o.lzma_large_nice_len = 32;
    o.lzma_large_depth = 8;
    return o;
  }
  if (name == "fast") {
    o.codec = formats::BlockCodec::kZstd;
    o.compression_level = 9;
    return o;
  }
  return make_error(ErrorCode::kInvalidArgument, "unknown compression '" + std::string(name) + "' (small, balanced or fast)");
}

Status write_solved_table(const std::filesystem::path& path, const SolvedTable& table, const TableSet& subtables,
                          const std::string& generator, std::int64_t created, tbb::task_arena& arena,
                          const formats::TableWriteOptions& write) {
  formats::TableInfo info;
  info.material = table.material().name();
  info.index_scheme = table.scheme.id();
  info.positions_per_side = table.scheme.size();
  info.generator = generator;
  info.created = created;
  // One task per block: each block's bytes depend on that block alone, so any thread count
  // gives the same file. Streamed: the coded file is never held whole.
  if (write.format_version >= 3) {
    const StoredSide pick = choose_stored_side(table, subtables, arena);
    info.index_scheme = pick.order.file_id();
    return write_stored_side(path, table, pick, info, write, arena);
  }
  auto encoder = formats::TableEncoder::create(info, table.values[0], table.values[1], write);
  if (!encoder) return encoder.error();
  return write_in_parallel(path, *encoder, arena);
}

Status TableSet::load(const std::filesystem::path& path, const Material& expected, tbb::task_arena& arena,
                      LoadUse use, const SlotProgressFn& rebuilding) {
  auto file = formats::TableFile::open(path);
  if (!file) return file.error();
  auto table = std::make_shared<SolvedTable>(expected);
  const auto& info = file->info();
  const std::optional<StorageOrder> order = StorageOrder::from_file_id(table->scheme, info.index_scheme);
  if (info.material != expected.name() || !order || info.positions_per_side != table->scheme.size())
    return make_error(ErrorCode::kCorrupt, path.string() + ": header (material " + info.material + ", scheme " +
                                               std::to_string(info.index_scheme) + ", " +
                                               std::to_string(info.positions_per_side) + " positions) does not match " +
                                               expected.name());
  const bool one_side = !file->stores(Color::kWhite) || !file->stores(Color::kBlack);
  if (one_side || file->capture_resolved()) {
    for (const Material& d : expected.conversions())
      if (!contains(d))
        return make_error(ErrorCode::kUnavailable, path.string() + ": needs " + d.name() + " loaded first");
  }
  // Block by block in parallel: decompress, then mark the unused slots illegal again (files may
  // store anything there, formats/table_file.h), unless only probes will read the table and it
  // needs no rebuilding. The first error (lowest block) wins.
  const bool mark_illegal = use == LoadUse::kExact || one_side || file->capture_resolved();
  const std::uint64_t n = info.positions_per_side;
  const std::uint64_t per_block = file->values_per_block();
  const std::uint64_t blocks = (n + per_block - 1) / per_block;
  const bool to_files = use == LoadUse::kProbeOnly && !values_dir_.empty();
  std::error_code ec;
  if (to_files) std::filesystem::create_directories(values_dir_, ec);
  if (ec) return make_error(ErrorCode::kIo, values_dir_.string() + ": cannot create directory: " + ec.message());
  auto tmp_path = [&](Color c) { return values_path(values_dir_, expected, c).string() + ".tmp." + values_tag_; };
  // On any return the tmp files are gone: renamed into place, or removed here.
  struct RemoveTmp {
    std::function<void()> remove;
    ~RemoveTmp() { remove(); }
  } remove_tmp{[&] {
    if (to_files)
      for (Color c : {Color::kWhite, Color::kBlack}) ::unlink(tmp_path(c).c_str());
  }};
  for (Color c : {Color::kWhite, Color::kBlack}) {
    if (!file->stores(c)) continue;
    if (!to_files) {
      table->values[index_of(c)] = ValueArray(n);
      continue;
    }
    auto values = ValueArray::create_file(tmp_path(c), n);
    if (!values) return values.error();
    table->values[index_of(c)] = std::move(*values);
  }
  std::vector<Status> errors(2 * blocks);
  parallel_each(arena, 2 * blocks, [&](std::uint64_t k) {
    const int s = int(k / blocks);
    auto& values = table->values[s];
    if (values.empty()) return;
    const std::uint64_t first = (k % blocks) * per_block, last = std::min(n, first + per_block);
    auto got = file->values(Color(s), first, last - first);
    if (!got) {
      errors[k] = got.error();
      return;
    }
    if (!mark_illegal) {
      order->for_each_slot(first, last, [&](std::uint64_t slot, std::uint64_t i) { values[i] = (*got)[slot - first]; });
      return;
    }
    // Slots in the file's storage order; consecutive indexes mostly differ by one step of the
    // last man: no full decode for those.
    Board b;
    bool placed = false;
    std::uint64_t previous = ~std::uint64_t{0};
    order->for_each_slot(first, last, [&](std::uint64_t slot, std::uint64_t i) {
      if (!placed || i != previous + 1 || !table->scheme.advance(i, b)) placed = table->scheme.decode(i, Color(s), b);
      previous = i;
      values[i] = placed && is_legal(b) ? (*got)[slot - first] : DtmValue::illegal();
    });
  });
  for (const Status& st : errors)
    if (!st) return st;
  if (one_side || file->capture_resolved())
    expand_table(*table, file->stored_side(), file->capture_resolved(), *this, arena, rebuilding);
  if (to_files)
    for (Color c : {Color::kWhite, Color::kBlack}) {
      ValueArray& values = table->values[index_of(c)];
      if (!values.in_file()) {  // rebuilt in memory by expand_table
        auto copy = ValueArray::create_file(tmp_path(c), n);
        if (!copy) return copy.error();
        std::copy(values.begin(), values.end(), copy->data());
        values = std::move(*copy);
      }
      // The mapping stays valid across the rename.
      const std::filesystem::path final_path = values_path(values_dir_, expected, c);
      if (::rename(tmp_path(c).c_str(), final_path.c_str()) != 0)
        return make_error(ErrorCode::kIo, tmp_path(c) + ": cannot rename into place: " + std::strerror(errno));
      made_files_.emplace_back(expected, final_path);
    }
  add(std::move(table));
  return {};
}

void TableSet::keep_probe_values_in(std::filesystem::path dir, std::string tag) {
  values_dir_ = std::move(dir);
  values_tag_ = std::move(tag);
}

std::filesystem::path TableSet::values_path(const std::filesystem::path& dir, const Material& m, Color side) {
  return dir / (m.name() + (side == Color::kWhite ? ".w" : ".b") + ".values");
}

Status TableSet::map_probe_values(const Material& material) {
  if (contains(material)) return {};
  auto table = std::make_shared<SolvedTable>(material);
  for (Color c : {Color::kWhite, Color::kBlack}) {
    auto values = ValueArray::open_file(values_path(values_dir_, material, c), table->scheme.size());
    if (!values) return values.error();
    table->values[index_of(c)] = std::move(*values);
  }
  add(std::move(table));
  return {};
}

Status TableSet::load_with_dependencies(const std::filesystem::path& dir, const Material& material, tbb::task_arena& arena) {
  if (contains(material)) return {};
  const std::filesystem::path path = table_path(dir, material);
  auto file = formats::TableFile::open(path);
  if (!file) return file.error();
  if (file->format_version() >= 3) {
    for (const Material& d : material.conversions())
      if (Status st = load_with_dependencies(dir, d, arena); !st) return st;
  }
  return load(path, material, arena);
}

namespace {

// Where expanded_source finds m: its own file, its copy, or nowhere yet (a copy to make).
enum class Source { kFile, kCopy, kToMake };

Result<Source> find_source(const std::filesystem::path& dir, const Material& m, const std::filesystem::path& cache,
                           tbb::task_arena& arena) {
  auto file = formats::TableFile::open(table_path(dir, m));
  if (!file) return file.error();
  if (read_alone(*file, m)) return Source::kFile;
  const std::filesystem::path copy = table_path(cache, m);
  if (!is_valid_table(copy, m, arena)) return Source::kToMake;
  auto copied = formats::TableFile::open(copy);
  return copied && stores_both_exactly(*copied) ? Source::kCopy : Source::kToMake;
}

// `rebuilding` for the expansion of m (nothing when there is nobody to tell).
SlotProgressFn rebuild_progress(const RebuildProgressFn& rebuilding, const Material& m) {
  if (!rebuilding) return {};
  return [&rebuilding, m](std::uint64_t done, std::uint64_t total) { rebuilding(m, done, total); };
}

// Makes cache/M.dtm from dir/M.dtm: the sources of the tables m converts into first (each made,
// and released, in turn), then only those tables and m are held. Returns m, exact.
Result<std::shared_ptr<const SolvedTable>> make_expanded_copy(const std::filesystem::path& dir, const Material& m,
                                                              const std::filesystem::path& cache,
                                                              tbb::task_arena& arena,
                                                              const RebuildProgressFn& rebuilding) {
  const std::vector<Material> deps = m.conversions();
  std::vector<std::filesystem::path> sources;
  for (const Material& d : deps) {
    auto source = expanded_source(dir, d, cache, arena, rebuilding);
    if (!source) return source.error();
    sources.push_back(*source);
  }
  TableSet set;
  for (std::size_t i = 0; i < deps.size(); ++i)
    if (Status st = set.load(sources[i], deps[i], arena, LoadUse::kExact, rebuild_progress(rebuilding, deps[i])); !st)
      return st.error();
  if (Status st = set.load(table_path(dir, m), m, arena, LoadUse::kExact, rebuild_progress(rebuilding, m)); !st)
    return st.error();
  std::shared_ptr<const SolvedTable> table = set.shared(m);
  if (Status st = write_expanded_copy(cache, *table, "tbkit expanded copy", 0, arena); !st) return st.error();
  return table;
}

}  // namespace

bool needs_expanded_copies(const std::filesystem::path& dir, const std::vector<Material>& tables) {
  return std::any_of(tables.begin(), tables.end(), [&](const Material& m) {
    if (m.conversions().empty()) return false;
    auto file = formats::TableFile::open(table_path(dir, m));
    return file && !read_alone(*file, m);
  });
}

bool expanded_source_ready(const std::filesystem::path& dir, const Material& m, const std::filesystem::path& cache,
                           tbb::task_arena& arena) {
  auto source = find_source(dir, m, cache, arena);
  return !source || *source != Source::kToMake;  // an unreadable file: nothing to make (its reader reports it)
}

Result<std::filesystem::path> expanded_source(const std::filesystem::path& dir, const Material& m,
                                              const std::filesystem::path& cache, tbb::task_arena& arena,
                                              const RebuildProgressFn& rebuilding) {
  auto source = find_source(dir, m, cache, arena);
  if (!source) return source.error();
  if (*source == Source::kFile) return table_path(dir, m);
  if (*source == Source::kToMake)
    if (auto made = make_expanded_copy(dir, m, cache, arena, rebuilding); !made) return made.error();
  return table_path(cache, m);
}

Status write_expanded_copy(const std::filesystem::path& cache, const SolvedTable& table, const std::string& generator,
                           std::int64_t created, tbb::task_arena& arena) {
  std::error_code ec;
  std::filesystem::create_directories(cache, ec);
  if (ec) return make_error(ErrorCode::kIo, cache.string() + ": cannot create directory: " + ec.message());
  return write_solved_table(table_path(cache, table.material()), table, TableSet{}, generator, created, arena,
                            expanded_copy_options());
}

Status TableSet::load_expanded(const std::filesystem::path& dir, const Material& material,
                               const std::filesystem::path& cache, tbb::task_arena& arena, LoadUse use,
                               const RebuildProgressFn& rebuilding) {
  if (contains(material)) return {};
  auto source = find_source(dir, material, cache, arena);
  if (!source) return source.error();
  if (*source == Source::kToMake) {
    // Kept as made rather than read back from the copy just written.
    auto made = make_expanded_copy(dir, material, cache, arena, rebuilding);
    if (!made) return made.error();
    add(std::move(*made));
    return {};
  }
  // A one-side file read alone is expanded by load itself.
  return load(table_path(*source == Source::kFile ? dir : cache, material), material, arena, use,
              rebuild_progress(rebuilding, material));
}

}  // namespace tbkit::gen
