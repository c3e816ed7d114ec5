// Fathom's WDL probe speed and answers on a file of FENs: the peer of tbkit's
// SyzygyTablebase::probe_wdl in scripts/bench/probe, which compiles this driver with Fathom's
// src/tbprobe.c (Fathom is a separate checkout, never part of tbkit: github jdart1/Fathom, MIT).
// Usage: fathom_probe SYZYGY_DIR FEN_FILE RUNS
//   FEN_FILE  one FEN a line (4 to 6 fields; blank lines skipped), e.g. tbkit_probe_bench --write-fens
// One untimed pass opens the files and counts the answers by class; then RUNS timed passes of
// tb_probe_wdl over all positions, one thread. Prints one JSON object: "positions", the answer
// counts ("wdl_wins", "wdl_cursed_wins", "wdl_draws", "wdl_blessed_losses", "wdl_losses"),
// "wdl_failures" (TB_RESULT_FAILED: castling rights, a half-move clock other than 0, a missing
// table), "wdl_hash" (folded as tbkit_probe_bench folds its probe_wdl answers, failures left out: equal
// hashes mean the same answer for every position in order), and the medians over runs of probes per
// wall second and per thread-CPU second ("wdl_warm_1t_probes_per_s", "wdl_warm_1t_probes_per_cpu_s",
// the names tbkit_probe_bench uses). Failed probes count in the rates, as tbkit_probe_bench counts them.
// Exit status: 2 usage, 3 no tables found (tb_init) or a FEN that does not parse (its line named).
#define _POSIX_C_SOURCE 200809L  // getline, clock_gettime

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tbprobe.h"

// A position as tb_probe_wdl takes it: bitboards with a1 = bit 0, b1 = bit 1, ..., h8 = bit 63.
typedef struct {
  uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
  unsigned rule50;
  unsigned castling;  // TB_CASTLING_* bits
  unsigned ep;        // the square a pawn captures onto (FEN's field), 0 for none
  bool white_to_move;
} FenPosition;

// Splits `line` (modified) at blanks into at most `max` fields; returns their number.
static int split_fields(char* line, char** fields, int max) {
  int n = 0;
  for (char* tok = strtok(line, " \t\r\n"); tok != NULL; tok = strtok(NULL, " \t\r\n")) {
    if (n == max) return max + 1;
    fields[n++] = tok;
  }
  return n;
}

// Reads a whole non-negative decimal number; false on anything else.
static bool parse_count(const char* s, unsigned* out) {
  char* end = NULL;
  errno = 0;
  const unsigned long v = strtoul(s, &end, 10);
  if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v > 100000) return false;
  *out = (unsigned)v;
  return true;
}

// Parses one FEN into `p`. Returns NULL, or what is wrong with it (a field named).
static const char* parse_fen(char* line, FenPosition* p) {
  char* f[7];
  const int n = split_fields(line, f, 6);
  if (n < 4 || n > 6) return "not 4 to 6 fields";
  memset(p, 0, sizeof *p);
  int rank = 7, file = 0;
  for (const char* c = f[0]; *c != '\0'; ++c) {
    if (*c == '/') {
      if (file != 8 || rank == 0) return "board: a rank without 8 files, or more than 8 ranks";
      --rank;
      file = 0;
      continue;
    }
    if (*c >= '1' && *c <= '8') {
      file += *c - '0';
      if (file > 8) return "board: a rank longer than 8 files";
      continue;
    }
    if (file > 7) return "board: a rank longer than 8 files";
    const uint64_t bit = (uint64_t)1 << (8 * rank + file);
    switch (*c | 0x20) {
      case 'k': p->kings |= bit; break;
      case 'q': p->queens |= bit; break;
      case 'r': p->rooks |= bit; break;
      case 'b': p->bishops |= bit; break;
      case 'n': p->knights |= bit; break;
      case 'p': p->pawns |= bit; break;
      default: return "board: not a piece letter";
    }
    if (*c >= 'a') p->black |= bit;
    else p->white |= bit;
    ++file;
  }
  if (rank != 0 || file != 8) return "board: not 8 ranks of 8 files";
  if (strcmp(f[1], "w") != 0 && strcmp(f[1], "b") != 0) return "side to move: not w or b";
  p->white_to_move = f[1][0] == 'w';
  if (strcmp(f[2], "-") != 0)
    for (const char* c = f[2]; *c != '\0'; ++c) switch (*c) {
        case 'K': p->castling |= TB_CASTLING_K; break;
        case 'Q': p->castling |= TB_CASTLING_Q; break;
        case 'k': p->castling |= TB_CASTLING_k; break;
        case 'q': p->castling |= TB_CASTLING_q; break;
        default: return "castling: not - or KQkq";
      }
  if (strcmp(f[3], "-") != 0) {
    // Fathom takes the FEN's square, the one behind the pawn that moved two (rank 3 or 6).
    if (strlen(f[3]) != 2 || f[3][0] < 'a' || f[3][0] > 'h' || (f[3][1] != '3' && f[3][1] != '6'))
      return "en passant: not - or a square on rank 3 or 6";
    p->ep = (unsigned)(8 * (f[3][1] - '1') + (f[3][0] - 'a'));
  }
  if (n >= 5 && !parse_count(f[4], &p->rule50)) return "half-move clock: not a number";
  return NULL;
}

static double seconds_of(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static unsigned probe(const FenPosition* p) {
  return tb_probe_wdl(p->white, p->black, p->kings, p->queens, p->rooks, p->bishops, p->knights, p->pawns,
                      p->rule50, p->castling, p->ep, p->white_to_move);
}

// Reads every FEN of `path` into a growing array; exits 3 naming the first bad line.
static FenPosition* read_fens(const char* path, size_t* count) {
  FILE* in = fopen(path, "r");
  if (in == NULL) {
    fprintf(stderr, "fathom_probe: %s: %s\n", path, strerror(errno));
    exit(3);
  }
  FenPosition* out = NULL;
  size_t n = 0, capacity = 0, line_number = 0, line_size = 0;
  char* line = NULL;
  while (getline(&line, &line_size, in) != -1) {
    ++line_number;
    if (strspn(line, " \t\r\n") == strlen(line)) continue;
    if (n == capacity) {
      capacity = capacity ? 2 * capacity : 4096;
      out = realloc(out, capacity * sizeof *out);
      if (out == NULL) {
        fprintf(stderr, "fathom_probe: out of memory\n");
        exit(3);
      }
    }
    const char* error = parse_fen(line, &out[n]);
    if (error != NULL) {
      fprintf(stderr, "fathom_probe: %s:%zu: %s\n", path, line_number, error);
      exit(3);
    }
    ++n;
  }
  free(line);
  fclose(in);
  *count = n;
  return out;
}

int main(int argc, char** argv) {
  int runs = argc == 4 ? atoi(argv[3]) : 0;
  if (runs < 1) {
    fprintf(stderr, "usage: fathom_probe SYZYGY_DIR FEN_FILE RUNS\n");
    return 2;
  }
  size_t n = 0;
  FenPosition* pos = read_fens(argv[2], &n);
  if (n == 0) {
    fprintf(stderr, "fathom_probe: %s: no positions\n", argv[2]);
    return 3;
  }
  if (!tb_init(argv[1]) || TB_LARGEST == 0) {
    fprintf(stderr, "fathom_probe: no Syzygy tables in %s\n", argv[1]);
    return 3;
  }
  // The untimed pass: Fathom maps each file on the first probe that needs it.
  uint64_t classes[5] = {0}, failures = 0, hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) {
    const unsigned r = probe(&pos[i]);
    if (r == TB_RESULT_FAILED) {
      ++failures;
      continue;
    }
    ++classes[r];
    // tbkit's Wdl50 is Fathom's value minus 2 (loss -2 ... win 2).
    hash = (hash ^ (uint64_t)((int)r - 2 + 1000)) * 0x100000001b3ULL;
  }
  double* wall = malloc((size_t)runs * sizeof *wall);
  double* cpu = malloc((size_t)runs * sizeof *cpu);
  if (wall == NULL || cpu == NULL) return 3;
  // The answers' sum, handed to an empty asm, keeps the compiler from dropping the probes.
  unsigned sink = 0;
  for (int r = 0; r < runs; ++r) {
    const double w0 = seconds_of(CLOCK_MONOTONIC), c0 = seconds_of(CLOCK_THREAD_CPUTIME_ID);
    for (size_t i = 0; i < n; ++i) sink += probe(&pos[i]);
    const double c1 = seconds_of(CLOCK_THREAD_CPUTIME_ID), w1 = seconds_of(CLOCK_MONOTONIC);
    wall[r] = (double)n / (w1 - w0);
    cpu[r] = (double)n / (c1 - c0);
  }
  printf("{\"positions\": %zu, \"tb_largest\": %u, \"wdl_hash\": \"%016llx\", \"wdl_wins\": %llu, "
         "\"wdl_cursed_wins\": %llu, \"wdl_draws\": %llu, \"wdl_blessed_losses\": %llu, \"wdl_losses\": %llu, "
         "\"wdl_failures\": %llu, \"wdl_warm_1t_probes_per_s\": %.0f, \"wdl_warm_1t_probes_per_cpu_s\": %.0f}\n",
         n, TB_LARGEST, (unsigned long long)hash, (unsigned long long)classes[TB_WIN],
         (unsigned long long)classes[TB_CURSED_WIN], (unsigned long long)classes[TB_DRAW],
         (unsigned long long)classes[TB_BLESSED_LOSS], (unsigned long long)classes[TB_LOSS],
         (unsigned long long)failures, median(wall, runs), median(cpu, runs));
  __asm__ volatile("" : : "r"(sink));
  free(wall);
  free(cpu);
  free(pos);
  tb_free();
  return 0;
}
