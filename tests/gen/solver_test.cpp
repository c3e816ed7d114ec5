#include <catch2/catch.hpp>

#include "gen/solver.h"

using namespace tbkit::gen;
using namespace tbkit::chess;

TEST_CASE("placeholder", "[gen][solver]") { CHECK(true); }
