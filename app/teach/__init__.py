"""What teachers do: publish snippets, measure their checks, see their classes."""
