"""What-if questions: sensitivity, chip ranking, fast modes and drafts."""
