"""Snippet files and what is known of them: parsing, validation, the library served, mutants and
the check's strength. May import engine, sandbox and i18n; never the database or anything above it.
"""
