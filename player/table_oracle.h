// Opens the endgame tables in a list of directories as the player's table oracle.
#pragma once

#include <memory>
#include <string>

#include "chess/result.h"
#include "player/engine.h"

namespace tbkit::player {

// dirs: directories separated by ':' holding MATERIAL.dtm files. Errors: kIo (a directory cannot be
// read), kUnavailable (no table found), and table open errors (kCorrupt, kVersion).
[[nodiscard]] Result<std::shared_ptr<const RootTableOracle>> open_table_oracle(const std::string& dirs);

}  // namespace tbkit::player
