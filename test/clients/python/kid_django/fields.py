"""An sno primary key that the database makes, for Django (docs/clients.md,
Django).  Django 3.2 and 4.2 have no database default of their own (5.0's
db_default), and give a model field nothing to insert only when it is the
model's AutoField: then an INSERT leaves the column out and reads it back
with RETURNING.  So SnoField is an AutoField whose column is an sno with
DEFAULT sno_new(), whose values are strings (and datetimes, to compare with)."""

from django.db import models
from django.utils.functional import cached_property


class SnoField(models.AutoField):
    def db_type(self, connection):
        return "sno DEFAULT sno_new()"

    def rel_db_type(self, connection):  # a foreign key to it
        return "sno"

    def cast_db_type(self, connection):  # Django 5.2 casts a join's key to it
        return "sno"

    def get_internal_type(self):  # not "AutoField": no serial, no identity
        return "SnoField"

    def get_prep_value(self, value):  # an id as str, or a datetime, as given
        return value

    def to_python(self, value):
        return value

    @cached_property
    def validators(self):  # no integer range
        return []
