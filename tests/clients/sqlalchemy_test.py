#!/usr/bin/env python3
"""SQLAlchemy 2 through the psycopg dialect against the server in $PG*
(issue 11 item 8): create_all of a schema with identity and serial keys,
foreign keys (ON DELETE CASCADE), a unique constraint, a CHECK, an index
and a view; the inspector's table and view names, view definition,
foreign keys and CHECK constraints; an ORM session with relationships:
insert, query with joins, update, delete with cascade. Reflection calls
Cadenza cannot answer yet are listed in known_gaps (XFAIL lines; one that
starts to work fails the test). Tables are named sqla_* and dropped at the end. Prints
PASS/FAIL lines and "N passed, N failed"; exit 0 when nothing failed."""
import os
import sys

import sqlalchemy as sa
from sqlalchemy import orm

passed = failed = 0


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {why}")


def url():
    e = os.environ
    return sa.engine.URL.create("postgresql+psycopg", username=e["PGUSER"], password=e["PGPASSWORD"],
                                host=e["PGHOST"], port=int(e["PGPORT"]), database=e["PGDATABASE"])


class Base(orm.DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "sqla_author"
    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, sa.Identity(), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(60), unique=True)
    books: orm.Mapped[list["Book"]] = orm.relationship(back_populates="author",
                                                       cascade="all, delete-orphan",
                                                       passive_deletes=True)


class Book(Base):
    __tablename__ = "sqla_book"
    id: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)  # serial
    author_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey("sqla_author.id", ondelete="CASCADE"), index=True)
    title: orm.Mapped[str] = orm.mapped_column(sa.Text)
    price: orm.Mapped[float | None] = orm.mapped_column(sa.Numeric(8, 2))
    published: orm.Mapped[sa.DateTime | None] = orm.mapped_column(sa.DateTime(timezone=True))
    author: orm.Mapped[Author] = orm.relationship(back_populates="books")
    __table_args__ = (sa.UniqueConstraint("author_id", "title", name="sqla_book_author_title"),
                      sa.CheckConstraint("price >= 0", name="sqla_book_price_check"))


def drop_all(eng):
    with eng.begin() as c:
        c.execute(sa.text("DROP VIEW IF EXISTS sqla_book_view"))
    Base.metadata.drop_all(eng)


def main():
    eng = sa.create_engine(url())
    drop_all(eng)
    try:
        Base.metadata.create_all(eng)
        with eng.begin() as c:
            c.execute(sa.text("CREATE VIEW sqla_book_view AS SELECT b.title, a.name FROM sqla_book b "
                              "JOIN sqla_author a ON a.id = b.author_id"))
        check("create_all and a view", True)

        # ---- reflection
        insp = sa.inspect(eng)
        check("inspect: table names", {"sqla_author", "sqla_book"} <= set(insp.get_table_names()),
              insp.get_table_names())
        check("inspect: views", "sqla_book_view" in insp.get_view_names(), insp.get_view_names())
        vd = insp.get_view_definition("sqla_book_view")
        check("inspect: view definition", bool(vd) and "sqla_author" in vd, vd)
        fks = insp.get_foreign_keys("sqla_book")
        check("inspect: foreign key", len(fks) == 1 and fks[0]["referred_table"] == "sqla_author" and
              fks[0]["constrained_columns"] == ["author_id"] and
              fks[0]["referred_columns"] == ["id"] and fks[0]["options"].get("ondelete") == "CASCADE",
              fks)
        cks = {c["name"]: c["sqltext"] for c in insp.get_check_constraints("sqla_book")}
        check("inspect: check constraints",  # PostgreSQL shows the constant as 0::numeric
              (cks.get("sqla_book_price_check") or "").startswith("price >= 0"), cks)

        def pk_ok():
            pk = insp.get_pk_constraint("sqla_book")
            return pk["constrained_columns"] == ["id"], pk

        def uq_ok():
            uqs = {u["name"]: u["column_names"] for u in insp.get_unique_constraints("sqla_book")}
            return uqs.get("sqla_book_author_title") == ["author_id", "title"], uqs

        def idx_ok():
            idx = {i["name"]: i for i in insp.get_indexes("sqla_book")}
            i = idx.get("ix_sqla_book_author_id")
            return bool(i) and i["column_names"] == ["author_id"] and not i["unique"], idx

        def columns_ok():
            cols = {c["name"]: c for c in insp.get_columns("sqla_author")}
            bcols = {c["name"]: c for c in insp.get_columns("sqla_book")}
            ok = (cols["id"].get("identity", {}).get("always") is False and
                  bcols["id"]["autoincrement"] is True and "nextval" in str(bcols["id"]["default"]) and
                  not bcols["title"]["nullable"] and bcols["price"]["nullable"] and
                  isinstance(bcols["price"]["type"], sa.Numeric) and
                  bcols["price"]["type"].precision == 8 and bcols["price"]["type"].scale == 2 and
                  isinstance(bcols["published"]["type"], sa.DateTime) and
                  bcols["published"]["type"].timezone)
            return ok, (cols, bcols)

        def reflect_ok():
            md = sa.MetaData()
            md.reflect(eng, only=["sqla_author", "sqla_book"], views=True)
            b = md.tables["sqla_book"]
            fk = list(b.foreign_keys)
            ok = ([c.name for c in b.columns] == ["id", "author_id", "title", "price", "published"] and
                  [c.name for c in b.primary_key] == ["id"] and len(fk) == 1 and
                  fk[0].target_fullname == "sqla_author.id" and fk[0].ondelete == "CASCADE")
            return ok, list(md.tables)

        # (Primary key, unique and index reflection use unnest /
        # generate_subscripts in a select list, array_agg(… ORDER BY …) and
        # arrays described as array types; column reflection uses
        # json_build_object, whose json result (OID 114) psycopg turns into
        # the dict the dialect reads.) A known gap that starts to work fails
        # the test until it is moved up into the checks above.
        known_gaps = {}
        with eng.connect() as c:
            if "cadenza" not in c.scalar(sa.text("SELECT version()")):
                known_gaps = {}  # PostgreSQL answers them all
        for name, fn in [("inspect: primary key constraint", pk_ok),
                         ("inspect: unique constraints", uq_ok), ("inspect: indexes", idx_ok),
                         ("inspect: columns (identity, serial, types, nullability)", columns_ok),
                         ("MetaData.reflect", reflect_ok)]:
            try:
                ok, got = fn()
                err = None
            except sa.exc.DBAPIError as ex:
                ok, got, err = False, None, str(ex.orig).splitlines()[0]
            if name in known_gaps:
                if ok:
                    check(name, False, "works now: move it from known_gaps into the checks")
                else:
                    print(f"XFAIL {name}: known gap ({known_gaps[name]}): {err or got}")
            else:
                check(name, ok, err or got)

        # ---- the ORM
        with orm.Session(eng) as s:
            ann = Author(name="Ann", books=[Book(title="One", price=10), Book(title="Two", price=5.5)])
            bob = Author(name="Bob", books=[Book(title="Three")])
            s.add_all([ann, bob])
            s.commit()
            check("ORM insert: generated keys", ann.id is not None and bob.id == ann.id + 1 and
                  all(bk.id for bk in ann.books), (ann.id, bob.id))
        with orm.Session(eng) as s:
            rows = s.execute(sa.select(Author.name, Book.title).join(Author.books)
                             .order_by(Author.name, Book.title)).all()
            check("ORM query with a join", [tuple(r) for r in rows] ==
                  [("Ann", "One"), ("Ann", "Two"), ("Bob", "Three")], rows)
            a1 = s.scalars(sa.select(Author).where(Author.name == "Ann")
                           .options(orm.selectinload(Author.books))).one()
            check("ORM relationship load", sorted(bk.title for bk in a1.books) == ["One", "Two"],
                  a1.books)
            total = s.scalar(sa.select(sa.func.sum(Book.price)).join(Book.author)
                             .where(Author.name == "Ann"))
            check("ORM aggregate over a join", float(total) == 15.5, total)
            a1.books[0].price = 12
            a1.name = "Anne"
            s.commit()
        with orm.Session(eng) as s:
            a1 = s.scalars(sa.select(Author).where(Author.name == "Anne")).one()
            check("ORM update", sorted(float(bk.price) for bk in a1.books) in ([5.5, 12.0],),
                  [bk.price for bk in a1.books])
            s.delete(a1)
            s.commit()
        with orm.Session(eng) as s:
            n_auth = s.scalar(sa.select(sa.func.count()).select_from(Author))
            titles = s.scalars(sa.select(Book.title)).all()
            check("ORM delete cascades", n_auth == 1 and titles == ["Three"], (n_auth, titles))
        with eng.begin() as c:
            c.execute(sa.delete(Author).where(Author.name == "Bob"))  # ON DELETE CASCADE in the server
            n = c.scalar(sa.select(sa.func.count()).select_from(Book))
        check("server-side ON DELETE CASCADE", n == 0, n)
    except Exception as ex:  # a failure the checks did not expect: report it
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}")
    finally:
        try:
            drop_all(eng)
        except Exception as ex:
            check("drop the test tables", False, ex)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
