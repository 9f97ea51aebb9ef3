"""The learning benchmark: simulated learners drilling the bundled snippets through the app's memory code."""
