// tbkit: the command line lives in tbkit_cli (cli/app.cpp), which compiles CLI11's code in its
// unity sources; this file stays small.
#include "cli/app.h"

int main(int argc, char** argv) { return tbkit::cli::run(argc, argv); }
