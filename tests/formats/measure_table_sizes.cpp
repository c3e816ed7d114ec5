// measure_table_sizes [MAX_MEN | MATERIAL...] [--dir DIR] [--variants NAME,...]: solves the tables
// in memory with the generator (or loads them from DIR's .dtm files), encodes each with several
// writer variants and prints one JSON object per variant (total bytes, per-table bytes, encode
// and decode speed, cold random-probe time: every probe decodes one block). The figures behind the
// "Table sizes and codecs" section of docs/results.md. A development tool, not a test.
//
// measure_table_sizes --sides DIR [MAX_MEN | MATERIAL...] [--variants NAME]: format version 3.
// Loads the tables (and what they convert into) from DIR and prints, per table, the size of a
// version-3 file storing each side, with exact values and capture-resolved, with the writer
// options of variant NAME (default lzma9-block1024k), and the side choose_stored_side picks; then
// the totals of the picked side, the best side and the worse side.
//
// measure_table_sizes --fill DIR 'SPEC;SPEC...' [MAX_MEN | MATERIAL...]: format version 3 writer
// variants (SPEC: key=value overrides, see parse_fill_variant) on the side the writer picks;
// checks every stored value against its slot's freedom; prints per-table and total bytes.
//
// measure_table_sizes --static DIR [MAX_MEN | MATERIAL...] [--blocks B,B,...]: format version 4 (one
// static pair + Huffman model per table, blocks of B bytes; default 64,256,1024,4096) against the
// files in DIR: per table, the stored side the version-3 writer picks (its side, storage order and
// slot freedoms), coded at each block size, read back through TableFile and checked against the
// freedoms; prints per-table bytes beside the size of DIR's file, then the totals and the rate of
// random TableFile::value reads (20,000 a table, after the whole table was read once).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <tbb/parallel_for.h>

#include "formats/byte_order.h"
#include "formats/table_file.h"
#include "gen/one_side.h"
#include "gen/solver.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

// Process CPU seconds: the host is shared, so wall time would measure the other jobs too.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Variant {
  std::string name;
  TableWriteOptions options;
};

std::vector<Variant> all_variants() {
  std::vector<Variant> v;
  TableWriteOptions base;
  base.symbol_order = SymbolOrder::kValue;
  base.fill_illegal = false;
  base.wide_symbols = true;
  base.block_bytes = 65536;
  base.codec = BlockCodec::kZstd;
  base.compression_level = 19;
  base.format_version = 1;
  v.push_back({"codes16-nofill", base});
  base.fill_illegal = true;
  v.push_back({"codes16-fill", base});
  base.wide_symbols = false;
  v.push_back({"codes8-value-order-fill", base});
  base.symbol_order = SymbolOrder::kFrequency;
  v.push_back({"codes8-frequency-fill", base});
  auto fill_off = base;
  fill_off.fill_illegal = false;
  v.push_back({"codes8-frequency-nofill", fill_off});
  for (std::uint32_t kb : {8U, 16U, 32U, 128U, 1024U}) {
    auto b = base;
    b.block_bytes = kb * 1024;
    v.push_back({"block" + std::to_string(kb) + "k", b});
  }
  for (int level : {3, 9, 22}) {
    auto b = base;
    b.compression_level = level;
    v.push_back({"level" + std::to_string(level), b});
  }
  for (std::uint32_t kb : {4U, 16U, 64U}) {
    auto b = base;
    b.dictionary_bytes = kb * 1024;
    v.push_back({"dict" + std::to_string(kb) + "k", b});
    b.block_bytes = 16384;
    v.push_back({"dict" + std::to_string(kb) + "k-block16k", b});
  }
  // Format version 2: LZMA2 blocks.
  for (std::uint32_t kb : {64U, 256U, 1024U})
    for (int preset : {1, 3, 6, 9})
      for (bool extreme : {false, true}) {
        TableWriteOptions l;
        l.block_bytes = kb * 1024;
        l.compression_level = preset;
        l.lzma_extreme = extreme;
        v.push_back({"lzma" + std::to_string(preset) + (extreme ? "e" : "") + "-block" + std::to_string(kb) + "k", l});
      }
  for (int level : {9, 15, 19, 22}) {
    TableWriteOptions z;
    z.codec = BlockCodec::kZstd;
    z.compression_level = level;
    v.push_back({"zstd" + std::to_string(level) + "-block1024k", z});
  }
  return v;
}

// Mean time of one value() at a random slot; `sum` collects the results so the loop is kept.
double probe_microseconds(const TableFile& file, const gen::SolvedTable& t, std::uint64_t& sum) {
  std::mt19937_64 rng(42);
  const int probes = 200;
  const double t0 = cpu_seconds();
  for (int i = 0; i < probes; ++i) {
    const auto side = chess::Color(rng() & 1);
    const std::uint64_t index = rng() % t.scheme.size();
    sum += file.value(side, index)->raw();
  }
  const double us = 1e6 * (cpu_seconds() - t0);
  return us / probes;
}

// The --sides mode (see the top of this file).
int measure_sides(const std::string& dir, const std::vector<model::Material>& wanted, const TableWriteOptions& options) {
  tbb::task_arena arena(int(std::max(1U, std::thread::hardware_concurrency())));
  gen::TableSet set;
  std::uint64_t picked_total = 0, best_total = 0, worst_total = 0, exact_best_total = 0;
  int picked_best = 0;
  for (const model::Material& m : wanted) {
    if (Status st = set.load_with_dependencies(dir, m, arena); !st) {
      std::fprintf(stderr, "measure_table_sizes: %s\n", st.error().message.c_str());
      return 1;
    }
    const gen::SolvedTable& t = *set.find(m);
    const TableInfo info{m.name(), t.scheme.id(), t.scheme.size(), "tbkit measure", 0};
    std::uint64_t bytes[2][2] = {};  // [side][capture-resolved]
    std::vector<SlotFreedom> freedom[2];
    for (int side = 0; side < 2; ++side) freedom[side] = gen::slot_freedom(t, chess::Color(side), set, arena);
    arena.execute([&] {
      tbb::parallel_for(0, 4, [&](int k) {
        const int side = k / 2;
        const bool resolved = k % 2 == 1;
        const OneSide one{chess::Color(side), t.values[side], resolved ? std::span<const SlotFreedom>(freedom[side])
                                                                       : std::span<const SlotFreedom>()};
        auto b = encode_table(info, one, options);
        bytes[side][resolved] = b ? b->size() : 0;
      });
    });
    const chess::Color pick = gen::choose_stored_side(t, set, arena).side;
    const int p = index_of(pick);
    const int best = bytes[1][1] < bytes[0][1] ? 1 : 0;
    picked_total += bytes[p][1];
    best_total += bytes[best][1];
    worst_total += bytes[1 - best][1];
    exact_best_total += std::min(bytes[0][0], bytes[1][0]);
    picked_best += bytes[p][1] == bytes[best][1];
    std::printf("{\"table\": \"%s\", \"white_exact\": %llu, \"black_exact\": %llu, \"white_resolved\": %llu, "
                "\"black_resolved\": %llu, \"picked\": \"%s\"}\n",
                m.name().c_str(), static_cast<unsigned long long>(bytes[0][0]), static_cast<unsigned long long>(bytes[1][0]),
                static_cast<unsigned long long>(bytes[0][1]), static_cast<unsigned long long>(bytes[1][1]),
                p == 0 ? "white" : "black");
    std::fflush(stdout);
  }
  std::printf("{\"tables\": %zu, \"picked_bytes\": %llu, \"best_side_bytes\": %llu, \"worse_side_bytes\": %llu, "
              "\"best_side_exact_bytes\": %llu, \"picked_the_best\": %d}\n",
              wanted.size(), static_cast<unsigned long long>(picked_total), static_cast<unsigned long long>(best_total),
              static_cast<unsigned long long>(worst_total), static_cast<unsigned long long>(exact_best_total), picked_best);
  return 0;
}

// A writer variant for the --fill mode: comma-separated key=value overrides of the default
// version-3 options (fill=prev|match, look=N, nice=N, lc=N, lp=N, pb=N, depth=N, preset=N, e=1,
// block=KiB, zstd=LEVEL for zstd blocks). The slots are in the storage order the writer picks, or
// with perm=ORDER (read by measure_fill) in another: letters for the index digits, A the king pair,
// B, C, ... the groups, most significant first (docs/index.md, "Storage order"); digits not named
// follow in index order.
TableWriteOptions parse_fill_variant(const std::string& spec) {
  TableWriteOptions o;
  for (std::size_t s = 0; s < spec.size();) {
    const auto e = std::min(spec.find(',', s), spec.size());
    const std::string kv = spec.substr(s, e - s);
    s = e + 1;
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "fill") o.fill = v == "prev" ? FillMode::kPrevious : v == "next" ? FillMode::kNext : FillMode::kMatch;
    else if (k == "look") o.fill_lookahead = std::uint32_t(std::stoul(v));
    else if (k == "order") o.symbol_order = v == "value" ? SymbolOrder::kValue : v == "pref" ? SymbolOrder::kPreference : SymbolOrder::kFrequency;
    else if (k == "min") o.fill_min_run = std::uint32_t(std::stoul(v));
    else if (k == "nice") o.lzma_nice_len = std::uint32_t(std::stoul(v));
    else if (k == "lc") o.lzma_lc = std::stoi(v);
    else if (k == "lp") o.lzma_lp = std::stoi(v);
    else if (k == "pb") o.lzma_pb = std::stoi(v);
    else if (k == "depth") o.lzma_depth = std::uint32_t(std::stoul(v));
    else if (k == "preset") o.compression_level = std::stoi(v);
    else if (k == "e") o.lzma_extreme = v == "1";
    else if (k == "block") o.block_bytes = std::uint32_t(std::stoul(v)) * 1024;
    else if (k == "zstd") {
      o.codec = BlockCodec::kZstd;
      o.compression_level = std::stoi(v);
    }
  }
  return o;
}

// The --fill mode: per table the side choose_stored_side picks, encoded with each variant; checks
// that every stored value respects the slot's freedom, prints per-variant totals and CPU seconds.
int measure_fill(const std::string& dir, const std::vector<model::Material>& wanted, const std::vector<std::string>& specs) {
  tbb::task_arena arena(int(std::max(1U, std::thread::hardware_concurrency())));
  std::vector<std::uint64_t> totals(specs.size(), 0);
  std::vector<double> cpu(specs.size(), 0);
  for (const model::Material& m : wanted) {
    gen::TableSet set;
    // The slot freedom needs every table m converts into, whatever the version of m's file.
    for (const model::Material& d : m.conversions())
      if (Status st = set.load_with_dependencies(dir, d, arena); !st) {
        std::fprintf(stderr, "measure_table_sizes: %s\n", st.error().message.c_str());
        return 1;
      }
    if (Status st = set.load_with_dependencies(dir, m, arena); !st) {
      std::fprintf(stderr, "measure_table_sizes: %s\n", st.error().message.c_str());
      return 1;
    }
    const gen::SolvedTable& t = *set.find(m);
    const TableInfo info{m.name(), t.scheme.id(), t.scheme.size(), "tbkit measure", 0};
    const gen::StoredSide pick = gen::choose_stored_side(t, set, arena);
    const int side = index_of(pick.side);
    std::string line = "{\"table\": \"" + m.name() + "\"";
    for (std::size_t k = 0; k < specs.size(); ++k) {
      // perm=ORDER (see parse_fill_variant): the slots in that storage order.
      std::string perm;
      if (auto at = specs[k].find("perm="); at != std::string::npos) perm = specs[k].substr(at + 5);
      if (auto c = perm.find(','); c != std::string::npos) perm = perm.substr(0, c);
      std::vector<int> digits;
      for (char ch : perm) {
        const int d = ch - 'A';
        if (d >= 0 && d < t.scheme.digit_count() && std::find(digits.begin(), digits.end(), d) == digits.end()) digits.push_back(d);
      }
      for (int d = 0; d < t.scheme.digit_count(); ++d)
        if (std::find(digits.begin(), digits.end(), d) == digits.end()) digits.push_back(d);
      // Without perm=, the order the writer picks.
      const model::StorageOrder order = perm.empty() ? pick.order : model::StorageOrder(t.scheme, digits);
      const std::uint64_t N = t.scheme.size();
      std::vector<DtmValue> pv(N);
      std::vector<SlotFreedom> pf(N);
      order.for_each_slot(0, N, [&](std::uint64_t slot, std::uint64_t i) {
        pv[slot] = t.values[side][i];
        pf[slot] = gen::freedom_at(t.values[side][i], pick.no_better, i);
      });
      const OneSide one{pick.side, pv, pf};
      const double t0 = cpu_seconds();
      auto bytes = encode_table(info, one, parse_fill_variant(specs[k]));
      cpu[k] += cpu_seconds() - t0;
      if (!bytes) {
        std::fprintf(stderr, "measure_table_sizes: %s\n", bytes.error().message.c_str());
        return 1;
      }
      auto file = TableFile::open_memory(*bytes, info.material);
      auto back = file ? file->values(pick.side, 0, t.scheme.size()) : make_error(ErrorCode::kCorrupt, "no file");
      for (std::uint64_t i = 0; back && i < t.scheme.size(); ++i) {
        const DtmValue v = pv[i];
        if (v.is_illegal() || pf[i] == SlotFreedom::kAny) continue;
        const DtmValue got = (*back)[i];
        const bool ok = pf[i] == SlotFreedom::kExact ? got == v : preference_of(got) <= preference_of(v);
        if (!ok) back = make_error(ErrorCode::kCorrupt, "slot " + std::to_string(i) + " breaks its freedom");
      }
      if (!back) {
        std::fprintf(stderr, "measure_table_sizes: %s (%s): %s\n", m.name().c_str(), specs[k].c_str(), back.error().message.c_str());
        return 1;
      }
      totals[k] += bytes->size();
      line += ", \"" + specs[k] + "\": " + std::to_string(bytes->size());
    }
    std::printf("%s}\n", line.c_str());
    std::fflush(stdout);
  }
  for (std::size_t k = 0; k < specs.size(); ++k)
    std::printf("{\"variant\": \"%s\", \"total_bytes\": %llu, \"encode_cpu_s\": %.2f}\n", specs[k].c_str(),
                static_cast<unsigned long long>(totals[k]), cpu[k]);
  return 0;
}

// The --static mode (see the top of this file).
int measure_static(const std::string& dir, const std::vector<model::Material>& wanted,
                   const std::vector<std::uint32_t>& block_sizes) {
  tbb::task_arena arena(int(std::max(1U, std::thread::hardware_concurrency())));
  std::vector<std::uint64_t> totals(block_sizes.size(), 0);
  std::vector<double> cpu(block_sizes.size(), 0);
  std::uint64_t file_total = 0, values_total = 0, read_sum = 0;
  std::vector<double> read_cpu(block_sizes.size(), 0);
  std::vector<std::uint64_t> read_count(block_sizes.size(), 0);
  for (const model::Material& m : wanted) {
    gen::TableSet set;
    if (Status st = set.load_with_dependencies(dir, m, arena); !st) {
      std::fprintf(stderr, "measure_table_sizes: %s\n", st.error().message.c_str());
      return 1;
    }
    const std::filesystem::path path = std::filesystem::path(dir) / (m.name() + ".dtm");
    std::error_code ec;
    const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
    if (ec) {
      std::fprintf(stderr, "measure_table_sizes: %s: %s\n", path.string().c_str(), ec.message().c_str());
      return 1;
    }
    const gen::SolvedTable& t = *set.find(m);
    const gen::StoredSide pick = gen::choose_stored_side(t, set, arena);
    const TableInfo info{m.name(), pick.order.file_id(), t.scheme.size(), "tbkit measure", 0};
    const gen::StoredValues stored = gen::stored_values(t, pick, arena);
    const std::span<const DtmValue> pv(stored.values.data(), stored.values.size());
    const std::span<const SlotFreedom> pf(stored.freedom.data(), stored.freedom.size());
    std::string line = "{\"table\": \"" + m.name() + "\", \"file\": " + std::to_string(file_bytes);
    for (std::size_t k = 0; k < block_sizes.size(); ++k) {
      TableWriteOptions o;
      o.format_version = 4;
      o.static_block_bytes = block_sizes[k];
      const double t0 = cpu_seconds();
      auto bytes = encode_table(info, OneSide{pick.side, pv, pf}, o);
      cpu[k] += cpu_seconds() - t0;
      if (!bytes) {
        std::fprintf(stderr, "measure_table_sizes: %s\n", bytes.error().message.c_str());
        return 1;
      }
      auto file = TableFile::open_memory(*bytes, info.material);
      auto back = file ? file->values(pick.side, 0, pv.size()) : Result<std::vector<DtmValue>>(file.error());
      for (std::uint64_t i = 0; back && i < pv.size(); ++i) {
        if (pv[i].is_illegal() || pf[i] == SlotFreedom::kAny) continue;
        const DtmValue got = (*back)[i];
        const bool ok = pf[i] == SlotFreedom::kExact ? got == pv[i] : preference_of(got) <= preference_of(pv[i]);
        if (!ok) back = make_error(ErrorCode::kCorrupt, "slot " + std::to_string(i) + " breaks its freedom");
      }
      if (!back) {
        std::fprintf(stderr, "measure_table_sizes: %s (%u-byte blocks): %s\n", m.name().c_str(), block_sizes[k],
                     back.error().message.c_str());
        return 1;
      }
      // Random single-value reads after the whole read above (every chunk checksum checked).
      std::mt19937_64 rng(7);
      std::uint64_t sum = 0;
      const int reads = 20000;
      const double r0 = cpu_seconds();
      for (int r = 0; r < reads; ++r) sum += file->value(pick.side, rng() % pv.size())->raw();
      read_cpu[k] += cpu_seconds() - r0;
      read_count[k] += reads;
      read_sum += sum;
      totals[k] += bytes->size();
      line += ", \"v4_" + std::to_string(block_sizes[k]) + "\": " + std::to_string(bytes->size()) + ", \"block_" +
              std::to_string(block_sizes[k]) + "\": " + std::to_string(load_le<std::uint32_t>(bytes->data() + 96));
    }
    file_total += file_bytes;
    values_total += pv.size();
    std::printf("%s}\n", line.c_str());
    std::fflush(stdout);
  }
  std::printf("{\"tables\": %zu, \"values\": %llu, \"files_bytes\": %llu}\n", wanted.size(),
              static_cast<unsigned long long>(values_total), static_cast<unsigned long long>(file_total));
  for (std::size_t k = 0; k < block_sizes.size(); ++k)
    std::printf("{\"block_bytes\": %u, \"total_bytes\": %llu, \"vs_files\": %.4f, \"encode_cpu_s\": %.2f, "
                "\"value_reads_per_cpu_s\": %.0f, \"read_sum\": %llu}\n",
                block_sizes[k], static_cast<unsigned long long>(totals[k]), double(totals[k]) / double(file_total), cpu[k],
                double(read_count[k]) / read_cpu[k], static_cast<unsigned long long>(read_sum));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<model::Material> wanted;
  std::vector<std::string> only;
  std::string dir, sides_dir, fill_dir;
  std::vector<std::string> fill_specs;
  std::string static_dir;
  std::vector<std::uint32_t> block_sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--static" && i + 1 < argc) {
      static_dir = argv[++i];
    } else if (a == "--blocks" && i + 1 < argc) {
      const std::string list = argv[++i];
      for (std::size_t s = 0; s < list.size();) {
        const auto e = std::min(list.find(',', s), list.size());
        block_sizes.push_back(std::uint32_t(std::stoul(list.substr(s, e - s))));
        s = e + 1;
      }
    } else if (a == "--sides" && i + 1 < argc) {
      sides_dir = argv[++i];
    } else if (a == "--fill" && i + 2 < argc) {
      fill_dir = argv[++i];
      const std::string list = argv[++i];
      for (std::size_t s = 0; s <= list.size();) {
        const auto e = std::min(list.find(';', s), list.size());
        fill_specs.push_back(list.substr(s, e - s));
        s = e + 1;
      }
    } else if (a == "--variants" && i + 1 < argc) {
      std::string list = argv[++i];
      for (std::size_t s = 0; s <= list.size();) {
        const auto e = std::min(list.find(',', s), list.size());
        only.push_back(list.substr(s, e - s));
        s = e + 1;
      }
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a.size() == 1 && a[0] >= '3' && a[0] <= '5') {
      const auto all = model::all_materials(a[0] - '0');
      wanted.insert(wanted.end(), all.begin(), all.end());
    } else if (auto m = model::Material::parse(a)) {
      wanted.push_back(m->normalized());
    } else {
      std::fprintf(stderr, "measure_table_sizes: %s\n", m.error().message.c_str());
      return 2;
    }
  }
  if (wanted.empty()) wanted = model::all_materials(4);
  if (!fill_dir.empty()) return measure_fill(fill_dir, wanted, fill_specs);
  if (!static_dir.empty()) {
    if (block_sizes.empty()) block_sizes = {64, 256, 1024, 4096};
    return measure_static(static_dir, wanted, block_sizes);
  }
  if (!sides_dir.empty()) {
    const std::string name = only.empty() ? "lzma9-block1024k" : only.front();
    for (const Variant& v : all_variants())
      if (v.name == name) return measure_sides(sides_dir, wanted, v.options);
    std::fprintf(stderr, "measure_table_sizes: no variant %s\n", name.c_str());
    return 2;
  }

  // A name in --variants that is no variant would measure nothing and pass for a measurement.
  const std::vector<Variant> variants = all_variants();
  for (const std::string& name : only) {
    if (std::none_of(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == name; })) {
      std::fprintf(stderr, "measure_table_sizes: no variant %s\n", name.c_str());
      return 2;
    }
  }

  gen::TableSet set;
  tbb::task_arena arena(int(std::max(1U, std::thread::hardware_concurrency())));
  std::vector<std::shared_ptr<const gen::SolvedTable>> solved;
  for (const model::Material& m : dir.empty() ? model::dependency_closure(wanted) : wanted) {
    if (!dir.empty()) {
      gen::TableSet loaded;
      if (Status st = loaded.load_with_dependencies(dir, m, arena); !st) {
        std::fprintf(stderr, "measure_table_sizes: %s\n", st.error().message.c_str());
        return 1;
      }
      solved.push_back(loaded.shared(m));
      continue;
    }
    auto t = gen::solve_table(m, set, arena);
    if (!t) {
      std::fprintf(stderr, "measure_table_sizes: %s: %s\n", m.name().c_str(), t.error().message.c_str());
      return 1;
    }
    std::shared_ptr<const gen::SolvedTable> table = std::move(*t);
    set.add(table);
    if (std::find(wanted.begin(), wanted.end(), m) != wanted.end()) solved.push_back(table);
    std::fprintf(stderr, "solved %s\n", m.name().c_str());
  }

  for (const Variant& v : variants) {
    if (!only.empty() && std::find(only.begin(), only.end(), v.name) == only.end()) continue;
    std::uint64_t total = 0, values = 0;
    double encode_s = 0, decode_s = 0, probe_us_sum = 0;
    std::uint64_t probe_sum = 0;
    std::string per_table;
    for (const auto& t : solved) {
      const TableInfo info{t->material().name(), t->scheme.id(), t->scheme.size(), "tbkit measure", 0};
      const double t0 = cpu_seconds();
      auto bytes = encode_table(info, t->values[0], t->values[1], v.options);
      encode_s += cpu_seconds() - t0;
      if (!bytes) {
        std::fprintf(stderr, "measure_table_sizes: %s\n", bytes.error().message.c_str());
        return 1;
      }
      auto file = TableFile::open_memory(*bytes, info.material);
      const double t1 = cpu_seconds();
      if (!file || !file->verify()) {
        std::fprintf(stderr, "measure_table_sizes: %s does not read back\n", info.material.c_str());
        return 1;
      }
      decode_s += cpu_seconds() - t1;
      for (int side = 0; side < 2; ++side) {
        auto back = file->values(chess::Color(side), 0, t->scheme.size());
        for (std::uint64_t i = 0; back && i < t->scheme.size(); ++i)
          if (!t->values[side][i].is_illegal() && (*back)[i] != t->values[side][i]) back = make_error(ErrorCode::kCorrupt, "differs");
        if (!back) {
          std::fprintf(stderr, "measure_table_sizes: %s reads back different values\n", info.material.c_str());
          return 1;
        }
      }
      probe_us_sum += probe_microseconds(*file, *t, probe_sum);
      total += bytes->size();
      values += 2 * t->scheme.size();
      per_table += (per_table.empty() ? "" : ", ") + ("\"" + info.material + "\": " + std::to_string(bytes->size()));
    }
    std::printf("{\"variant\": \"%s\", \"block_bytes\": %u, \"level\": %d, \"dictionary_bytes\": %u, \"tables\": %zu, "
                "\"values\": %llu, \"total_bytes\": %llu, \"bits_per_value\": %.4f, \"encode_s\": %.2f, "
                "\"encode_mb_s\": %.2f, \"decode_mb_s\": %.1f, \"mean_probe_us\": %.2f, \"probe_sum\": %llu, \"per_table\": {%s}}\n",
                v.name.c_str(), v.options.block_bytes, v.options.compression_level, v.options.dictionary_bytes,
                solved.size(), static_cast<unsigned long long>(values), static_cast<unsigned long long>(total),
                8.0 * double(total) / double(values), encode_s, double(values) / 1e6 / encode_s,
                double(values) / 1e6 / decode_s, probe_us_sum / double(solved.size()), static_cast<unsigned long long>(probe_sum),
                per_table.c_str());
    std::fflush(stdout);
  }
  return 0;
}
