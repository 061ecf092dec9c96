/* en_owner — ALTER TABLE | SEQUENCE | VIEW | MATERIALIZED VIEW | SCHEMA
 * name OWNER TO role, which pg_dump writes after creating every object.
 *
 * Design notes: PostgreSQL's rules (ATExecChangeOwner,
 * AlterSchemaOwner_internal), in its order: naming the owner the object
 * already has succeeds for anyone; otherwise a caller who is not a
 * superuser must own the object (directly or through a role it is a
 * member of: 42501 "must be owner of …") and be a member of the new role
 * (42501 "must be member of role …"), and the new owner must be allowed
 * to create in the object's schema (CREATE on it, 42501). A sequence
 * owned by a table column follows its table and cannot be given away by
 * itself (0A000, PostgreSQL's "linked to table"); a table's owned
 * sequences change owner with it. ALTER TABLE names sequences and views
 * too, as in PostgreSQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner/runner_int.h"

/* The object: its catalog kind ('n','r','S','v','m'), OID, owner, schema
 * and the word for messages. */
typedef struct owned_s {
  char ow_kind;
  cat_oid_t ow_oid, ow_owner, ow_schema;
  const char *ow_what;
  const cat_sequence_t *ow_seq;
} owned_t;

static int find_object(esession_t *s, const cat_snapshot_t *snap, const char *kind,
                       const sql_name_t *nm, owned_t *o)
{
  memset(o, 0, sizeof *o);
  if (strcmp(kind, "schema") == 0) {
    const cat_schema_t *sc = cat_find_schema(snap, nm->nm_name);
    if (!sc)
      return 0;
    *o = (owned_t){'n', sc->cs_oid, sc->cs_owner, 0, "schema", NULL};
    return 1;
  }
  const cat_view_t *v = en_find_view(s, nm->nm_schema, nm->nm_name);
  if (v) {
    bool m = v->cw_kind == 'm';
    *o = (owned_t){m ? 'm' : 'v', v->cw_oid, v->cw_owner, v->cw_schema,
                   m ? "materialized view" : "view", NULL};
    return 1;
  }
  const cat_table_t *t = cat_find_table(snap, en_name_schema(s, nm), nm->nm_name);
  if (t) {
    *o = (owned_t){'r', t->ct_oid, t->ct_owner, t->ct_schema, "table", NULL};
    return 1;
  }
  const cat_sequence_t *sq = cat_find_sequence(snap, en_name_schema(s, nm), nm->nm_name);
  if (sq) {
    *o = (owned_t){'S', sq->sq_oid, sq->sq_owner, sq->sq_schema, "sequence", sq};
    return 1;
  }
  return 0;
}

/* PostgreSQL's checks for a caller who is not a superuser. */
static int check_change(esession_t *s, const cat_snapshot_t *snap, const owned_t *o,
                        const char *name, const cat_role_t *to, err_t *e)
{
  cat_oid_t me = es_role_oid(s);
  if (esession_is_superuser(s))
    return CZ_OK;
  if (!cat_role_is_member(snap, me, o->ow_owner))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of %s %s", o->ow_what,
                   name);
  if (!cat_role_is_member(snap, me, to->cr_oid))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be member of role \"%s\"",
                   to->cr_name);
  return CZ_OK;
}

int en_alter_owner(esession_t *s, const sql_stmt_t *ast, char *tag, size_t tagcap, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  const char *kind = ast->st_owner_kind;
  const sql_name_t *nm = sql_list_at(ast->st_drop->dr_names, 0);
  snprintf(tag, tagcap, "ALTER %s", strcmp(kind, "table") == 0      ? "TABLE"
                                    : strcmp(kind, "sequence") == 0 ? "SEQUENCE"
                                    : strcmp(kind, "schema") == 0   ? "SCHEMA"
                                    : strcmp(kind, "view") == 0     ? "VIEW"
                                                                    : "MATERIALIZED VIEW");
  const char *rname = ast->st_owner_role;
  const cat_role_t *to = NULL;
  if (strcmp(rname, "current_user") == 0 || strcmp(rname, "session_user") == 0)
    to = cat_role_by_oid(snap, es_role_oid(s));
  else
    to = cat_find_role(snap, rname);
  if (!to)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role \"%s\" does not exist", rname);
  owned_t o;
  if (!find_object(s, snap, kind, nm, &o)) {
    if (strcmp(kind, "schema") == 0)
      return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", nm->nm_name);
    if (ast->st_drop->dr_if_exists) {
      es_notice(s, "NOTICE", "00000", "relation \"%s\" does not exist, skipping", nm->nm_name);
      return CZ_OK;
    }
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", nm->nm_name);
  }
  if (o.ow_owner == to->cr_oid)
    return CZ_OK;  /* PostgreSQL checks nothing when the owner stays */
  if (o.ow_seq && o.ow_seq->sq_owned_table) {
    const cat_table_t *t = cat_table_by_oid(snap, o.ow_seq->sq_owned_table);
    err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "cannot change owner of sequence \"%s\"",
            nm->nm_name);
    err_detail(e, "Sequence \"%s\" is linked to table \"%s\".", nm->nm_name,
               t ? t->ct_name : "?");
    return CZ_ERR;
  }
  if (check_change(s, snap, &o, nm->nm_name, to, e) != CZ_OK)
    return CZ_ERR;
  /* the table's own sequences (serial, identity, OWNED BY) follow it;
   * their OIDs are taken now: the snapshot changes with the first write */
  cat_oid_t oid = o.ow_oid, newowner = to->cr_oid;
  int nseq = 0;
  cat_oid_t *seqs = malloc(sizeof(cat_oid_t) * (size_t)(snap->cs_nsequences + 1));
  if (!seqs)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; o.ow_kind == 'r' && i < snap->cs_nsequences; i++)
    if (snap->cs_sequences[i]->sq_owned_table == oid)
      seqs[nseq++] = snap->cs_sequences[i]->sq_oid;
  cat_t *c = es_engine(s)->en_cat;
  int rc = cat_set_owner(c, es_txn(s), o.ow_kind, oid, newowner, e);
  for (int i = 0; i < nseq && rc == CZ_OK; i++)
    rc = cat_set_owner(c, es_txn(s), 'S', seqs[i], newowner, e);
  free(seqs);
  es_refresh_snapshot(s);
  return rc;
}
