from django.db import models

from .fields import SnoField


class Event(models.Model):
    id = SnoField(primary_key=True)
    body = models.TextField()


class Comment(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="comments")
    text = models.TextField()
