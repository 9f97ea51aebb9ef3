"""What a learner does: drills, grading, feedback and the credit a passing run may give."""
