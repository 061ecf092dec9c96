/* test_sql_gaps_bind — the grammar gaps end to end through engine.h:
 * `^`, the ~~ operators, left() / right(), LIKE … ESCAPE and SIMILAR TO
 * (patterns translated while binding), date and timestamp ± INTERVAL
 * (folded while binding), CREATE INDEX with DESC / NULLS keys (stored in
 * ascending order: every query's result must be the one without the
 * index), and the SQLSTATEs of what is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "en_run.h"

static engine_t *eng;
static esession_t *ses;

static int setup(void **state)
{
  (void)state;
  en_fixture_open("gaps", &eng, &ses);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

static void test_power_and_functions(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT 2 ^ 3, 2 ^ 3 ^ 2, -2 ^ 2, 2 * 3 ^ 2", "8|64|4|18");
  en_expect_rows(ses, "SELECT 2.0 ^ 2", "4.0000000000000000");
  en_expect_rows(ses, "SELECT left('hello', 2), right('hello', 3), left('hello', -1)",
                 "he|llo|hell");
  en_expect_rows(ses, "SELECT 'abc' ~~ 'a%', 'abc' !~~ 'a%', 'ABC' ~~* 'a%', 'ABC' !~~* 'a%'",
              "t|f|t|f");
}

static void test_like_escape(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT 'a_b' LIKE 'a!_b' ESCAPE '!', 'axb' LIKE 'a!_b' ESCAPE '!'", "t|f");
  /* with another escape a backslash is an ordinary character */
  en_expect_rows(ses, "SELECT 'a\\b' LIKE 'a\\b' ESCAPE '!', 'a%' LIKE 'a%%' ESCAPE '%'", "t|t");
  /* an empty escape: nothing is escaped */
  en_expect_rows(ses, "SELECT 'a\\%' LIKE 'a\\%' ESCAPE '', 'ab' LIKE 'a\\b' ESCAPE ''", "t|f");
  en_expect_rows(ses, "SELECT 'ABC' NOT ILIKE 'a#%' ESCAPE '#', 'A%' ILIKE 'a#%' ESCAPE '#'",
                 "t|t");
  en_expect_rows(ses, "SELECT 'x' LIKE NULL ESCAPE '!', 'x' LIKE 'x' ESCAPE NULL", "NULL|NULL");
  en_exec(ses, "CREATE TABLE lk(v text)");
  en_exec(ses, "INSERT INTO lk VALUES ('50%'), ('50'), ('5_0'), (NULL)");
  en_expect_rows(ses, "SELECT v FROM lk WHERE v LIKE '%!%' ESCAPE '!' ORDER BY v", "50%");
  en_expect_rows(ses, "SELECT v FROM lk WHERE v NOT LIKE '5!_%' ESCAPE '!' ORDER BY v", "50\n50%");
  /* the default escape needs no constant pattern */
  en_expect_rows(ses, "SELECT count(*) FROM lk WHERE v LIKE v ESCAPE '\\'", "3");
  en_expect_error(ses, "SELECT 'ab' LIKE 'a!' ESCAPE '!'", "22025");
  en_expect_error(ses, "SELECT 'ab' LIKE 'a' ESCAPE 'xy'", "22025");
  en_expect_error(ses, "SELECT v FROM lk WHERE v LIKE v ESCAPE '!'", "0A000");
}

static void test_similar_to(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT 'abc' SIMILAR TO 'abc', 'abc' SIMILAR TO 'a', 'abc' SIMILAR TO '%(b|d)%'",
              "t|f|t");
  en_expect_rows(ses, "SELECT 'a.c' SIMILAR TO 'a.c', 'abc' SIMILAR TO 'a.c', 'abc' SIMILAR TO 'a_c'",
              "t|f|t");
  en_expect_rows(ses, "SELECT 'a%c' SIMILAR TO 'a#%c' ESCAPE '#', 'abc' SIMILAR TO 'a#%c' ESCAPE '#'",
              "t|f");
  en_expect_rows(ses, "SELECT 'ab' SIMILAR TO '[a-c]+', 'ad' SIMILAR TO '[a-c]+', 'x$' SIMILAR TO 'x$'",
              "t|f|t");
  en_expect_rows(ses, "SELECT 'aaa' SIMILAR TO 'a{2,3}', 'abc' NOT SIMILAR TO '_b_'", "t|f");
  en_expect_rows(ses, "SELECT NULL SIMILAR TO 'a', 'a' SIMILAR TO NULL", "NULL|NULL");
  en_exec(ses, "CREATE TABLE st(v text)");
  en_exec(ses, "INSERT INTO st VALUES ('foo'), ('bar'), ('baz'), (NULL)");
  en_expect_rows(ses, "SELECT v FROM st WHERE v SIMILAR TO 'ba(r|z)' ORDER BY v", "bar\nbaz");
  en_expect_rows(ses, "SELECT v FROM st WHERE v NOT SIMILAR TO 'ba%' ORDER BY v", "foo");
  en_expect_error(ses, "SELECT v FROM st WHERE v SIMILAR TO v", "0A000");
  en_expect_error(ses, "SELECT 'a' SIMILAR TO 'a!' ESCAPE '!'", "22025");
}

static void test_interval(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT date '1998-12-01' - interval '90' day", "1998-09-02 00:00:00");
  en_expect_rows(ses, "SELECT date '1993-07-01' + interval '3' month, interval '1' year + date '1994-01-01'",
              "1993-10-01 00:00:00|1995-01-01 00:00:00");
  /* the day is clamped to the month's end, months before days */
  en_expect_rows(ses, "SELECT date '2024-01-31' + interval '1 month', date '2023-01-31' + interval '1 "
              "month 1 day'",
              "2024-02-29 00:00:00|2023-03-01 00:00:00");
  en_expect_rows(ses, "SELECT timestamp '2020-01-01 10:00:00' + interval '1 day 02:30:00', "
              "date '2020-03-01' - interval '1 hour'",
              "2020-01-02 12:30:00|2020-02-29 23:00:00");
  en_expect_rows(ses, "SELECT date '2020-01-10' + interval '-1 week', date '2020-01-10' + interval "
              "'@ 2 days ago'",
              "2020-01-03 00:00:00|2020-01-08 00:00:00");
  en_expect_rows(ses, "SELECT CAST(NULL AS date) + interval '1 day'", "NULL");
  en_exec(ses, "CREATE TABLE iv(a int, d date)");
  en_exec(ses, "INSERT INTO iv VALUES (1, date '2020-01-01'), (2, date '2020-02-01'), (3, NULL)");
  en_expect_rows(ses, "SELECT a FROM iv WHERE d < date '2020-01-01' + interval '1' month ORDER BY a",
                 "1");
  /* an ordinary typed operator: any date, any interval */
  en_expect_rows(ses, "SELECT a, d + interval '10' day FROM iv ORDER BY a",
              "1|2020-01-11 00:00:00\n2|2020-02-11 00:00:00\n3|NULL");
  en_expect_rows(ses, "SELECT a, d + interval '1' month FROM iv ORDER BY a",
              "1|2020-02-01 00:00:00\n2|2020-03-01 00:00:00\n3|NULL");
  en_expect_rows(ses, "SELECT interval '1 day'", "1 day");
  en_expect_error(ses, "SELECT date '2020-01-01' + interval 'soon'", "22007");
  en_expect_error(ses, "SELECT 1 + interval '1 day'", "42883");
  en_expect_error(ses, "SELECT date '2020-01-01' + interval '999999999 years'", "22008");
  en_expect_error(ses, "SELECT date '2020-01-01' + interval '99999999999 hours'", "22015");
  en_expect_error(ses, "SELECT date '2020-01-01' + interval '2000000 hours' * 100000", "22008");
  en_expect_error(ses, "SELECT date '2020-01-01' + interval '9999999999999999999:00'", "22015");
}

static void test_more_forms(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE mf(a int, d date)");
  en_exec(ses, "INSERT INTO mf VALUES (1, date '2020-01-01'), (5, date '2020-03-01'), (NULL, NULL)");
  en_expect_rows(ses, "SELECT a FROM mf WHERE a BETWEEN SYMMETRIC 6 AND 4", "5");
  en_expect_rows(ses, "SELECT a FROM mf WHERE a NOT BETWEEN SYMMETRIC 6 AND 4", "1");
  en_expect_rows(ses, "SELECT 5 BETWEEN SYMMETRIC 1 AND NULL, 0 BETWEEN SYMMETRIC 2 AND 1",
                 "NULL|f");
  en_expect_rows(ses, "SELECT a FROM mf WHERE a BETWEEN ASYMMETRIC 6 AND 4", "");
  en_expect_rows(ses, "TABLE mf ORDER BY a", "1|2020-01-01\n5|2020-03-01\nNULL|NULL");
  en_expect_rows(ses, "SELECT count(*) FROM ONLY mf", "3");
  en_expect_rows(ses, "SELECT a FROM mf WHERE d > date '2020-03-01' - '30 days'::interval", "5");
  en_expect_rows(ses, "SELECT date '2020-01-31' + CAST('1 month' AS interval)",
                 "2020-02-29 00:00:00");
  en_expect_error(ses, "SELECT a::interval FROM mf", "42846");
}

static void test_index_order(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE ix(a int, b text, c int)");
  en_exec(ses, "INSERT INTO ix VALUES (1, 'x', NULL), (2, NULL, 5), (3, 'z', 1), (4, 'y', 5)");
  en_exec(ses, "CREATE INDEX ix_a ON ix (a DESC, b ASC NULLS FIRST)");
  en_exec(ses, "CREATE UNIQUE INDEX ix_c ON ix USING btree (c DESC NULLS LAST, a)");
  en_expect_rows(ses, "SELECT a FROM ix WHERE a BETWEEN 2 AND 3 ORDER BY a DESC", "3\n2");
  en_expect_rows(ses, "SELECT a FROM ix WHERE a > 1 AND a < 4 ORDER BY a", "2\n3");
  en_expect_rows(ses, "SELECT a FROM ix WHERE a = 2 AND b IS NULL", "2");
  en_expect_rows(ses, "SELECT a FROM ix WHERE c = 5 ORDER BY a DESC", "4\n2");
  en_expect_rows(ses, "SELECT a FROM ix WHERE c >= 1 ORDER BY c DESC, a", "2\n4\n3");
  /* the keys are stored ascending, which is what pg_index says */
  en_expect_rows(ses, "SELECT indoption FROM pg_index WHERE indexrelid = 'ix_a'::regclass", "0 0");
  en_expect_error(ses, "CREATE UNIQUE INDEX ix_d ON ix (c DESC)", "23505");
  en_exec(ses, "DROP INDEX ix_a CASCADE");
  en_exec(ses, "DROP TABLE ix RESTRICT");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_power_and_functions, setup, teardown),
    cmocka_unit_test_setup_teardown(test_like_escape, setup, teardown),
    cmocka_unit_test_setup_teardown(test_similar_to, setup, teardown),
    cmocka_unit_test_setup_teardown(test_interval, setup, teardown),
    cmocka_unit_test_setup_teardown(test_more_forms, setup, teardown),
    cmocka_unit_test_setup_teardown(test_index_order, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
