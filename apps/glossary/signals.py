"""What the glossary tells other apps. Chapters mark glossary terms in their rendered bodies, so the courses app
listens for term changes and re-renders the chapters that mention them (the glossary knows nothing of chapters)."""

from django.dispatch import Signal

# Sent with names=[every old and new name and alias of the term] after a term is saved or deleted.
term_names_changed = Signal()
