#include <catch2/catch.hpp>

#include "formats/dtm_value.h"

using tbkit::formats::DtmValue;

TEST_CASE("DtmValue encodes wins as moves to mate", "[formats][dtm]") {
  CHECK(DtmValue::win_in_plies(1).raw() == 0x0001);
  CHECK(DtmValue::win_in_plies(19).raw() == 10);
  CHECK(DtmValue::win_in_plies(19).plies() == 19);
  CHECK(DtmValue::win_in_plies(19).moves() == 10);
  CHECK(DtmValue::win_in_plies(DtmValue::kMaxWinPlies).raw() == 0x7FFF);
  for (int p = 1; p <= DtmValue::kMaxWinPlies; p += 2) {
    const DtmValue v = DtmValue::win_in_plies(p);
    REQUIRE(v.is_win());
    REQUIRE(!v.is_loss());
    REQUIRE(v.plies() == p);
  }
}

TEST_CASE("DtmValue encodes losses, draws and illegal slots", "[formats][dtm]") {
  CHECK(DtmValue::loss_in_plies(0).raw() == 0x8000);
  CHECK(DtmValue::loss_in_plies(0).is_loss());
  CHECK(DtmValue::loss_in_plies(18).raw() == 0x8009);
  CHECK(DtmValue::loss_in_plies(DtmValue::kMaxLossPlies).raw() == 0xFFFE);
  for (int p = 0; p <= DtmValue::kMaxLossPlies; p += 2) {
    const DtmValue v = DtmValue::loss_in_plies(p);
    REQUIRE(v.is_loss());
    REQUIRE(!v.is_illegal());
    REQUIRE(v.plies() == p);
  }
  CHECK(DtmValue::draw().raw() == 0);
  CHECK(DtmValue::draw().is_draw());
  CHECK(DtmValue::draw().plies() == 0);
  CHECK(DtmValue::illegal().raw() == 0xFFFF);
  CHECK(DtmValue::illegal().is_illegal());
  CHECK(!DtmValue::illegal().is_loss());
  CHECK(DtmValue() == DtmValue::illegal());
  int kinds = 0;
  for (std::uint32_t raw = 0; raw < 65536; ++raw) {
    const DtmValue v = DtmValue::from_raw(std::uint16_t(raw));
    kinds = int(v.is_draw()) + int(v.is_win()) + int(v.is_loss()) + int(v.is_illegal());
    REQUIRE(kinds == 1);
  }
}
