#include <catch2/catch.hpp>

#include "model/material.h"

using namespace tbkit::model;

TEST_CASE("Material names parse and normalize", "[gen][material]") {
  auto m = Material::parse("KQvKR");
  REQUIRE(m.ok());
  CHECK(m->name() == "KQvKR");
  CHECK(m->men() == 4);
  CHECK_FALSE(m->needs_flip());
  CHECK(Material::parse("KQKR")->name() == "KQvKR");
  CHECK(Material::parse("krvkq")->normalized().name() == "KQvKR");
  CHECK(Material::parse("KvKBN")->normalized().name() == "KBNvK");
  CHECK(Material::parse("KRPvKR")->name() == "KRPvKR");
  CHECK(Material::parse("KPvKP")->is_symmetric());
  CHECK_FALSE(Material::parse("QKvK").ok());
  CHECK_FALSE(Material::parse("KXvK").ok());
  CHECK_FALSE(Material::parse("KQ").ok());
  CHECK_FALSE(Material::parse("KQvKvK").ok());
}

TEST_CASE("Conversions and dependency order", "[gen][material]") {
  auto names = [](const std::vector<Material>& v) {
    std::vector<std::string> out;
    for (const auto& m : v) out.push_back(m.name());
    return out;
  };
  CHECK(names(Material::parse("KQvKR")->conversions()) == std::vector<std::string>{"KQvK", "KRvK"});
  CHECK(names(Material::parse("KPvK")->conversions()) == std::vector<std::string>{"KBvK", "KNvK", "KQvK", "KRvK"});
  CHECK(names(dependency_closure({*Material::parse("KPvKP")})) ==
        std::vector<std::string>{"KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KBvKB", "KBvKN", "KNvKN", "KQvKB", "KQvKN",
                                 "KQvKQ", "KQvKR", "KRvKB", "KRvKN", "KRvKR", "KBvKP", "KNvKP", "KQvKP", "KRvKP",
                                 "KPvKP"});
  const auto all3 = all_materials(3);
  CHECK(names(all3) == std::vector<std::string>{"KBvK", "KNvK", "KQvK", "KRvK", "KPvK"});
  const auto all4 = all_materials(4);
  CHECK(all4.size() == 5 + 15 + 15);
}
