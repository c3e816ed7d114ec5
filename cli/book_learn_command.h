// tbkit book learn, and the learned statistics `tbkit book probe` shows beside a book's own.
#pragma once

#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "chess/position.h"
#include "chess/result.h"

namespace tbkit::cli {

// The learned statistics of one position, ready to print.
struct LearnedSection {
  bool present = false;  // BOOK.learn exists
  bool any = false;      // it holds moves for the position
  std::string json;      // `, "learned": {...}` to put inside the probe's JSON object
  std::string text;      // a table for the text output
};

// Reads BOOK.learn beside `book` (absent: present = false). Errors: kIo, kCorrupt, kVersion.
[[nodiscard]] Result<LearnedSection> describe_learned(const std::filesystem::path& book, const chess::Position& pos);

// Adds `learn` to the `book` command.
void add_book_learn_command(CLI::App& book, int& exit_code);

}  // namespace tbkit::cli
