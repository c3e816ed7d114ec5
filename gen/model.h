// The generator is written in terms of the table model (model/, docs/design.md "Layers"): its
// names (Material, Board, IndexScheme, back_up, ...) are used unqualified in gen/.
#pragma once

namespace tbkit::model {}

namespace tbkit::gen {
using namespace tbkit::model;
}  // namespace tbkit::gen
