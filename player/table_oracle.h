// Opens the endgame tables in a list of directories as the player's table oracle: DTM tables
// (MATERIAL.dtm) and Syzygy files (MATERIAL.rtbw, MATERIAL.rtbz), from the same directories.
#pragma once

#include <memory>
#include <string>

#include "chess/result.h"
#include "player/engine.h"

namespace tbkit::player {

// Which kinds of table files an oracle reads.
struct TableKinds {
  bool dtm = true;
  bool syzygy = true;
};

// dirs: directories separated by ':' holding MATERIAL.dtm and/or MATERIAL.rtbw/.rtbz files. The
// oracle answers DTM from the .dtm files, WDL50 from the .rtbw files and root moves' WDL50/DTZ50
// from a material's .rtbw and .rtbz. Errors: kIo (a directory cannot be read), kUnavailable (no
// table of the wanted kinds found), and DTM table open errors (kCorrupt, kVersion). Thread-safe
// once made.
[[nodiscard]] Result<std::shared_ptr<const RootTableOracle>> open_table_oracle(const std::string& dirs,
                                                                               TableKinds kinds = {});

}  // namespace tbkit::player
