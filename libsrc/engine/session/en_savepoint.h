/* en_savepoint.h — SQL savepoints and the per-statement mark of a
 * transaction block (en_savepoint.c). Included by session_int.h. */
#ifndef CZ_EN_SAVEPOINT_H
#define CZ_EN_SAVEPOINT_H

struct esession_s;
struct sql_stmt_s;

/* A statement phase (prepare, bind, execute, a cursor or COPY command)
 * begins inside a block that has not failed: remember where the
 * transaction stands, so that its failure undoes only what follows. */
void en_sp_stmt_mark(struct esession_s *s);
/* A statement of a block failed: roll the transaction back to the mark
 * of the phase that failed. True when done (the transaction and its
 * earlier work stay); false when there is no usable mark (the caller rolls
 * the whole transaction back). */
bool en_sp_fail(struct esession_s *s);
/* SAVEPOINT, RELEASE [SAVEPOINT], ROLLBACK TO [SAVEPOINT]. */
int en_sp_control(struct esession_s *s, const struct sql_stmt_s *st, char *tag, size_t tagcap,
                  err_t *e);

#endif /* CZ_EN_SAVEPOINT_H */
