/* The C interface, compiled as C: probes positions from bitboards and checks the answers
 * (values from Gaviota's endgame-dm-4.epd). Usage: probe_c_api_test TABLES_DIR */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "probe/tbkit_probe.h"

#define SQ(file, rank) ((rank) * 8 + (file))
#define BB(sq) ((uint64_t)1 << (sq))

static int failures = 0;
#define EXPECT(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                      \
    }                                                                  \
  } while (0)

int main(int argc, char** argv) {
  tbkit_tablebase* tb = NULL;
  char error[256] = "";
  int wdl = 99, plies = -1, rc, dtz = 0;
  char paths[4096];
  size_t count = 0;
  tbkit_ranked_move moves[256];
  tbkit_board kqk, mated, ep, big, bad;

  if (argc != 3) {
    fprintf(stderr, "usage: %s TABLES_DIR SYZYGY_DIR\n", argv[0]);
    return 2;
  }
  snprintf(paths, sizeof paths, "%s:%s", argv[1], argv[2]);
  EXPECT(tbkit_open("/no/such/dir", 1 << 20, &tb, error, sizeof error) == TBKIT_ERR_IO);
  EXPECT(tb == NULL && strlen(error) > 0);
  rc = tbkit_open(paths, TBKIT_CACHE_AUTO, &tb, error, sizeof error);
  if (rc != TBKIT_OK) {
    fprintf(stderr, "tbkit_open: %s: %s\n", tbkit_strerror(rc), error);
    return 1;
  }
  EXPECT(tbkit_max_men(tb) == 4);

  /* 8/8/8/5k2/8/8/1Q6/K7 w: White mates in 10 (19 plies). */
  memset(&kqk, 0, sizeof kqk);
  kqk.white = BB(SQ(0, 0)) | BB(SQ(1, 1));
  kqk.black = BB(SQ(5, 4));
  kqk.kings = BB(SQ(0, 0)) | BB(SQ(5, 4));
  kqk.queens = BB(SQ(1, 1));
  kqk.side_to_move = 0;
  kqk.ep_square = -1;
  EXPECT(tbkit_probe_dtm(tb, &kqk, &wdl, &plies) == TBKIT_OK);
  EXPECT(wdl == TBKIT_WIN && plies == 19);
  EXPECT(tbkit_probe_wdl(tb, &kqk, &wdl) == TBKIT_OK && wdl == TBKIT_WIN);
  /* The official Syzygy fixtures: no capture or pawn move can come, so DTZ50 is the mate's 19 plies. */
  EXPECT(tbkit_max_men_syzygy(tb) == 4);
  EXPECT(tbkit_probe_wdl50(tb, &kqk, &wdl) == TBKIT_OK && wdl == TBKIT_WIN50);
  EXPECT(tbkit_probe_dtz50(tb, &kqk, &wdl, &dtz) == TBKIT_OK && wdl == TBKIT_WIN50 && dtz == 19);
  kqk.side_to_move = 1; /* Black to move: a draw only if the queen falls, here a loss in 18 plies */
  EXPECT(tbkit_probe_dtz50(tb, &kqk, &wdl, &dtz) == TBKIT_OK && wdl == TBKIT_LOSS50 && dtz < 0);
  EXPECT(tbkit_probe_dtz50(tb, &kqk, NULL, &dtz) == TBKIT_ERR_INVALID);
  kqk.side_to_move = 0;
  EXPECT(tbkit_rank_moves(tb, &kqk, NULL, 0, &count) == TBKIT_OK && count == 24);
  EXPECT(tbkit_rank_moves(tb, &kqk, moves, 256, &count) == TBKIT_OK && count == 24);
  EXPECT(moves[0].wdl == TBKIT_WIN && moves[0].plies == 19);
  EXPECT(moves[23].wdl == TBKIT_DRAW && moves[23].plies == 0); /* Qe5+ or Qf6+ lose the queen */
  EXPECT(moves[23].from == SQ(1, 1));

  /* k7/1Q6/1K6/8/8/8/8/8 b: Black is checkmated. */
  memset(&mated, 0, sizeof mated);
  mated.white = BB(SQ(1, 6)) | BB(SQ(1, 5));
  mated.black = BB(SQ(0, 7));
  mated.kings = BB(SQ(1, 5)) | BB(SQ(0, 7));
  mated.queens = BB(SQ(1, 6));
  mated.side_to_move = 1;
  mated.ep_square = -1;
  EXPECT(tbkit_probe_dtm(tb, &mated, &wdl, &plies) == TBKIT_OK && wdl == TBKIT_LOSS && plies == 0);
  EXPECT(tbkit_rank_moves(tb, &mated, moves, 256, &count) == TBKIT_OK && count == 0);

  /* 8/8/8/8/pP6/8/K7/7k b - b3: draw with the en-passant capture, mated in 15 without it. */
  memset(&ep, 0, sizeof ep);
  ep.white = BB(SQ(0, 1)) | BB(SQ(1, 3));
  ep.black = BB(SQ(7, 0)) | BB(SQ(0, 3));
  ep.kings = BB(SQ(0, 1)) | BB(SQ(7, 0));
  ep.pawns = BB(SQ(1, 3)) | BB(SQ(0, 3));
  ep.side_to_move = 1;
  ep.ep_square = SQ(1, 2);
  EXPECT(tbkit_probe_dtm(tb, &ep, &wdl, &plies) == TBKIT_OK && wdl == TBKIT_DRAW && plies == 0);
  EXPECT(tbkit_rank_moves(tb, &ep, moves, 256, &count) == TBKIT_OK && count == 5);
  EXPECT(moves[0].from == SQ(0, 3) && moves[0].to == SQ(1, 2) && moves[0].wdl == TBKIT_DRAW);
  EXPECT(tbkit_probe_wdl50(tb, &ep, &wdl) == TBKIT_OK && wdl == TBKIT_DRAW50);
  ep.ep_square = -1;
  EXPECT(tbkit_probe_dtm(tb, &ep, &wdl, &plies) == TBKIT_OK && wdl == TBKIT_LOSS && plies == 30);
  EXPECT(tbkit_probe_wdl50(tb, &ep, &wdl) == TBKIT_OK && wdl == TBKIT_LOSS50);
  ep.ep_square = SQ(1, 5); /* on the wrong rank for Black to move */
  EXPECT(tbkit_probe_wdl50(tb, &ep, &wdl) == TBKIT_ERR_INVALID);
  ep.ep_square = -1;

  /* Five men: no table. */
  big = kqk;
  big.white |= BB(SQ(2, 0));
  big.queens |= BB(SQ(2, 0));
  big.black |= BB(SQ(7, 7));
  big.rooks |= BB(SQ(7, 7));
  EXPECT(tbkit_probe_wdl(tb, &big, &wdl) == TBKIT_ERR_UNAVAILABLE);

  /* Invalid boards and arguments. */
  bad = kqk;
  bad.black |= BB(SQ(1, 1)); /* a square of both colours */
  EXPECT(tbkit_probe_wdl(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk;
  bad.kings = BB(SQ(0, 0)); /* black man without a type */
  EXPECT(tbkit_probe_wdl(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk;
  bad.ep_square = 64;
  EXPECT(tbkit_probe_wdl(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  /* tbkit_probe_wdl50 checks boards itself (it builds no position): the same refusals. */
  bad = kqk;
  bad.black |= BB(SQ(1, 1));
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk;
  bad.kings = BB(SQ(0, 0));
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk;
  bad.ep_square = 64;
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk;
  bad.side_to_move = 2;
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk;
  bad.queens = 0; /* the queen becomes a pawn on b2, which is fine, then a pawn on b1, which is not */
  bad.pawns = BB(SQ(1, 1));
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_OK);
  bad.white = BB(SQ(0, 0)) | BB(SQ(1, 0));
  bad.pawns = BB(SQ(1, 0));
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad = kqk; /* the queen gives check with White to move: Black, not to move, is in check */
  bad.white = BB(SQ(0, 0)) | BB(SQ(5, 1));
  bad.queens = BB(SQ(5, 1));
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_ERR_INVALID);
  bad.side_to_move = 1;
  EXPECT(tbkit_probe_wdl50(tb, &bad, &wdl) == TBKIT_OK);
  EXPECT(tbkit_probe_wdl(tb, NULL, &wdl) == TBKIT_ERR_INVALID);
  EXPECT(tbkit_rank_moves(tb, &kqk, NULL, 5, &count) == TBKIT_ERR_INVALID);
  EXPECT(strcmp(tbkit_strerror(TBKIT_ERR_UNAVAILABLE), "no table for this material") == 0);

  tbkit_close(tb);
  tbkit_close(NULL);
  if (failures == 0) printf("C API: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
