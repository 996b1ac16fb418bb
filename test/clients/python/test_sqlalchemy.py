#!/usr/bin/python3
"""SQLAlchemy 1.4 (Debian python3-sqlalchemy) over psycopg2 against kid, as an
ORM application uses it.  Connects with libpq's environment (PGHOST, PGPORT,
PGUSER, PGDATABASE: an empty postgresql+psycopg2:// URL), which
test/server/60-client_python.sh sets to a fresh database with kid created.
Prints one "ok:"/"FAILED:" line per check (checks.py).

SQLAlchemy has no type for kid's: a column type is a UserDefinedType that
names the SQL type (the three lines of class Sno).  Values pass through to
psycopg2 unchanged, so ids are str and a datetime compared with an id column
is sent as '...'::timestamptz (psycopg2 writes it into the query).
"""

import datetime
import re
import sys

from checks import Checks, import_or_fail, minutes

checks = Checks("SQLAlchemy")
sqlalchemy = import_or_fail(checks, "sqlalchemy", "python3-sqlalchemy")
if sqlalchemy is None:
    sys.exit(checks.finish())

from sqlalchemy import Column, Text, create_engine, func, select, text  # noqa: E402
from sqlalchemy.orm import Session, declarative_base  # noqa: E402
from sqlalchemy.types import UserDefinedType  # noqa: E402


class Sno(UserDefinedType):
    cache_ok = True
    def get_col_spec(self, **kw): return "sno"  # noqa: E301, E704


Base = declarative_base()


class Event(Base):
    __tablename__ = "orm_event"
    id = Column(Sno, primary_key=True, server_default=text("sno_new()"))
    body = Column(Text)


engine = create_engine("postgresql+psycopg2://", future=True)

with checks.scenario("1. create_all, and an INSERT with the server default"):
    Base.metadata.create_all(engine)
    with engine.connect() as conn:
        checks.eq("1. create_all makes the column sno with DEFAULT sno_new()",
                  conn.execute(text("SELECT format_type(atttypid, atttypmod), pg_get_expr(adbin, adrelid) "
                                    "FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum "
                                    "WHERE attrelid = 'orm_event'::regclass AND attname = 'id'")).all(),
                  [("sno", "sno_new()")])
    with Session(engine) as session:
        event = Event(body="hello")
        session.add(event)
        session.flush()
        checks.eq("1. after flush the object has the id the server made, a str",
                  (type(event.id), bool(re.fullmatch("[2-9a-x]{16}", event.id or ""))), (str, True))
        hello_id = event.id
        session.commit()

with checks.scenario("2. look up by id, and a time range with aware datetimes"):
    with Session(engine) as session:
        checks.eq("2. session.get(Event, id) with the str id", session.get(Event, hello_id).body, "hello")
        session.add_all([Event(id=func.sno_new_with_time(minutes(n)), body=f"m{n}") for n in (0, 5, 10, 15)])
        session.flush()
        checks.eq("2. Event.id >= datetime, Event.id < datetime: exactly the rows of [00:05, 00:15)",
                  session.scalars(select(Event.body).where(Event.id >= minutes(5), Event.id < minutes(15))
                                  .order_by(Event.id)).all(), ["m5", "m10"])
        checks.eq("2. id::timestamptz (func.sno_to_timestamp) comes back as the aware datetime",
                  session.scalar(select(func.sno_to_timestamp(Event.id)).where(Event.body == "m5")), minutes(5))
        ids = session.scalars(select(Event.id).where(Event.body.in_(["m0", "m15"])).order_by(Event.id)).all()
        checks.eq("2. Event.id.in_(list of str)",
                  session.scalars(select(Event.body).where(Event.id.in_(ids)).order_by(Event.id)).all(), ["m0", "m15"])
        session.commit()

with checks.scenario("3. a bad id"):
    def bad_lookup():
        with Session(engine) as session:
            session.get(Event, "not-an-id")
    # SQLAlchemy wraps the driver's error; its .orig is psycopg2's, with diag.
    try:
        bad_lookup()
        checks.fail("3. session.get with 'not-an-id': 22P02 and the sno message", "no error")
    except sqlalchemy.exc.DataError as e:
        checks.eq("3. session.get with 'not-an-id': 22P02 and the sno message",
                  (e.orig.diag.sqlstate, e.orig.diag.message_primary),
                  ("22P02", 'invalid input syntax for type sno: "not-an-id"'))

engine.dispose()
sys.exit(checks.finish())
