/* tbkit_probe.h: the stable C interface to tbkit's DTM tables, for engines written in C or C++.
 *
 * Squares are numbered 0 = a1, 1 = b1, ..., 63 = h8; bit n of a bitboard is square n.
 * Values are for the side to move: wdl is TBKIT_WIN, TBKIT_DRAW or TBKIT_LOSS; plies is the
 * distance to mate in plies (odd for wins, even for losses, 0 for draws and for being mated now).
 *
 * Thread safety: tbkit_open and tbkit_close must not race with other calls on the same handle;
 * every other function may be called from any number of threads at once on one handle.
 * The header compiles as C99 and as C++. Link with the tbkit_probe library (C++ runtime needed). */
#ifndef TBKIT_PROBE_H
#define TBKIT_PROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of every function that can fail. */
enum {
  TBKIT_OK = 0,
  TBKIT_ERR_UNAVAILABLE = 1, /* no table for this material */
  TBKIT_ERR_INVALID = 2,     /* bad arguments or an impossible position */
  TBKIT_ERR_IO = 3,          /* a table file or directory cannot be read */
  TBKIT_ERR_CORRUPT = 4,     /* a table file fails validation (also: unsupported version) */
  TBKIT_ERR_NOMEM = 5        /* out of memory */
};

enum { TBKIT_LOSS = -1, TBKIT_DRAW = 0, TBKIT_WIN = 1 };

/* A position without castling rights, as bitboards. white/black: every man of that colour; the
 * six piece-type boards: men of both colours. side_to_move: 0 White, 1 Black. ep_square: the
 * square a pawn of the side to move could capture on en passant (e.g. 43 = d6), or -1. */
typedef struct tbkit_board {
  uint64_t white, black;
  uint64_t kings, queens, rooks, bishops, knights, pawns;
  int side_to_move;
  int ep_square;
} tbkit_board;

/* One legal move and its value for the side playing it, counted from the root position. */
typedef struct tbkit_ranked_move {
  int from, to;  /* squares 0..63 */
  int promotion; /* 0 none, else 'q', 'r', 'b' or 'n' */
  int wdl;       /* TBKIT_WIN / TBKIT_DRAW / TBKIT_LOSS */
  int plies;     /* plies to mate from the root, this move included; 0 for draws */
} tbkit_ranked_move;

typedef struct tbkit_tablebase tbkit_tablebase;

/* tbkit_open's cache_bytes for a cache sized from the tables found. */
#define TBKIT_CACHE_AUTO ((size_t)-1)

/* Opens the tables found in the directories (MATERIAL.dtm files, and Syzygy MATERIAL.rtbw/.rtbz). paths: a list of directories
 * separated by ':' (or ';'), e.g. "tables:/data/tb5". cache_bytes: size of the shared block cache
 * (0: no cache; TBKIT_CACHE_AUTO: the decoded size of the tables found, at most 1 GiB and an
 * eighth of physical memory). On success stores a handle in *out and returns TBKIT_OK; finding no table is not
 * an error (tbkit_max_men returns 0). On failure *out is NULL and, when error is not NULL, a
 * message is written there (truncated to error_size bytes, NUL-terminated). Errors:
 * TBKIT_ERR_INVALID (NULL arguments), TBKIT_ERR_IO (a directory cannot be read), TBKIT_ERR_NOMEM. */
int tbkit_open(const char* paths, size_t cache_bytes, tbkit_tablebase** out, char* error, size_t error_size);

/* Releases the handle and everything it holds. NULL is allowed. */
void tbkit_close(tbkit_tablebase* tb);

/* Most men (kings included) of any table found; 0 if none, or if tb is NULL. */
int tbkit_max_men(const tbkit_tablebase* tb);

/* Win/draw/loss of the position for the side to move, the en-passant right included. Stores the
 * value in *wdl. Errors: TBKIT_ERR_INVALID (NULL arguments, overlapping or impossible boards,
 * side not to move in check, bad ep_square), TBKIT_ERR_UNAVAILABLE (no table), TBKIT_ERR_IO /
 * TBKIT_ERR_CORRUPT (the table file is unreadable or damaged). */
int tbkit_probe_wdl(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl);

/* As tbkit_probe_wdl, and the distance to mate in plies in *plies. */
int tbkit_probe_dtm(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl, int* plies);

/* WDL50 values (Syzygy's, under the 50-move rule), for the side to move. */
enum { TBKIT_LOSS50 = -2, TBKIT_BLESSED_LOSS50 = -1, TBKIT_DRAW50 = 0, TBKIT_CURSED_WIN50 = 1, TBKIT_WIN50 = 2 };

/* Most men (kings included) of any Syzygy WDL file (MATERIAL.rtbw) found; 0 if none or tb is NULL. */
int tbkit_max_men_syzygy(const tbkit_tablebase* tb);

/* The 50-move rule's result for the side to move, from the Syzygy WDL files (MATERIAL.rtbw, as
 * `tbkit gen --syzygy` writes them, or the official ones) in the directories given to tbkit_open:
 * one of TBKIT_LOSS50 .. TBKIT_WIN50 in *wdl50. The en-passant right is included (captures are
 * searched). Errors as tbkit_probe_wdl; TBKIT_ERR_UNAVAILABLE when no WDL file covers the material
 * or one a capture reaches. */
int tbkit_probe_wdl50(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl50);

/* As tbkit_probe_wdl50, and Syzygy's DTZ50 in *dtz50: plies to the next capture, pawn move or mate
 * under best 50-move play, positive when winning, negative when losing, 0 for draws; 100 more in
 * magnitude for cursed wins and blessed losses. Needs the material's DTZ file (MATERIAL.rtbz);
 * TBKIT_ERR_UNAVAILABLE without it. Values stored in moves may read one ply shorter than the truth
 * (Syzygy's rounding; never across the 100-ply line). */
int tbkit_probe_dtz50(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl50, int* dtz50);

/* Every legal move of the root position with its value, best first for the side to move (fastest
 * win, then draws, then the longest loss). Writes min(count, capacity) moves to moves (which may
 * be NULL when capacity is 0) and the number of legal moves to *count: call again with a larger
 * array when *count > capacity (256 always suffices). Errors as tbkit_probe_wdl, for the root or
 * for any successor. */
int tbkit_rank_moves(const tbkit_tablebase* tb, const tbkit_board* board, tbkit_ranked_move* moves, size_t capacity,
                     size_t* count);

/* A static description of a return code ("no table for this material"). */
const char* tbkit_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* TBKIT_PROBE_H */
