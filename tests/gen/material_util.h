// Materials by name for the gen tests ("KRvKN"); a bad name in a test is a bug, so it throws.
#pragma once

#include "gen/material.h"

namespace tbkit::gen::testing {

inline Material mat(const char* name) { return Material::parse(name).value(); }

}  // namespace tbkit::gen::testing
