// Materials by name for the table model tests ("KRvKN"); the name must be valid.
#pragma once

#include "model/material.h"

namespace tbkit::model::testing {

inline Material mat(const char* name) { return Material::parse(name).value(); }

}  // namespace tbkit::model::testing
