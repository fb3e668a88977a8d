"""spaCy pipeline components. Registrations live in `factories.py`, classes in their own modules."""
