// The whole command line, for main(): parses argv, runs the subcommand, returns the exit code.
#pragma once

namespace tbkit::cli {

int run(int argc, char** argv);

}  // namespace tbkit::cli
