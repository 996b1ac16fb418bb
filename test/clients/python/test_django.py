#!/usr/bin/python3
"""Django (Debian python3-django: 3.2 on Debian 12, 4.2 on Debian 13) against
kid, as a Django project uses it: the app kid_django (models.py, fields.py
and the migration makemigrations wrote from them) migrated into the
database libpq's environment names (PGHOST, PGPORT, PGUSER, PGDATABASE;
test/server/65-client_orm.sh sets them to a fresh database with kid created).
Prints one "ok:"/"FAILED:" line per check (checks.py).  Django 3.2
connects through psycopg2, 4.2 through psycopg 3 where it is installed.

The recipe (docs/clients.md, Django) is kid_django/fields.py: an AutoField
whose column is sno DEFAULT sno_new(), so that Django leaves the id out of
an INSERT and reads it back with RETURNING (the natural first try, a
CharField primary key, sends '' for an unset id: 22P02)."""

import datetime
import os
import re
import sys

from checks import Checks, error_fields, import_or_fail

checks = Checks("Django")
django = import_or_fail(checks, "django", "python3-django")
if django is None:
    sys.exit(checks.finish())

from django.conf import settings  # noqa: E402

settings.configure(
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": os.environ["PGDATABASE"],
                           "HOST": os.environ["PGHOST"], "PORT": os.environ["PGPORT"], "USER": os.environ["PGUSER"]}},
    INSTALLED_APPS=["kid_django"], USE_TZ=True, TIME_ZONE="UTC",
    DEFAULT_AUTO_FIELD="django.db.models.BigAutoField")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import DateTimeField, F, Func, Value  # noqa: E402
from django.utils import timezone  # noqa: E402

from kid_django.fields import SnoField  # noqa: E402
from kid_django.models import Comment, Event  # noqa: E402

SNO = re.compile("[2-9a-x]{16}")
T0 = datetime.datetime(2026, 1, 10, tzinfo=datetime.timezone.utc)


def minutes(n):
    return T0 + datetime.timedelta(minutes=n)


def sql(query, params=None):
    with connection.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchall()


with checks.scenario("1. the migration"):
    def no_changes():
        try:
            call_command("makemigrations", "kid_django", check=True, dry_run=True, verbosity=0)
            return True
        except SystemExit:
            return False
    checks.eq("1. makemigrations --check: the committed migration is the models' (no change)", no_changes(), True)
    call_command("migrate", "kid_django", verbosity=0)
    checks.eq("1. migrate made event.id sno DEFAULT sno_new(), the primary key, and comment.event_id an sno foreign key to it",
              sql("SELECT a.attrelid::regclass::text, a.attname, format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)"
                  " FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                  " WHERE (a.attrelid, a.attname) IN (('kid_django_event'::regclass, 'id'), ('kid_django_comment'::regclass, 'event_id'))"
                  " ORDER BY 1, 2")
              + sql("SELECT contype::text, pg_get_constraintdef(oid) FROM pg_constraint"
                    " WHERE conrelid = 'kid_django_comment'::regclass AND contype = 'f'"),
              [("kid_django_comment", "event_id", "sno", None),
               ("kid_django_event", "id", "sno", "sno_new()"),
               ("f", "FOREIGN KEY (event_id) REFERENCES kid_django_event(id) DEFERRABLE INITIALLY DEFERRED")])

with checks.scenario("2. insert with the database DEFAULT, read back"):
    hello = Event.objects.create(body="hello")
    checks.eq("2. create(): the object has the id the server made, a str of 16 sno characters",
              (type(hello.id), bool(SNO.fullmatch(hello.id or ""))), (str, True))
    checks.eq("2. the INSERT left the id to the DEFAULT (the row's id is the one read back)",
              sql("SELECT id::text FROM kid_django_event WHERE body = 'hello'"), [(hello.id,)])
    checks.eq("2. objects.get(pk=id) with the str id", Event.objects.get(pk=hello.id).body, "hello")
    second = Event(body="second")
    second.save()
    checks.eq("2. save() of a new object: a later id than the first", second.id > hello.id, True)

with checks.scenario("3. filter by time"):
    # Backfilled rows, made with given times by the database (an expression as the id).
    for n in (0, 5, 10, 15):
        Event.objects.create(id=Func(Value(minutes(n)), function="sno_new_with_time", output_field=SnoField()),
                             body=f"m{n}")
    checks.eq("3. filter(id__gte=datetime, id__lt=datetime): exactly the rows of [00:05, 00:15)",
              list(Event.objects.filter(id__gte=minutes(5), id__lt=minutes(15)).order_by("id")
                   .values_list("body", flat=True)), ["m5", "m10"])
    checks.eq("3. filter(id__gte=now - 1 hour): the two rows made now",
              sorted(Event.objects.filter(id__gte=timezone.now() - datetime.timedelta(hours=1))
                     .values_list("body", flat=True)), ["hello", "second"])
    made = Event.objects.annotate(made=Func(F("id"), function="sno_to_timestamp", output_field=DateTimeField())) \
        .get(body="m5").made
    checks.eq("3. sno_to_timestamp(id) as an annotation: the aware datetime", made, minutes(5))
    ids = list(Event.objects.filter(body__in=["m0", "m15"]).values_list("id", flat=True))
    checks.eq("3. filter(id__in=list of str)",
              list(Event.objects.filter(id__in=ids).order_by("id").values_list("body", flat=True)), ["m0", "m15"])

with checks.scenario("4. a foreign key"):
    Comment.objects.create(event=hello, text="c1")
    Comment.objects.create(event_id=hello.id, text="c2")
    Comment.objects.create(event=Event.objects.get(body="m5"), text="c3")
    checks.eq("4. filter across the foreign key (a join): comments of events of [00:00, 00:10)",
              list(Comment.objects.filter(event__id__gte=minutes(0), event__id__lt=minutes(10))
                   .values_list("text", flat=True)), ["c3"])
    checks.eq("4. select_related: the comment's event, read in the same query",
              [(c.text, c.event.body, c.event.id == hello.id)
               for c in Comment.objects.select_related("event").filter(event__body="hello").order_by("text")],
              [("c1", "hello", True), ("c2", "hello", True)])
    checks.eq("4. the reverse relation: hello.comments", sorted(hello.comments.values_list("text", flat=True)), ["c1", "c2"])

with checks.scenario("5. a bad id"):
    from django.db import DataError, transaction
    try:
        with transaction.atomic():
            Event.objects.get(pk="not-an-id")
        checks.fail("5. get(pk='not-an-id'): DataError 22P02 naming sno", "no error")
    except DataError as e:
        checks.eq("5. get(pk='not-an-id'): DataError 22P02 naming sno",
                  (error_fields(e.__cause__)[0], str(e).splitlines()[0]),
                  ("22P02", 'invalid input syntax for type sno: "not-an-id"'))

sys.exit(checks.finish())
