// tbkit book learn, and the learned statistics `tbkit book probe` shows beside a book's own.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "explore/book_report.h"

namespace tbkit::cli {

// The learned statistics of one position as the text `tbkit book probe` prints under the book's
// moves (its JSON: explore::learned_json).
[[nodiscard]] std::string learned_text(const explore::LearnedMoves& learned);

// Adds `learn` to the `book` command.
void add_book_learn_command(CLI::App& book, int& exit_code);

}  // namespace tbkit::cli
