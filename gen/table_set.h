// TableSet: solved tables held in memory, looked up by material in either colour orientation.
// Filled by one thread, then read concurrently (probe is const and thread-safe).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "chess/result.h"
#include "formats/dtm_value.h"
#include "gen/model.h"
#include "gen/value_array.h"
#include "model/board.h"
#include "model/index_scheme.h"

namespace tbkit::gen {

using formats::DtmValue;

// One material's values for both sides to move, stored with the normalized material as White.
struct SolvedTable {
  explicit SolvedTable(const Material& m) : scheme(m) {}
  IndexScheme scheme;
  std::array<ValueArray, 2> values;  // [side to move][index]
  // Set by the solver (empty for a table loaded from a file): bit i % 64 of word i / 64 of side s
  // is set when slot i is checkmate, stalemate or a position whose value equals its best capture or
  // promotion, the slots a capture-resolved file may store "no better" (gen/one_side.h).
  std::array<std::vector<std::uint64_t>, 2> no_better;

  [[nodiscard]] const Material& material() const { return scheme.material(); }
  // The value of a legal board of this exact material (White = stored White).
  [[nodiscard]] DtmValue value(const Board& b) const { return values[index_of(b.side)][scheme.encode(b)]; }
};

// Slots done so far and in all, reported by long passes over a table (a rebuild, a check); called
// from the worker threads, one chunk at a time.
using SlotProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;
// The same for the rebuild of `table`, one of the tables a read needs expanded first.
using RebuildProgressFn = std::function<void(const Material& table, std::uint64_t done, std::uint64_t total)>;

// What a loaded table is for. kProbeOnly: only probed at legal positions (a dependency of a table
// being made), so a file storing both sides exactly is copied in as stored, its unused slots not
// marked illegal (that pass decodes every slot: seconds for a 5-piece table).
enum class LoadUse { kExact, kProbeOnly };

class TableSet {
 public:
  TableSet() = default;
  // A copy shares the tables; the files stay the original's to remove.
  TableSet(const TableSet& o)
      : tables_(o.tables_), entries_(o.entries_), values_dir_(o.values_dir_), values_tag_(o.values_tag_) {}
  TableSet& operator=(const TableSet& o) {
    TableSet copy(o);
    *this = std::move(copy);
    return *this;
  }
  TableSet(TableSet&&) = default;
  TableSet& operator=(TableSet&&) = default;
  ~TableSet();
  void add(std::shared_ptr<const SolvedTable> table);
  // Loads a table file written by write_solved_table, both sides exact. A version-3 file (one side
  // stored) is expanded with expand_table (gen/one_side.h), in `arena`, and needs every table it
  // converts into already in the set (else kUnavailable naming it). Errors as
  // formats::TableFile::open/values, plus kCorrupt when the header does not match the material.
  // `rebuilding` reports the expansion of a version-3 file.
  [[nodiscard]] Status load(const std::filesystem::path& path, const Material& expected, tbb::task_arena& arena,
                            LoadUse use = LoadUse::kExact, const SlotProgressFn& rebuilding = {});
  // Loads dir/MATERIAL.dtm, first loading from `dir` (recursively) the tables a version-3 file
  // needs; tables already in the set are kept, and every table read stays: for small sets (tests,
  // tools). Errors as load().
  [[nodiscard]] Status load_with_dependencies(const std::filesystem::path& dir, const Material& material,
                                              tbb::task_arena& arena);
  // Loads `material` (unless held) from expanded_source(dir, material, cache) (gen/run.h): from a
  // file read alone, so the set gains this table only. `rebuilding` reports each expansion on the
  // way: the copies made (this table's or, first, those of tables it converts into) and the load
  // of a one-side file read alone. Errors as expanded_source and load().
  [[nodiscard]] Status load_expanded(const std::filesystem::path& dir, const Material& material,
                                     const std::filesystem::path& cache, tbb::task_arena& arena,
                                     LoadUse use = LoadUse::kExact, const RebuildProgressFn& rebuilding = {});
  // Where load() keeps the values of tables loaded only for probing (LoadUse::kProbeOnly): in the
  // files values_path(dir, M, side), mapped (ValueArray), instead of in memory, so that the
  // processes of one machine that load the same table share one copy in the page cache, and the
  // kernel may page it out. Each file is written as a tmp file named with `tag` (unique among the
  // processes sharing dir), then renamed into place. The set removes the files it made when their
  // table leaves it (retain_only) and when it is destroyed, and then dir if empty. An empty dir:
  // in memory (the default).
  void keep_probe_values_in(std::filesystem::path dir, std::string tag);
  [[nodiscard]] static std::filesystem::path values_path(const std::filesystem::path& dir, const Material& m,
                                                         chess::Color side);
  // Adds `material` from the files a load() made in keep_probe_values_in's dir, by this process
  // or another. Errors: ValueArray::open_file's, naming the file.
  [[nodiscard]] Status map_probe_values(const Material& material);
  [[nodiscard]] const SolvedTable* find(const Material& normalized) const;
  [[nodiscard]] bool contains(const Material& normalized) const { return find(normalized) != nullptr; }
  // The held table of `normalized`, shared (null when absent): it outlives the set.
  [[nodiscard]] std::shared_ptr<const SolvedTable> shared(const Material& normalized) const;
  // The value of any legal board whose table is in the set (bare kings: draw). Precondition: present.
  [[nodiscard]] DtmValue probe(const Board& b) const;
  // Releases tables not in `keep` (to bound memory during long runs).
  void retain_only(const std::vector<Material>& keep);
  // For a sequence of steps where step j needs the tables needs[j]: what to keep before step k.
  // All of needs[k], then held tables a later step needs, soonest needed first, while those add up
  // to at most `budget` bytes (both sides' values). Which tables stay changes only the time: a
  // table read back from its file has the same values.
  [[nodiscard]] std::vector<Material> to_keep(const std::vector<std::vector<Material>>& needs, std::size_t k,
                                              std::uint64_t budget) const;
  [[nodiscard]] std::size_t bytes() const;
  // How many tables are held, and which.
  [[nodiscard]] std::size_t size() const { return tables_.size(); }
  [[nodiscard]] std::vector<Material> materials() const;

 private:
  struct Entry {
    std::uint32_t key;
    bool flip;
    const SolvedTable* table;
  };
  std::vector<std::shared_ptr<const SolvedTable>> tables_;
  std::vector<Entry> entries_;
  std::filesystem::path values_dir_;
  std::string values_tag_;
  std::vector<std::pair<Material, std::filesystem::path>> made_files_;  // by load(), for removal
};

}  // namespace tbkit::gen
