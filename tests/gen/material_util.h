// Materials by name for the gen tests ("KRvKN"); the name must be valid.
#pragma once

#include "gen/material.h"

namespace tbkit::gen::testing {

inline Material mat(const char* name) { return Material::parse(name).value(); }

}  // namespace tbkit::gen::testing
