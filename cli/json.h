// JSON output helpers for --json modes: the explorer library's, shared with its API.
#pragma once

#include "explore/json_text.h"

namespace tbkit::cli {

using explore::json_string;

}  // namespace tbkit::cli
