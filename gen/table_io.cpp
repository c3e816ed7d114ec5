#include "formats/table_file.h"
#include "gen/table_set.h"

namespace tbkit::gen {

using namespace chess;

Status TableSet::load(const std::filesystem::path& path, const Material& expected) {
  auto file = formats::TableFile::open(path);
  if (!file) return file.error();
  auto table = std::make_shared<SolvedTable>(expected);
  const auto& info = file->info();
  if (info.material != expected.name() || info.index_scheme != table->scheme.id() ||
      info.positions_per_side != table->scheme.size())
    return make_error(ErrorCode::kCorrupt, path.string() + ": header (material " + info.material + ", scheme " +
                                               std::to_string(info.index_scheme) + ", " +
                                               std::to_string(info.positions_per_side) + " positions) does not match " +
                                               expected.name());
  for (Color c : {Color::kWhite, Color::kBlack}) {
    auto values = file->values(c, 0, info.positions_per_side);
    if (!values) return values.error();
    table->values[index_of(c)] = std::move(*values);
  }
  // Files may store anything in unused slots (formats/table_file.h); mark them illegal again.
  Board b;
  for (int s = 0; s < 2; ++s)
    for (std::uint64_t i = 0; i < info.positions_per_side; ++i)
      if (!table->scheme.decode(i, Color(s), b) || !is_legal(b)) table->values[s][i] = DtmValue::illegal();
  add(std::move(table));
  return {};
}

}  // namespace tbkit::gen
