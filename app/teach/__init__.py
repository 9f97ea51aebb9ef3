"""What teachers do: bring a course, assign work to classes."""
