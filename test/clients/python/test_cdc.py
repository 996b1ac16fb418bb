#!/usr/bin/python3
"""What a change-data-capture consumer receives for kid's types and uuid
(docs/cdc.md), run by test/server/67-cdc.sh on a server with wal_level =
logical; libpq's environment names the database.  Prints one "ok:"/"FAILED:"
line per check (checks.py).

A row with a column of every kid type and a uuid goes through each decoder
Debian ships: pgoutput read by a real logical replication client (psycopg2's
LogicalReplicationConnection, the messages parsed as the protocol says), in
text and in binary mode; test_decoding; wal2json (format 2) where
WAL2JSON=1.  Each must give every column, with the value kid's output (text)
or send (binary) function makes.  Then the commit horizon through the
stream: a transactional message carrying sno_safe_horizon() arrives after
every row with an sno below it."""

import os
import select
import struct
import sys
import time

from checks import Checks, import_or_fail

checks = Checks("CDC")
psycopg2 = import_or_fail(checks, "psycopg2", "python3-psycopg2")
if psycopg2 is None:
    sys.exit(checks.finish())
import psycopg2.extras  # noqa: E402

COLUMNS = ["id", "tid", "koid", "uid", "gid", "uuid"]
TYPES = ["sno", "atproto_tid", "koid", "uid", "uid_global", "uuid"]
KID_TYPES = TYPES[:5]

conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()


def rows(sql, params=None):
    cur.execute(sql, params)
    return cur.fetchall()


cur.execute("CREATE TABLE cdc_ids (id sno PRIMARY KEY DEFAULT sno_new(), tid atproto_tid DEFAULT tid_new(),"
            " koid koid DEFAULT koid_new(), uid uid DEFAULT uid_new(), gid uid_global DEFAULT uid_global_new(),"
            " uuid uuid DEFAULT uuidv7_new())")
cur.execute("CREATE PUBLICATION cdc_pub FOR TABLE cdc_ids")
slots = ["po_text", "po_binary", "td"] + (["wj"] if os.environ.get("WAL2JSON") == "1" else [])
for slot, plugin in zip(slots, ["pgoutput", "pgoutput", "test_decoding", "wal2json"]):
    cur.execute("SELECT pg_create_logical_replication_slot(%s, %s)", [slot, plugin])
# Two rows and two horizons, made to happen: a transaction makes row A and
# stays open while row B commits; a horizon is emitted, then A commits, then
# another horizon.  The horizon rides the stream as a transactional message,
# read in a transaction that commits after every id below it did.
EMIT = "SELECT pg_logical_emit_message(true, 'kid.horizon', sno_safe_horizon()::text)"
slow = psycopg2.connect("")
slow_cur = slow.cursor()
slow_cur.execute("INSERT INTO cdc_ids DEFAULT VALUES RETURNING id::text")
a = slow_cur.fetchone()[0]
cur.execute("INSERT INTO cdc_ids DEFAULT VALUES RETURNING id::text")
b = cur.fetchone()[0]
time.sleep(0.01)  # sno's horizon is a 4 ms unit of the clock: B's unit is over
cur.execute(EMIT)
slow.commit()
slow.close()
time.sleep(0.01)
cur.execute(EMIT)
TEXT = "SELECT id::text, tid::text, koid::text, uid::text, gid::text, uuid::text FROM cdc_ids WHERE id = %s::sno"
BINARY = ("SELECT id::bytea, tid::bytea, koid::bytea, uid::bytea, gid::bytea, decode(replace(uuid::text, '-', ''), 'hex')"
          " FROM cdc_ids WHERE id = %s::sno")
text_rows = {x: list(rows(TEXT, [x])[0]) for x in (a, b)}
binary_rows = {x: [bytes(v) for v in rows(BINARY, [x])[0]] for x in (a, b)}
type_oids = dict(rows("SELECT typname, oid::int FROM pg_type WHERE typname = ANY(%s)", [TYPES]))


class Reader:
    """A pgoutput message, read field by field as the protocol lays it out."""
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        v = struct.unpack_from("!" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("!" + fmt)
        return v[0] if len(v) == 1 else v

    def string(self):
        end = self.data.index(b"\0", self.pos)
        s = self.data[self.pos:end].decode()
        self.pos = end + 1
        return s

    def bytes(self, n):
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b


def pgoutput(slot, binary):
    """The messages of the first transactions on the slot, up to the horizon
    message's commit: {'relation': ..., 'types': [...], 'insert': [...], 'message': ...}."""
    rconn = psycopg2.connect("", connection_factory=psycopg2.extras.LogicalReplicationConnection)
    rcur = rconn.cursor()
    rcur.start_replication(slot_name=slot, decode=False, options={
        "proto_version": "1", "publication_names": "cdc_pub", "messages": "true", "binary": "true" if binary else "false"})
    got = {"types": [], "inserts": [], "stream": []}
    messages = 0
    deadline = time.time() + 30
    while time.time() < deadline:
        msg = rcur.read_message()
        if msg is None:
            select.select([rcur], [], [], 1)
            continue
        r = Reader(msg.payload)
        kind = chr(r.take("B"))
        if kind == "R":
            relid, ns, name, _ident, n = r.take("I"), r.string(), r.string(), r.take("B"), r.take("H")
            got["relation"] = (ns, name, [(r.take("B"), r.string(), r.take("I"), r.take("i"))[1:3] for _ in range(n)])
        elif kind == "Y":
            got["types"].append((r.take("I"), r.string(), r.string()))
        elif kind == "I":
            r.take("I")
            assert chr(r.take("B")) == "N"
            values = []
            for _ in range(r.take("H")):
                k = chr(r.take("B"))
                values.append((k, r.bytes(r.take("I")) if k in "tb" else None))
            got["inserts"].append(values)
            got["stream"].append(("row", len(got["inserts"]) - 1))
        elif kind == "M":
            r.take("B")
            r.take("Q")
            prefix = r.string()
            got["stream"].append((prefix, r.bytes(r.take("I")).decode()))
            messages += 1
        elif kind == "C" and messages == 2:
            break
    rconn.close()
    return got


def horizon_holds(stream, ids):
    """For every horizon message, each row whose id is below it came before
    it in the stream: the list of (horizon, ids below it, ids before it)
    where the two differ."""
    bad = []
    for i, (what, value) in enumerate(stream):
        if what != "kid.horizon":
            continue
        below = {x for x in ids if rows("SELECT %s::sno < %s::sno", [x, value])[0][0]}
        before = {ids[v] for w, v in stream[:i] if w == "row"}
        if not below <= before:
            bad.append((value, sorted(below), sorted(before)))
    return bad


with checks.scenario("pgoutput, text"):
    got = pgoutput("po_text", False)
    checks.eq("pgoutput text: the Relation message names every column with its type's OID",
              got.get("relation"), ("public", "cdc_ids", [(c, type_oids[t]) for c, t in zip(COLUMNS, TYPES)]))
    checks.eq("pgoutput text: a Type message names each kid type (schema and name), none for uuid",
              sorted(got["types"]), sorted((type_oids[t], "public", t) for t in KID_TYPES))
    order = [text_rows[b], text_rows[a]]
    checks.eq("pgoutput text: the Inserts, in commit order (B, then A), carry every column as text, the type's text form",
              got["inserts"], [[("t", v.encode()) for v in row] for row in order])
    ids = [b, a]
    stream = [(w, v) for w, v in got["stream"]]
    checks.eq("pgoutput text: the stream is row B, a horizon, row A, a horizon", [w for w, _v in stream],
              ["row", "kid.horizon", "row", "kid.horizon"])
    checks.eq("pgoutput text: the first horizon was held at or below row A's id while A's transaction was open",
              rows("SELECT %s::sno <= %s::sno", [stream[1][1], a])[0][0], True)
    checks.eq("pgoutput text: every row below a horizon came before it in the stream, and both rows are below the second",
              (horizon_holds(stream, ids), rows("SELECT %s::sno < %s::sno AND %s::sno < %s::sno", [a, stream[3][1], b, stream[3][1]])[0][0]),
              ([], True))
    horizons = [v for w, v in stream if w == "kid.horizon"]

with checks.scenario("pgoutput, binary"):
    got = pgoutput("po_binary", True)
    checks.eq("pgoutput binary: the Inserts carry every column in binary, kid's send form (the id's bytes; uuid's 16)",
              got["inserts"], [[("b", v) for v in binary_rows[x]] for x in (b, a)])
    checks.eq("pgoutput binary: byte lengths sno 10, atproto_tid 8, koid 8, uid 8, uid_global 12, uuid 16",
              [len(v) for _k, v in got["inserts"][0]], [10, 8, 8, 8, 12, 16])

with checks.scenario("test_decoding"):
    data = [r[0] for r in rows("SELECT data FROM pg_logical_slot_get_changes('td', NULL, NULL, 'include-xids', '0')")]
    insert = lambda row: "table public.cdc_ids: INSERT: " + " ".join(  # noqa: E731
        f"{c}[{t}]:'{v}'" for c, t, v in zip(COLUMNS, TYPES, row))
    message = lambda h: f"message: transactional: 1 prefix: kid.horizon, sz: 16 content:{h}"  # noqa: E731
    checks.eq("test_decoding: each INSERT line names each column's type and quotes its text form; the horizon messages between",
              data, ["BEGIN", insert(text_rows[b]), "COMMIT", "BEGIN", message(horizons[0]), "COMMIT",
                     "BEGIN", insert(text_rows[a]), "COMMIT", "BEGIN", message(horizons[1]), "COMMIT"])

if "wj" in slots:
    with checks.scenario("wal2json"):
        import json
        changes = [json.loads(r[0]) for r in rows(
            "SELECT data FROM pg_logical_slot_get_changes('wj', NULL, NULL, 'format-version', '2', 'include-types', 'true')")]
        inserts = [c for c in changes if c["action"] == "I"]
        checks.eq("wal2json (format 2): every column with its type name and its text form as a JSON string",
                  [[(col["name"], col["type"], col["value"]) for col in c["columns"]] for c in inserts],
                  [list(zip(COLUMNS, TYPES, text_rows[x])) for x in (b, a)])
        checks.eq("wal2json: the horizon messages, in the stream's order",
                  [(c["action"], c.get("content")) for c in changes if c["action"] in "IM"],
                  [("I", None), ("M", horizons[0]), ("I", None), ("M", horizons[1])])

for slot in slots:
    cur.execute("SELECT pg_drop_replication_slot(%s)", [slot])
sys.exit(checks.finish())
