"""codecloze as an LTI 1.3 tool: platforms an admin registers, launches from them that sign LMS
users in, deep links that make assignments, and grades sent back through AGS (PyLTI1p3)."""
