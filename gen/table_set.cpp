#include "gen/table_set.h"

#include <algorithm>

#include "formats/large_allocator.h"

namespace tbkit::gen {

using namespace chess;

namespace {

// Bytes of a table's values, both sides.
std::uint64_t value_bytes(const SolvedTable& t) { return (t.values[0].size() + t.values[1].size()) * sizeof(DtmValue); }

}  // namespace

void TableSet::add(std::shared_ptr<const SolvedTable> table) {
  const Material& m = table->material();
  entries_.push_back({m.key(), false, table.get()});
  if (!m.is_symmetric()) entries_.push_back({m.flipped().key(), true, table.get()});
  tables_.push_back(std::move(table));
}

const SolvedTable* TableSet::find(const Material& normalized) const { return shared(normalized).get(); }

std::shared_ptr<const SolvedTable> TableSet::shared(const Material& normalized) const {
  for (const auto& t : tables_)
    if (t->material() == normalized) return t;
  return nullptr;
}

DtmValue TableSet::probe(const Board& b) const {
  const std::uint32_t key = b.material_key();
  if (key == 0) return DtmValue::draw();
  for (const Entry& e : entries_) {
    if (e.key != key) continue;
    return e.flip ? e.table->value(color_flipped(b)) : e.table->value(b);
  }
  assert(false && "probe: table not loaded");
  return DtmValue::illegal();
}

TableSet::~TableSet() {
  std::error_code ec;
  for (const auto& [m, path] : made_files_) std::filesystem::remove(path, ec);
  if (!made_files_.empty()) std::filesystem::remove(values_dir_, ec);  // only if empty
}

void TableSet::retain_only(const std::vector<Material>& keep) {
  auto dropped = [&](const Material& m) { return std::find(keep.begin(), keep.end(), m) == keep.end(); };
  // Mappings outlive their file's name: a table still held elsewhere stays readable.
  std::error_code ec;
  std::erase_if(made_files_, [&](const auto& made) {
    if (!dropped(made.first)) return false;
    std::filesystem::remove(made.second, ec);
    return true;
  });
  std::erase_if(tables_, [&](const auto& t) { return dropped(t->material()); });
  entries_.clear();
  auto tables = std::move(tables_);
  tables_.clear();
  for (auto& t : tables) add(std::move(t));
}

std::vector<Material> TableSet::to_keep(const std::vector<std::vector<Material>>& needs, std::size_t k,
                                       std::uint64_t budget) const {
  std::vector<Material> keep = needs[k];
  std::vector<std::pair<std::size_t, const SolvedTable*>> later;  // (first later step needing it, table)
  for (const auto& t : tables_) {
    if (std::find(keep.begin(), keep.end(), t->material()) != keep.end()) continue;
    for (std::size_t j = k + 1; j < needs.size(); ++j)
      if (std::find(needs[j].begin(), needs[j].end(), t->material()) != needs[j].end()) {
        later.emplace_back(j, t.get());
        break;
      }
  }
  std::stable_sort(later.begin(), later.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::uint64_t used = 0;
  for (const auto& [j, t] : later) {
    const std::uint64_t bytes = value_bytes(*t);
    if (used + bytes > budget) continue;
    used += bytes;
    keep.push_back(t->material());
  }
  return keep;
}

std::vector<Material> TableSet::materials() const {
  std::vector<Material> out;
  for (const auto& t : tables_) out.push_back(t->material());
  return out;
}

std::size_t TableSet::bytes() const {
  std::size_t n = 0;
  for (const auto& t : tables_) n += value_bytes(*t);
  return n;
}

}  // namespace tbkit::gen
