"""Learner memory: who a learner is, what they practised, what they are forgetting, what is due."""
