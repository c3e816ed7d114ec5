#include "cli/common.h"
namespace tbkit::cli {
void add_play_command(CLI::App&, int&) {}
}
